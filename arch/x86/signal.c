/*
 * A signal's handler in ring 3 and the way back (Linux: arch/x86/kernel/signal.c). The user's
 * registers, mask and FPU state are saved in an rt_sigframe on the user stack, as glibc expects:
 *
 *   higher addresses    the interrupted stack, then 128 bytes of red zone left alone
 *                       FPU/SSE state: fxsave's 512 bytes, 64-aligned  <- uc_mcontext.fpstate
 *                       struct siginfo (128)                           <- rsi (SA_SIGINFO)
 *                       struct ucontext (304): flags, link, uc_stack,
 *                         uc_mcontext (sigcontext: r8..r15 di si bp bx dx ax cx sp ip flags
 *                         cs gs fs ss err trapno oldmask cr2 fpstate), uc_sigmask  <- rdx
 *   rsp at the handler  pretcode = sa_restorer (glibc's __restore_rt: mov $15,%eax; syscall)
 *
 * The handler returns into sa_restorer, which calls rt_sigreturn: rsp - 8 is the frame again,
 * and every register, the mask and the FPU state come back from it (checked, as a user may have
 * changed them). The frame's rsp + 8 is 16-aligned, as at any function's entry.
 */
#include "arch/x86/cpu.h"
#include "arch/x86/process.h"
#include "arch/x86/segment.h"
#include "arch/x86/traps.h"
#include "kernel/mm/mm.h"
#include "kernel/signal.h"
#include "kernel/syscalls.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

/* Linux's struct sigcontext (x86-64, uapi), 256 bytes. */
struct sigcontext_64 {
	u64 r8, r9, r10, r11, r12, r13, r14, r15;
	u64 di, si, bp, bx, dx, ax, cx, sp, ip, flags;
	u16 cs, gs, fs, ss;
	u64 err, trapno, oldmask, cr2;
	u64 fpstate; /* a user pointer to the fxsave area, or 0 */
	u64 reserved1[8];
};

struct user_stack_t {
	u64 ss_sp;
	int ss_flags;
	int __pad;
	u64 ss_size;
};

struct ucontext {
	u64 uc_flags;
	u64 uc_link;
	struct user_stack_t uc_stack;
	struct sigcontext_64 uc_mcontext;
	u64 uc_sigmask;
};

struct rt_sigframe {
	u64 pretcode;
	struct ucontext uc;
	siginfo_t info;
};

_Static_assert(sizeof(struct sigcontext_64) == 256, "Linux's sigcontext");
_Static_assert(sizeof(struct rt_sigframe) == 440, "Linux's rt_sigframe");

#define UC_SIGCONTEXT_SS 0x2
#define UC_STRICT_RESTORE_SS 0x4
#define FXSAVE_SIZE 512
/* The flags a frame may change (Linux's FIX_EFLAGS): arithmetic, DF, TF, RF, AC. */
#define FIX_EFLAGS 0x50dd5UL

static void fxsave_to(u8 *buf)
{
	__asm__ volatile("fxsave64 %0" : "=m"(*(u8(*)[FXSAVE_SIZE])buf));
}

static void fxrstor_from(const u8 *buf)
{
	__asm__ volatile("fxrstor64 %0" : : "m"(*(const u8(*)[FXSAVE_SIZE])buf));
}

/* Where the frame goes: below the red zone, or at the top of the alternate stack (SA_ONSTACK). */
static unsigned long frame_base(struct pt_regs *regs, struct k_sigaction *ka)
{
	struct task *t = current;
	unsigned long sp = regs->sp - 128;

	if ((ka->flags & SA_ONSTACK) && t->sas_ss_size && !on_sig_stack(regs->sp))
		sp = t->sas_ss_sp + t->sas_ss_size;
	return sp;
}

static void fill_sigcontext(struct sigcontext_64 *sc, struct pt_regs *regs, u64 mask,
			    unsigned long fpstate, const siginfo_t *info)
{
	*sc = (struct sigcontext_64){
		.r8 = regs->r8,
		.r9 = regs->r9,
		.r10 = regs->r10,
		.r11 = regs->r11,
		.r12 = regs->r12,
		.r13 = regs->r13,
		.r14 = regs->r14,
		.r15 = regs->r15,
		.di = regs->di,
		.si = regs->si,
		.bp = regs->bp,
		.bx = regs->bx,
		.dx = regs->dx,
		.ax = regs->ax,
		.cx = regs->cx,
		.sp = regs->sp,
		.ip = regs->ip,
		.flags = regs->flags,
		.cs = regs->cs,
		.ss = regs->ss,
		.err = current->error_code,
		.trapno = current->trap_nr,
		.oldmask = mask,
		.fpstate = fpstate,
		.cr2 = info->si_signo == SIGSEGV || info->si_signo == SIGBUS ? info->fault.addr : 0,
	};
}

/* Builds the frame and points the registers at the handler: 0, or -EFAULT if the stack is bad. */
static int setup_rt_frame(int sig, siginfo_t *info, struct k_sigaction *ka, struct pt_regs *regs)
{
	struct task *t = current;
	u8 fx[FXSAVE_SIZE] __aligned(16);
	unsigned long fp = (frame_base(regs, ka) - FXSAVE_SIZE) & ~63UL;
	unsigned long sp = ((fp - sizeof(struct rt_sigframe)) & ~15UL) - 8;
	struct rt_sigframe *frame = (struct rt_sigframe *)sp, f;
	unsigned long flags;

	if (!(ka->flags & SA_RESTORER))
		return -EFAULT; /* x86-64 has no vDSO trampoline to fall back on, as in Linux */
	memset(&f, 0, sizeof(f));
	f.pretcode = ka->restorer;
	f.uc.uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	f.uc.uc_stack.ss_sp = t->sas_ss_sp;
	f.uc.uc_stack.ss_size = t->sas_ss_size;
	f.uc.uc_stack.ss_flags = !t->sas_ss_size ? 2 : on_sig_stack(regs->sp) ? 1 : 0;
	f.uc.uc_sigmask = sigmask_to_save();
	fill_sigcontext(&f.uc.uc_mcontext, regs, f.uc.uc_sigmask, fp, info);
	f.info = *info;
	/* The user's FPU registers are live while the kernel runs (it never touches them). */
	fxsave_to(fx);
	if (copy_to_user((void __user *)fp, fx, sizeof(fx)) || copy_to_user(frame, &f, sizeof(f)))
		return -EFAULT;
	/* The handler starts with a clean FPU (Linux's fpu__clear_user_states()); interrupts off so
	 * no switch saves the old registers over the task's copy halfway. */
	flags = local_irq_save();
	fpu_init_task(t);
	local_irq_restore(flags);

	regs->di = sig;
	regs->si = (unsigned long)&frame->info;
	regs->dx = (unsigned long)&frame->uc;
	regs->ax = 0;
	regs->sp = sp;
	regs->ip = ka->handler;
	regs->cs = __USER_CS;
	regs->ss = __USER_DS;
	regs->flags &= ~(X86_EFLAGS_DF | X86_EFLAGS_RF | X86_EFLAGS_TF);
	return 0;
}

/* An interrupted system call: restarted (the syscall instruction again) or -EINTR. */
static void handle_restart(struct pt_regs *regs, struct k_sigaction *ka)
{
	switch ((long)regs->ax) {
	case -ERESTARTNOHAND:
		if (ka) {
			regs->ax = -EINTR;
			return;
		}
		break;
	case -ERESTARTSYS:
		if (ka && !(ka->flags & SA_RESTART)) {
			regs->ax = -EINTR;
			return;
		}
		break;
	case -ERESTARTNOINTR:
		break;
	default:
		return;
	}
	regs->ax = regs->orig_ax;
	regs->ip -= 2; /* `syscall` is 0f 05 */
}

void arch_do_signal_or_restart(struct pt_regs *regs)
{
	/* A system call's frame (not an interrupt's, not rt_sigreturn's: both have orig_ax -1). */
	bool in_syscall = regs->orig_ax != (unsigned long)-1;
	struct k_sigaction ka;
	siginfo_t info;
	int sig = get_signal(&info, &ka);

	if (sig) {
		if (in_syscall)
			handle_restart(regs, &ka);
		if (setup_rt_frame(sig, &info, &ka, regs))
			do_group_exit(
				SIGSEGV); /* Linux's force_sigsegv(): no stack for the handler */
		signal_delivered(sig, &ka);
		return;
	}
	if (in_syscall)
		handle_restart(regs, NULL);
	restore_saved_sigmask();
}

/* rt_sigreturn's body: the registers, mask, FPU state and altstack from the frame at sp - 8. */
static long restore_sigframe(struct pt_regs *regs)
{
	struct rt_sigframe __user *frame = (struct rt_sigframe __user *)(regs->sp - 8);
	u8 fx[FXSAVE_SIZE] __aligned(16);
	struct sigcontext_64 sc;
	unsigned long flags;
	u64 set;

	if (copy_from_user(&sc, &frame->uc.uc_mcontext, sizeof(sc)) ||
	    copy_from_user(&set, &frame->uc.uc_sigmask, sizeof(set)))
		goto badframe;
	if (sc.fpstate && copy_from_user(fx, (const void __user *)sc.fpstate, sizeof(fx)))
		goto badframe;
	current->blocked = set & ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
	recalc_sigpending();
	regs->r8 = sc.r8, regs->r9 = sc.r9, regs->r10 = sc.r10, regs->r11 = sc.r11;
	regs->r12 = sc.r12, regs->r13 = sc.r13, regs->r14 = sc.r14, regs->r15 = sc.r15;
	regs->di = sc.di, regs->si = sc.si, regs->bp = sc.bp, regs->bx = sc.bx;
	regs->dx = sc.dx, regs->cx = sc.cx, regs->sp = sc.sp, regs->ip = sc.ip;
	regs->flags = (regs->flags & ~FIX_EFLAGS) | (sc.flags & FIX_EFLAGS);
	regs->cs = __USER_CS; /* whatever the frame says: a user cannot pick a kernel segment */
	regs->ss = __USER_DS;
	regs->orig_ax = -1;	    /* no restart of the call rt_sigreturn is */
	current->force_iret = true; /* ip, cx, r11 and flags came from the user's frame */
	flags = local_irq_save();
	if (sc.fpstate) {
		*(u32 *)&fx[24] &= 0xffff; /* MXCSR's reserved bits set would make fxrstor #GP */
		fxrstor_from(fx);
	} else {
		fpu_init_task(current);
	}
	local_irq_restore(flags);
	do_sigaltstack(&frame->uc.uc_stack, NULL, regs->sp);
	return sc.ax;
badframe:
	do_group_exit(SIGSEGV); /* Linux: "rt_sigreturn" badframe, the default SIGSEGV */
}

/* Whether the way out must visit arch_do_signal_or_restart(). */
bool exit_work_pending(struct pt_regs *regs)
{
	long ax = regs->ax;

	if (signal_pending(current) || current->restore_sigmask)
		return true;
	if (current->thread_flags & TIF_SIGPENDING)
		recalc_sigpending(); /* another thread took the process's signal we were told of */
	return regs->orig_ax != (unsigned long)-1 && ax <= -ERESTARTSYS && ax >= -ERESTARTNOHAND;
}

SYSCALL_DEFINE0(rt_sigreturn)
{
	return restore_sigframe(task_pt_regs(current));
}
