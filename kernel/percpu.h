/* What each CPU keeps for itself, reached through the GS segment base: this_cpu() is one load. */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include "lib/types.h"
#include "lib/compiler.h"
#include "kernel/irqflags.h"
#include "arch/x86/kprobes/ctlblk.h"

#define NR_CPUS 8

struct task;
struct pt_regs;

struct percpu {
	struct percpu *self; /* gs:0, so a pointer to it costs one load */
	int cpu;	     /* this CPU's number, 0 = the boot CPU */
	int apic_id;
	struct task *curr;	/* the task running here (`current`) */
	struct task *idle;	/* <idle>-0: what runs when nothing else can */
	unsigned int irq_depth; /* > 0 inside a hardware interrupt handler */
	unsigned int nmi_depth; /* > 0 inside an NMI */
	/*
	 * The first 8 bytes of an event recorded here now (struct trace_entry in
	 * kernel/trace/trace.h) but for its type and its irqs-off bit. They are kept true where they
	 * change (a task switch, irq and NMI entry and exit, need_resched, preempt_disable), not
	 * worked out per event: a tracer copies them with one load and one store.
	 */
	union {
		u64 trace_ctx;
		struct {
			u16 trace_ctx_type; /* always 0: the event's type goes here */
			u8 ctx_flags;	    /* CTX_NEED_RESCHED, CTX_HARDIRQ, CTX_NMI */
			u8 preempt_count;   /* > 0: the scheduler must not switch tasks here */
			s32 ctx_pid;	    /* curr->pid */
		};
	};
	bool online;
	/* From a struct trace_array to its ring_buffer_per_cpu for this CPU: one add finds any trace
	 * instance's part (kernel/trace/trace.h, trace_array_cpu_buffer()). */
	unsigned long trace_buf_off;
	/* The running task's function_graph shadow stack (a struct fgraph_task), or fgraph_no_stack
	 * (full): never NULL, set at each task switch, for the assembly's one load. */
	void *fgraph;
	unsigned long trace_recursion; /* ftrace: one bit per context where a callback runs */
	/* ftrace's own recursion locks also forbid a task switch, but they count here, not in
	 * preempt_count: an event shows what the traced code had disabled, not what ftrace did. */
	unsigned int trace_preempt;
	unsigned long tp_irq_flags; /* a tracepoint's caller's interrupt flag (the iterator
					* turns interrupts off; the event records them as they were) */
	u64 ticks;		    /* timer interrupts taken */
	unsigned long kernel_stack; /* top of the stack the CPU started on */
	struct pt_regs *irq_regs;   /* the interrupted state, inside an interrupt handler */
	int irq_vector;		    /* and its vector (no longer in the frame, as on Linux) */
	/* Spinlocks the running task (or the handler interrupting it) holds now. Ours leave
	 * preemption on, so this travels with the task across a switch (task->spinlocks_held);
	 * might_sleep() warns when it is not 0 (test kernel only). */
	int spinlocks_held;
	/* entry_SYSCALL_64 arrives on the user's stack: it parks the user rsp here and loads the
	 * running task's kernel stack top (Linux's cpu_current_top_of_stack). */
	unsigned long top_of_stack;
	unsigned long user_rsp;
	/* This CPU's kprobe state (arch/x86/kprobes/core.c), in place: an optimized probe's hit
	 * tests and sets its site through gs (arch/x86/kprobes/opt_template.asm). */
	struct kprobe_ctlblk kprobe_ctlblk;
};

extern struct percpu percpu_area[NR_CPUS];

/* ctx_flags bits: Linux's TRACE_FLAG_* values, so they go into an event as they are. */
#define CTX_NEED_RESCHED 0x04 /* switch at the next safe point */
#define CTX_HARDIRQ 0x08      /* irq_depth > 0 */
#define CTX_NMI 0x40	      /* nmi_depth > 0 */

/* One read-modify-write instruction on this CPU's ctx_flags: an interrupt or NMI that changes
 * other bits can come before or after it, never in the middle. */
static __always_inline void ctx_flags_set(u8 bits)
{
	__asm__ volatile("orb %0, %%gs:%c1"
			 :
			 : "qi"(bits), "i"(__builtin_offsetof(struct percpu, ctx_flags))
			 : "memory");
}

static __always_inline void ctx_flags_clear(u8 bits)
{
	__asm__ volatile("andb %0, %%gs:%c1"
			 :
			 : "qi"((u8)~bits), "i"(__builtin_offsetof(struct percpu, ctx_flags))
			 : "memory");
}

/*
 * Linux's this_cpu_read(), for a field of this CPU's struct percpu: one mov from %gs into a
 * register of the field's type, whose width gives the mov its size (b, w, l or q). The asm is
 * volatile because the field changes under the compiler (a task switch, an interrupt): every read
 * is done where it is written.
 */
#define this_cpu_read(field)                                                                       \
	({                                                                                         \
		__typeof__(((struct percpu *)0)->field) v__;                                       \
		__asm__ volatile("mov %%gs:%c1, %0"                                                \
				 : "=r"(v__)                                                       \
				 : "i"(__builtin_offsetof(struct percpu, field)));                 \
		v__;                                                                               \
	})

/* gs:0 holds the struct's own address (self), so a pointer to it costs one load. */
static __always_inline struct percpu *this_cpu(void)
{
	return this_cpu_read(self);
}

static __always_inline int smp_processor_id(void)
{
	return this_cpu_read(cpu);
}

static __always_inline struct task *get_current(void)
{
	return this_cpu_read(curr);
}
#define current get_current()

/* Linux's names: ask for a task switch on this CPU at the next safe point, and test for it. */
static __always_inline void set_need_resched(void)
{
	ctx_flags_set(CTX_NEED_RESCHED);
}

static __always_inline void clear_need_resched(void)
{
	ctx_flags_clear(CTX_NEED_RESCHED);
}

static __always_inline bool need_resched(void)
{
	return READ_ONCE(this_cpu()->ctx_flags) & CTX_NEED_RESCHED;
}

/* Linux's name: where the interrupt being handled here came in (NULL outside one). */
static __always_inline struct pt_regs *get_irq_regs(void)
{
	return this_cpu()->irq_regs;
}

/* Points GS at this CPU's area; the first thing each CPU does. */
void percpu_setup(int cpu);

/* The hooks run where the count leaves or comes back to 0 (Linux's preempt_count_add/sub()): what
 * preemptoff and the preempt_disable/enable events hear; a NOP each with no listener. */
static __always_inline void preempt_disable(void)
{
	this_cpu()->preempt_count++;
	barrier();
	if (preempt_traced())
		irqflags_hook(trace_preempt_off_thunk); /* acts if the count just became 1 */
}

static __always_inline void preempt_enable_no_resched(void)
{
	if (preempt_traced())
		irqflags_hook(trace_preempt_on_thunk); /* acts if the count is about to become 0 */
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
