/* The hooks of local_irq_*() and preempt_*(): where the preemptirq events and the latency tracers hear.
 *
 *   local_irq_disable()  cli, then (key on) trace_hardirqs_off()  -> irq_disable event, irqsoff
 *   local_irq_enable()   (key on) trace_hardirqs_on(), then sti    -> irq_enable event, irqsoff
 *   preempt_disable()    count 0 -> 1, then trace_preempt_off()   -> preempt_disable, preemptoff
 *   preempt_enable_*()   trace_preempt_on(), then count 1 -> 0    -> preempt_enable, preemptoff
 *
 * Each hook site is a static branch (kernel/irqflags.h): a NOP while nobody listens, patched to a
 * jmp when the first listener (an event or a tracer) takes the key. The interrupt entry does the
 * same in do_irq(): an interrupt turns interrupts off as surely as a cli.
 */
#include "kernel/irqflags.h"
#include "kernel/trace/trace_irqsoff.h"
#include "kernel/smp.h"
#include "kernel/mm/mm.h"
#include "kernel/trace/events/preemptirq.h"

DEFINE_STATIC_KEY_FALSE(trace_irqflags_key);
DEFINE_STATIC_KEY_FALSE(trace_preempt_key);

/* Linux's tracing_irq_cpu: this CPU's interrupts are off as far as the hooks have heard. A hook
 * only acts on a change: a cli with interrupts already off is not the start of anything. */
static u8 tracing_irq_cpu[NR_CPUS];

/* The return address in the frame fp (what Linux's CALLER_ADDR1 reads): the function with the
 * site may have been entered from assembly with anything in rbp, so fp is checked first. */
static unsigned long frame_return(unsigned long fp, unsigned long below)
{
	if (fp < PAGE_OFFSET || (fp & 7) || fp <= below)
		return 0;
	return ((unsigned long *)fp)[1];
}

/* Interrupts went off at ip, in a function whose frame is fp (the thunks' entry). */
void __trace_hardirqs_off(unsigned long ip, unsigned long fp)
{
	int cpu = smp_processor_id();
	unsigned long parent;

	if (tracing_irq_cpu[cpu])
		return;
	tracing_irq_cpu[cpu] = 1;
	parent = frame_return(fp, (unsigned long)__builtin_frame_address(0));
	tracer_hardirqs_off(ip, parent);
	if (!this_cpu_read(nmi_depth))
		trace_irq_disable(ip, parent);
}

void __trace_hardirqs_on(unsigned long ip, unsigned long fp)
{
	int cpu = smp_processor_id();
	unsigned long parent;

	if (!tracing_irq_cpu[cpu])
		return;
	parent = frame_return(fp, (unsigned long)__builtin_frame_address(0));
	if (!this_cpu_read(nmi_depth))
		trace_irq_enable(ip, parent);
	tracer_hardirqs_on(ip, parent);
	tracing_irq_cpu[cpu] = 0;
}

/* The count went 0 -> 1 (it is 1 now); nested disables are not the start of anything. */
void trace_preempt_off(unsigned long ip, unsigned long fp)
{
	unsigned long parent;

	if (this_cpu_read(preempt_count) != 1)
		return;
	parent = frame_return(fp, (unsigned long)__builtin_frame_address(0));
	if (!this_cpu_read(nmi_depth))
		trace_preempt_disable(ip, parent);
	tracer_preempt_off(ip, parent);
}

void trace_preempt_on(unsigned long ip, unsigned long fp)
{
	unsigned long parent;

	if (this_cpu_read(preempt_count) != 1)
		return;
	parent = frame_return(fp, (unsigned long)__builtin_frame_address(0));
	if (!this_cpu_read(nmi_depth))
		trace_preempt_enable(ip, parent);
	tracer_preempt_on(ip, parent);
}

/*
 * An interrupt came into code that had interrupts on (do_irq()): whatever the hooks believe, no
 * section can be open on this CPU. They can believe otherwise after the key flipped while a section
 * ran: its cli's site already called the hook and its sti's site was still the NOP, or the other way
 * round. So the state starts over here, before the interrupt's own section opens; the tracer drops
 * the section it never saw end.
 */
void trace_hardirqs_irq_entry(void)
{
	int cpu = smp_processor_id();

	if (tracing_irq_cpu[cpu]) {
		tracing_irq_cpu[cpu] = 0;
		tracer_hardirqs_stale();
	}
	__trace_hardirqs_off((unsigned long)__builtin_return_address(0),
			     *(unsigned long *)__builtin_frame_address(0));
}

/* The C entries, for C that calls a hook itself. */
void trace_hardirqs_off(void)
{
	__trace_hardirqs_off((unsigned long)__builtin_return_address(0),
			     *(unsigned long *)__builtin_frame_address(0));
}

void trace_hardirqs_on(void)
{
	__trace_hardirqs_on((unsigned long)__builtin_return_address(0),
			    *(unsigned long *)__builtin_frame_address(0));
}

/*
 * The keys count their listeners. A hook that was off may have missed the cli of a section now
 * running, so the first listener starts from "interrupts on" everywhere: the next on-hook of such a
 * section is then ignored rather than closing a section nobody saw open.
 */
int trace_irqflags_hooks_get(void)
{
	if (!static_key_enabled(&trace_irqflags_key.key))
		for (int c = 0; c < NR_CPUS; c++)
			tracing_irq_cpu[c] = 0;
	return static_branch_inc(&trace_irqflags_key);
}

void trace_irqflags_hooks_put(void)
{
	static_branch_dec(&trace_irqflags_key);
}

int trace_preempt_hooks_get(void)
{
	return static_branch_inc(&trace_preempt_key);
}

void trace_preempt_hooks_put(void)
{
	static_branch_dec(&trace_preempt_key);
}

/* The events take the hooks while anyone listens to them (Linux's TRACE_EVENT_FN reg/unreg). */
void trace_preemptirq_init(void)
{
	__tracepoint_irq_disable.regfunc = trace_irqflags_hooks_get;
	__tracepoint_irq_disable.unregfunc = trace_irqflags_hooks_put;
	__tracepoint_irq_enable.regfunc = trace_irqflags_hooks_get;
	__tracepoint_irq_enable.unregfunc = trace_irqflags_hooks_put;
	__tracepoint_preempt_disable.regfunc = trace_preempt_hooks_get;
	__tracepoint_preempt_disable.unregfunc = trace_preempt_hooks_put;
	__tracepoint_preempt_enable.regfunc = trace_preempt_hooks_get;
	__tracepoint_preempt_enable.unregfunc = trace_preempt_hooks_put;
}
