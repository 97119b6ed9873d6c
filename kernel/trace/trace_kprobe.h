/* kprobe_events and kprobe_profile (kernel/trace/trace_kprobe.c): probe events on kprobes. */
#ifndef KERNEL_TRACE_TRACE_KPROBE_H
#define KERNEL_TRACE_TRACE_KPROBE_H

#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_probe.h"

/* The two files in /sys/kernel/tracing (Linux's init_kprobe_trace()). */
void init_kprobe_trace(void);
/* uprobe_events and uprobe_profile (trace_uprobe.c). */
void init_uprobe_trace(void);

/*
 * perf's kprobe and uprobe PMUs (kernel/trace/trace_event_perf.c): a probe event of perf's own,
 * in no listing; *callp is its event, for perf to attach to. The destroy waits out its handlers.
 */
int create_local_trace_kprobe(const char *func, unsigned long addr, unsigned long offs,
			      bool is_return, struct trace_event_call **callp);
void destroy_local_trace_kprobe(struct trace_event_call *call);
int create_local_trace_uprobe(const char *path, unsigned long offs, unsigned long ref_ctr,
			      bool is_return, struct trace_event_call **callp);
void destroy_local_trace_uprobe(struct trace_event_call *call);

#endif
