/* Benchmarks of the probe family beside the kprobe rows (docs/18): an fprobe on bench_target with
 * an empty entry handler, then entry and exit handlers; probe events that write a record (a kprobe
 * event, an fprobe event, an eprobe on bench_event), the rows Linux's figures are taken for. */
#include "kernel/bench/bench.h"
#include "kernel/fs/fs.h"
#include "kernel/trace/fprobe.h"
#include "kernel/trace/trace_dynevent.h"
#include "kernel/trace/trace_events.h"
#include "lib/printf.h"
#include "lib/string.h"

int bench_target_tp(int x); /* bench_events.c: bench_target with the bench_event tracepoint */

static int bench_fprobe_entry(struct fprobe *fp, unsigned long ip, struct pt_regs *regs, void *data)
{
	return 0;
}

static void bench_fprobe_exit(struct fprobe *fp, unsigned long ip, struct pt_regs *regs, void *data)
{
}

static void bench_one_fprobe(const char *what, bool exit, u64 baseline)
{
	static struct fprobe fp;

	memset(&fp, 0, sizeof(fp));
	fp.entry_handler = bench_fprobe_entry;
	fp.exit_handler = exit ? bench_fprobe_exit : NULL;
	if (register_fprobe(&fp, "bench_target", NULL))
		return;
	bench_row(what, bench_per_call(bench_target), baseline);
	unregister_fprobe(&fp);
}

/* A dynamic_events line; the event it defines (system, name) switched on around one row. */
static void bench_one_event(const char *what, const char *line, const char *system,
			    const char *name, int (*fn)(int), u64 baseline)
{
	struct trace_event_call *call;
	char cmd[128];

	if (dyn_event_write(line, strlen(line), 0, NULL, create_dyn_event))
		return;
	event_mutex_lock();
	call = trace_event_find(system, name);
	if (call)
		trace_event_enable_disable(call, true);
	event_mutex_unlock();
	if (call)
		bench_row(what, bench_per_call(fn), baseline);
	event_mutex_lock();
	if (call)
		trace_event_enable_disable(call, false);
	event_mutex_unlock();
	snprintf(cmd, sizeof(cmd), "-:%s/%s", system, name);
	dyn_event_write(cmd, strlen(cmd), 0, NULL, create_dyn_event);
}

void bench_probes(u64 baseline)
{
	bool was_on = READ_ONCE(global_trace.tracing_on);

	bench_one_fprobe("fprobe, empty entry handler", false, baseline);
	bench_one_fprobe("fprobe, empty entry and exit handlers", true, baseline);
	WRITE_ONCE(global_trace.tracing_on, true);
	bench_one_event("kprobe event on ftrace, x=%di:s32 recorded",
			"p:bench/bench_kp bench_target x=%di:s32", "bench", "bench_kp",
			bench_target, baseline);
	bench_one_event("fprobe event, x=$arg1:s32 recorded",
			"f:bench/bench_fp bench_target x=$arg1:s32", "bench", "bench_fp",
			bench_target, baseline);
	bench_one_event("eprobe on bench_event, x=$x:s32 recorded",
			"e:bench/bench_ep bench.bench_event x=$x:s32", "bench", "bench_ep",
			bench_target_tp, baseline);
	WRITE_ONCE(global_trace.tracing_on, was_on);
	ring_buffer_reset(&global_trace.buffer);
}
