/* What a program asks of signals: rt_sigaction, rt_sigprocmask and sigaltstack (Linux: kernel/signal.c). */
#include "kernel/signal.h"
#include "kernel/mm/mm.h"
#include "kernel/syscalls.h"
#include "kernel/thread_group.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

#define SS_ONSTACK 1
#define SS_DISABLE 2
#define SS_AUTODISARM (1U << 31)
#define MINSIGSTKSZ 2048

/* Linux's stack_t. */
struct user_stack {
	unsigned long ss_sp;
	int ss_flags;
	int __pad;
	unsigned long ss_size;
};

#define UNBLOCKABLE (sigmask(SIGKILL) | sigmask(SIGSTOP))
#define DEFAULT_IGNORED (sigmask(SIGCHLD) | sigmask(SIGWINCH) | sigmask(SIGURG) | sigmask(SIGCONT))

SYSCALL_DEFINE4(rt_sigaction, int, sig, const struct k_sigaction __user *, act,
		struct k_sigaction __user *, oact, size_t, sigsetsize)
{
	struct task *t = current;
	struct k_sigaction new, old = { 0 };
	unsigned long flags;

	if (sigsetsize != sizeof(u64))
		return -EINVAL;
	if (sig < 1 || sig > _NSIG || (act && (sig == SIGKILL || sig == SIGSTOP)))
		return -EINVAL;
	if (act && copy_from_user(&new, act, sizeof(new)))
		return -EFAULT;
	if (act && !t->sighand && !(t->sighand = kzalloc(_NSIG * sizeof(*t->sighand))))
		return -ENOMEM;
	flags = spin_lock_irqsave(&siglock);
	if (t->sighand)
		old = t->sighand[sig - 1];
	if (act) {
		new.mask &= ~UNBLOCKABLE;
		t->sighand[sig - 1] = new;
		/* Now ignored: a pending one goes (POSIX), blocked or not. */
		if (new.handler == SIG_IGN ||
		    (new.handler == SIG_DFL && (sigmask(sig) & DEFAULT_IGNORED))) {
			struct task *p = process_of(t);
			flush_sigqueue_mask(&t->pending, &t->sigq, sigmask(sig));
			flush_sigqueue_mask(&p->shared_pending, &p->shared_sigq, sigmask(sig));
			recalc_sigpending_locked(t);
		}
	}
	spin_unlock_irqrestore(&siglock, flags);
	if (oact && copy_to_user(oact, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE4(rt_sigprocmask, int, how, const u64 __user *, nset, u64 __user *, oset, size_t,
		sigsetsize)
{
	struct task *t = current;
	u64 set, old = t->blocked;

	if (sigsetsize != sizeof(u64))
		return -EINVAL;
	if (nset) {
		if (copy_from_user(&set, nset, sizeof(set)))
			return -EFAULT;
		set &= ~UNBLOCKABLE;
		if (how == SIG_BLOCK)
			t->blocked |= set;
		else if (how == SIG_UNBLOCK)
			t->blocked &= ~set;
		else if (how == SIG_SETMASK)
			t->blocked = set;
		else
			return -EINVAL;
	}
	if (oset && copy_to_user(oset, &old, sizeof(old))) {
		t->blocked = old;
		recalc_sigpending();
		return -EFAULT;
	}
	recalc_sigpending(); /* an unblocked signal waiting, here or in the process's set, is ours */
	return 0;
}

bool on_sig_stack(unsigned long sp)
{
	struct task *t = current;

	return t->sas_ss_size && sp > t->sas_ss_sp && sp - t->sas_ss_sp <= t->sas_ss_size;
}

/* sigaltstack(), also rt_sigreturn's restoring of uc_stack; sp is the user's stack pointer. */
int do_sigaltstack(const void __user *uss, void __user *uoss, unsigned long sp)
{
	struct task *t = current;
	struct user_stack old = { t->sas_ss_sp, 0, 0, t->sas_ss_size }, new;

	old.ss_flags = !t->sas_ss_size ? SS_DISABLE : on_sig_stack(sp) ? SS_ONSTACK : 0;
	if (uss) {
		unsigned int mode;
		if (copy_from_user(&new, uss, sizeof(new)))
			return -EFAULT;
		if (on_sig_stack(sp))
			return -EPERM; /* not while running on it */
		mode = new.ss_flags & ~SS_AUTODISARM;
		if (mode != SS_DISABLE && mode != SS_ONSTACK && mode != 0)
			return -EINVAL;
		if (mode == SS_DISABLE) {
			new.ss_sp = 0;
			new.ss_size = 0;
		} else if (new.ss_size < MINSIGSTKSZ) {
			return -ENOMEM;
		}
		t->sas_ss_sp = new.ss_sp;
		t->sas_ss_size = new.ss_size;
	}
	if (uoss && copy_to_user(uoss, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE2(sigaltstack, const void __user *, uss, void __user *, uoss)
{
	return do_sigaltstack(uss, uoss, task_pt_regs(current)->sp);
}
