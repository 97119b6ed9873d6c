/* switchbtf: a tp_btf program on sched_switch, the tracepoint's own arguments (preempt, prev, next)
 * as u64s, typed by the kernel's BTF (the typedef btf_trace_sched_switch). Per task switched out:
 * the switches, those whose prev and next were kernel addresses and different, and those whose
 * preempt argument was 0 or 1. Built for Linux with clang -target bpf; loaded by bpfload. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define PID_MAP(name)                                                                              \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_HASH);                                                   \
		__uint(max_entries, 64);                                                           \
		__type(key, __u32);                                                                \
		__type(value, __u64);                                                              \
	} name SEC(".maps")

PID_MAP(switched_out);
PID_MAP(task_args);
PID_MAP(preempt_args);

static void add(void *map, __u32 pid)
{
	__u64 one = 1, *v = bpf_map_lookup_elem(map, &pid);

	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(map, &pid, &one, BPF_NOEXIST);
}

SEC("tp_btf/sched_switch")
int on_switch(unsigned long long *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32; /* prev: the task switching out */

	add(&switched_out, pid);
	if (ctx[1] >= 0xffff800000000000ULL && ctx[2] >= 0xffff800000000000ULL && ctx[1] != ctx[2])
		add(&task_args, pid);
	if (ctx[0] <= 1)
		add(&preempt_args, pid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
