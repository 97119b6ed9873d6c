/* irq: device interrupt handlers, as Linux's include/trace/events/irq.h names and prints them. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM irq
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE "kernel/trace/events/irq.h"

#if !defined(_TRACE_IRQ_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_IRQ_H

#include "kernel/tracepoint.h"
#include "kernel/irq/irq.h"

/* A device's handler is about to run (kernel/irq/irq.c: handle_irq_event). */
TRACE_EVENT(irq_handler_entry,
	TP_PROTO(int irq, struct irqaction *action),
	TP_ARGS(irq, action),
	TP_STRUCT__entry(
		__field(int, irq)
		__string(name, action->name)
	),
	TP_fast_assign(
		__entry->irq = irq;
		__assign_str(name, action->name);
	),
	TP_printk("irq=%d name=%s", __entry->irq, __get_str(name))
);

/* The handler returned: whether its device had raised the interrupt. */
TRACE_EVENT(irq_handler_exit,
	TP_PROTO(int irq, struct irqaction *action, int ret),
	TP_ARGS(irq, action, ret),
	TP_STRUCT__entry(
		__field(int, irq)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->irq = irq;
		__entry->ret = ret;
	),
	TP_printk("irq=%d ret=%s", __entry->irq, __entry->ret ? "handled" : "unhandled")
);

#endif /* _TRACE_IRQ_H */

#include "kernel/trace/define_trace.h"
