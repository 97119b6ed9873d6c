/* The snapshot (max) buffer: Linux's max_tr, a second buffer swapped with the live one. */
#ifndef KERNEL_TRACE_TRACE_SNAPSHOT_H
#define KERNEL_TRACE_TRACE_SNAPSHOT_H

#include "kernel/trace/trace.h"

struct task;

/* Who and where the section in the max buffer was (Linux's max_data of __update_max_tr()): the
 * latency tracers' header prints it. */
struct trace_max_data {
	int cpu;
	int pid;
	char comm[TASK_COMM_LEN];
	int policy, rt_priority;		    /* its class, for the header's task line */
	unsigned long saved_latency;		    /* ns, tr->max_latency when it was taken */
	unsigned long critical_start, critical_end; /* the section's first and last function */
	u64 time_start;				    /* TSC when the section began */
};
extern struct trace_max_data trace_max_data;

/* Allocates tr's max buffer with the live buffer's size, if it has none: 0 or -ENOMEM. */
int tracing_alloc_snapshot_instance(struct trace_array *tr);
/* Linux's tracing_snapshot_alloc(): allocate global_trace's snapshot, then take one. */
int tracing_snapshot_alloc(void);
/* Frees tr's max buffer (nothing if it has none). Not from the tracing path: it may sleep. */
void free_snapshot(struct trace_array *tr);
/*
 * Takes a snapshot now, from any context (the snapshot trigger and function command): swaps
 * every CPU's part of the live and max buffers. Says in the trace why it could not, as Linux:
 * not allocated (and tracing stops), a latency tracer owns the max buffer, inside an NMI.
 */
void tracing_snapshot_instance(struct trace_array *tr);
void tracing_snapshot(void);
/*
 * Linux's update_max_tr(): the max buffer becomes what the live buffer holds (every CPU's part,
 * swapped, not copied) and task, on cpu, is noted as its cause. Interrupts off. 0, or -EAGAIN
 * (a reader or a resize holds a buffer: nothing swapped, as Linux skips while stopped), -ENODEV
 * (no max buffer). update_max_tr_single() swaps only cpu's part.
 */
int update_max_tr(struct trace_array *tr, struct task *task, int cpu);
int update_max_tr_single(struct trace_array *tr, struct task *task, int cpu);
/* Called by a buffer_size_kb write: the max buffer follows the live one's size. */
int tracing_resize_max_buffer(struct trace_array *tr, unsigned long kb, int cpu);
/* The max buffer follows the live one's clock (emptied, as the live one is). */
void trace_snapshot_set_clock(struct trace_array *tr, const struct trace_clock *clock);
/* What the snapshot command of set_ftrace_filter and the event trigger register: allocate. */
int tracing_snapshot_cmd_prepare(void);
void trace_snapshot_init(void);

#endif
