/* timerlat: Linux's timer-latency tracer. A thread on each CPU of osnoise/cpus arms a timer for
 * the next period and sleeps; the timer's interrupt records how late it ran after the timer's
 * expiry (context irq) and wakes the thread, which records how late it runs (context thread):
 *
 *     expiry ------ irq handler ------------- thread runs
 *            <- irq latency ->
 *            <---------- thread latency ------------->
 *
 * Linux arms an hrtimer. Our timer is the LAPIC's periodic tick (HZ, 10 ms): the thread asks for
 * the tick at which timerlat_period_us has passed (rounded up to whole ticks), and the expiry is
 * read from the hardware: the LAPIC counter says how long ago it reloaded, that is, how long ago
 * the timer fired (lapic_timer_elapsed_ns()). A handler later than a whole tick cannot be told
 * from one a tick early: such latencies are not measured (docs/21, section 10).
 */
#include "kernel/trace/trace_osnoise.h"
#include "arch/x86/apic.h"
#include "arch/x86/trace/irq_vectors.h"
#include "kernel/irqflags.h"
#include "kernel/smp.h"
#include "kernel/time.h"

#define IRQ_CONTEXT 0
#define THREAD_CONTEXT 1
#define TICK_US (1000000 / HZ)

/* Linux's struct timerlat_entry. */
struct timerlat_entry {
	struct trace_entry ent;
	unsigned int seqnum;
	int context;
	u64 timer_latency; /* ns */
};

/* Linux's timerlat_variables, with the tick in place of the hrtimer. */
struct timerlat_var {
	struct task *kthread;
	bool armed;
	unsigned long ticks_left; /* ticks until the timer fires */
	unsigned int count;	  /* activations */
	u64 irq_tsc, irq_latency; /* when the handler ran, and how late (ns) */
	unsigned long stack[FTRACE_STACK_ENTRIES];
	int stack_size;
};
static struct timerlat_var timerlat_vars[NR_CPUS];

struct timerlat_sample {
	unsigned int seq;
	int context;
	u64 latency;
};

static void sample_on(struct trace_array *tr, void *arg)
{
	const struct timerlat_sample *s = arg;
	struct rb_reserve r;
	struct timerlat_entry *e =
		trace_array_reserve(tr, &r, TRACE_TIMERLAT, sizeof(*e), read_flags());

	if (!e)
		return;
	e->seqnum = s->seq;
	e->context = s->context;
	e->timer_latency = s->latency;
	ring_buffer_unlock_commit(&r);
}

/* Into every array timerlat runs on, as Linux's record_timerlat_sample(). */
static void trace_timerlat_sample(unsigned int seq, int context, u64 latency)
{
	struct timerlat_sample s = { seq, context, latency };

	osnoise_for_each_array(sample_on, &s);
}

static void stack_on(struct trace_array *tr, void *arg)
{
	const struct timerlat_var *t = arg;

	trace_record_saved_stack(tr, t->stack, t->stack_size);
}

/* Linux's timerlat_irq(), from the tick (the local_timer_entry tracepoint). */
static void timerlat_irq(void *data, int vector)
{
	struct timerlat_var *t = &timerlat_vars[smp_processor_id()];
	u64 diff;

	if (!READ_ONCE(t->armed) || --t->ticks_left)
		return;
	t->armed = false;
	diff = lapic_timer_elapsed_ns();
	t->irq_tsc = rdtsc();
	t->irq_latency = diff;
	t->count++;
	trace_timerlat_sample(t->count, IRQ_CONTEXT, diff);
	if (osnoise_data.print_stack)
		t->stack_size = trace_save_stack(t->stack, FTRACE_STACK_ENTRIES);
	if (osnoise_data.stop_tracing && diff / 1000 >= osnoise_data.stop_tracing) {
		/* The thread may never run to print it: the stack now, as Linux does. */
		if (osnoise_data.print_stack &&
		    osnoise_data.stop_tracing <= osnoise_data.print_stack &&
		    diff / 1000 >= osnoise_data.print_stack)
			osnoise_for_each_array(stack_on, t);
		osnoise_stop_tracing(_THIS_IP_);
		osnoise_notify_max(diff);
	}
	wake_up_process(t->kthread);
}

/* Sleeps until the tick at which the next period has begun (Linux's wait_next_period()). */
static void wait_next_period(struct timerlat_var *t)
{
	unsigned long period = READ_ONCE(osnoise_data.timerlat_period);
	unsigned long flags = local_irq_save();

	t->ticks_left = (period + TICK_US - 1) / TICK_US;
	current->state = TASK_SLEEPING;
	WRITE_ONCE(t->armed, true);
	local_irq_restore(flags);
	schedule();
}

static void timerlat_main(void *arg)
{
	int cpu = smp_processor_id();
	struct timerlat_var *t = &timerlat_vars[cpu];

	*t = (struct timerlat_var){ .kthread = current };
	WRITE_ONCE(osnoise_vars[cpu].owner, current); /* before sampling, as run_osnoise() */
	WRITE_ONCE(osnoise_vars[cpu].sampling, true);
	wait_next_period(t);
	while (!kthread_should_stop()) {
		u64 diff = t->irq_latency + tsc_to_ns(rdtsc() - t->irq_tsc);

		trace_timerlat_sample(t->count, THREAD_CONTEXT, diff);
		osnoise_notify_max(diff);
		if (osnoise_data.print_stack && diff / 1000 >= osnoise_data.print_stack)
			osnoise_for_each_array(stack_on, t);
		if (osnoise_data.stop_tracing_total &&
		    diff / 1000 >= osnoise_data.stop_tracing_total)
			osnoise_stop_tracing(_THIS_IP_);
		wait_next_period(t);
	}
	WRITE_ONCE(t->armed, false);
}

static int timerlat_workload_start(void)
{
	int err;

	err = osnoise_hooks_get();
	if (err)
		return err;
	err = tracepoint_probe_register(&__tracepoint_local_timer_entry, timerlat_irq, NULL);
	if (err)
		goto fail_hooks;
	err = osnoise_start_threads(timerlat_main, "timerlat");
	if (err)
		goto fail_probe;
	return 0;
fail_probe:
	tracepoint_probe_unregister(&__tracepoint_local_timer_entry, timerlat_irq, NULL);
fail_hooks:
	osnoise_hooks_put();
	return err;
}

static void timerlat_workload_stop(void)
{
	osnoise_stop_threads();
	tracepoint_probe_unregister(&__tracepoint_local_timer_entry, timerlat_irq, NULL);
	osnoise_hooks_put();
}

/* allow_instances, as Linux 6.1's; EBUSY while osnoise runs in any array. */
static int timerlat_instance_init(struct trace_array *tr)
{
	return osnoise_array_add(tr, true, timerlat_workload_start);
}

static void timerlat_instance_reset(struct trace_array *tr)
{
	osnoise_array_del(tr, timerlat_workload_stop);
}

static int timerlat_tracer_init(void)
{
	return timerlat_instance_init(&global_trace);
}

static void timerlat_tracer_reset(void)
{
	timerlat_instance_reset(&global_trace);
}

/* Linux's print_timerlat_headers() (the kernel without PREEMPT_RT). */
static void timerlat_print_header(struct seq_file *m)
{
	seq_puts(m, "#                                _-----=> irqs-off\n"
		    "#                               / _----=> need-resched\n"
		    "#                              | / _---=> hardirq/softirq\n"
		    "#                              || / _--=> preempt-depth\n"
		    "#                              ||| / _-=> migrate-disable\n"
		    "#                              |||| /     delay\n"
		    "#                              |||||            ACTIVATION\n"
		    "#           TASK-PID      CPU# |||||   TIMESTAMP   ID      "
		    "      CONTEXT                 LATENCY\n"
		    "#              | |         |   |||||      |         |      "
		    "            |                       |\n");
}

/* Linux's trace_timerlat_print() and trace_timerlat_raw(). */
static bool timerlat_print_line(struct seq_file *m, struct trace_iterator *it)
{
	const struct timerlat_entry *e = (const void *)it->ent;

	if (it->ent->type != TRACE_TIMERLAT)
		return false;
	if (trace_array_option(it->tr ? it->tr : &global_trace, TRACE_OPT_RAW)) {
		seq_printf(m, "%d %d %llu ", it->ent->pid, it->cpu, it->ts);
		seq_printf(m, "%u %d %llu\n", e->seqnum, e->context, e->timer_latency);
		return true;
	}
	trace_print_context(m, it);
	seq_printf(m, "#%-5u context %6s timer_latency %9llu ns\n", e->seqnum,
		   e->context ? "thread" : "irq", e->timer_latency);
	return true;
}

static struct tracer timerlat_tracer = { .name = "timerlat",
					 .init = timerlat_tracer_init,
					 .reset = timerlat_tracer_reset,
					 .instance_init = timerlat_instance_init,
					 .instance_reset = timerlat_instance_reset,
					 .print_header = timerlat_print_header,
					 .print_line = timerlat_print_line };

void trace_timerlat_init(void)
{
	register_tracer(&timerlat_tracer);
}
