/* Benchmarks of trace events: a tracepoint nobody listens to (the static branch's NOP), and one
 * recording an event, against the same function without a tracepoint. */
#include "kernel/bench/bench.h"
#include "kernel/trace/trace_events.h"
#include "kernel/trace/events/bench.h"

/* SAME_FRAME as in kernel/bench/bench.c: both twins get a frame, so they differ by the tracepoint only. */
notrace noinline int bench_target_tp(int x)
{
	__asm__ volatile("" : : "r"(__builtin_frame_address(0)) : "memory");
	trace_bench_event(x);
	return x + 1;
}

void bench_events(u64 baseline)
{
	struct trace_event_call *call = trace_event_find("bench", "bench_event");
	bool was_on = READ_ONCE(global_trace.tracing_on);

	bench_row("tracepoint, event off (static branch NOP)", bench_per_call(bench_target_tp),
		  baseline);
	if (!call)
		return;
	event_mutex_lock();
	trace_event_enable_disable(call, true);
	event_mutex_unlock();
	WRITE_ONCE(global_trace.tracing_on, true);
	bench_row("tracepoint, event recorded", bench_per_call(bench_target_tp), baseline);
	event_mutex_lock();
	call->flags |= EVENT_FL_SOFT_MODE; /* as a trigger would: every record built aside first */
	trace_event_update_probe(call);
	event_mutex_unlock();
	bench_row("tracepoint, event recorded via the scratch copy",
		  bench_per_call(bench_target_tp), baseline);
	event_mutex_lock();
	call->flags &= ~EVENT_FL_SOFT_MODE;
	trace_event_enable_disable(call, false);
	event_mutex_unlock();
	WRITE_ONCE(global_trace.tracing_on, was_on);
	ring_buffer_reset(&global_trace.buffer);
}
