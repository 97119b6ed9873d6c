/* Benchmarks of hist triggers on the bench event (docs/22): what one event costs with a histogram
 * counting it, with a compound key and a sum, and with a variable and an onmatch() action firing
 * a synthetic event. The event itself stays off: only its triggers run (soft mode). */
#include "kernel/bench/bench.h"
#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_events_hist.h"
#include "kernel/fs/fs.h"
#include "kernel/printk/printk.h"
#include "kernel/mm/mm.h"
#include "arch/x86/cpu.h"
#include "lib/string.h"

int bench_target_tp(int x);

static int set_trigger(struct trace_event_call *call, const char *text, bool trunc)
{
	return event_trigger_write(&call->file, text, strlen(text), trunc ? FS_TRUNC : 0);
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

/*
 * Reading a hist file of 2048 entries (keys=x, x = 0..2047, each once): the sort and the
 * formatting of event_hist_show() into a buffer, in guest instructions, the median of
 * BENCH_RUNS reads. What `cat hist` adds on top (the serial console) is host wall time.
 */
static void hist_read_row(struct trace_event_call *call)
{
	struct seq_file m = { .size = 256 * 1024 };
	u64 runs[BENCH_RUNS];
	size_t bytes = 0;

	if (set_trigger(call, "hist:keys=x:size=2048", true))
		return;
	for (int i = 0; i < 2048; i++)
		bench_target_tp(i);
	m.buf = kmalloc(m.size);
	for (int r = 0; m.buf && r < BENCH_RUNS; r++) {
		u64 t0 = rdtsc();
		event_hist_show(&m, &call->file);
		runs[r] = rdtsc() - t0;
		bytes = m.count;
		m.count = 0;
	}
	if (m.buf) {
		for (int i = 1; i < BENCH_RUNS; i++) /* insertion sort: seven values */
			for (int j = i; j > 0 && runs[j - 1] > runs[j]; j--) {
				u64 t = runs[j];
				runs[j] = runs[j - 1];
				runs[j - 1] = t;
			}
		cprintf("\nreading a hist file of 2048 entries: %llu ticks, %zu bytes%s\n",
			runs[BENCH_RUNS / 2], bytes, m.overflow ? " (cut)" : "");
	}
	kfree(m.buf);
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

/* The rows above go in the per-call table; this one after it (bench.c calls both). */
void bench_hist_read(void)
{
	struct trace_event_call *call = trace_event_find("bench", "bench_event");

	if (call)
		hist_read_row(call);
}
