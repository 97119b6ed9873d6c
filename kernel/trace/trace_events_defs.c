/* The one place every event is defined: each header below, read with CREATE_TRACE_POINTS, turns
 * into its tracepoints, records, format text, output and registration (kernel/trace/define_trace.h).
 * Everywhere else the same headers only declare trace_<event>(). Never traced (NOTRACE_SRCS):
 * the probes and iterators here run inside the events' own tracing path. */
#define CREATE_TRACE_POINTS
#include "kernel/trace/events/sched.h"
#include "kernel/trace/events/syscalls.h"
#include "kernel/trace/events/signal.h"
#include "kernel/trace/events/task.h"
#include "kernel/trace/events/irq.h"
#include "kernel/trace/events/preemptirq.h"
#include "kernel/trace/events/ipi.h"
#include "kernel/trace/events/timer.h"
#include "kernel/trace/events/kmem.h"
#include "kernel/trace/events/workload.h"
#include "kernel/trace/events/bpf_trace.h"
#include "arch/x86/trace/irq_vectors.h"
#include "arch/x86/trace/text_patch.h"
#include "kernel/trace/events/osnoise.h"
#ifdef CONFIG_BENCH /* the `bench` command's own event: test code */
#include "kernel/trace/events/bench.h"
#endif
