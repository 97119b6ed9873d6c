/*
 * irq_work (Linux: kernel/irq_work.c): deferring a callback out of a context that may not take
 * locks or wake tasks, into the first moment this CPU takes an interrupt again.
 *
 *   producer, any context          irq_work_queue(w): claim w (PENDING|BUSY), push it on this
 *                                  CPU's raised list, and if the list was empty send this CPU a
 *                                  self-IPI on IRQ_WORK_VECTOR
 *   interrupts come on             the IPI arrives: irq_work_run() takes the whole list, clears
 *                                  PENDING on each work (it may be queued again from now on),
 *                                  calls func, then clears BUSY
 *
 * The list is a lock-free stack (Linux's llist): a push is one compare-and-swap, so an NMI that
 * lands in the middle of another push only makes that push retry. With interrupts off the IPI
 * waits in the APIC and is taken when they come back on, the same place a tick would be; with them
 * on it is taken before irq_work_queue() returns.
 */
#include "kernel/irq_work.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "arch/x86/trace/irq_vectors.h"

static struct irq_work *raised_list[NR_CPUS];

/* Linux's arch_irq_work_raise(): the self-IPI, with the destination shorthand (no ICR high word,
 * so an NMI between another sender's two ICR writes cannot redirect that one's IPI). */
static void arch_irq_work_raise(void)
{
	lapic_send_ipi_self(IRQ_WORK_VECTOR);
}

bool irq_work_queue(struct irq_work *work)
{
	u32 old = __atomic_fetch_or(&work->flags, IRQ_WORK_CLAIMED, __ATOMIC_ACQ_REL);
	struct irq_work **list, *first;
	unsigned long flags;

	if (old & IRQ_WORK_PENDING)
		return false;
	/* interrupts off: the push and the raise happen on one CPU (an NMI may still come in) */
	flags = local_irq_save();
	list = &raised_list[smp_processor_id()];
	first = __atomic_load_n(list, __ATOMIC_RELAXED);
	do
		work->next = first;
	while (!__atomic_compare_exchange_n(list, &first, work, true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
	if (!first)
		arch_irq_work_raise();
	local_irq_restore(flags);
	return true;
}

void irq_work_run(void)
{
	struct irq_work *work = __atomic_exchange_n(&raised_list[smp_processor_id()], NULL,
						    __ATOMIC_ACQUIRE),
			*next;

	for (; work; work = next) {
		u32 flags;

		next = work->next;
		/* From here a new irq_work_queue() queues it again: an arrival during func is not lost. */
		flags = __atomic_and_fetch(&work->flags, ~IRQ_WORK_PENDING, __ATOMIC_ACQ_REL);
		work->func(work);
		/* BUSY goes only if nobody queued it again meanwhile (Linux's cmpxchg). */
		__atomic_compare_exchange_n(&work->flags, &flags, flags & ~IRQ_WORK_BUSY, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
}

void irq_work_sync(struct irq_work *work)
{
	while (__atomic_load_n(&work->flags, __ATOMIC_ACQUIRE) & IRQ_WORK_BUSY)
		cpu_relax();
}

/* Linux's sysvec_irq_work(), traced as irq_vectors:irq_work_entry and irq_work_exit. */
static void irq_work_interrupt(struct pt_regs *regs)
{
	trace_irq_work_entry(IRQ_WORK_VECTOR);
	irq_work_run();
	trace_irq_work_exit(IRQ_WORK_VECTOR);
}

void irq_work_init(void)
{
	set_irq_handler(IRQ_WORK_VECTOR, irq_work_interrupt);
}
