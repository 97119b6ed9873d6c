/* uprobeargs: a uprobe and a uretprobe on bpfload's own probe_target(), reading its arguments, its
 * ip and its return value with bpf_tracing.h's BPF_KPROBE, PT_REGS_IP and BPF_KRETPROBE, which
 * assume Linux's struct pt_regs. Built for Linux with clang -target bpf; libbpf finds the
 * function's offset in the file itself and attaches through the uprobe PMU. */
#define __TARGET_ARCH_x86 /* what -D__TARGET_ARCH_x86 says for bpf_tracing.h */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* 0: calls, 1: sum of the first arguments, 2: of the second, 3: the last ip, 4: sum of returns */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 5);
	__type(key, __u32);
	__type(value, __u64);
} args SEC(".maps");

static __always_inline void add(__u32 key, __u64 v)
{
	__u64 *p = bpf_map_lookup_elem(&args, &key);

	if (p)
		__sync_fetch_and_add(p, v);
}

SEC("uprobe//tests/bpfload:probe_target")
int BPF_KPROBE(enter, long a, long b)
{
	__u32 key = 3;
	__u64 *ip = bpf_map_lookup_elem(&args, &key);

	add(0, 1);
	add(1, a);
	add(2, b);
	if (ip)
		*ip = PT_REGS_IP(ctx);
	return 0;
}

SEC("uretprobe//tests/bpfload:probe_target")
int BPF_KRETPROBE(leave, long ret)
{
	add(4, ret);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
