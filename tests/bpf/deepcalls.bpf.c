/* deepcalls: refused on purpose. Eight functions each calling the next make nine frames with the
 * program's own, one more than the 8 Linux allows: "the call stack of 9 frames is too deep". */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define LEVEL(n, next)                                                                             \
	static __attribute__((noinline)) __u64 f##n(__u64 x)                                       \
	{                                                                                          \
		return next(x + 1) * 3;                                                            \
	}

static __attribute__((noinline)) __u64 f8(__u64 x)
{
	return x * 2;
}
LEVEL(7, f8)
LEVEL(6, f7)
LEVEL(5, f6)
LEVEL(4, f5)
LEVEL(3, f4)
LEVEL(2, f3)
LEVEL(1, f2)

SEC("tracepoint/syscalls/sys_enter_getppid")
int too_deep(void *ctx)
{
	return f1(bpf_get_smp_processor_id()) & 1;
}

char LICENSE[] SEC("license") = "GPL";
