/* preemptirq: interrupts and preemption going off and on, as Linux's include/trace/events/preemptirq.h. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM preemptirq
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE "kernel/trace/events/preemptirq.h"

#if !defined(_TRACE_PREEMPTIRQ_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_PREEMPTIRQ_H

#include "kernel/tracepoint.h"

/* The start of the kernel's text: the records keep 32-bit offsets from it, as Linux's do. */
extern char _stext[];

/* Fired by the hooks of kernel/trace/trace_preemptirq.c: ip is where it happened, parent_ip its
 * caller. */
DECLARE_EVENT_CLASS(preemptirq_template,
	TP_PROTO(unsigned long ip, unsigned long parent_ip),
	TP_ARGS(ip, parent_ip),
	TP_STRUCT__entry(
		__field(s32, caller_offs)
		__field(s32, parent_offs)
	),
	TP_fast_assign(
		__entry->caller_offs = (s32)(ip - (unsigned long)_stext);
		__entry->parent_offs = (s32)(parent_ip - (unsigned long)_stext);
	),
	TP_printk("caller=%pS parent=%pS", (void *)((unsigned long)(_stext) + __entry->caller_offs),
		  (void *)((unsigned long)(_stext) + __entry->parent_offs))
);

DEFINE_EVENT(preemptirq_template, irq_disable,
	TP_PROTO(unsigned long ip, unsigned long parent_ip),
	TP_ARGS(ip, parent_ip));

DEFINE_EVENT(preemptirq_template, irq_enable,
	TP_PROTO(unsigned long ip, unsigned long parent_ip),
	TP_ARGS(ip, parent_ip));

DEFINE_EVENT(preemptirq_template, preempt_disable,
	TP_PROTO(unsigned long ip, unsigned long parent_ip),
	TP_ARGS(ip, parent_ip));

DEFINE_EVENT(preemptirq_template, preempt_enable,
	TP_PROTO(unsigned long ip, unsigned long parent_ip),
	TP_ARGS(ip, parent_ip));

#endif /* _TRACE_PREEMPTIRQ_H */

#include "kernel/trace/define_trace.h"
