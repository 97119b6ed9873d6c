/* wakeup, wakeup_rt, wakeup_dl: how long the highest-priority task waited from its wake-up to its run.
 *
 *   sched_wakeup(p)    probe_wakeup(): p beats the task being timed (and its waker)? time p from
 *                      now: a `+` entry (waker -> p) and a stack trace in the live buffer
 *      ... with function-trace, the calls p's CPU makes meanwhile (wakeup_tracer_call()) ...
 *   sched_switch(->p)  probe_wakeup_sched_switch(): a `==>` entry; if the wait beats
 *                      tracing_max_latency (or passes tracing_thresh), update_max_tr() swaps
 *                      every CPU's buffer into the max buffer, and `trace` shows it
 *
 * Which tasks count, as Linux defines it: wakeup every task, wakeup_rt real-time and deadline
 * tasks, wakeup_dl deadline tasks only; a deadline task once timed is not displaced. The probes
 * hang on the sched tracepoints, so they cost nothing while no wakeup tracer runs.
 */
#include "kernel/trace/trace_snapshot.h"
#include "kernel/trace/fgraph.h"
#include "kernel/trace/ftrace.h"
#include "kernel/sched/rq.h"
#include "kernel/spinlock.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/tracepoint.h"
#include "kernel/trace/events/sched.h"
#include "lib/errno.h"

/* Linux's ctx_switch_entry: TRACE_CTX (`==>`) and TRACE_WAKE (`+`). */
struct ctx_switch_entry {
	struct trace_entry ent;
	u32 prev_pid;
	u8 prev_prio, prev_state;
	u32 next_pid;
	u8 next_prio, next_state;
	u32 next_cpu;
};

static struct task *wakeup_task;
static int wakeup_cpu;
static int wakeup_prio = 0x7fffffff; /* the timed task's prio; anything beats "none" */
static bool wakeup_rt, wakeup_dl, tracing_dl, tracer_enabled;
static u64 wakeup_start; /* TSC at the timed task's wake-up */
static DEFINE_SPINLOCK(wakeup_lock);
/* The trace array the tracer runs on (Linux's wakeup_trace); one of the three at a time in all
 * arrays (wakeup_busy): the probes and the timed task are one set. */
static struct trace_array *wakeup_trace = &global_trace;
static bool wakeup_busy;
extern unsigned long tracing_thresh; /* ns (trace_functions_graph.c) */

/* function-trace: the calls the woken task's CPU makes while it waits, as function events
 * (Linux's wakeup_tracer_call()) or, with display-graph, as function_graph events (Linux's
 * fgraph_wakeup_ops); display-graph in any array, as Linux's is_graph() here. */
#define FN_CALLS 1
#define FN_GRAPH 2
static int function_enabled;	/* FN_CALLS, FN_GRAPH or 0: which is registered */
static bool in_tracer[NR_CPUS]; /* this CPU is inside the tracer itself */

static bool is_graph(struct trace_array *tr)
{
	return trace_array_option(tr, TRACE_OPT_DISPLAY_GRAPH);
}

/* Linux's func_prolog_preempt_disable(): a task is being timed and this is its CPU. */
static bool wakeup_func_wanted(int cpu)
{
	struct task *t = READ_ONCE(wakeup_task);

	return READ_ONCE(tracer_enabled) && t && cpu == READ_ONCE(wakeup_cpu) && !in_tracer[cpu];
}

static bool wakeup_graph_entry(struct ftrace_graph_ent *trace, struct fgraph_ops *gops)
{
	int cpu = smp_processor_id();

	if (!wakeup_func_wanted(cpu))
		return false; /* its return is not hooked either */
	in_tracer[cpu] = true;
	trace_graph_record_entry(READ_ONCE(wakeup_trace), trace->func, trace->depth);
	in_tracer[cpu] = false;
	return true;
}

static void wakeup_graph_return(struct ftrace_graph_ret *trace, struct fgraph_ops *gops)
{
	int cpu = smp_processor_id();

	if (!wakeup_func_wanted(cpu))
		return; /* the wait ended inside the call: as Linux, no return event */
	in_tracer[cpu] = true;
	trace_graph_record_return(READ_ONCE(wakeup_trace), trace);
	in_tracer[cpu] = false;
}

static struct fgraph_ops wakeup_graph_ops = { .entryfunc = wakeup_graph_entry,
					      .retfunc = wakeup_graph_return,
					      .private = &global_trace };

static void wakeup_tracer_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			       struct pt_regs *regs)
{
	int cpu = smp_processor_id();
	struct rb_reserve r;
	struct ftrace_entry *e;

	if (!wakeup_func_wanted(cpu))
		return;
	in_tracer[cpu] = true;
	e = trace_array_reserve(READ_ONCE(wakeup_trace), &r, TRACE_FN, sizeof(*e), read_flags());
	if (e) {
		e->ip = ip;
		e->parent_ip = parent_ip;
		ring_buffer_unlock_commit(&r);
	}
	in_tracer[cpu] = false;
}

/* The array's function ops: the top level's, or the instance's own (its set_ftrace_filter). */
static struct ftrace_ops *wakeup_ops(struct trace_array *tr)
{
	return tr == &global_trace ? &global_ops : tr->ops;
}

/* Registers what tr's options now ask, or nothing if !on (Linux's start_func_tracer()); a refusal
 * (EBUSY: fgraph has another user) changes nothing. */
static int wakeup_function_set(struct trace_array *tr, bool on)
{
	int want = !on || !trace_array_option(tr, TRACE_OPT_FUNCTION_TRACE) ? 0
		   : is_graph(tr)					    ? FN_GRAPH
									    : FN_CALLS;
	struct ftrace_ops *ops = wakeup_ops(tr);
	int err = 0;

	if (want == function_enabled)
		return 0;
	if (want == FN_GRAPH && (err = register_ftrace_graph(&wakeup_graph_ops)))
		return err;
	if (function_enabled == FN_CALLS)
		unregister_ftrace_function(ops);
	else if (function_enabled == FN_GRAPH)
		unregister_ftrace_graph();
	function_enabled = want == FN_GRAPH ? FN_GRAPH : 0;
	if (want == FN_CALLS) {
		ops->func = wakeup_tracer_call;
		ops->private = tr;
		ops->flags |= FTRACE_OPS_FL_RECURSION;
		err = register_ftrace_function(ops);
		if (!err)
			function_enabled = FN_CALLS;
	}
	return err;
}

/* Linux's task_index_to_char() letters: R S ... X Z. */
static u8 task_state_index(const struct task *t)
{
	if (t->exit_state)
		return 6;
	if (t->state == TASK_DEAD)
		return 5;
	return t->state == TASK_SLEEPING ? 1 : 0;
}

static void ctx_entry(u16 type, const struct task *prev, const struct task *next)
{
	struct rb_reserve r;
	struct ctx_switch_entry *e =
		trace_array_reserve(READ_ONCE(wakeup_trace), &r, type, sizeof(*e), read_flags());

	if (!e)
		return;
	e->prev_pid = prev->pid;
	e->prev_prio = prev->prio;
	e->prev_state = task_state_index(prev);
	e->next_pid = next->pid;
	e->next_prio = next->prio;
	e->next_state = task_state_index(next);
	e->next_cpu = next->cpu;
	ring_buffer_unlock_commit(&r);
}

static bool wakeup_keep_frame(unsigned long ret, unsigned long arg)
{
	return true;
}

static void __wakeup_reset(void)
{
	wakeup_cpu = -1;
	wakeup_prio = 0x7fffffff;
	tracing_dl = false;
	wakeup_task = NULL;
}

/* Whether p should be timed instead of whoever is (Linux's probe_wakeup() conditions). */
static bool wakeup_wants(const struct task *p)
{
	bool dl = dl_policy(p->policy), rt = rt_policy(p->policy);

	if (tracing_dl || (wakeup_dl && !dl) || (wakeup_rt && !dl && !rt))
		return false;
	return dl || (p->prio < wakeup_prio && p->prio < current->prio);
}

static void probe_wakeup(void *data, struct task *p)
{
	unsigned long flags;

	if (!READ_ONCE(tracer_enabled) || !READ_ONCE(wakeup_trace->tracing_on) || !wakeup_wants(p))
		return;
	flags = spin_lock_irqsave(&wakeup_lock);
	if (!wakeup_wants(p)) /* another CPU's, meanwhile */
		goto out;
	__wakeup_reset();
	wakeup_cpu = p->cpu;
	wakeup_prio = p->prio;
	tracing_dl = dl_policy(p->policy);
	wakeup_task = p;
	wakeup_start = rdtsc();
	ctx_entry(TRACE_WAKE, current, p);
	trace_array_record_stack_from(wakeup_trace, wakeup_keep_frame, 0);
out:
	spin_unlock_irqrestore(&wakeup_lock, flags);
}

static bool report_latency(u64 delta)
{
	if (READ_ONCE(tracing_thresh))
		return delta >= tracing_thresh;
	return delta > wakeup_trace->max_latency;
}

static void probe_wakeup_sched_switch(void *data, bool preempt, struct task *prev,
				      struct task *next)
{
	unsigned long flags;
	u64 now, delta;

	if (next != READ_ONCE(wakeup_task))
		return;
	flags = spin_lock_irqsave(&wakeup_lock);
	if (next != wakeup_task)
		goto out;
	now = rdtsc(); /* before our own records: the wait is the task's, not the tracer's */
	ctx_entry(TRACE_CTX, prev, next);
	delta = tsc_to_ns(now - wakeup_start);
	if (report_latency(delta) && READ_ONCE(wakeup_trace->tracing_on)) {
		struct max_section s = { .latency = delta, .time_start = wakeup_start };

		update_max_tr(wakeup_trace, wakeup_task, wakeup_cpu, &s);
	}
	__wakeup_reset();
out:
	spin_unlock_irqrestore(&wakeup_lock, flags);
}

/* Linux's trace_ctxwake_print(): "prev_pid:prio:state + [cpu] next_pid:prio:state comm". */
static void ctxwake_print(struct seq_file *m, struct trace_iterator *it)
{
	static const char states[] = "RSDTtXZPI";
	const struct ctx_switch_entry *e = (const void *)it->ent;

	seq_printf(m, "%7d:%3d:%c %s [%03d] %7d:%3d:%c %s", e->prev_pid, e->prev_prio,
		   states[e->prev_state % 9], it->ent->type == TRACE_CTX ? "==>" : "  +",
		   e->next_cpu, e->next_pid, e->next_prio, states[e->next_state % 9],
		   trace_find_cmdline(e->next_pid));
}

/* Linux's GRAPH_TRACER_FLAGS of the wakeup tracers: the latency tracers' and the overhead marks,
 * the latency columns while latency-format is on. */
static u32 wakeup_graph_flags(struct trace_array *tr)
{
	u32 flags = GRAPH_LATENCY_FLAGS | GRAPH_PRINT_OVERHEAD;

	return trace_array_option(tr, TRACE_OPT_LATENCY_FMT) ? flags
							     : flags & ~(u32)GRAPH_PRINT_LAT;
}

static bool wakeup_print_line(struct seq_file *m, struct trace_iterator *it)
{
	struct trace_array *tr = it->tr ? it->tr : &global_trace;
	bool ctxwake = it->ent->type == TRACE_CTX || it->ent->type == TRACE_WAKE;

	if (is_graph(tr)) /* Linux's print_graph_function_flags(): its own entries as comments */
		return ctxwake ? print_graph_comment_flags(m, it, wakeup_graph_flags(tr),
							   ctxwake_print)
			       : print_graph_function_flags(m, it, wakeup_graph_flags(tr));
	if (!ctxwake)
		return false;
	trace_print_context(m, it);
	seq_putc(m, ' ');
	ctxwake_print(m, it);
	seq_putc(m, '\n');
	return true;
}

/* Printed only for the array the tracer runs on, as Linux's wakeup_print_header(). */
static bool wakeup_print_lat_header(struct seq_file *m)
{
	struct trace_array *tr = READ_ONCE(wakeup_trace);

	if (!is_graph(tr))
		return false;
	print_graph_headers_flags(m, wakeup_graph_flags(tr));
	return true;
}

/*
 * function-trace or display-graph switched while we run (Linux's wakeup_flag_changed()): the
 * function ops, the graph ops or neither; display-graph also starts afresh, as Linux's wakeup_display_graph(): the live
 * buffer emptied, the timed task forgotten, tracing_max_latency 0. Refused (EBUSY, nothing
 * changed) if fgraph has another user.
 */
static int wakeup_option_changed(struct trace_array *tr, int o, bool on)
{
	unsigned long flags;
	int err;

	if (o != TRACE_OPT_FUNCTION_TRACE && o != TRACE_OPT_DISPLAY_GRAPH)
		return 0;
	err = wakeup_function_set(tr, true);
	if (err || o != TRACE_OPT_DISPLAY_GRAPH)
		return err;
	WRITE_ONCE(tracer_enabled, false);
	flags = spin_lock_irqsave(&wakeup_lock);
	__wakeup_reset();
	spin_unlock_irqrestore(&wakeup_lock, flags);
	tr->max_latency = 0;
	ring_buffer_reset(&tr->buffer);
	WRITE_ONCE(tracer_enabled, true);
	return 0;
}

/* Linux's wakeup_tracer_init() and __wakeup_tracer_init(): EBUSY while one of the three runs. */
static int wakeup_start_tracer(struct trace_array *tr, bool rt, bool dl)
{
	int err;

	if (wakeup_busy)
		return -EBUSY;
	tr->max_latency = 0;
	WRITE_ONCE(wakeup_trace, tr);
	wakeup_rt = rt;
	wakeup_dl = dl;
	__wakeup_reset();
	if ((err = tracepoint_probe_register(&__tracepoint_sched_wakeup, probe_wakeup, NULL)))
		return err;
	if ((err = tracepoint_probe_register(&__tracepoint_sched_switch, probe_wakeup_sched_switch,
					     NULL))) {
		tracepoint_probe_unregister(&__tracepoint_sched_wakeup, probe_wakeup, NULL);
		return err;
	}
	if ((err = wakeup_function_set(tr, true))) {
		tracepoint_probe_unregister(&__tracepoint_sched_switch, probe_wakeup_sched_switch,
					    NULL);
		tracepoint_probe_unregister(&__tracepoint_sched_wakeup, probe_wakeup, NULL);
		return err;
	}
	trace_array_set_option(tr, TRACE_OPT_LATENCY_FMT, true);
	wakeup_busy = true;
	WRITE_ONCE(tracer_enabled, true);
	return 0;
}

static void wakeup_instance_reset(struct trace_array *tr)
{
	unsigned long flags;

	WRITE_ONCE(tracer_enabled, false);
	tracepoint_probe_unregister(&__tracepoint_sched_switch, probe_wakeup_sched_switch, NULL);
	tracepoint_probe_unregister(&__tracepoint_sched_wakeup, probe_wakeup, NULL);
	tracepoint_synchronize_unregister();
	wakeup_function_set(tr, false);
	flags = spin_lock_irqsave(&wakeup_lock);
	__wakeup_reset();
	spin_unlock_irqrestore(&wakeup_lock, flags);
	trace_array_set_option(tr, TRACE_OPT_LATENCY_FMT, false);
	WRITE_ONCE(wakeup_trace, &global_trace); /* an instance may be freed next (rmdir) */
	wakeup_busy = false;
}

static void wakeup_tracer_reset(void)
{
	wakeup_instance_reset(&global_trace);
}

static int wakeup_instance_init(struct trace_array *tr)
{
	return wakeup_start_tracer(tr, false, false);
}

static int wakeup_rt_instance_init(struct trace_array *tr)
{
	return wakeup_start_tracer(tr, true, false);
}

static int wakeup_dl_instance_init(struct trace_array *tr)
{
	return wakeup_start_tracer(tr, false, true);
}

static int wakeup_tracer_init(void)
{
	return wakeup_instance_init(&global_trace);
}

static int wakeup_rt_tracer_init(void)
{
	return wakeup_rt_instance_init(&global_trace);
}

static int wakeup_dl_tracer_init(void)
{
	return wakeup_dl_instance_init(&global_trace);
}

/* allow_instances, as Linux 6.1's: instance_init and instance_reset. */
#define WAKEUP_TRACER(_name, _init, _instance_init)                                                \
	{                                                                                          \
		.name = _name, .init = _init, .reset = wakeup_tracer_reset,                        \
		.instance_init = _instance_init, .instance_reset = wakeup_instance_reset,          \
		.option_changed = wakeup_option_changed, .print_line = wakeup_print_line,          \
		.print_lat_header = wakeup_print_lat_header, .use_max_tr = true, .print_max = true \
	}
static struct tracer wakeup_tracers[] = {
	WAKEUP_TRACER("wakeup", wakeup_tracer_init, wakeup_instance_init),
	WAKEUP_TRACER("wakeup_rt", wakeup_rt_tracer_init, wakeup_rt_instance_init),
	WAKEUP_TRACER("wakeup_dl", wakeup_dl_tracer_init, wakeup_dl_instance_init),
};

void trace_wakeup_init(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(wakeup_tracers); i++)
		register_tracer(&wakeup_tracers[i]);
}
