/* What each CPU keeps for itself, reached through the GS segment base: this_cpu() is one load. */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include "lib/types.h"
#include "lib/compiler.h"

#define NR_CPUS 8

struct task;
struct pt_regs;

struct percpu {
	struct percpu *self;           /* gs:0, so a pointer to it costs one load */
	int cpu;                       /* this CPU's number, 0 = the boot CPU */
	int apic_id;
	struct task *curr;             /* the task running here (`current`) */
	struct task *idle;             /* <idle>-0: what runs when nothing else can */
	unsigned int irq_depth;        /* > 0 inside a hardware interrupt handler */
	unsigned int nmi_depth;        /* > 0 inside an NMI */
	unsigned int preempt_count;    /* > 0: the scheduler must not switch tasks here */
	bool need_resched;             /* switch at the next safe point */
	bool online;
	unsigned long trace_recursion; /* ftrace: one bit per context where a callback runs */
	unsigned int trace_preempt;    /* the part of preempt_count ftrace's own locks added */
	unsigned long tp_irq_flags;    /* a tracepoint's caller's interrupt flag (the iterator
					* turns interrupts off; the event records them as they were) */
	u64 ticks;                     /* timer interrupts taken */
	unsigned long kernel_stack;    /* top of the stack the CPU started on */
	struct pt_regs *irq_regs;      /* the interrupted state, inside an interrupt handler */
};

extern struct percpu percpu_area[NR_CPUS];

static __always_inline struct percpu *this_cpu(void)
{
	struct percpu *p;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(p));
	return p;
}

static __always_inline int smp_processor_id(void)
{
	int id;
	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(id) : "i"(__builtin_offsetof(struct percpu, cpu)));
	return id;
}

static __always_inline struct task *get_current(void)
{
	struct task *t;
	__asm__ volatile("movq %%gs:%c1, %0"
			 : "=r"(t)
			 : "i"(__builtin_offsetof(struct percpu, curr)));
	return t;
}
#define current get_current()

/* Linux's name: where the interrupt being handled here came in (NULL outside one). */
static __always_inline struct pt_regs *get_irq_regs(void)
{
	return this_cpu()->irq_regs;
}

/* Points GS at this CPU's area; the first thing each CPU does. */
void percpu_setup(int cpu);

static __always_inline void preempt_disable(void)
{
	this_cpu()->preempt_count++;
	barrier();
}

static __always_inline void preempt_enable_no_resched(void)
{
	barrier();
	this_cpu()->preempt_count--;
}

/* Contexts, innermost last: a callback interrupted by an IRQ may trace the IRQ. */
enum trace_context { TRACE_CTX_NORMAL, TRACE_CTX_IRQ, TRACE_CTX_NMI };

static __always_inline enum trace_context trace_context(void)
{
	struct percpu *c = this_cpu();
	if (c->nmi_depth)
		return TRACE_CTX_NMI;
	return c->irq_depth ? TRACE_CTX_IRQ : TRACE_CTX_NORMAL;
}

#endif
