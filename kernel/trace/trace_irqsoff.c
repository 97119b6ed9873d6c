/* irqsoff, preemptoff, preemptirqsoff: the longest section with interrupts (or preemption) off.
 *
 *   trace_hardirqs_off()  start_critical_timing(): note the time and where; a function event
 *      ... functions called inside are recorded by irqsoff_tracer_call() (function-trace) ...
 *   trace_hardirqs_on()   stop_critical_timing(): a function event; if the section beats
 *                         tracing_max_latency (or passes tracing_thresh), a stack trace, then
 *                         update_max_tr_single() swaps this CPU's buffer into the max buffer
 *
 * `trace` then shows the max buffer from the section's start (print_max), in latency format
 * (trace_lat_output.c). As Linux's: one section per CPU at a time; preemptirqsoff times the
 * union (a section starts when the first of the two goes off and ends when both are back on).
 */
#include "kernel/trace/trace_irqsoff.h"
#include "kernel/trace/trace_snapshot.h"
#include "kernel/trace/ftrace.h"
#include "kernel/trace/fgraph.h"
#include "kernel/spinlock.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/errno.h"

#define TRACER_IRQS_OFF 1
#define TRACER_PREEMPT_OFF 2
#define FN_CALLS 1
#define FN_GRAPH 2

/* Linux's per-CPU tracing_cpu and trace_array_cpu fields this tracer uses. */
struct irqsoff_cpu {
	bool tracing;	       /* inside a section we time */
	bool disabled;	       /* this CPU is inside the tracer itself */
	int critical_sequence; /* max_sequence when the section began */
	u64 preempt_timestamp; /* TSC at its start */
	unsigned long critical_start;
};

static struct irqsoff_cpu irqsoff_data[NR_CPUS];
static int trace_type;	     /* TRACER_* of the tracer running, 0: none */
static bool tracer_enabled;  /* set once started, cleared before it stops */
static int function_enabled; /* FN_CALLS: irqsoff_tracer_call registered, FN_GRAPH: the
				* fgraph ops (display-graph), 0: neither */
static int max_sequence;     /* bumped at each new maximum: a section that began before one
				* on another CPU must not claim it */
/* The trace array the tracer runs on (Linux's irqsoff_trace), the top level's or an instance's:
 * its buffer, max buffer and tracing_max_latency. One of the three tracers at a time in all
 * arrays (irqsoff_busy): the hooks and irqsoff_data are one set. */
static struct trace_array *irqsoff_trace = &global_trace;
static bool irqsoff_busy;
static DEFINE_SPINLOCK(max_trace_lock);
extern unsigned long tracing_thresh; /* ns (trace_functions_graph.c) */

/* display-graph, at the top level only (as Linux: start_irqsoff_tracer() is told so). */
static bool is_graph(struct trace_array *tr)
{
	return tr == &global_trace && trace_array_option(tr, TRACE_OPT_DISPLAY_GRAPH);
}

static bool preempt_trace(void)
{
	return (trace_type & TRACER_PREEMPT_OFF) && this_cpu_read(preempt_count);
}

static bool irq_trace(void)
{
	return (trace_type & TRACER_IRQS_OFF) && irqs_disabled();
}

/*
 * A function event in the live buffer, with the interrupt state the caller has now; with
 * display-graph a call of no length instead (Linux's trace_graph_function()), so that the
 * section's start and end show in the graph.
 */
static void trace_function(struct trace_array *tr, unsigned long ip, unsigned long parent_ip)
{
	struct rb_reserve r;
	struct ftrace_entry *e;

	if (is_graph(tr)) {
		u64 now = rdtsc();
		struct ftrace_graph_ret ret = { .func = ip, .calltime = now, .rettime = now };

		trace_graph_record_entry(&global_trace, ip, 0);
		trace_graph_record_return(&global_trace, &ret);
		return;
	}
	e = trace_array_reserve(tr, &r, TRACE_FN, sizeof(*e), read_flags());
	if (!e)
		return;
	e->ip = ip;
	e->parent_ip = parent_ip;
	ring_buffer_unlock_commit(&r);
}

/* A call may be recorded: this CPU is inside a section, and not inside the tracer (Linux's
 * func_prolog_dec()). */
static bool in_section(const struct irqsoff_cpu *data)
{
	return data->tracing && (irqs_disabled() || this_cpu_read(preempt_count)) &&
	       !data->disabled;
}

/* Functions called inside a section, on a CPU that is in one. */
static void irqsoff_tracer_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
				struct pt_regs *regs)
{
	struct irqsoff_cpu *data = &irqsoff_data[smp_processor_id()];

	if (!in_section(data))
		return;
	data->disabled = true;
	trace_function(READ_ONCE(irqsoff_trace), ip, parent_ip);
	data->disabled = false;
}

/* display-graph: the same calls as function_graph events, through fgraph (entry and return). */
static bool irqsoff_graph_entry(struct ftrace_graph_ent *trace, struct fgraph_ops *gops)
{
	struct irqsoff_cpu *data = &irqsoff_data[smp_processor_id()];

	if (!in_section(data))
		return false; /* not inside a section: its return is not hooked either */
	data->disabled = true;
	trace_graph_record_entry(&global_trace, trace->func, trace->depth);
	data->disabled = false;
	return true;
}

static void irqsoff_graph_return(struct ftrace_graph_ret *trace, struct fgraph_ops *gops)
{
	struct irqsoff_cpu *data = &irqsoff_data[smp_processor_id()];

	if (!in_section(data))
		return; /* the section ended inside the call: as Linux, no return event */
	data->disabled = true;
	trace_graph_record_return(&global_trace, trace);
	data->disabled = false;
}

static struct fgraph_ops irqsoff_graph_ops = { .entryfunc = irqsoff_graph_entry,
					       .retfunc = irqsoff_graph_return,
					       .private = &global_trace };

static bool report_latency(struct trace_array *tr, u64 delta)
{
	if (READ_ONCE(tracing_thresh))
		return delta >= tracing_thresh;
	return delta > tr->max_latency;
}

static bool stack_from(unsigned long ret, unsigned long ip)
{
	return ret == ip;
}

/* hook: the hook that ended the section, whose name the event after it shows (as Linux's). */
static void check_critical_timing(struct irqsoff_cpu *data, unsigned long ip,
				  unsigned long parent_ip, int cpu, unsigned long hook)
{
	struct trace_array *tr = READ_ONCE(irqsoff_trace);
	u64 delta = tsc_to_ns(rdtsc() - data->preempt_timestamp);

	if (!report_latency(tr, delta))
		goto out;
	spin_lock(&max_trace_lock);
	if (!report_latency(tr, delta)) /* another CPU's, meanwhile */
		goto out_unlock;
	trace_function(tr, hook, parent_ip);
	trace_array_record_stack_from(tr, stack_from, ip);
	if (data->critical_sequence != max_sequence)
		goto out_unlock;
	if (READ_ONCE(tr->tracing_on)) {
		struct max_section s = { .latency = delta,
					 .critical_start = data->critical_start,
					 .critical_end = parent_ip ? parent_ip : ip,
					 .time_start = data->preempt_timestamp };

		update_max_tr_single(tr, current, cpu, &s);
	}
	max_sequence++;
out_unlock:
	spin_unlock(&max_trace_lock);
out:
	data->critical_sequence = max_sequence;
	data->preempt_timestamp = rdtsc();
}

static void start_critical_timing(unsigned long ip, unsigned long parent_ip)
{
	struct irqsoff_cpu *data = &irqsoff_data[smp_processor_id()];
	struct trace_array *tr = READ_ONCE(irqsoff_trace);

	if (!READ_ONCE(tracer_enabled) || !READ_ONCE(tr->tracing_on) || data->tracing ||
	    data->disabled)
		return;
	data->disabled = true;
	data->critical_sequence = max_sequence;
	data->preempt_timestamp = rdtsc();
	data->critical_start = parent_ip ? parent_ip : ip;
	trace_function(tr, ip, parent_ip);
	data->tracing = true;
	data->disabled = false;
}

static void stop_critical_timing(unsigned long ip, unsigned long parent_ip, unsigned long hook)
{
	int cpu = smp_processor_id();
	struct irqsoff_cpu *data = &irqsoff_data[cpu];
	struct trace_array *tr = READ_ONCE(irqsoff_trace);

	if (!data->tracing)
		return;
	data->tracing = false;
	if (!READ_ONCE(tracer_enabled) || !READ_ONCE(tr->tracing_on) || !data->critical_start ||
	    data->disabled)
		return;
	data->disabled = true;
	trace_function(tr, ip, parent_ip);
	check_critical_timing(data, ip, parent_ip, cpu, hook);
	data->critical_start = 0;
	data->disabled = false;
}

void tracer_hardirqs_on(unsigned long ip, unsigned long parent_ip)
{
	if (!preempt_trace() && irq_trace())
		stop_critical_timing(ip, parent_ip, (unsigned long)trace_hardirqs_on);
}

void tracer_hardirqs_off(unsigned long ip, unsigned long parent_ip)
{
	if (!preempt_trace() && irq_trace())
		start_critical_timing(ip, parent_ip);
}

void tracer_hardirqs_stale(void)
{
	struct irqsoff_cpu *data = &irqsoff_data[smp_processor_id()];

	if ((trace_type & TRACER_IRQS_OFF) && !preempt_trace() && !data->disabled) {
		data->tracing = false;
		data->critical_start = 0;
	}
}

void tracer_preempt_on(unsigned long ip, unsigned long parent_ip)
{
	if (preempt_trace() && !irq_trace())
		stop_critical_timing(ip, parent_ip, (unsigned long)trace_preempt_on);
}

void tracer_preempt_off(unsigned long ip, unsigned long parent_ip)
{
	if (preempt_trace() && !irq_trace())
		start_critical_timing(ip, parent_ip);
}

/* --- the tracers ---------------------------------------------------------------------------- */

/* The calls inside sections (function-trace), as function events or, with display-graph, as
 * graph events (Linux's register_irqsoff_function() with is_graph()). */
/* The array's function ops: the top level's, or the instance's own (its set_ftrace_filter). */
static struct ftrace_ops *irqsoff_ops(struct trace_array *tr)
{
	return tr == &global_trace ? &global_ops : tr->ops;
}

static int irqsoff_function_set(struct trace_array *tr, bool on)
{
	int want = !on ? 0 : is_graph(tr) ? FN_GRAPH : FN_CALLS, err = 0;
	struct ftrace_ops *ops = irqsoff_ops(tr);

	if (want == function_enabled)
		return 0;
	if (function_enabled == FN_CALLS)
		unregister_ftrace_function(ops);
	else if (function_enabled == FN_GRAPH)
		unregister_ftrace_graph();
	function_enabled = 0;
	if (want == FN_CALLS) {
		ops->func = irqsoff_tracer_call;
		ops->private = tr;
		ops->flags |= FTRACE_OPS_FL_RECURSION;
		err = register_ftrace_function(ops);
	} else if (want == FN_GRAPH) {
		err = register_ftrace_graph(
			&irqsoff_graph_ops); /* EBUSY: the profiler has fgraph */
	}
	if (!err)
		function_enabled = want;
	return err;
}

/* Linux's __irqsoff_tracer_init(): EBUSY while one of the three runs in any array. */
static int irqsoff_start(struct trace_array *tr, int type)
{
	int err = 0;

	if (irqsoff_busy)
		return -EBUSY;
	for (int c = 0; c < NR_CPUS; c++)
		irqsoff_data[c] = (struct irqsoff_cpu){ 0 };
	tr->max_latency = 0;
	WRITE_ONCE(irqsoff_trace, tr);
	trace_type = type;
	if ((type & TRACER_IRQS_OFF) && (err = trace_irqflags_hooks_get()))
		goto fail;
	if ((type & TRACER_PREEMPT_OFF) && (err = trace_preempt_hooks_get()))
		goto fail_irq;
	if (trace_array_option(tr, TRACE_OPT_FUNCTION_TRACE) &&
	    (err = irqsoff_function_set(tr, true)))
		goto fail_preempt;
	trace_array_set_option(tr, TRACE_OPT_LATENCY_FMT, true);
	irqsoff_busy = true;
	WRITE_ONCE(tracer_enabled, true);
	return 0;
fail_preempt:
	if (type & TRACER_PREEMPT_OFF)
		trace_preempt_hooks_put();
fail_irq:
	if (type & TRACER_IRQS_OFF)
		trace_irqflags_hooks_put();
fail:
	trace_type = 0;
	return err;
}

static void irqsoff_reset(struct trace_array *tr)
{
	WRITE_ONCE(tracer_enabled, false);
	irqsoff_function_set(tr, false);
	if (trace_type & TRACER_PREEMPT_OFF)
		trace_preempt_hooks_put();
	if (trace_type & TRACER_IRQS_OFF)
		trace_irqflags_hooks_put();
	trace_type = 0;
	trace_array_set_option(tr, TRACE_OPT_LATENCY_FMT, false);
	WRITE_ONCE(irqsoff_trace, &global_trace); /* an instance may be freed next (rmdir) */
	irqsoff_busy = false;
}

static void irqsoff_reset_global(void)
{
	irqsoff_reset(&global_trace);
}

/*
 * function-trace switched while we run: add or drop the functions inside sections. display-graph
 * (Linux's irqsoff_display_graph()): the other kind of events from now on, and a fresh start, the
 * live buffer emptied and the worst forgotten; refused (EBUSY, nothing changed) if fgraph has
 * another user.
 */
static int irqsoff_option_changed(struct trace_array *tr, int o, bool on)
{
	bool graph = on && trace_array_option(tr, TRACE_OPT_FUNCTION_TRACE);
	int err = 0;

	if (o == TRACE_OPT_FUNCTION_TRACE)
		return irqsoff_function_set(tr, on);
	if (o == TRACE_OPT_OVERWRITE && !on)
		return -EINVAL; /* Linux's trace_keep_overwrite(): the max buffer swaps need it */
	if (o != TRACE_OPT_DISPLAY_GRAPH || tr != &global_trace)
		return 0; /* an instance's display-graph changes nothing, as in Linux */
	/* fgraph first: refused, nothing has changed yet */
	if (graph && (err = register_ftrace_graph(&irqsoff_graph_ops)))
		return err;
	WRITE_ONCE(tracer_enabled, false);
	if (function_enabled == FN_CALLS)
		unregister_ftrace_function(&global_ops);
	else if (function_enabled == FN_GRAPH)
		unregister_ftrace_graph();
	function_enabled = graph ? FN_GRAPH : 0;
	for (int c = 0; c < NR_CPUS; c++)
		irqsoff_data[c] = (struct irqsoff_cpu){ 0 };
	tr->max_latency = 0;
	ring_buffer_reset(&tr->buffer);
	if (!graph && trace_array_option(tr, TRACE_OPT_FUNCTION_TRACE))
		err = irqsoff_function_set(tr, true);
	WRITE_ONCE(tracer_enabled, true);
	return err;
}

/* display-graph's output (Linux's irqsoff_print_line() and irqsoff_print_header()): the graph
 * layout with the time from the section's start, the CPU, the task and the latency flags. */
static u32 irqsoff_graph_flags(struct trace_array *tr)
{
	u32 flags = GRAPH_LATENCY_FLAGS;

	return trace_array_option(tr, TRACE_OPT_LATENCY_FMT) ? flags
							     : flags & ~(u32)GRAPH_PRINT_LAT;
}

static bool irqsoff_print_line(struct seq_file *m, struct trace_iterator *it)
{
	struct trace_array *tr = it->tr ? it->tr : &global_trace;

	return is_graph(tr) && print_graph_function_flags(m, it, irqsoff_graph_flags(tr));
}

/* Printed only for the array the tracer runs on: irqsoff_trace. */
static bool irqsoff_print_lat_header(struct seq_file *m)
{
	struct trace_array *tr = READ_ONCE(irqsoff_trace);

	if (!is_graph(tr))
		return false;
	print_graph_headers_flags(m, irqsoff_graph_flags(tr));
	return true;
}

static int irqsoff_instance_init(struct trace_array *tr)
{
	return irqsoff_start(tr, TRACER_IRQS_OFF);
}

static int preemptoff_instance_init(struct trace_array *tr)
{
	return irqsoff_start(tr, TRACER_PREEMPT_OFF);
}

static int preemptirqsoff_instance_init(struct trace_array *tr)
{
	return irqsoff_start(tr, TRACER_IRQS_OFF | TRACER_PREEMPT_OFF);
}

static int irqsoff_tracer_init(void)
{
	return irqsoff_instance_init(&global_trace);
}

static int preemptoff_tracer_init(void)
{
	return preemptoff_instance_init(&global_trace);
}

static int preemptirqsoff_tracer_init(void)
{
	return preemptirqsoff_instance_init(&global_trace);
}

/* allow_instances, as Linux 6.1's: instance_init and instance_reset. */
#define LATENCY_TRACER(_name, _init, _instance_init)                                               \
	{                                                                                          \
		.name = _name, .init = _init, .reset = irqsoff_reset_global,                       \
		.instance_init = _instance_init, .instance_reset = irqsoff_reset,                  \
		.option_changed = irqsoff_option_changed, .use_max_tr = true, .print_max = true,   \
		.print_line = irqsoff_print_line, .print_lat_header = irqsoff_print_lat_header     \
	}
static struct tracer irqsoff_tracers[] = {
	LATENCY_TRACER("irqsoff", irqsoff_tracer_init, irqsoff_instance_init),
	LATENCY_TRACER("preemptoff", preemptoff_tracer_init, preemptoff_instance_init),
	LATENCY_TRACER("preemptirqsoff", preemptirqsoff_tracer_init, preemptirqsoff_instance_init),
};

void trace_irqsoff_init(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(irqsoff_tracers); i++)
		register_tracer(&irqsoff_tracers[i]);
}
