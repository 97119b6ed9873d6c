/* switchcount: a tracepoint program on sched:sched_switch counting switches to each pid in a hash
 * map, reading the record as the event's format file lays it out. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "sched_switch.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} switches SEC(".maps");

SEC("tracepoint/sched/sched_switch")
int count_switch(struct sched_switch_args *ctx)
{
	__u32 pid = ctx->next_pid;
	__u64 one = 1, *v = bpf_map_lookup_elem(&switches, &pid);

	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&switches, &pid, &one, BPF_NOEXIST);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
