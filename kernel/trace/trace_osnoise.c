/* osnoise: Linux's operating-system noise tracer. A thread on each CPU of osnoise/cpus reads the
 * clock in a loop for runtime_us of every period_us, preemptible, interrupts on:
 *
 *     sample = now; noise = sample - last_sample     a gap of tracing_thresh (5 us when 0) or more
 *                                                    is noise: sample_threshold, with how many
 *                                                    interferences began meanwhile (0: hardware)
 *
 * and at the end of the runtime one line per CPU (a TRACE_OSNOISE record): the runtime, the noise,
 * the share of the CPU the thread had, the largest single noise, and what interfered, counted by
 * trace_osnoise_hooks.c. The threads' start and stop are timerlat's too (trace_timerlat.c).
 */
#include "kernel/trace/trace_osnoise.h"
#include "kernel/trace/events/osnoise.h"
#include "kernel/irqflags.h"
#include "kernel/locking/mutex.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

#define DEFAULT_THRESHOLD_NS 5000 /* when tracing_thresh is 0, as Linux */

/* Linux's struct osnoise_entry. */
struct osnoise_entry {
	struct trace_entry ent;
	u64 noise, runtime, max_sample; /* us */
	unsigned int hw_count, nmi_count, irq_count, softirq_count, thread_count;
};

extern unsigned long tracing_thresh; /* ns (trace_functions_graph.c) */
static struct task *threads[NR_CPUS];
static volatile bool alive[NR_CPUS];
static void (*running_fn)(void *); /* the threads' function while they run, NULL if none */
static const char *running_name;
static DEFINE_MUTEX(threads_lock);

static void stop_tracing_on(struct trace_array *tr, void *arg)
{
	unsigned long ip = *(unsigned long *)arg;
	struct rb_reserve r;
	struct print_entry *e;
	char text[40];
	int len = snprintf(text, sizeof(text), "stop tracing hit on cpu %d\n", smp_processor_id());

	/* A print record as trace_printk() makes, without its debug-kernel banner (Linux's
	 * trace_array_printk_buf() shows none either). */
	e = trace_array_reserve(tr, &r, TRACE_PRINT, sizeof(*e) + len + 1, read_flags());
	if (e) {
		e->ip = ip;
		memcpy(e->buf, text, len + 1);
		ring_buffer_unlock_commit(&r);
	}
	if (osnoise_option(OSN_PANIC_ON_STOP))
		panic("tracer hit stop condition on CPU %d\n", smp_processor_id());
	WRITE_ONCE(tr->tracing_on, false);
}

void osnoise_stop_tracing(unsigned long ip)
{
	osnoise_for_each_array(stop_tracing_on, &ip);
}

static void notify_max_on(struct trace_array *tr, void *arg)
{
	u64 ns = *(u64 *)arg;

	if (READ_ONCE(tr->tracing_on) && tr->max_latency < ns)
		tr->max_latency = ns;
}

void osnoise_notify_max(u64 ns)
{
	osnoise_for_each_array(notify_max_on, &ns);
}

static void sample_on(struct trace_array *tr, void *arg)
{
	const struct osnoise_entry *s = arg;
	struct rb_reserve r;
	struct osnoise_entry *e =
		trace_array_reserve(tr, &r, TRACE_OSNOISE, sizeof(*e), read_flags());

	if (!e)
		return;
	memcpy((u8 *)e + sizeof(e->ent), (const u8 *)s + sizeof(s->ent),
	       sizeof(*e) - sizeof(e->ent));
	ring_buffer_unlock_commit(&r);
}

/* One runtime of sampling (Linux's run_osnoise()); not inlined, so that the stop line names it. */
static noinline void run_osnoise(struct osnoise_var *v)
{
	bool no_irq = osnoise_option(OSN_IRQ_DISABLE);
	bool no_preempt = !no_irq && osnoise_option(OSN_PREEMPT_DISABLE);
	u64 threshold =
		READ_ONCE(tracing_thresh) ? READ_ONCE(tracing_thresh) : DEFAULT_THRESHOLD_NS;
	u64 runtime = READ_ONCE(osnoise_data.sample_runtime) * 1000;
	u64 stop_in = READ_ONCE(osnoise_data.stop_tracing) * 1000;
	u64 start, sample, last_sample, total, noise, max_noise = 0, sum_noise = 0;
	u64 int_count, last_int_count, irq0 = v->irq_count, nmi0 = v->nmi_count;
	u64 thread0 = v->thread_count;
	struct osnoise_entry s = { 0 };
	unsigned long flags = 0;

	if (no_irq)
		flags = local_irq_save();
	if (no_preempt)
		preempt_disable();
	/* As Linux's osn_var->pid: the thread names itself the workload before it samples. Set from
	 * its creator after kthread_create(), it came too late when the new thread ran at once on its
	 * CPU: its own first switch-in was counted as a thread's noise that never switched out. */
	WRITE_ONCE(v->owner, current);
	v->thread_start = 0; /* this thread runs: no other's run is open */
	WRITE_ONCE(v->sampling, true);
	start = rdtsc();
	last_int_count = osnoise_int_safe_time(v, &last_sample);
	do {
		int_count = osnoise_int_safe_time(v, &sample);
		noise = tsc_to_ns(sample - last_sample);
		total = tsc_to_ns(sample - start);
		if (noise >= threshold) {
			u64 interference = int_count - last_int_count;
			if (noise > max_noise)
				max_noise = noise;
			if (!interference)
				s.hw_count++;
			sum_noise += noise;
			trace_sample_threshold(tsc_to_ktime(last_sample), noise, interference);
			if (stop_in && noise > stop_in)
				osnoise_stop_tracing(_THIS_IP_);
		}
		if (!no_irq && !no_preempt)
			cond_resched();
		last_sample = sample;
		last_int_count = int_count;
	} while (total < runtime && !kthread_should_stop());
	WRITE_ONCE(v->sampling, false);
	if (no_preempt)
		preempt_enable_no_resched();
	if (no_irq)
		local_irq_restore(flags);

	s.noise = sum_noise / 1000;
	s.runtime = total / 1000;
	s.max_sample = max_noise / 1000;
	s.irq_count = v->irq_count - irq0;
	s.nmi_count = v->nmi_count - nmi0;
	s.thread_count = v->thread_count - thread0;
	osnoise_for_each_array(sample_on, &s);
	osnoise_notify_max(max_noise);
	if (osnoise_data.stop_tracing_total && s.noise > osnoise_data.stop_tracing_total)
		osnoise_stop_tracing(_THIS_IP_);
}

static void osnoise_main(void *arg)
{
	struct osnoise_var *v = &osnoise_vars[smp_processor_id()];

	while (!kthread_should_stop()) {
		unsigned long rest;

		run_osnoise(v);
		rest = READ_ONCE(osnoise_data.sample_period) -
		       READ_ONCE(osnoise_data.sample_runtime);
		if (rest >= 1000)
			msleep(rest / 1000); /* whole ms: our sleeps are the tick's (docs/21) */
		else
			cond_resched();
	}
}

/* --- the threads, shared with timerlat ------------------------------------------------------- */

static void thread_entry(void *arg)
{
	int cpu = smp_processor_id();

	running_fn(arg);
	osnoise_vars[cpu].sampling = false;
	WRITE_ONCE(alive[cpu], false);
}

static void stop_threads_locked(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		if (threads[cpu])
			kthread_stop(threads[cpu]->pid);
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		while (READ_ONCE(alive[cpu]))
			msleep(1);
		threads[cpu] = NULL;
	}
}

static int start_threads_locked(void)
{
	char name[TASK_COMM_LEN];
	int cpu;

	if (!osnoise_option(OSN_WORKLOAD))
		return 0; /* NO_OSNOISE_WORKLOAD: the hooks alone, for a workload of the user's */
	for_each_online_cpu(cpu) {
		if (!osnoise_data.cpus[cpu])
			continue;
		snprintf(name, sizeof(name), "%s/%d", running_name, cpu);
		alive[cpu] = true;
		threads[cpu] = kthread_create(thread_entry, NULL, cpu, name);
		if (!threads[cpu]) {
			alive[cpu] = false;
			pr_err("osnoise: could not start sampling thread\n");
			stop_threads_locked();
			return -ENOMEM;
		}
	}
	return 0;
}

int osnoise_start_threads(void (*fn)(void *), const char *name)
{
	int err;

	mutex_lock(&threads_lock);
	running_fn = fn;
	running_name = name;
	err = start_threads_locked();
	if (err)
		running_fn = NULL;
	mutex_unlock(&threads_lock);
	return err;
}

void osnoise_stop_threads(void)
{
	mutex_lock(&threads_lock);
	stop_threads_locked();
	running_fn = NULL;
	mutex_unlock(&threads_lock);
}

void osnoise_restart_threads(void)
{
	mutex_lock(&threads_lock);
	if (running_fn) {
		stop_threads_locked();
		if (start_threads_locked())
			running_fn = NULL;
	}
	mutex_unlock(&threads_lock);
}

/* --- the tracer -------------------------------------------------------------------------------- */

static int osnoise_workload_start(void)
{
	int err = osnoise_hooks_get();

	if (err)
		return err;
	err = osnoise_start_threads(osnoise_main, "osnoise");
	if (err)
		osnoise_hooks_put();
	return err;
}

static void osnoise_workload_stop(void)
{
	osnoise_stop_threads();
	osnoise_hooks_put();
}

/* allow_instances, as Linux 6.1's: every array running it gets every CPU's lines. */
static int osnoise_instance_init(struct trace_array *tr)
{
	return osnoise_array_add(tr, false, osnoise_workload_start);
}

static void osnoise_instance_reset(struct trace_array *tr)
{
	osnoise_array_del(tr, osnoise_workload_stop);
}

static int osnoise_tracer_init(void)
{
	return osnoise_instance_init(&global_trace);
}

static void osnoise_tracer_reset(void)
{
	osnoise_instance_reset(&global_trace);
}

/* Linux's print_osnoise_headers() (the kernel without PREEMPT_RT: five flag columns). */
static void osnoise_print_header(struct seq_file *m)
{
	seq_puts(m, "#                                _-----=> irqs-off\n"
		    "#                               / _----=> need-resched\n"
		    "#                              | / _---=> hardirq/softirq\n"
		    "#                              || / _--=> preempt-depth\n"
		    "#                              ||| / _-=> migrate-disable     "
		    "                    MAX\n"
		    "#                              |||| /     delay               "
		    "                    SINGLE      Interference counters:\n"
		    "#                              |||||               RUNTIME   "
		    "   NOISE  %% OF CPU  NOISE    +-----------------------------+\n"
		    "#           TASK-PID      CPU# |||||   TIMESTAMP    IN US    "
		    "   IN US  AVAILABLE  IN US     HW    NMI    IRQ   SIRQ THREAD\n"
		    "#              | |         |   |||||      |           |      "
		    "       |    |            |      |      |      |      |      |\n");
}

/* Linux's trace_osnoise_print() and trace_osnoise_raw(). */
static bool osnoise_print_line(struct seq_file *m, struct trace_iterator *it)
{
	const struct osnoise_entry *e = (const void *)it->ent;
	u64 ratio, ratio_dec;

	if (it->ent->type != TRACE_OSNOISE)
		return false;
	if (trace_array_option(it->tr ? it->tr : &global_trace, TRACE_OPT_RAW)) {
		seq_printf(m, "%d %d %llu ", it->ent->pid, it->cpu, it->ts);
		seq_printf(m, "%lld %llu %llu %u %u %u %u %u\n", e->runtime, e->noise,
			   e->max_sample, e->hw_count, e->nmi_count, e->irq_count, e->softirq_count,
			   e->thread_count);
		return true;
	}
	/* The share of the runtime the thread had, to five decimals of a percent. */
	ratio = e->runtime ? (e->runtime - e->noise) * 10000000 / e->runtime : 0;
	ratio_dec = ratio % 100000;
	ratio /= 100000;
	trace_print_context(m, it);
	seq_printf(m, "%llu %10llu %3llu.%05llu %7llu", e->runtime, e->noise, ratio, ratio_dec,
		   e->max_sample);
	seq_printf(m, " %6u %6u %6u %6u %6u\n", e->hw_count, e->nmi_count, e->irq_count,
		   e->softirq_count, e->thread_count);
	return true;
}

static struct tracer osnoise_tracer = { .name = "osnoise",
					.init = osnoise_tracer_init,
					.reset = osnoise_tracer_reset,
					.instance_init = osnoise_instance_init,
					.instance_reset = osnoise_instance_reset,
					.print_header = osnoise_print_header,
					.print_line = osnoise_print_line };

void trace_osnoise_init(void)
{
	if (trace_osnoise_files_init())
		return;
	register_tracer(&osnoise_tracer);
	trace_timerlat_init();
}
