/*
 * Signals (Linux: kernel/signal.c): posting one (a bit in task->pending and its siginfo queued),
 * taking the next one on the way back to ring 3 with its default action (ignore, stop, continue,
 * end the process), and the process's pending set beside each thread's. kill, tgkill and tkill are
 * kernel/signal_kill.c's. The user handler's frame is arch/x86/signal.c's;
 * the calls that set actions and masks are kernel/signal_action.c's, those that wait
 * kernel/signal_wait.c's.
 */
#include "kernel/signal.h"
#include "kernel/jobctl.h"
#include "kernel/thread_group.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/spinlock.h"
#include "kernel/syscalls.h"
#include "kernel/uaccess.h"
#include "kernel/trace/events/signal.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"

/* Guards every task's pending, sigq, stopped and sighand against senders on other CPUs and in
 * interrupts (Linux has one per process, sighand->siglock; one for all is enough here). */
DEFINE_SPINLOCK(siglock);

/* Raised by the CPU for the instruction that just ran: delivered before any other (Linux's). */
#define SYNCHRONOUS_MASK                                                                           \
	(sigmask(SIGSEGV) | sigmask(SIGBUS) | sigmask(SIGILL) | sigmask(SIGTRAP) |                 \
	 sigmask(SIGFPE) | sigmask(SIGSYS))
#define STOP_MASK (sigmask(SIGSTOP) | sigmask(SIGTSTP) | sigmask(SIGTTIN) | sigmask(SIGTTOU))
/* Default action "ignore" (SIGCONT's is "continue", done when it is sent). */
#define DEFAULT_IGNORED (sigmask(SIGCHLD) | sigmask(SIGWINCH) | sigmask(SIGURG) | sigmask(SIGCONT))
#define UNBLOCKABLE (sigmask(SIGKILL) | sigmask(SIGSTOP))

static unsigned long handler_of(struct task *t, int sig)
{
	return t->sighand ? t->sighand[sig - 1].handler : SIG_DFL;
}

/* Dropped when sent: ignored and not blocked (a blocked one may have a handler by the time it is
 * unblocked, so Linux keeps it). */
static bool sig_ignored(struct task *t, int sig)
{
	unsigned long h = handler_of(t, sig);

	if (sigmask(sig) & (UNBLOCKABLE | t->blocked))
		return false;
	return h == SIG_IGN || (h == SIG_DFL && (sigmask(sig) & DEFAULT_IGNORED));
}

/* The process's pending set: its leader's (siglock held; the leader changes only under it). */
static struct task *shared_of(struct task *t)
{
	return process_of(t);
}

/* A stop asked by another thread counts: the sleeper must come out to stop (Linux's
 * signal_wake_up() sets TIF_SIGPENDING for it). */
bool signal_pending(struct task *t)
{
	return ((t->pending | shared_of(t)->shared_pending) & (~t->blocked | sigmask(SIGKILL))) ||
	       (t->jobctl & JOBCTL_STOP_PENDING);
}

bool fatal_signal_pending(struct task *t)
{
	return signal_pending(t);
}

bool sigkill_pending(struct task *t)
{
	return (t->pending | shared_of(t)->shared_pending) & sigmask(SIGKILL);
}

/* Linux's recalc_sigpending(): TIF_SIGPENDING says whether t has a signal it does not block, in
 * its own set or the process's; siglock held. */
void recalc_sigpending_locked(struct task *t)
{
	if (signal_pending(t))
		t->thread_flags |= TIF_SIGPENDING;
	else
		t->thread_flags &= ~TIF_SIGPENDING;
}

void recalc_sigpending(void)
{
	unsigned long flags = spin_lock_irqsave(&siglock);

	recalc_sigpending_locked(current);
	spin_unlock_irqrestore(&siglock, flags);
}

/* Drops the queued siginfo of the signals in mask from one pending set; siglock held. */
void flush_sigqueue_mask(u64 *pending, struct sigqueue **pp, u64 mask)
{
	*pending &= ~mask;
	while (*pp) {
		struct sigqueue *q = *pp;
		if (sigmask(q->info.si_signo) & mask) {
			*pp = q->next;
			kfree(q);
		} else {
			pp = &q->next;
		}
	}
}

/* SIGCONT and SIGKILL end the process's stop and drop its pending stops; a stop drops a pending
 * SIGCONT. Whoever the signal names, every thread's set and the process's (Linux's
 * prepare_signal()). Tasklist lock held. */
static void prepare_signal(struct task *t, int sig, bool *continued)
{
	struct task *p = shared_of(t);
	u64 flush = sig == SIGCONT || sig == SIGKILL ? STOP_MASK
		    : sigmask(sig) & STOP_MASK	     ? sigmask(SIGCONT)
						     : 0;

	if (!flush)
		return;
	flush_sigqueue_mask(&p->shared_pending, &p->shared_sigq, flush);
	for (struct task *th = t->signal ? t->signal->thread_head : t; th;
	     th = t->signal ? th->thread_next : NULL)
		flush_sigqueue_mask(&th->pending, &th->sigq, flush);
	if (flush == STOP_MASK && cancel_group_stop(t, sig))
		*continued = true;
}

/* Whether t can take sig now (Linux's wants_signal()). */
static bool wants_signal(struct task *t, int sig)
{
	return !t->exit_state && (sig == SIGKILL || !(t->blocked & sigmask(sig)));
}

/*
 * Linux's complete_signal(): the thread that will take sig, told by TIF_SIGPENDING; NULL if none
 * can now. A thread-directed signal has only its thread; a process-directed one the task named
 * first (the main thread for kill(pid)), else the first thread that does not block it; while all
 * block it, it waits in the process's set for the first that unblocks it. Siglock held.
 */
static struct task *complete_signal(int sig, struct task *t, bool group)
{
	struct task *to = NULL;

	if (wants_signal(t, sig))
		to = t;
	else if (group && t->signal)
		for (struct task *th = t->signal->thread_head; th && !to; th = th->thread_next)
			if (wants_signal(th, sig))
				to = th;
	if (to)
		to->thread_flags |= TIF_SIGPENDING;
	return to;
}

/*
 * Posts sig to t with siglock held, to t's own set or (group) its process's: signal_generate
 * says what became of it, as Linux's __send_signal_locked() does. Without memory for the siginfo
 * the signal still goes (its siginfo made up when it is taken), real-time ones too, where Linux
 * fails those with -EAGAIN. The thread to wake, or NULL.
 */
static struct task *send_signal_locked(int sig, const siginfo_t *info, struct task *t, bool group,
				       bool *continued)
{
	int result = TRACE_SIGNAL_IGNORED;
	struct task *p = shared_of(t), *to = NULL;
	u64 *pending = group ? &p->shared_pending : &t->pending;
	struct sigqueue **pp = group ? &p->shared_sigq : &t->sigq, *q;

	if (t->exit_state && !(group && t->signal && t->signal->nr_threads))
		goto ret;
	prepare_signal(t, sig, continued);
	if (sig_ignored(t, sig))
		goto ret;
	/* A standard signal is pending once however often it is sent; a real-time one queues. */
	result = TRACE_SIGNAL_ALREADY_PENDING;
	if (sig < SIGRTMIN && (*pending & sigmask(sig)))
		goto ret;
	result = TRACE_SIGNAL_DELIVERED;
	if ((q = kmalloc(sizeof(*q)))) {
		if (info) {
			q->info = *info;
		} else {
			memset(&q->info, 0, sizeof(q->info));
			q->info.si_code = SI_KERNEL;
		}
		q->info.si_signo = sig;
		q->next = NULL;
		while (*pp)
			pp = &(*pp)->next;
		*pp = q;
	} else {
		result = TRACE_SIGNAL_LOSE_INFO;
	}
	*pending |= sigmask(sig);
	to = complete_signal(sig, t, group);
ret:
	trace_signal_generate(sig, info, t, group, result);
	return to;
}

/* Tasklist lock held (the process's threads hold still while one is picked or stops end). */
static int send_signal(int sig, const siginfo_t *info, struct task *t, bool group, bool *continued)
{
	unsigned long flags;
	struct task *to;

	if (sig < 1 || sig > _NSIG)
		return -EINVAL;
	flags = spin_lock_irqsave(&siglock);
	to = send_signal_locked(sig, info, t, group, continued);
	spin_unlock_irqrestore(&siglock, flags);
	if (to)
		wake_up_process(to);
	return 0;
}

int group_send_sig_info_locked(int sig, const siginfo_t *info, struct task *t)
{
	bool continued = false;

	return send_signal(sig, info, t, true, &continued);
}

int send_thread_signal(int sig, const siginfo_t *info, struct task *t)
{
	bool continued = false;
	unsigned long flags = tasklist_lock_irqsave(); /* SIGCONT and stops walk the threads */
	int ret = send_signal(sig, info, t, false, &continued);

	tasklist_unlock_irqrestore(flags);

	if (continued)
		notify_parent_jobctl(process_of(t), 0);
	return ret;
}

void signal_wake_up_kill(struct task *t)
{
	unsigned long flags = spin_lock_irqsave(&siglock);

	t->pending |= sigmask(SIGKILL);
	t->thread_flags |= TIF_SIGPENDING;
	spin_unlock_irqrestore(&siglock, flags);
	wake_up_process(t);
}

/* Process-directed, as Linux's send_sig_info() (PIDTYPE_TGID): signal_generate's grp=1. */
int send_sig_info(int sig, const siginfo_t *info, struct task *t)
{
	bool continued = false;
	unsigned long flags = tasklist_lock_irqsave();
	int ret = send_signal(sig, info, t, true, &continued);

	tasklist_unlock_irqrestore(flags);
	/* Told unlocked: the parent's notice takes the tasklist lock. */
	if (continued)
		notify_parent_jobctl(process_of(t), 0);
	return ret;
}

/* kill()'s siginfo: SI_USER, the sender's pid and uid (0 for the kernel itself). */
void user_info(siginfo_t *info, int sig, int code)
{
	memset(info, 0, sizeof(*info));
	info->si_signo = sig;
	info->si_code = code;
	info->chld.pid = current->tgid;
	info->chld.uid = current->uid;
}

int send_sig(int sig, struct task *t)
{
	siginfo_t info;

	user_info(&info, sig, SI_USER);
	return send_sig_info(sig, &info, t);
}

bool force_sig_fault(int sig, int code, unsigned long addr)
{
	struct task *t = current;
	siginfo_t info;

	if (handler_of(t, sig) <= SIG_IGN || (t->blocked & sigmask(sig)))
		return false; /* Linux's force_sig: blocked or ignored, the default action it is */
	memset(&info, 0, sizeof(info));
	info.si_code = code;
	info.fault.addr = addr;
	send_thread_signal(sig, &info, t); /* to the faulting thread */
	return true;
}

void do_notify_parent(struct task *t, int status)
{
	siginfo_t info;

	if (!t->parent)
		return;
	memset(&info, 0, sizeof(info));
	info.si_code = (status & 0x7f) ? CLD_KILLED : CLD_EXITED;
	info.chld.pid = t->tgid;
	info.chld.uid = t->uid;
	info.chld.status = (status & 0x7f) ? (status & 0x7f) : (status >> 8) & 0xff;
	group_send_sig_info_locked(SIGCHLD, &info, t->parent); /* tasklist lock held */
}

void do_exit_signal(u64 pending)
{
	u64 fatal = pending & (~current->blocked | sigmask(SIGKILL));
	do_group_exit(__builtin_ctzll(fatal) + 1);
}

/* Takes the next signal of one pending set not in mask (synchronous ones first), its siginfo
 * unlinked into *qp (NULL if it had none): its number, or 0. Siglock held. */
static int dequeue_from(u64 *pending, struct sigqueue **pp, u64 mask, struct sigqueue **qp)
{
	u64 avail = *pending & ~mask, sync = avail & SYNCHRONOUS_MASK;
	struct sigqueue *q = NULL;
	bool more = false;
	int sig;

	if (!avail)
		return 0;
	sig = __builtin_ctzll(sync ? sync : avail) + 1;
	while (*pp) {
		if ((*pp)->info.si_signo != sig) {
			pp = &(*pp)->next;
		} else if (q) {
			more = true; /* another of the same real-time signal: it stays pending */
			break;
		} else {
			q = *pp;
			*pp = q->next;
		}
	}
	if (!more)
		*pending &= ~sigmask(sig);
	*qp = q;
	return sig;
}

/* Linux's dequeue_signal(): the thread's own set first, then the process's; TIF_SIGPENDING
 * recalculated. The signal's number with its siginfo, or 0. */
static int dequeue_signal(struct task *t, u64 mask, siginfo_t *info)
{
	unsigned long flags = spin_lock_irqsave(&siglock);
	struct task *p = shared_of(t);
	struct sigqueue *q = NULL;
	int sig = dequeue_from(&t->pending, &t->sigq, mask, &q);

	if (!sig)
		sig = dequeue_from(&p->shared_pending, &p->shared_sigq, mask, &q);
	if (sig && (sigmask(sig) & STOP_MASK)) /* may begin a stop, unless SIGCONT comes first */
		t->jobctl |= JOBCTL_STOP_DEQUEUED;
	recalc_sigpending_locked(t);
	spin_unlock_irqrestore(&siglock, flags);
	if (!sig)
		return 0;
	if (q) {
		*info = q->info;
		kfree(q);
	} else {
		memset(info, 0, sizeof(*info));
		info->si_signo = sig;
		info->si_code = SI_USER;
	}
	return sig;
}

int dequeue_signal_mask(u64 mask, siginfo_t *info)
{
	return dequeue_signal(current, mask, info);
}

int get_signal(siginfo_t *info, struct k_sigaction *ka)
{
	struct task *t = current;

	for (;;) {
		int sig;

		if (READ_ONCE(t->jobctl) & JOBCTL_STOP_PENDING) { /* another thread's stop */
			do_signal_stop(0);
			continue;
		}
		if (!(sig = dequeue_signal(t, t->blocked & ~sigmask(SIGKILL), info)))
			return 0;
		memset(ka, 0, sizeof(*ka));
		if (t->sighand)
			*ka = t->sighand[sig - 1];
		trace_signal_deliver(sig, info, ka); /* whatever its action, as Linux's */
		if (ka->handler == SIG_IGN)
			continue;
		if (ka->handler != SIG_DFL && sig != SIGKILL)
			return sig;
		if (sigmask(sig) & DEFAULT_IGNORED)
			continue;
		if (sigmask(sig) & STOP_MASK) {
			/* The terminal's stops do not stop an orphaned group: nobody could continue it
			 * (Linux's is_current_pgrp_orphaned()); SIGSTOP always does. */
			if (sig == SIGSTOP || !is_current_pgrp_orphaned())
				do_signal_stop(sig);
			else
				t->jobctl &= ~JOBCTL_STOP_DEQUEUED;
			continue;
		}
		/* Term and core alike: no core file is written (Linux with RLIMIT_CORE 0), so the
		 * wait status is the bare signal number. Every thread of the process ends. */
		do_group_exit(sig);
	}
}

u64 sigmask_to_save(void)
{
	return current->restore_sigmask ? current->saved_sigmask : current->blocked;
}

void signal_delivered(int sig, struct k_sigaction *ka)
{
	struct task *t = current;
	unsigned long flags = spin_lock_irqsave(&siglock);

	t->blocked |= ka->mask;
	if (!(ka->flags & SA_NODEFER))
		t->blocked |= sigmask(sig);
	t->blocked &= ~UNBLOCKABLE;
	recalc_sigpending_locked(t);
	if ((ka->flags & SA_RESETHAND) && t->sighand)
		t->sighand[sig - 1].handler = SIG_DFL;
	t->restore_sigmask = false;
	spin_unlock_irqrestore(&siglock, flags);
}

void restore_saved_sigmask(void)
{
	if (current->restore_sigmask) {
		current->blocked = current->saved_sigmask;
		current->restore_sigmask = false;
		recalc_sigpending();
	}
}

int copy_signal_state(struct task *p, struct task *cur, bool copy_handlers)
{
	if (copy_handlers && cur->sighand) {
		if (!(p->sighand = kmalloc(_NSIG * sizeof(*p->sighand))))
			return -ENOMEM;
		memcpy(p->sighand, cur->sighand, _NSIG * sizeof(*p->sighand));
	}
	p->blocked = cur->blocked;
	p->sas_ss_sp = cur->sas_ss_sp;
	p->sas_ss_size = cur->sas_ss_size;
	p->pgid = cur->pgid;
	p->sid = cur->sid;
	p->uid = cur->uid, p->euid = cur->euid, p->suid = cur->suid, p->fsuid = cur->fsuid;
	p->gid = cur->gid, p->egid = cur->egid, p->sgid = cur->sgid, p->fsgid = cur->fsgid;
	return 0;
}

/* Linux's retarget_shared_pending(): t leaves; a process's signal it was told of goes to another
 * thread that does not block it. */
static void retarget_shared_pending(struct task *t)
{
	unsigned long flags = tasklist_lock_irqsave();
	struct task *to[8];
	int n = 0;

	spin_lock(&siglock);
	if (process_of(t)->shared_pending & ~t->blocked)
		for (struct task *th = t->signal->thread_head; th && n < 8; th = th->thread_next)
			if (th != t && !th->exit_state && !(th->thread_flags & TIF_SIGPENDING)) {
				recalc_sigpending_locked(th);
				if (th->thread_flags & TIF_SIGPENDING)
					to[n++] = th;
			}
	spin_unlock(&siglock);
	while (n)
		wake_up_process(to[--n]);
	tasklist_unlock_irqrestore(flags);
}

void exit_signal_state(struct task *t)
{
	unsigned long flags;

	exit_group_stop(t);

	if (t->signal)
		retarget_shared_pending(t);
	flags = spin_lock_irqsave(&siglock);

	flush_sigqueue_mask(&t->pending, &t->sigq, ~0ULL);
	if (!t->signal) /* a group's set goes with its leader (exit_thread_group()) */
		flush_sigqueue_mask(&t->shared_pending, &t->shared_sigq, ~0ULL);
	spin_unlock_irqrestore(&siglock, flags);
}
