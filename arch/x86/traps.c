/* Exceptions and interrupt dispatch: a fault is loud (registers, symbolized backtrace) and then fatal. */
#include "arch/x86/traps.h"
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "kernel/events/uprobes.h"
#include "kernel/trace/ftrace_irq.h"

static irq_handler_t irq_handlers[256];
bool (*int3_hook)(struct pt_regs *regs);
bool (*kprobe_int3_hook)(struct pt_regs *regs);
bool (*kprobe_debug_hook)(struct pt_regs *regs);
void (*kprobe_fault_hook)(struct pt_regs *regs);
int oops_count;

static const char *const exception_names[32] = {
	[X86_TRAP_DE] = "#DE divide error",
	[X86_TRAP_DB] = "#DB debug",
	[X86_TRAP_NMI] = "NMI",
	[X86_TRAP_BP] = "#BP int3",
	[X86_TRAP_OF] = "#OF overflow",
	[X86_TRAP_BR] = "#BR bounds",
	[X86_TRAP_UD] = "#UD invalid opcode",
	[X86_TRAP_NM] = "#NM device not available",
	[X86_TRAP_DF] = "#DF double fault",
	[X86_TRAP_TS] = "#TS invalid TSS",
	[X86_TRAP_NP] = "#NP segment not present",
	[X86_TRAP_SS] = "#SS stack segment",
	[X86_TRAP_GP] = "#GP general protection fault",
	[X86_TRAP_PF] = "#PF page fault",
	[X86_TRAP_MF] = "#MF x87 floating point",
	[X86_TRAP_AC] = "#AC alignment check",
	[X86_TRAP_MC] = "#MC machine check",
	[X86_TRAP_XF] = "#XF SIMD floating point",
};

void set_irq_handler(int vector, irq_handler_t fn)
{
	irq_handlers[vector] = fn;
}

bool frame_ok(unsigned long fp)
{
	int level;
	if (fp < PAGE_OFFSET || (fp & 7))
		return false;
	return lookup_pte(fp, &level) && lookup_pte(fp + 8, &level);
}

void show_stack(unsigned long ip, unsigned long bp)
{
	char sym[KSYM_NAME_LEN + 32];

	printk(KERN_EMERG "Call Trace:\n");
	if (ip) {
		sprint_symbol(sym, sizeof(sym), ip);
		printk(KERN_EMERG " %s\n", sym);
	}
	for (int depth = 0; depth < 32 && frame_ok(bp); depth++) {
		unsigned long next = ((unsigned long *)bp)[0];
		unsigned long ret = ((unsigned long *)bp)[1];
		if (!is_kernel_text(ret))
			break;
		sprint_backtrace(sym, sizeof(sym), ret);
		printk(KERN_EMERG " %s\n", sym);
		if (next <= bp)
			break;
		bp = next;
	}
}

void show_regs(const struct pt_regs *r)
{
	char sym[KSYM_NAME_LEN + 32];

	sprint_symbol(sym, sizeof(sym), r->ip);
	printk(KERN_EMERG "RIP: %04lx:%s\n", r->cs, sym);
	printk(KERN_EMERG "RSP: %04lx:%016lx EFLAGS: %08lx\n", r->ss, r->sp, r->flags);
	printk(KERN_EMERG "RAX: %016lx RBX: %016lx RCX: %016lx\n", r->ax, r->bx, r->cx);
	printk(KERN_EMERG "RDX: %016lx RSI: %016lx RDI: %016lx\n", r->dx, r->si, r->di);
	printk(KERN_EMERG "RBP: %016lx R08: %016lx R09: %016lx\n", r->bp, r->r8, r->r9);
	printk(KERN_EMERG "R10: %016lx R11: %016lx R12: %016lx\n", r->r10, r->r11, r->r12);
	printk(KERN_EMERG "R13: %016lx R14: %016lx R15: %016lx\n", r->r13, r->r14, r->r15);
	printk(KERN_EMERG "CR2: %016lx CR3: %016lx CR4: %016lx\n", read_cr2(), read_cr3(),
	       read_cr4());
	show_stack(0, r->bp);
}

static void __noreturn die(const char *what, struct pt_regs *regs, unsigned long error_code)
{
	local_irq_disable();
	/* A fault while printing a fault: say so briefly instead of recursing. */
	if (++oops_count > 1)
		panic("Fatal exception in exception handler (%s)", what);
	debug_locks_off(); /* as Linux's oops_enter(): the lock broken below was never ours */
	console_force_unlock();
	printk(KERN_EMERG "Oops: %s, error code 0x%04lx [#%d] CPU %d\n", what, error_code,
	       oops_count, smp_processor_id());
	ftrace_dump_oops(); /* where Linux's die notifier dumps: after the Oops line */
	show_regs(regs);
	panic("Fatal exception");
}

/* An NMI is a stop request or an NMI call from another CPU; anything else is reported. */
static bool nmi_handler(struct pt_regs *regs)
{
	if (smp_nmi_handler(regs))
		return true;
	pr_emerg("Uhhuh. NMI received for unknown reason on CPU %d (rip %pS).\n",
		 smp_processor_id(), (void *)regs->ip);
	return true;
}

static void do_exception(struct pt_regs *regs, int v, unsigned long error_code)
{

	/* Ring 3's exceptions are the process's (arch/x86/mm/fault.c); NMI and #MC are the CPU's. */
	if (user_mode(regs) && v != X86_TRAP_NMI && v != X86_TRAP_MC) {
		if (v == X86_TRAP_PF && do_page_fault(regs, error_code))
			return;
		if ((v == X86_TRAP_BP || v == X86_TRAP_DB) && uprobe_exception_notify(regs, v))
			return;
		do_user_trap(regs, v, error_code);
		return;
	}

	/* text_poke_bp first: an int3 it wrote for a batch is never a kprobe's (Linux's order). */
	if (v == X86_TRAP_BP && int3_hook && int3_hook(regs))
		return;
	if (v == X86_TRAP_BP && kprobe_int3_hook && kprobe_int3_hook(regs))
		return;
	if (v == X86_TRAP_DB && kprobe_debug_hook && kprobe_debug_hook(regs))
		return;
	/* A user page touched by a uaccess helper: made, or -EFAULT through the fixup. */
	if (v == X86_TRAP_PF && do_page_fault(regs, error_code))
		return;
	if (kprobe_fault_hook)
		kprobe_fault_hook(regs);
	if (v == X86_TRAP_NMI && nmi_handler(regs))
		return;
	die(v < 32 && exception_names[v] ? exception_names[v] : "reserved exception", regs,
	    error_code);
}

static void do_device_irq(struct pt_regs *regs, struct percpu *c, int v);

/* Entered from entry.asm for every vector, with the CPU's error code (0 where it pushes none).
 * Keeps count of nesting so ftrace knows its context. */
void do_irq(struct pt_regs *regs, unsigned long vector, unsigned long error_code)
{
	struct percpu *c = this_cpu();
	int v = vector;

	if (v < IRQ_VECTOR_BASE) {
		if (v == X86_TRAP_NMI && !c->nmi_depth++) {
			ctx_flags_set(CTX_NMI);
			ftrace_nmi_enter();
		}
		do_exception(regs, v, error_code);
		if (v == X86_TRAP_NMI && !--c->nmi_depth) {
			ftrace_nmi_exit();
			ctx_flags_clear(CTX_NMI);
		} else if (user_mode(regs) && v != X86_TRAP_MC)
			irqentry_exit_to_user_mode(regs);
		return;
	}
	if (v == SPURIOUS_VECTOR)
		return; /* spurious interrupts are not acknowledged */
	/* The interrupt turned interrupts off as a cli would: the latency tracers hear it, and
	 * hear them come back on at the return (Linux's irqentry_enter/exit do the same). */
	if (static_branch_unlikely(&trace_irqflags_key) && (regs->flags & X86_EFLAGS_IF))
		trace_hardirqs_irq_entry();
	do_device_irq(regs, c, v);
	if (static_branch_unlikely(&trace_irqflags_key) && (regs->flags & X86_EFLAGS_IF))
		trace_hardirqs_on();
}

static void do_device_irq(struct pt_regs *regs, struct percpu *c, int v)
{
	if (!c->irq_depth++)
		ctx_flags_set(CTX_HARDIRQ);
	c->irq_regs = regs; /* handlers do not nest: interrupts stay off until iret */
	c->irq_vector = v;
	if (irq_handlers[v])
		irq_handlers[v](regs);
	else
		pr_warn("irq: unexpected vector %d\n", v);
	lapic_eoi(); /* still in interrupt context: traced as such */
	c->irq_regs = NULL;
	if (!--c->irq_depth)
		ctx_flags_clear(CTX_HARDIRQ);
	/* Back to ring 3: a switch if one is due, a fatal signal acted on (user code holds no
	 * kernel state, so the switch is a voluntary one there). */
	if (user_mode(regs)) {
		irqentry_exit_to_user_mode(regs);
		return;
	}
	/* Back to the interrupted code: if a tick or a wake-up asked for it, another task runs. */
	preempt_schedule_irq();
}
