/* Device interrupts by IRQ number, as Linux's genirq sees them: a line, its handler, its name. */
#ifndef KERNEL_IRQ_H
#define KERNEL_IRQ_H

#include "lib/types.h"

/* What a handler says: it found work for its device (IRQ_HANDLED), or the line was not its. */
typedef enum irqreturn {
	IRQ_NONE = 0,
	IRQ_HANDLED = 1,
} irqreturn_t;

/* One handler on one line (Linux's struct irqaction, without sharing or threads). */
struct irqaction {
	irqreturn_t (*handler)(int irq, void *dev_id);
	void *dev_id;
	const char *name; /* what the irq events and Linux's /proc/interrupts call it: "ttyS0" */
	int irq;
};

/*
 * Makes handler(irq, dev_id) run when `vector` arrives, bracketed by the irq_handler_entry and
 * irq_handler_exit events. Linux picks the vector itself; here the arch names it (SERIAL_VECTOR)
 * and routes the line there (ioapic_route). 0, or -EBUSY if the vector already has a handler.
 */
int request_irq(int irq, int vector, irqreturn_t (*handler)(int irq, void *dev_id),
		const char *name, void *dev_id);

#endif
