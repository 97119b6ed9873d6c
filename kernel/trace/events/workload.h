/* workload: our own event, one per round of a workload thread (kernel/work/workloads.c). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM workload
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE "kernel/trace/events/workload.h"

#if !defined(_TRACE_WORKLOAD_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_WORKLOAD_H

#include "kernel/tracepoint.h"

/* The workload `name` on `cpu` finished round number `iteration` (1 for the first). Recorded
 * between rounds, never inside one: spin's checked window stays free of it. */
TRACE_EVENT(workload_iteration,
	TP_PROTO(const char *name, int cpu, u64 iteration),
	TP_ARGS(name, cpu, iteration),
	TP_STRUCT__entry(
		__string(name, name)
		__field(int, cpu)
		__field(u64, iteration)
	),
	TP_fast_assign(
		__assign_str(name, name);
		__entry->cpu = cpu;
		__entry->iteration = iteration;
	),
	TP_printk("name=%s cpu=%d iteration=%llu", __get_str(name), __entry->cpu,
		  __entry->iteration)
);

#endif /* _TRACE_WORKLOAD_H */

#include "kernel/trace/define_trace.h"
