/* readlat: a kprobe and a kretprobe on file_read(): the entry's time kept per thread, the return's
 * latency counted in a log2 histogram (an array map of 32 buckets, bucket n: [2^n, 2^(n+1)) ns). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 32);
	__type(key, __u32);
	__type(value, __u64);
} hist SEC(".maps");

SEC("kprobe/file_read")
int read_entry(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();

	bpf_map_update_elem(&start, &id, &now, BPF_ANY);
	return 0;
}

SEC("kretprobe/file_read")
int read_return(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), *t = bpf_map_lookup_elem(&start, &id), delta, *slot;
	__u32 bucket = 0;

	if (!t)
		return 0;
	delta = bpf_ktime_get_ns() - *t;
	bpf_map_delete_elem(&start, &id);
	/* log2 by halving: five steps, so the verifier walks 32 paths at most */
	for (int shift = 16; shift; shift >>= 1)
		if (delta >> shift) {
			delta >>= shift;
			bucket += shift;
		}
	slot = bpf_map_lookup_elem(&hist, &bucket);
	if (slot)
		__sync_fetch_and_add(slot, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
