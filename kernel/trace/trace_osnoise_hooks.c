/* What took a CPU from its osnoise or timerlat thread, counted and timed from the hooks Linux's
 * osnoise uses: the interrupt vectors' and device handlers' tracepoints, sched_switch, and the
 * NMI entry (ftrace_nmi_enter()). Each interference is timed without what nested in it (an NMI
 * inside a handler, a handler inside another thread's run), so the irq_noise, nmi_noise and
 * thread_noise events add up to the noise and never count a nanosecond twice. This kernel has
 * no softirqs: their counter stays 0.
 */
#include "kernel/trace/trace_osnoise.h"
#include "kernel/trace/events/osnoise.h"
#include "kernel/trace/events/irq.h"
#include "kernel/trace/events/sched.h"
#include "arch/x86/trace/irq_vectors.h"
#include "kernel/trace/ftrace_irq.h"
#include "kernel/irqflags.h"
#include "kernel/smp.h"
#include "kernel/time.h"

struct osnoise_var osnoise_vars[NR_CPUS];
bool trace_osnoise_callback_enabled;

static struct osnoise_var *this_var(void)
{
	return &osnoise_vars[smp_processor_id()];
}

u64 osnoise_int_safe_time(struct osnoise_var *v, u64 *tsc)
{
	u64 count;

	do {
		count = READ_ONCE(v->int_counter);
		barrier();
		*tsc = rdtsc();
		barrier();
	} while (count != READ_ONCE(v->int_counter));
	return count;
}

void trace_osnoise_callback(bool enter)
{
	struct osnoise_var *v = this_var();
	u64 now = rdtsc(), d;

	if (!READ_ONCE(v->sampling))
		return;
	if (enter) {
		v->nmi_start = now;
		v->int_counter++;
		v->nmi_count++;
		return;
	}
	if (!v->nmi_start)
		return;
	d = tsc_to_ns(now - v->nmi_start);
	v->nmi_ns += d;
	trace_nmi_noise(tsc_to_ktime(v->nmi_start), d);
	v->nmi_start = 0;
}

static void irq_entry(const char *desc, int vector)
{
	struct osnoise_var *v = this_var();

	if (!READ_ONCE(v->sampling))
		return;
	v->irq_start = rdtsc();
	v->irq_nmi_ns = v->nmi_ns;
	v->int_counter++;
	v->irq_count++;
}

static void irq_exit(const char *desc, int vector)
{
	struct osnoise_var *v = this_var();
	u64 d;

	if (!READ_ONCE(v->sampling) || !v->irq_start)
		return;
	d = tsc_to_ns(rdtsc() - v->irq_start) - (v->nmi_ns - v->irq_nmi_ns);
	v->irq_ns += d;
	trace_irq_noise(vector, desc, tsc_to_ktime(v->irq_start), d);
	v->irq_start = 0;
}

static void vector_entry(void *desc, int vector)
{
	irq_entry(desc, vector);
}

static void vector_exit(void *desc, int vector)
{
	irq_exit(desc, vector);
}

static void handler_entry(void *data, int irq, struct irqaction *action)
{
	irq_entry(action->name, irq);
}

static void handler_exit(void *data, int irq, struct irqaction *action, int ret)
{
	irq_exit(action->name, irq);
}

/* Linux's trace_sched_switch_callback(): every other thread's run on the CPU is noise. */
static void sched_switch_probe(void *data, bool preempt, struct task *prev, struct task *next)
{
	struct osnoise_var *v = this_var();
	u64 now = rdtsc(), d;

	if (!READ_ONCE(v->sampling))
		return;
	if (prev != v->owner && v->thread_start) {
		d = tsc_to_ns(now - v->thread_start) -
		    (v->irq_ns + v->nmi_ns - v->thread_nested_ns);
		trace_thread_noise(prev, tsc_to_ktime(v->thread_start), d);
		v->thread_start = 0;
	}
	if (next != v->owner) {
		v->thread_start = now;
		v->thread_nested_ns = v->irq_ns + v->nmi_ns;
		v->int_counter++;
		v->thread_count++;
	}
}

/* Every vector with an event, named as Linux's osnoise names them in irq_noise. */
#define VECTOR_HOOK(name)                                                                          \
	{                                                                                          \
		&__tracepoint_##name##_entry, &__tracepoint_##name##_exit, #name                   \
	}
static const struct {
	struct tracepoint *entry, *exit;
	const char *desc;
} vector_hooks[] = { VECTOR_HOOK(local_timer), VECTOR_HOOK(reschedule), VECTOR_HOOK(call_function),
		     VECTOR_HOOK(call_function_single) };

static const struct {
	struct tracepoint *tp;
	void *probe;
} other_hooks[] = { { &__tracepoint_irq_handler_entry, handler_entry },
		    { &__tracepoint_irq_handler_exit, handler_exit },
		    { &__tracepoint_sched_switch, sched_switch_probe } };

#define NR_HOOKS (2 * ARRAY_SIZE(vector_hooks) + ARRAY_SIZE(other_hooks))

static void hook_at(size_t i, struct tracepoint **tp, void **probe, void **data)
{
	if (i < 2 * ARRAY_SIZE(vector_hooks)) {
		*tp = i % 2 ? vector_hooks[i / 2].exit : vector_hooks[i / 2].entry;
		*probe = i % 2 ? (void *)vector_exit : (void *)vector_entry;
		*data = (void *)vector_hooks[i / 2].desc;
		return;
	}
	i -= 2 * ARRAY_SIZE(vector_hooks);
	*tp = other_hooks[i].tp;
	*probe = other_hooks[i].probe;
	*data = NULL;
}

int osnoise_hooks_get(void)
{
	struct tracepoint *tp;
	void *probe, *data;
	size_t i;
	int err = 0;

	for (int c = 0; c < NR_CPUS; c++)
		osnoise_vars[c] = (struct osnoise_var){ 0 };
	for (i = 0; i < NR_HOOKS; i++) {
		hook_at(i, &tp, &probe, &data);
		err = tracepoint_probe_register(tp, probe, data);
		if (err)
			goto unwind;
	}
	WRITE_ONCE(trace_osnoise_callback_enabled, true);
	return 0;
unwind:
	while (i--) {
		hook_at(i, &tp, &probe, &data);
		tracepoint_probe_unregister(tp, probe, data);
	}
	return err;
}

void osnoise_hooks_put(void)
{
	struct tracepoint *tp;
	void *probe, *data;

	WRITE_ONCE(trace_osnoise_callback_enabled, false);
	for (size_t i = 0; i < NR_HOOKS; i++) {
		hook_at(i, &tp, &probe, &data);
		tracepoint_probe_unregister(tp, probe, data);
	}
	tracepoint_synchronize_unregister();
}
