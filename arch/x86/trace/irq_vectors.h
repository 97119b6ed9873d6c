/* irq_vectors: the x86 system vectors (timer, IPIs), as Linux's
 * arch/x86/include/asm/trace/irq_vectors.h names and prints them. Only the tracepoint machinery is
 * included: arch code never reaches into kernel/trace/. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM irq_vectors
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE "arch/x86/trace/irq_vectors.h"

#if !defined(_TRACE_IRQ_VECTORS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_IRQ_VECTORS_H

#include "kernel/tracepoint.h"

/* Every event here records the vector that came in: ours, not Linux's numbers (0x20 for the
 * timer here, 0xec in Linux). */
DECLARE_EVENT_CLASS(x86_irq_vector,
	TP_PROTO(int vector),
	TP_ARGS(vector),
	TP_STRUCT__entry(
		__field(int, vector)
	),
	TP_fast_assign(
		__entry->vector = vector;
	),
	TP_printk("vector=%d", __entry->vector)
);

/* <name>_entry as the handler starts, <name>_exit as it returns. */
#define DEFINE_IRQ_VECTOR_EVENT(name)                                                         \
	DEFINE_EVENT(x86_irq_vector, name##_entry, TP_PROTO(int vector), TP_ARGS(vector));    \
	DEFINE_EVENT(x86_irq_vector, name##_exit, TP_PROTO(int vector), TP_ARGS(vector));

/* The LAPIC timer tick (arch/x86/tsc.c: timer_tick). */
DEFINE_IRQ_VECTOR_EVENT(local_timer)
/* Another CPU asked this one to reschedule (kernel/smp.c: reschedule_interrupt). */
DEFINE_IRQ_VECTOR_EVENT(reschedule)
/* smp_call_function() reached this CPU (kernel/smp.c: call_function_interrupt). */
DEFINE_IRQ_VECTOR_EVENT(call_function)
/* smp_call_function_single() reached this CPU (kernel/smp.c: call_function_single_interrupt). */
DEFINE_IRQ_VECTOR_EVENT(call_function_single)
/* This CPU's own IPI for queued irq_work (kernel/irq_work.c: irq_work_interrupt). */
DEFINE_IRQ_VECTOR_EVENT(irq_work)

#endif /* _TRACE_IRQ_VECTORS_H */

#include "kernel/trace/define_trace.h"
