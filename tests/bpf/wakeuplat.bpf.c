/* wakeuplat: histogram.rst's wakeup latency as a BPF program, to cross-check the hist recipe
 * (docs/22): sched_waking keeps the time per woken pid, the next sched_switch to that pid takes
 * it out and adds the wait to the pid's sum and count (hash maps, printed by bpfload). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "sched_switch.h"

/* events/sched/sched_waking/format, common fields first (sched_switch.h has the other). */
struct sched_waking_args {
	unsigned long long common;
	char comm[16];
	int pid, prio, target_cpu;
};

#define PID_MAP(name)                                                                              \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_HASH);                                                   \
		__uint(max_entries, 64);                                                           \
		__type(key, __u32);                                                                \
		__type(value, __u64);                                                              \
	} name SEC(".maps")

PID_MAP(woken);	 /* pid -> when it was woken (ns) */
PID_MAP(lat_ns); /* pid -> the sum of its waits (ns) */
PID_MAP(waits);	 /* pid -> how many waits */

static void add(void *map, __u32 *pid, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(map, pid);

	if (v)
		__sync_fetch_and_add(v, n);
	else
		bpf_map_update_elem(map, pid, &n, BPF_NOEXIST);
}

SEC("tracepoint/sched/sched_waking")
int on_waking(struct sched_waking_args *ctx)
{
	__u32 pid = ctx->pid;
	__u64 now = bpf_ktime_get_ns();

	bpf_map_update_elem(&woken, &pid, &now, BPF_ANY);
	return 0;
}

SEC("tracepoint/sched/sched_switch")
int on_switch(struct sched_switch_args *ctx)
{
	__u32 pid = ctx->next_pid;
	__u64 *t = bpf_map_lookup_elem(&woken, &pid), delta;

	if (!t)
		return 0;
	delta = bpf_ktime_get_ns() - *t;
	bpf_map_delete_elem(&woken, &pid);
	add(&lat_ns, &pid, delta);
	add(&waits, &pid, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
