/* getppidfentry: an empty fentry program on __x64_sys_getppid(), the getppid system call's function
 * here and on Linux: what `make bench` measures per call for the BPF trampoline, in both kernels. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("fentry/__x64_sys_getppid")
int getppid_entry(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
