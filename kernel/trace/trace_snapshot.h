/* The snapshot (max) buffer: Linux's max_tr, a second buffer swapped with the live one. */
#ifndef KERNEL_TRACE_TRACE_SNAPSHOT_H
#define KERNEL_TRACE_TRACE_SNAPSHOT_H

#include "kernel/trace/trace.h"

struct task;

/* A latency tracer's new worst section: how long, and where it began and ended. */
struct max_section {
	unsigned long latency;			    /* ns: tracing_max_latency if it is kept */
	unsigned long critical_start, critical_end; /* 0: no functions to name (wakeup) */
	u64 time_start;				    /* TSC when it began */
};

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
 * swapped, not copied) and task, on cpu, is noted as its cause, with the section s (NULL: the
 * user's snapshot, no section). Interrupts off. update_max_tr_single() swaps only cpu's part.
 * 0; -ENODEV (no max buffer); -EAGAIN (a reader or a resize holds a buffer: nothing swapped,
 * nothing noted, tr->max_latency kept, as Linux does while `trace` is open and tracing stopped);
 * -EBUSY (this CPU's write into the live buffer was interrupted: as Linux, the max buffer gets
 * the line "Failed to swap buffers due to commit in progress" and the header the new section).
 */
int update_max_tr(struct trace_array *tr, struct task *task, int cpu, const struct max_section *s);
int update_max_tr_single(struct trace_array *tr, struct task *task, int cpu,
			 const struct max_section *s);
/* Called by a buffer_size_kb write: the max buffer follows the live one's size. */
int tracing_resize_max_buffer(struct trace_array *tr, unsigned long kb, int cpu);
/* The max buffer follows the live one's clock (emptied, as the live one is). */
void trace_snapshot_set_clock(struct trace_array *tr, const struct trace_clock *clock);
/* snapshot, tracing_max_latency, per_cpu/cpuN/snapshot{,_raw} in an array's directory. */
int trace_snapshot_create_files(struct fnode *dir);
void trace_snapshot_init(void);

#endif
