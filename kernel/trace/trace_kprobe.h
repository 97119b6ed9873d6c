/* kprobe_events and kprobe_profile (kernel/trace/trace_kprobe.c): probe events on kprobes. */
#ifndef KERNEL_TRACE_TRACE_KPROBE_H
#define KERNEL_TRACE_TRACE_KPROBE_H

#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_probe.h"

/* The two files in /sys/kernel/tracing (Linux's init_kprobe_trace()). */
void init_kprobe_trace(void);
/* uprobe_events and uprobe_profile (trace_uprobe.c). */
void init_uprobe_trace(void);

#endif
