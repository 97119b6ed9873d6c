/* Waiting for signals: rt_sigpending, pause, rt_sigsuspend, rt_sigtimedwait, and the masks ppoll and
 * epoll_pwait wait under (Linux: kernel/signal.c). */
#include "kernel/signal.h"
#include "kernel/syscalls.h"
#include "kernel/thread_group.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define UNBLOCKABLE (sigmask(SIGKILL) | sigmask(SIGSTOP))

struct timespec64 {
	s64 tv_sec;
	long tv_nsec;
};

int set_user_sigmask(const u64 __user *umask, size_t sigsetsize, u64 *old)
{
	u64 set;

	*old = current->blocked;
	if (!umask)
		return 0;
	if (sigsetsize != sizeof(u64))
		return -EINVAL;
	if (copy_from_user(&set, umask, sizeof(set)))
		return -EFAULT;
	current->blocked = set & ~UNBLOCKABLE;
	recalc_sigpending();
	return 0;
}

void restore_saved_sigmask_unless(bool interrupted, u64 old)
{
	/* as sigsuspend: a handler the wait's mask let in runs with it, the old one back after */
	if (interrupted) {
		current->saved_sigmask = old;
		current->restore_sigmask = true;
	} else {
		current->blocked = old;
		recalc_sigpending();
	}
}

SYSCALL_DEFINE2(rt_sigpending, u64 __user *, uset, size_t, sigsetsize)
{
	u64 set = (current->pending | process_of(current)->shared_pending) & current->blocked;

	if (sigsetsize > sizeof(u64))
		return -EINVAL;
	return copy_to_user(uset, &set, sigsetsize) ? -EFAULT : 0;
}

/* Sleeps until a signal not blocked is pending. */
static void sleep_for_signal(void)
{
	struct task *t = current;

	for (;;) {
		unsigned long flags = spin_lock_irqsave(&siglock);
		if (signal_pending(t)) {
			spin_unlock_irqrestore(&siglock, flags);
			return;
		}
		t->state =
			TASK_SLEEPING; /* a sender's wake_up_process() after this makes it RUNNING */
		spin_unlock_irqrestore(&siglock, flags);
		schedule();
	}
}

SYSCALL_DEFINE0(pause)
{
	sleep_for_signal();
	return -ERESTARTNOHAND;
}

/* The handler runs with mask; the frame saves the caller's mask, which rt_sigreturn puts back. */
SYSCALL_DEFINE2(rt_sigsuspend, const u64 __user *, unewset, size_t, sigsetsize)
{
	struct task *t = current;
	u64 set;

	if (sigsetsize != sizeof(u64))
		return -EINVAL;
	if (copy_from_user(&set, unewset, sizeof(set)))
		return -EFAULT;
	t->saved_sigmask = t->blocked;
	t->restore_sigmask = true;
	t->blocked = set & ~UNBLOCKABLE;
	recalc_sigpending();
	sleep_for_signal();
	return -ERESTARTNOHAND;
}

/* A signal of set, taken without running its handler: the number and its siginfo; -EAGAIN when
 * the timeout passes first, -EINTR when another signal comes. */
SYSCALL_DEFINE4(rt_sigtimedwait, const u64 __user *, uthese, siginfo_t __user *, uinfo,
		const struct timespec64 __user *, uts, size_t, sigsetsize)
{
	struct task *t = current;
	u64 these, until = ~0ULL;
	siginfo_t info;
	int sig;

	if (sigsetsize != sizeof(u64))
		return -EINVAL;
	if (copy_from_user(&these, uthese, sizeof(these)))
		return -EFAULT;
	these &= ~UNBLOCKABLE;
	if (uts) {
		struct timespec64 ts;
		if (copy_from_user(&ts, uts, sizeof(ts)))
			return -EFAULT;
		if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (long)NSEC_PER_SEC)
			return -EINVAL;
		if (ts.tv_sec < 100LL * 365 * 86400)
			until = ktime_get_ns() + ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	}
	while (!(sig = dequeue_signal_mask(~these, &info))) {
		u64 now = ktime_get_ns();
		if (signal_pending(t))
			return -EINTR;
		if (now >= until)
			return -EAGAIN;
		/* A sender wakes us early (wake_up_process ends msleep); else the tick does. */
		msleep(until - now > 10000000ULL ? 10 : (until - now) / 1000000 + 1);
	}
	if (uinfo && copy_to_user(uinfo, &info, sizeof(info)))
		return -EFAULT;
	return sig;
}
