/* printk: a tracepoint program on syscalls:sys_enter_getppid writing one bpf_printk() line per call
 * into the trace (trace_pipe shows it as Linux's bpf_trace_printk event), the way bpf_printk()
 * does. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("tracepoint/syscalls/sys_enter_getppid")
int say_getppid(void *ctx)
{
	/* "getppid from %d" built on the stack from two immediates, not kept in .rodata as
	 * bpf_printk() keeps it: libbpf maps a .rodata section with MAP_SHARED|MAP_ANONYMOUS, which
	 * this kernel's mmap() does not offer yet */
	__u64 fmt[2];

	fmt[0] = 0x2064697070746567ULL; /* "getppid " */
	asm volatile("" : : : "memory"); /* two stores, not a copy of a constant */
	fmt[1] = 0x6425206d6f7266ULL; /* "from %d\0" */

	bpf_trace_printk((const char *)fmt, sizeof(fmt), (int)(bpf_get_current_pid_tgid() >> 32));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
