/* switchring: a tracepoint program on sched:sched_switch streaming one record per switch through a
 * BPF ring buffer (reserve, fill, submit), which bpfload reads with libbpf's ring_buffer__poll(). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "sched_switch.h"

/* What bpfload prints for each record: "ring switches PREV_PID NEXT_PID NEXT_COMM". */
struct switch_rec {
	int prev_pid, next_pid;
	char next_comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} switches SEC(".maps");

SEC("tracepoint/sched/sched_switch")
int stream_switch(struct sched_switch_args *ctx)
{
	struct switch_rec *r = bpf_ringbuf_reserve(&switches, sizeof(*r), 0);

	if (!r)
		return 0;
	r->prev_pid = ctx->prev_pid;
	r->next_pid = ctx->next_pid;
	__builtin_memcpy(r->next_comm, ctx->next_comm, sizeof(r->next_comm));
	bpf_ringbuf_submit(r, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
