/* readcount: a kprobe on file_read() (our read(2)'s door, where Linux has vfs_read()) counting calls
 * per process in a hash map. Built for Linux with clang -target bpf; loaded by bpfload through libbpf. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

SEC("kprobe/file_read")
int count_read(void *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	__u64 one = 1, *v = bpf_map_lookup_elem(&counts, &pid);

	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&counts, &pid, &one, BPF_NOEXIST);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
