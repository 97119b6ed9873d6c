/* loopcall: a tracepoint program on syscalls:sys_enter_getppid with a bounded loop that calls a
 * subprogram (a bpf-to-bpf call) on each step and indexes a map value by a checked index: what
 * the verifier walks step by step (chapter 23, "Loops, calls and bounds"). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[16]);
} slots SEC(".maps");

/* A function of its own, not inlined: the loop reaches it through BPF_PSEUDO_CALL. */
static __attribute__((noinline)) __u64 square(__u64 x)
{
	return x * x;
}

static void add(__u32 key, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&results, &key);

	if (v)
		__sync_fetch_and_add(v, n);
}

SEC("tracepoint/syscalls/sys_enter_getppid")
int loop_and_call(void *ctx)
{
	__u64 sum = 0, *slot;
	__u32 key = 0, i, cpu;

	/* the loop's bound is a constant the compiler must not unroll away */
#pragma clang loop unroll(disable)
	for (i = 0; i < 31; i++)
		sum += square(i);
	add(0, 1);
	add(1, sum);
	/* an index the program only knows at run time, checked before it is used */
	cpu = bpf_get_smp_processor_id();
	slot = bpf_map_lookup_elem(&slots, &key);
	if (slot && cpu < 16) {
		slot[cpu] += 1;
		add(2, 1);
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
