/* State each CPU keeps for itself: interrupt nesting, and ftrace's recursion bits. */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include "lib/types.h"
#include "kernel/smp.h"

struct cpu_local {
	unsigned int irq_depth;        /* > 0 inside a hardware interrupt handler */
	unsigned int nmi_depth;        /* > 0 inside an NMI */
	unsigned long trace_recursion; /* one bit per context: a callback is running in it */
};

extern struct cpu_local cpu_local[NR_CPUS];

static __always_inline struct cpu_local *this_cpu(void)
{
	return &cpu_local[smp_processor_id()];
}

/* Contexts, innermost last: a callback interrupted by an IRQ may trace the IRQ. */
enum trace_context { TRACE_CTX_NORMAL, TRACE_CTX_IRQ, TRACE_CTX_NMI };

static __always_inline enum trace_context trace_context(void)
{
	struct cpu_local *c = this_cpu();
	if (c->nmi_depth)
		return TRACE_CTX_NMI;
	return c->irq_depth ? TRACE_CTX_IRQ : TRACE_CTX_NORMAL;
}

#endif
