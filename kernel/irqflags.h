/* local_irq_*() with the hooks of the latency tracers, each behind a static key (Linux's irqflags.h). */
#ifndef KERNEL_IRQFLAGS_H
#define KERNEL_IRQFLAGS_H

#include "arch/x86/cpu.h"
#include "kernel/jump_label.h"

/*
 * trace_hardirqs_off() when interrupts go off, trace_hardirqs_on() just before they come back on
 * (kernel/trace/trace_preemptirq.c): what irqsoff and the preemptirq events hear. With no listener
 * the key is off and each hook costs nothing: the cli (sti) is itself the key's site, and only
 * safe_halt() keeps a NOP of its own (see there).
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
#define irqflags_cli(thunk) raw_local_irq_disable()
#define irqflags_sti(thunk) raw_local_irq_enable()
#else
#define irqflags_traced() static_branch_unlikely(&trace_irqflags_key)
#define preempt_traced() static_branch_unlikely(&trace_preempt_key)
/*
 * The irqflags sites (arch_static_insn, arch/x86/jump_label.h): with the key off, the cli or sti
 * itself in a 5-byte encoding, one instruction, exactly what the raw form costs; with it on,
 * `call thunk`, and the thunk does the instruction and the hook in the order above.
 */
#define irqflags_cli(thunk) arch_static_insn(&trace_irqflags_key.key, ASM_CLI5, thunk)
#define irqflags_sti(thunk) arch_static_insn(&trace_irqflags_key.key, ASM_STI5, thunk)
#endif

/* On: irq_disable_thunk, cli then the hook. */
static __always_inline void local_irq_disable(void)
{
	irqflags_cli(irq_disable_thunk);
}

/* On: irq_enable_thunk, the hook then sti. */
static __always_inline void local_irq_enable(void)
{
	irqflags_sti(irq_enable_thunk);
}

/* On: irq_save_thunk, cli then the hook only if interrupts were on (the flag changed). */
static __always_inline unsigned long local_irq_save(void)
{
	unsigned long f = read_flags();

	irqflags_cli(irq_save_thunk);
	return f;
}

/* The hook only where the flag changes back: the site is reached only if f had IF. */
static __always_inline void local_irq_restore(unsigned long f)
{
	if (f & X86_EFLAGS_IF)
		irqflags_sti(irq_enable_thunk);
}

/*
 * The idle loop's `sti; hlt`: interrupts come on here, so a section ends here. Not an irqflags
 * site: the sti's one-instruction interrupt shadow is what keeps a wake-up from slipping in before
 * the hlt, and a thunk's sti would shadow its ret instead (the int3 protocol's emulated sti, an
 * iretq, shadows nothing). So the hook stays a static branch, a NOP before a CPU goes to sleep.
 */
static __always_inline void safe_halt(void)
{
	if (irqflags_traced())
		irqflags_hook(trace_hardirqs_on_thunk);
	raw_safe_halt();
}

#endif
