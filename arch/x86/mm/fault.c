/*
 * Page faults on user addresses, and every other exception ring 3 raises (Linux: arch/x86/mm/fault.c,
 * arch/x86/kernel/traps.c). A user page not made yet is made (handle_mm_fault); a user access no
 * area allows kills the process alone with Linux's one-line report; a uaccess helper's fault on a
 * bad user pointer resumes at its fixup (-EFAULT). Anything else in the kernel is an Oops.
 */
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_types.h"
#include "kernel/events/perf_event.h"
#include "kernel/printk/printk.h"
#include "kernel/signal.h"
#include "kernel/uaccess.h"
#include "lib/printf.h"

/* " in busybox[401000+183000]": the executable's area holding ip, as Linux's print_vma_addr(). */
static void vma_suffix(char *buf, size_t size, unsigned long ip)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *v = mm ? find_vma(mm, ip) : NULL;

	buf[0] = '\0';
	if (v && v->vm_start <= ip && v->vm_file)
		snprintf(buf, size, " in %s[%lx+%lx]", mm->exe, v->vm_start,
			 v->vm_end - v->vm_start);
}

/* SIGSEGV for a user access no area allows: a handler runs if the program has one (Linux's
 * force_sig_fault()); else Linux's show_signal_msg() line, "prog[pid]: segfault at ADDR ip IP
 * sp SP error E in FILE[...]", and the process ends. error bit 0: the page was present. */
static void bad_area(struct pt_regs *regs, unsigned long error_code, unsigned long addr)
{
	char where[96];

	current->trap_nr = X86_TRAP_PF;
	current->error_code = error_code;
	if (force_sig_fault(SIGSEGV, (error_code & 1) ? SEGV_ACCERR : SEGV_MAPERR, addr))
		return;
	vma_suffix(where, sizeof(where), regs->ip);
	pr_info("%s[%d]: segfault at %lx ip %016lx sp %016lx error %lx%s likely on CPU %d (core "
		"%d, socket 0)\n",
		current->comm, current->pid, addr, regs->ip, regs->sp, error_code, where,
		smp_processor_id(), smp_processor_id());
	do_group_exit(SIGSEGV);
}

bool do_page_fault(struct pt_regs *regs, unsigned long error_code)
{
	unsigned long addr = read_cr2();
	struct mm_struct *mm = current->mm;

	if (unlikely(READ_ONCE(perf_sw_events)) && addr < TASK_SIZE_MAX)
		perf_sw_page_fault(regs);
	if (user_mode(regs)) {
		local_irq_enable();
		if (mm && addr < TASK_SIZE_MAX && !handle_mm_fault(mm, addr, error_code)) {
			current->times.min_flt++;
			return true;
		}
		bad_area(regs, error_code, addr);
		return true;
	}
	if (addr >= TASK_SIZE_MAX || !search_exception_tables(regs->ip))
		return false;
	/* A uaccess helper: a user page not made yet is made; otherwise -EFAULT by the fixup. */
	if (mm && !handle_mm_fault(mm, addr, error_code)) {
		current->times.min_flt++;
		return true;
	}
	return fixup_exception(regs);
}

/* Any other exception from ring 3: the signal to its handler, or Linux's "traps:" line and the
 * signal's default action. */
void do_user_trap(struct pt_regs *regs, int trapnr, unsigned long error_code)
{
	static const struct {
		int sig;
		const char *what;
	} traps[32] = {
		[X86_TRAP_DE] = { SIGFPE, "trap divide error" },
		[X86_TRAP_DB] = { SIGTRAP, "trap debug" },
		[X86_TRAP_BP] = { SIGTRAP, "trap int3" },
		[X86_TRAP_OF] = { SIGSEGV, "trap overflow" },
		[X86_TRAP_BR] = { SIGSEGV, "trap bounds" },
		[X86_TRAP_UD] = { SIGILL, "trap invalid opcode" },
		[X86_TRAP_NM] = { SIGSEGV, "trap device not available" },
		[X86_TRAP_NP] = { SIGBUS, "trap segment not present" },
		[X86_TRAP_SS] = { SIGBUS, "trap stack segment" },
		[X86_TRAP_GP] = { SIGSEGV, "general protection fault" },
		[X86_TRAP_MF] = { SIGFPE, "trap coprocessor error" },
		[X86_TRAP_AC] = { SIGBUS, "trap alignment check" },
		[X86_TRAP_XF] = { SIGFPE, "trap SIMD coprocessor error" },
	};
	int v = trapnr < 32 ? trapnr : 0;
	int sig = traps[v].sig ? traps[v].sig : SIGSEGV;
	char where[96];

	local_irq_enable();
	current->trap_nr = trapnr;
	current->error_code = error_code;
	if (force_sig_fault(sig,
			    v == X86_TRAP_UD   ? 2 /* ILL_ILLOPN */
			    : v == X86_TRAP_DE ? 1 /* FPE_INTDIV */
					       : SI_KERNEL,
			    sig == SIGSEGV || sig == SIGBUS ? 0 : regs->ip))
		return;
	vma_suffix(where, sizeof(where), regs->ip);
	pr_info("traps: %s[%d] %s ip:%lx sp:%lx error:%lx%s\n", current->comm, current->pid,
		traps[v].what ? traps[v].what : "trap", regs->ip, regs->sp, error_code, where);
	do_group_exit(sig);
}
