/*
 * Signals, the foundation: the masks of struct task, rt_sigaction and rt_sigprocmask recording
 * what a program asks, and every signal taking its default action. Delivery to a user handler
 * (the rt_sigframe, rt_sigreturn) is not built yet: a handled signal is not sent at all.
 */
#include "kernel/signal.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/syscalls.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
#define SIG_IGN 1UL

/* Signals whose default action is to be ignored (Linux's SIG_KERNEL_IGNORE_MASK). */
#define DEFAULT_IGNORED (sigmask(SIGCHLD) | sigmask(28) /* SIGWINCH */ | sigmask(23) /* SIGURG */)

static bool ignored(struct task *t, int sig)
{
	unsigned long h = t->sighand ? t->sighand[sig - 1].handler : 0;
	if (sig == SIGKILL || sig == SIGSTOP)
		return false;
	return h == SIG_IGN || (h == 0 && (sigmask(sig) & DEFAULT_IGNORED));
}

bool fatal_signal_pending(struct task *t)
{
	return t->pending & (~t->blocked | sigmask(SIGKILL));
}

int send_sig(int sig, struct task *t)
{
	if (sig < 1 || sig > _NSIG)
		return -EINVAL;
	if (ignored(t, sig) || sig == SIGSTOP)
		return 0; /* SIGSTOP: job control is not built; nothing stops */
	if (t->sighand && t->sighand[sig - 1].handler > SIG_IGN)
		return 0; /* a handler the program set: delivery is not built, so nothing happens */
	__atomic_fetch_or(&t->pending, sigmask(sig), __ATOMIC_RELAXED);
	wake_up_process(t);
	return 0;
}

void do_exit_signal(u64 pending)
{
	u64 fatal = pending & (~current->blocked | sigmask(SIGKILL));
	do_exit(__builtin_ctzll(fatal) + 1);
}

SYSCALL_DEFINE4(rt_sigaction, int, sig, const struct k_sigaction __user *, act,
		struct k_sigaction __user *, oact, size_t, sigsetsize)
{
	struct task *t = current;
	struct k_sigaction new, old = { 0 };

	if (sigsetsize != sizeof(u64))
		return -EINVAL;
	if (sig < 1 || sig > _NSIG || (act && (sig == SIGKILL || sig == SIGSTOP)))
		return -EINVAL;
	if (act && copy_from_user(&new, act, sizeof(new)))
		return -EFAULT;
	if (t->sighand)
		old = t->sighand[sig - 1];
	if (oact && copy_to_user(oact, &old, sizeof(old)))
		return -EFAULT;
	if (act) {
		if (!t->sighand && !(t->sighand = kzalloc(_NSIG * sizeof(*t->sighand))))
			return -ENOMEM;
		new.mask &= ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
		t->sighand[sig - 1] = new;
		if (ignored(t, sig))
			t->pending &= ~sigmask(sig);
	}
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
		set &= ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
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
		return -EFAULT;
	}
	return 0;
}
