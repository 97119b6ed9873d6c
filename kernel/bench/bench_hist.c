/* Benchmarks of hist triggers on the bench event (docs/22): what one event costs with a histogram
 * counting it, with a compound key and a sum, and with a variable and an onmatch() action firing
 * a synthetic event. The event itself stays off: only its triggers run (soft mode). */
#include "kernel/bench/bench.h"
#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_events_hist.h"
#include "kernel/fs/fs.h"
#include "kernel/printk/printk.h"
#include "lib/string.h"

int bench_target_tp(int x);

static int set_trigger(struct trace_event_call *call, const char *text, bool trunc)
{
	return event_trigger_write(call, text, strlen(text), trunc ? FS_TRUNC : 0);
}

static void hist_row(struct trace_event_call *call, const char *what, const char *spec,
		     u64 baseline)
{
	if (set_trigger(call, spec, true)) {
		cprintf("bench: %s refused\n", spec);
		return;
	}
	bench_row(what, bench_per_call(bench_target_tp), baseline);
	set_trigger(call, "", true);
}

void bench_hist(u64 baseline)
{
	struct trace_event_call *call = trace_event_find("bench", "bench_event"), *synth;
	bool was_on = READ_ONCE(global_trace.tracing_on);
	char def[] = "bench_lat u64 lat", undef[] = "!bench_lat";

	if (!call)
		return;
	hist_row(call, "hist trigger, keys=common_pid (hitcount)", "hist:keys=common_pid",
		 baseline);
	hist_row(call, "hist trigger, keys=common_pid,x:vals=x", "hist:keys=common_pid,x:vals=x",
		 baseline);
	/* Each event saves ts0, then (hists run oldest first, as in Linux) reads it back and fires
	 * bench_lat: the work of a wakeup-latency pair, on one event. */
	if (synth_events_cmd(def, false))
		return;
	synth = trace_event_find("synthetic", "bench_lat");
	event_mutex_lock();
	trace_event_enable_disable(synth, true);
	event_mutex_unlock();
	WRITE_ONCE(global_trace.tracing_on, true);
	if (!set_trigger(call, "hist:keys=common_pid:ts0=common_timestamp.usecs", true) &&
	    !set_trigger(call,
			 "hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:"
			 "onmatch(bench.bench_event).bench_lat($lat)",
			 false))
		bench_row("hist triggers, ts0= var + onmatch() synthetic event",
			  bench_per_call(bench_target_tp), baseline);
	else
		cprintf("bench: the onmatch triggers were refused\n");
	/* the onmatch one first: it reads the other's variable */
	set_trigger(call,
		    "!hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:"
		    "onmatch(bench.bench_event).bench_lat($lat)",
		    false);
	set_trigger(call, "", true);
	event_mutex_lock();
	trace_event_enable_disable(synth, false);
	event_mutex_unlock();
	synth_events_cmd(undef, false);
	WRITE_ONCE(global_trace.tracing_on, was_on);
	ring_buffer_reset(&global_trace.buffer);
}
