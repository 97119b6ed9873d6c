/* Benchmarks of the tracers: a function event and a function_graph call, each compared with the
 * untraced baseline, and the ring buffer write on its own. */
#include "kernel/bench/bench.h"
#include "arch/x86/ftrace.h"
#include "kernel/printk/printk.h"
#include "kernel/trace/ftrace.h"
#include "kernel/trace/trace.h"
#include "kernel/time.h"
#include "lib/string.h"

static volatile u64 sink;

/* One event the size of a function entry, written straight into the buffer. */
static int rb_write_once(int x)
{
	struct rb_reserve r;

	if (ring_buffer_lock_reserve(&global_trace.buffer, sizeof(struct ftrace_entry), &r)) {
		struct ftrace_entry *e = r.data;
		e->ip = x;
		ring_buffer_unlock_commit(&r);
	}
	return x;
}

static void with_tracer(const char *tracer, const char *filter, const char *what, u64 baseline)
{
	if (ftrace_set_filter(&global_ops, filter, true) || tracing_set_tracer(tracer)) {
		cprintf("bench: %s: could not start the tracer\n", what);
		return;
	}
	bench_row(what, bench_per_call(bench_target), baseline);
	tracing_set_tracer("nop");
}

/* The function tracer's callback and template on an ops of its own whose private is a second
 * trace array: the trampoline finds its buffer through the ops, so the cost is global_ops's. */
static void with_second_array(const char *what, u64 baseline)
{
	static struct trace_array tr2;
	static struct ftrace_ops ops;

	memset(&tr2, 0, sizeof(tr2));
	memset(&ops, 0, sizeof(ops));
	ops.func = function_trace_call;
	ops.private = &tr2;
	ops.flags = FTRACE_OPS_FL_RECURSION;
	ops.tramp_kind = FTRACE_TRAMP_FUNCTION;
	ops.name = "bench_second_array";
	if (ring_buffer_alloc(&tr2.buffer, global_trace.buffer_kb) ||
	    ftrace_set_filter(&ops, "bench_target", true) || register_ftrace_function(&ops)) {
		cprintf("bench: %s: could not start\n", what);
		goto out;
	}
	WRITE_ONCE(tr2.tracing_on, true);
	bench_row(what, bench_per_call(bench_target), baseline);
	unregister_ftrace_function(&ops);
out:
	free_ftrace_hash(ops.local_hash.filter_hash);
	ring_buffer_free(&tr2.buffer);
}

/* The same through a real instance, made as `mkdir instances/bench` makes it: its own ops and
 * buffer, the function tracer's trampoline template (trace_instances.c). */
static void with_instance(const char *what, u64 baseline)
{
	struct fnode *dir, *inst;
	struct trace_array *tr;

	if (fs_resolve(fs_root(), "/sys/kernel/tracing/instances", &dir) ||
	    fs_user_mkdir(dir, "bench")) {
		cprintf("bench: %s: could not make the instance\n", what);
		return;
	}
	inst = fs_lookup(dir, "bench", 5);
	tr = trace_array_of(inst);
	if (ftrace_set_filter(tr->ops, "bench_target", true) ||
	    trace_array_set_tracer(tr, "function"))
		cprintf("bench: %s: could not start\n", what);
	else
		bench_row(what, bench_per_call(bench_target), baseline);
	if (fs_user_rmdir(inst))
		cprintf("bench: %s: could not remove the instance\n", what);
}

void bench_tracers(u64 baseline)
{
	u64 rb;

	if (ftrace_trace_function != ftrace_stub || tracing_set_tracer("nop")) {
		cprintf("bench: tracing is in use; tracers not measured\n");
		return;
	}
	cprintf("\n");
	rb = bench_per_call(rb_write_once);
	bench_row("ring buffer: reserve + commit of a function event", rb, baseline);
	cprintf("| %-52s | %8llu | %8s | %8s |\n", "  events per second it sustains (1e9 / ns)",
		1000000000ULL / (tsc_to_ns(rb) ? tsc_to_ns(rb) : 1), "", "");
	with_tracer("function", "bench_target", "function tracer, filter: bench_target", baseline);
	with_tracer("function", "", "function tracer, every function", baseline);
	with_second_array("function tracer, a second trace array", baseline);
	with_tracer("function_graph", "bench_target", "function_graph, entry + return", baseline);
	/* function_graph runs at the top level only, as Linux 6.1's: no instance row for it. */
	with_instance("function tracer, an instance (instances/bench)", baseline);
	ring_buffer_reset(&global_trace.buffer);
	ftrace_set_filter(&global_ops, "", true);
}
