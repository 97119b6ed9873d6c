/* irq_work: a callback queued from any context (NMI, a tracepoint under the runqueue lock) and run
 * from this CPU's own interrupt as soon as interrupts are on (Linux's include/linux/irq_work.h). */
#ifndef KERNEL_IRQ_WORK_H
#define KERNEL_IRQ_WORK_H

#include "lib/types.h"

#define IRQ_WORK_PENDING 1U /* queued, the callback not yet started */
#define IRQ_WORK_BUSY 2U    /* claimed: queued or running */
#define IRQ_WORK_CLAIMED (IRQ_WORK_PENDING | IRQ_WORK_BUSY)

struct irq_work {
	struct irq_work *next; /* on one CPU's raised list */
	u32 flags;
	void (*func)(struct irq_work *work);
};

static inline void init_irq_work(struct irq_work *work, void (*func)(struct irq_work *))
{
	work->next = NULL;
	work->flags = 0;
	work->func = func;
}

/* Queues work on this CPU and raises the self-IPI; false if it was already pending (it will run
 * once, for both). Safe from NMI and with any lock held: a compare-and-swap and an APIC write. */
bool irq_work_queue(struct irq_work *work);
/* Runs this CPU's queued work; interrupts off (the IPI's handler, or a caller that checks). */
void irq_work_run(void);
/* Waits until work is neither queued nor running (before freeing what its callback touches). */
void irq_work_sync(struct irq_work *work);
/* The IPI's handler on IRQ_WORK_VECTOR, at boot. */
void irq_work_init(void);

#endif
