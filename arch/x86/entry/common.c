/* The C half of a system call: dispatch through sys_call_table, the checks before ring 3, the way out. */
#include "arch/x86/cpu.h"
#include "arch/x86/segment.h"
#include "arch/x86/traps.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/signal.h"
#include "kernel/syscalls.h"
#include "kernel/trace/events/syscalls.h"
#include "lib/errno.h"

void entry_SYSCALL_64(void);
bool smap_enabled;

/* A number nobody answers: -ENOSYS, and one line in the log the first time each number is seen.
 * Out of line and traced, as Linux's: ftracetest's glob case expects a function named sys_*. */
static noinline long sys_ni_syscall(unsigned int nr)
{
	static unsigned long seen[NR_syscalls / 64 + 1];
	unsigned int slot = nr < NR_syscalls ? nr : NR_syscalls;
	unsigned long bit = 1UL << (slot % 64);

	if (!(__atomic_fetch_or(&seen[slot / 64], bit, __ATOMIC_RELAXED) & bit))
		pr_notice("%s[%d]: system call %u not implemented (-ENOSYS)%s\n", current->comm,
			  current->pid, nr,
			  slot == NR_syscalls ? "; numbers above 511 are reported this once" : "");
	return -ENOSYS;
}

/*
 * Just before ring 3, interrupts off (entry_SYSCALL_64's fast path comes here only when one of its
 * tests found work): switch if a switch is due, act on a pending signal (a handler's
 * frame, a default action, an interrupted call restarted: arch/x86/signal.c). Then
 * whether sysretq may return. sysretq loads rip from rcx and rflags from r11, so both must hold
 * what the frame says; and on Intel a non-canonical rcx makes sysretq fault in ring 0 with the
 * user's rsp already loaded: a user who maps the last page below the hole and falls off its end
 * must leave through iretq, which faults in ring 3 instead. A user segment change (none here yet)
 * or TF/RF (a debugger's single step) also need iretq.
 */
bool syscall_exit_check(struct pt_regs *regs)
{
	for (;;) {
		local_irq_disable();
		if (exit_work_pending(regs)) {
			local_irq_enable();
			arch_do_signal_or_restart(regs);
			continue;
		}
		if (!need_resched())
			break;
		local_irq_enable();
		schedule();
	}
	current->force_iret = false; /* the checks below are the ones it asked for */
	if (regs->cx != regs->ip || regs->r11 != regs->flags)
		return false;
	if (regs->ip >= TASK_SIZE_MAX)
		return false;
	if (regs->cs != __USER_CS || regs->ss != __USER_DS)
		return false;
	return !(regs->flags & (X86_EFLAGS_RF | X86_EFLAGS_TF));
}

/* Entered from entry_SYSCALL_64 with the user's registers in regs, interrupts still off. As
 * Linux, only the low 32 bits of rax choose the call. */
bool do_syscall_64(struct pt_regs *regs)
{
	unsigned int nr;

	local_irq_enable();
	/* raw_syscalls and syscalls:* events: a NOP each way until one is enabled. The number is
	 * read after the entry hook (as Linux's syscall_trace_enter() may change it), so nothing but
	 * regs stays live across the hooks and they cost their NOPs alone. */
	trace_sys_enter(regs, (unsigned int)regs->orig_ax);
	nr = regs->orig_ax;
	if (nr < NR_syscalls && sys_call_table[nr])
		regs->ax = sys_call_table[nr](regs);
	else
		regs->ax = sys_ni_syscall(nr);
	trace_sys_exit(regs, regs->ax);
	return syscall_exit_check(regs);
}

/* An interrupt or exception that came from ring 3 goes back there: the same checks. */
void irqentry_exit_to_user_mode(struct pt_regs *regs)
{
	syscall_exit_check(regs);
}

static void cr4_set_features(void)
{
	u32 max, a, b, c, d;
	unsigned long cr4 = read_cr4() | X86_CR4_OSFXSR | X86_CR4_OSXMMEXCPT;

	cpuid(0, 0, &max, &b, &c, &d);
	if (max >= 7) {
		cpuid(7, 0, &a, &b, &c, &d);
		if (b & (1U << 7))
			cr4 |= X86_CR4_SMEP; /* the kernel never runs a user page */
		if (b & (1U << 20)) {
			cr4 |= X86_CR4_SMAP; /* ...nor reads one outside stac/clac */
			smap_enabled = true;
		}
	}
	write_cr4(cr4);
}

void syscall_init(void)
{
	/* sysretq returns to CS = STAR[63:48] + 16, SS = + 8; syscall enters CS = STAR[47:32]. */
	wrmsr(MSR_STAR, ((u64)__USER32_CS << 48) | ((u64)__KERNEL_CS << 32));
	wrmsr(MSR_LSTAR, (unsigned long)entry_SYSCALL_64);
	/* Cleared on entry: no interrupt before the stack switch, no user single step, DF as the
	 * C ABI wants, no AC (which would let the kernel touch user pages under SMAP). */
	wrmsr(MSR_SYSCALL_MASK, X86_EFLAGS_TF | X86_EFLAGS_DF | X86_EFLAGS_IF | X86_EFLAGS_IOPL |
					X86_EFLAGS_AC | X86_EFLAGS_NT);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
	/* User programs use SSE (the x86-64 baseline): the FPU on, fxsave/fxrstor allowed. The
	 * kernel itself never touches it (-mgeneral-regs-only). XSAVE stays off: no AVX state. */
	write_cr0((read_cr0() & ~(X86_CR0_EM | X86_CR0_TS)) | X86_CR0_MP);
	cr4_set_features();
}
