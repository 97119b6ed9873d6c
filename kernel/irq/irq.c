/* Device interrupts: from a vector to the handler of its IRQ line, with the irq events around it
 * (Linux's kernel/irq/handle.c: handle_irq_event_percpu()). */
#include "kernel/irq/irq.h"
#include "arch/x86/traps.h"
#include "kernel/percpu.h"
#include "lib/errno.h"
#include "kernel/trace/events/irq.h"

/* The action behind each vector (Linux x86's vector_irq[] leads to the same through irq_desc). */
static struct irqaction vector_action[256];

/* The handler do_irq() calls for a device vector; interrupts are off, irq_depth already counts us. */
static void handle_irq_event(struct pt_regs *regs)
{
	struct irqaction *action = &vector_action[this_cpu()->irq_vector];
	irqreturn_t res;

	trace_irq_handler_entry(action->irq, action);
	res = action->handler(action->irq, action->dev_id);
	trace_irq_handler_exit(action->irq, action, res);
}

int request_irq(int irq, int vector, irqreturn_t (*handler)(int irq, void *dev_id),
		const char *name, void *dev_id)
{
	struct irqaction *action = &vector_action[vector];

	if (action->handler)
		return -EBUSY;
	action->irq = irq;
	action->name = name;
	action->dev_id = dev_id;
	action->handler = handler;
	set_irq_handler(vector, handle_irq_event);
	return 0;
}
