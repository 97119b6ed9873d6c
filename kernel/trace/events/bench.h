/* bench: one event for the `bench` command to measure a tracepoint with, off and on (ours). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bench
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE "kernel/trace/events/bench.h"

#if !defined(_TRACE_BENCH_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_BENCH_H

#include "kernel/tracepoint.h"

TRACE_EVENT(bench_event,
	TP_PROTO(int x),
	TP_ARGS(x),
	TP_STRUCT__entry(
		__field(int, x)
	),
	TP_fast_assign(
		__entry->x = x;
	),
	TP_printk("x=%d", __entry->x)
);

#endif /* _TRACE_BENCH_H */

#include "kernel/trace/define_trace.h"
