/*
 * Signals (Linux: kernel/signal.c): posting one (a bit in task->pending and its siginfo queued),
 * taking the next one on the way back to ring 3 with its default action (ignore, stop, continue,
 * end the process), and kill, tgkill, tkill. The user handler's frame is arch/x86/signal.c's;
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

bool signal_pending(struct task *t)
{
	return t->pending & (~t->blocked | sigmask(SIGKILL));
}

bool fatal_signal_pending(struct task *t)
{
	return signal_pending(t);
}

/* Drops the queued siginfo of the signals in mask; siglock held. */
static void flush_sigqueue_mask(struct task *t, u64 mask)
{
	struct sigqueue **pp = &t->sigq;

	t->pending &= ~mask;
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

/* SIGCONT and SIGKILL wake a stopped task and cancel pending stops; a stop cancels SIGCONT. */
static void prepare_signal(struct task *t, int sig, bool *continued)
{
	if (sig == SIGCONT || sig == SIGKILL) {
		flush_sigqueue_mask(t, STOP_MASK);
		if (t->stopped && sig == SIGCONT)
			*continued = true;
		t->stopped = false;
	} else if (sigmask(sig) & STOP_MASK) {
		flush_sigqueue_mask(t, sigmask(SIGCONT));
	}
}

/*
 * Posts sig to t with siglock held: signal_generate says what became of it, as Linux's
 * __send_signal_locked() does. Without memory for the siginfo the signal still goes (its siginfo
 * made up when it is taken), real-time ones too, where Linux fails those with -EAGAIN.
 */
static void send_signal_locked(int sig, const siginfo_t *info, struct task *t, bool group,
			       bool *continued)
{
	int result = TRACE_SIGNAL_IGNORED;
	struct sigqueue *q;

	if (t->exit_state)
		goto ret;
	prepare_signal(t, sig, continued);
	if (sig_ignored(t, sig))
		goto ret;
	/* A standard signal is pending once however often it is sent; a real-time one queues. */
	result = TRACE_SIGNAL_ALREADY_PENDING;
	if (sig < SIGRTMIN && (t->pending & sigmask(sig)))
		goto ret;
	result = TRACE_SIGNAL_DELIVERED;
	if ((q = kmalloc(sizeof(*q)))) {
		struct sigqueue **pp = &t->sigq;
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
	t->pending |= sigmask(sig);
ret:
	trace_signal_generate(sig, info, t, group, result);
}

static int send_signal(int sig, const siginfo_t *info, struct task *t, bool group)
{
	bool continued = false;
	unsigned long flags;

	if (sig < 1 || sig > _NSIG)
		return -EINVAL;
	flags = spin_lock_irqsave(&siglock);
	send_signal_locked(sig, info, t, group, &continued);
	spin_unlock_irqrestore(&siglock, flags);
	wake_up_process(t);
	if (continued)
		notify_parent_jobctl(t, 0);
	return 0;
}

/* Process-directed, as Linux's send_sig_info() (PIDTYPE_TGID): signal_generate's grp=1. */
int send_sig_info(int sig, const siginfo_t *info, struct task *t)
{
	return send_signal(sig, info, t, true);
}

/* kill()'s siginfo: SI_USER, the sender's pid and uid (0 for the kernel itself). */
static void user_info(siginfo_t *info, int sig, int code)
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
	send_signal(sig, &info, t, false); /* to the faulting thread */
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
	send_sig_info(SIGCHLD, &info, signal_target(t->parent, SIGCHLD)); /* tasklist lock held */
}

void do_exit_signal(u64 pending)
{
	u64 fatal = pending & (~current->blocked | sigmask(SIGKILL));
	do_group_exit(__builtin_ctzll(fatal) + 1);
}

/* Takes the next signal of t not in mask with its siginfo (synchronous ones first): its number,
 * or 0. Linux's dequeue_signal(). */
static int dequeue_signal(struct task *t, u64 mask, siginfo_t *info)
{
	unsigned long flags = spin_lock_irqsave(&siglock);
	u64 avail = t->pending & ~mask, sync = avail & SYNCHRONOUS_MASK;
	struct sigqueue **pp = &t->sigq, *q = NULL;
	bool more = false;
	int sig;

	if (!avail) {
		spin_unlock_irqrestore(&siglock, flags);
		return 0;
	}
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
		t->pending &= ~sigmask(sig);
	spin_unlock_irqrestore(&siglock, flags);
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

/* A stop signal's default: asleep until SIGCONT or SIGKILL; the parent hears of both. */
static void do_signal_stop(int sig)
{
	struct task *t = current;
	unsigned long flags = spin_lock_irqsave(&siglock);

	t->stopped = true;
	spin_unlock_irqrestore(&siglock, flags);
	notify_parent_jobctl(t, sig);
	for (;;) {
		unsigned long flags = spin_lock_irqsave(&siglock);
		if (!t->stopped || (t->pending & sigmask(SIGKILL))) {
			t->stopped = false;
			spin_unlock_irqrestore(&siglock, flags);
			return;
		}
		t->state = TASK_SLEEPING;
		spin_unlock_irqrestore(&siglock, flags);
		schedule();
	}
}

int get_signal(siginfo_t *info, struct k_sigaction *ka)
{
	struct task *t = current;

	for (;;) {
		int sig = dequeue_signal(t, t->blocked & ~sigmask(SIGKILL), info);

		if (!sig)
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
			do_signal_stop(sig);
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

void exit_signal_state(struct task *t)
{
	unsigned long flags = spin_lock_irqsave(&siglock);

	flush_sigqueue_mask(t, ~0ULL);
	spin_unlock_irqrestore(&siglock, flags);
}

/* May the current task signal t? Root, or a real or effective uid matching t's real or saved
 * one; SIGCONT within the session always (Linux's check_kill_permission()). */
static int check_kill_permission(int sig, struct task *t)
{
	struct task *c = current;

	if (!c->euid || c->euid == t->uid || c->euid == t->suid || c->uid == t->uid ||
	    c->uid == t->suid)
		return 0;
	if (sig == SIGCONT && c->sid == t->sid)
		return 0;
	return -EPERM;
}

/* A process a user may name, by its pid or any of its threads' (Linux's kill() too signals the
 * process of a thread id): a live thread of it, or NULL. */
static struct task *find_process(int pid)
{
	struct task *t = pid > 0 ? find_task(pid) : NULL;

	if (t && t->tgid && !t->exit_state)
		return t;
	return find_thread_group(pid); /* the leader may be gone, its threads not */
}

/* A process-directed signal goes to a thread of t's process that does not block it. */
static int kill_one(struct task *t, int sig, const siginfo_t *info, bool check)
{
	unsigned long flags;
	int err;

	if (check && (err = check_kill_permission(sig, t)))
		return err;
	if (!sig)
		return 0;
	flags = tasklist_lock_irqsave(); /* the group's list holds still while we pick */
	t = signal_target(process_of(t), sig);
	tasklist_unlock_irqrestore(flags);
	/* Sent unlocked: a SIGCONT tells the parent, which takes the tasklist lock. */
	return send_sig_info(sig, info, t);
}

#define MAX_TARGETS 128

struct target_list {
	int pgrp; /* > 0: that group; 0: every process but the sender */
	int n;
	int pids[MAX_TARGETS]; /* tgids, each once */
};

static void collect_target(struct task *t, void *arg)
{
	struct target_list *l = arg;

	if (!t->tgid || t->exit_state || l->n == MAX_TARGETS)
		return;
	if (l->pgrp ? t->pgid != l->pgrp : t->tgid == current->tgid)
		return;
	for (int i = 0; i < l->n; i++)
		if (l->pids[i] == t->tgid)
			return;
	l->pids[l->n++] = t->tgid;
}

/* Every process of pgrp (or all but the caller, pgrp 0): 0 if one took it, else the first error,
 * -ESRCH when there was nobody. */
static int kill_many(int pgrp, int sig, const siginfo_t *info, bool check)
{
	struct target_list list, *l = &list; /* 0.5 KiB of stack, from Ctrl-C's interrupt too */
	int ret = -ESRCH, sent = 0;

	l->pgrp = pgrp;
	l->n = 0;
	for_each_task(collect_target, l);
	for (int i = 0; i < l->n; i++) {
		struct task *t = find_process(l->pids[i]);
		int err = t ? kill_one(t, sig, info, check) : -ESRCH;
		if (!err)
			sent++;
		else if (ret == -ESRCH)
			ret = err;
	}
	return sent ? 0 : ret;
}

int kill_pgrp(int pgrp, int sig, const siginfo_t *info)
{
	return pgrp > 0 ? kill_many(pgrp, sig, info, false) : -ESRCH;
}

SYSCALL_DEFINE2(kill, int, pid, int, sig)
{
	siginfo_t info;
	struct task *t;

	if (sig < 0 || sig > _NSIG)
		return -EINVAL;
	user_info(&info, sig, SI_USER);
	if (pid > 0) {
		if (!(t = find_process(pid)))
			return -ESRCH;
		return kill_one(t, sig, &info, true);
	}
	if (pid == -2147483647 - 1)
		return -ESRCH;
	if (pid == -1)
		return kill_many(0, sig, &info, true);
	return kill_many(pid ? -pid : current->pgid, sig, &info, true);
}

/* A thread-directed signal: that thread, whatever it blocks. */
static long do_tkill(int tgid, int tid, int sig)
{
	struct task *t = tid > 0 ? find_task(tid) : NULL;
	siginfo_t info;
	int err;

	if (tid <= 0 || sig < 0 || sig > _NSIG)
		return -EINVAL;
	if (!t || !t->tgid || t->exit_state || (tgid > 0 && t->tgid != tgid))
		return -ESRCH;
	if ((err = check_kill_permission(sig, t)) || !sig)
		return err;
	user_info(&info, sig, SI_TKILL);
	return send_signal(sig, &info, t, false);
}

SYSCALL_DEFINE3(tgkill, int, tgid, int, pid, int, sig)
{
	if (tgid <= 0)
		return -EINVAL;
	return do_tkill(tgid, pid, sig);
}

SYSCALL_DEFINE2(tkill, int, pid, int, sig)
{
	return do_tkill(0, pid, sig);
}
