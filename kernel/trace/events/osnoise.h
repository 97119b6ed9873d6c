/* osnoise: what took the CPU from the osnoise and timerlat threads, as Linux's
 * include/trace/events/osnoise.h names and prints it. No softirq_noise: this kernel has no
 * softirqs. Recorded from kernel/trace/trace_osnoise_hooks.c and trace_osnoise.c. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM osnoise
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE "kernel/trace/events/osnoise.h"

#if !defined(_TRACE_OSNOISE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_OSNOISE_H

#include "kernel/tracepoint.h"
#include "kernel/sched/sched.h"

/* start and duration in ns; start printed as Linux's __print_ns_to_secs() and
 * __print_ns_without_secs() print it. */
TRACE_EVENT(thread_noise,
	TP_PROTO(struct task *t, u64 start, u64 duration),
	TP_ARGS(t, start, duration),
	TP_STRUCT__entry(
		__array(char, comm, TASK_COMM_LEN)
		__field(u64, start)
		__field(u64, duration)
		__field(pid_t, pid)
	),
	TP_fast_assign(
		memcpy(__entry->comm, t->comm, TASK_COMM_LEN);
		__entry->pid = t->pid;
		__entry->start = start;
		__entry->duration = duration;
	),
	TP_printk("%8s:%d start %llu.%09u duration %llu ns", __entry->comm, __entry->pid,
		  __entry->start / 1000000000, (unsigned int)(__entry->start % 1000000000),
		  __entry->duration)
);

TRACE_EVENT(irq_noise,
	TP_PROTO(int vector, const char *desc, u64 start, u64 duration),
	TP_ARGS(vector, desc, start, duration),
	TP_STRUCT__entry(
		__field(u64, start)
		__field(u64, duration)
		__string(desc, desc)
		__field(int, vector)
	),
	TP_fast_assign(
		__assign_str(desc, desc);
		__entry->vector = vector;
		__entry->start = start;
		__entry->duration = duration;
	),
	TP_printk("%s:%d start %llu.%09u duration %llu ns", __get_str(desc), __entry->vector,
		  __entry->start / 1000000000, (unsigned int)(__entry->start % 1000000000),
		  __entry->duration)
);

TRACE_EVENT(nmi_noise,
	TP_PROTO(u64 start, u64 duration),
	TP_ARGS(start, duration),
	TP_STRUCT__entry(
		__field(u64, start)
		__field(u64, duration)
	),
	TP_fast_assign(
		__entry->start = start;
		__entry->duration = duration;
	),
	TP_printk("start %llu.%09u duration %llu ns", __entry->start / 1000000000,
		  (unsigned int)(__entry->start % 1000000000), __entry->duration)
);

TRACE_EVENT(sample_threshold,
	TP_PROTO(u64 start, u64 duration, u64 interference),
	TP_ARGS(start, duration, interference),
	TP_STRUCT__entry(
		__field(u64, start)
		__field(u64, duration)
		__field(u64, interference)
	),
	TP_fast_assign(
		__entry->start = start;
		__entry->duration = duration;
		__entry->interference = interference;
	),
	TP_printk("start %llu.%09u duration %llu ns interference %llu", __entry->start / 1000000000,
		  (unsigned int)(__entry->start % 1000000000), __entry->duration,
		  __entry->interference)
);

#endif /* _TRACE_OSNOISE_H */

#include "kernel/trace/define_trace.h"
