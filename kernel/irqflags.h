/* local_irq_*() with the hooks of the latency tracers, each behind a static key (Linux's irqflags.h). */
#ifndef KERNEL_IRQFLAGS_H
#define KERNEL_IRQFLAGS_H

#include "arch/x86/cpu.h"
#include "kernel/jump_label.h"

/*
 * trace_hardirqs_off() when interrupts go off, trace_hardirqs_on() just before they come back on
 * (kernel/trace/trace_preemptirq.c): what irqsoff and the preemptirq events hear. With no listener
 * the key is off and each hook is one NOP after the cli or before the sti.
 *
 * Code that must never run a hook uses the raw_ forms, and a file built with TRACE_IRQFLAGS_RAW
 * (the Makefile's NOTRACE_SRCS: the tracers, the ring buffer, the patcher, stop_machine, the trap
 * entry) gets the raw forms under these names: a hook there would trace the tracer, or run while
 * its own call site is being patched. Linux marks the same code noinstr.
 */
DECLARE_STATIC_KEY_FALSE(trace_irqflags_key);
DECLARE_STATIC_KEY_FALSE(trace_preempt_key);
void trace_hardirqs_off(void);
void trace_hardirqs_on(void);
/* do_irq()'s: an interrupt into code with interrupts on (kernel/trace/trace_preemptirq.c). */
void trace_hardirqs_irq_entry(void);
/* What the thunks call: ip, the site; fp, the frame of the function holding it. */
void __trace_hardirqs_off(unsigned long ip, unsigned long fp);
void __trace_hardirqs_on(unsigned long ip, unsigned long fp);
void trace_preempt_off(unsigned long ip, unsigned long fp);
void trace_preempt_on(unsigned long ip, unsigned long fp);

/*
 * A site's hook call: into a thunk of arch/x86/irqflags_thunk.asm, which keeps every register, so
 * gcc spills nothing around the site for it and the site costs its NOP and nothing else.
 */
#define irqflags_hook(thunk) __asm__ volatile("call " #thunk : : : "memory", "cc")

#ifdef TRACE_IRQFLAGS_RAW
#define irqflags_traced() false
#define preempt_traced() false
#else
#define irqflags_traced() static_branch_unlikely(&trace_irqflags_key)
#define preempt_traced() static_branch_unlikely(&trace_preempt_key)
#endif

static __always_inline void local_irq_disable(void)
{
	raw_local_irq_disable();
	if (irqflags_traced())
		irqflags_hook(trace_hardirqs_off_thunk);
}

static __always_inline void local_irq_enable(void)
{
	if (irqflags_traced())
		irqflags_hook(trace_hardirqs_on_thunk);
	raw_local_irq_enable();
}

static __always_inline unsigned long local_irq_save(void)
{
	unsigned long f = raw_local_irq_save();

	if (irqflags_traced() && (f & X86_EFLAGS_IF))
		irqflags_hook(trace_hardirqs_off_thunk);
	return f;
}

static __always_inline void local_irq_restore(unsigned long f)
{
	if (!(f & X86_EFLAGS_IF))
		return;
	if (irqflags_traced())
		irqflags_hook(trace_hardirqs_on_thunk);
	raw_local_irq_enable();
}

/* The idle loop's `sti; hlt`: interrupts come on here, so a section ends here. */
static __always_inline void safe_halt(void)
{
	if (irqflags_traced())
		irqflags_hook(trace_hardirqs_on_thunk);
	raw_safe_halt();
}

#endif
