/* irqsoff, preemptoff, preemptirqsoff: what the hooks of trace_preemptirq.c call. */
#ifndef KERNEL_TRACE_TRACE_IRQSOFF_H
#define KERNEL_TRACE_TRACE_IRQSOFF_H

/* ip: where it happened (the function that ran cli, sti, preempt_*), parent_ip: its caller.
 * Each does nothing unless a latency tracer of its kind runs. */
void tracer_hardirqs_off(unsigned long ip, unsigned long parent_ip);
void tracer_hardirqs_on(unsigned long ip, unsigned long parent_ip);
void tracer_preempt_off(unsigned long ip, unsigned long parent_ip);
void tracer_preempt_on(unsigned long ip, unsigned long parent_ip);
/* Interrupts were on after all (trace_hardirqs_irq_entry()): forget an interrupts-off section. */
void tracer_hardirqs_stale(void);

/* The hooks' keys, counted: the events and the tracers each take what they listen to. */
int trace_irqflags_hooks_get(void);
void trace_irqflags_hooks_put(void);
int trace_preempt_hooks_get(void);
void trace_preempt_hooks_put(void);
void trace_preemptirq_init(void);
void trace_irqsoff_init(void);
/* wakeup, wakeup_rt, wakeup_dl (trace_sched_wakeup.c). */
void trace_wakeup_init(void);

#endif
