/* getppidcount: a tracepoint program on syscalls:sys_enter_getppid adding one to an array map
 * slot, the smallest useful program: what `make bench` measures per call, here and on Linux. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} calls SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_getppid")
int count_getppid(void *ctx)
{
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&calls, &key);

	if (v)
		__sync_fetch_and_add(v, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
