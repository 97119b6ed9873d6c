/*
 * Job control's stop of a whole process (Linux: kernel/signal.c, do_signal_stop() and the
 * JOBCTL_STOP_PENDING machinery): the thread that takes a stop signal asks every thread of its
 * process to stop; each stops on its own way out to ring 3; the last one to stop tells the parent
 * once (CLD_STOPPED, wait4's WUNTRACED). SIGCONT ends it for all (kernel/signal.c,
 * prepare_signal()).
 *
 *   kill(pid, SIGSTOP)   shared_pending |= SIGSTOP; one thread told (TIF_SIGPENDING)
 *   that thread          get_signal(): dequeued (JOBCTL_STOP_DEQUEUED), do_signal_stop(SIGSTOP):
 *                        every live thread JOBCTL_STOP_PENDING, TIF_SIGPENDING, woken;
 *                        group_stop_count = their number
 *   each thread          get_signal() sees JOBCTL_STOP_PENDING: count--, asleep, stopped
 *   the last one         group_stopped; the parent gets SIGCHLD CLD_STOPPED, wait4 0x137f
 *   kill(pid, SIGCONT)   prepare_signal(): pending stops dropped, every thread's STOP_PENDING
 *                        cleared, the stopped woken; CLD_CONTINUED, wait4 0xffff
 */
#include "kernel/signal.h"
#include "kernel/jobctl.h"
#include "kernel/thread_group.h"
#include "kernel/spinlock.h"
#include "lib/compiler.h"

/* The first of t's threads, and the next (the tasklist lock held; a process of one thread has no
 * list: t alone). */
static struct task *first_thread(struct task *t)
{
	return t->signal ? t->signal->thread_head : t;
}

static struct task *next_thread(struct task *t, struct task *th)
{
	return t->signal ? th->thread_next : NULL;
}

/* Linux's do_signal_stop()'s start: a stop signal current took begins the group's stop, unless a
 * SIGCONT or SIGKILL came since it was dequeued (which cleared JOBCTL_STOP_DEQUEUED) or the
 * process is on its way out. Tasklist lock and siglock held. */
static void start_group_stop(struct task *t, int sig)
{
	struct task *p = process_of(t);

	if (!(t->jobctl & JOBCTL_STOP_DEQUEUED) || (t->signal && t->signal->group_exit))
		return;
	p->group_stop_sig = sig;
	p->group_stop_count = 0;
	p->group_stopped = false;
	for (struct task *th = first_thread(t); th; th = next_thread(t, th)) {
		if (th->exit_state)
			continue;
		th->jobctl |= JOBCTL_STOP_PENDING;
		p->group_stop_count++;
		if (th !=
		    t) { /* Linux's signal_wake_up(): out of an interruptible sleep, to stop */
			th->thread_flags |= TIF_SIGPENDING;
			wake_up_process(th);
		}
	}
}

/* One thread's part (Linux's task_participate_group_stop()): true if it was the last. Tasklist
 * lock and siglock held. */
static bool participate_group_stop(struct task *t)
{
	struct task *p = process_of(t);

	t->jobctl &= ~(JOBCTL_STOP_PENDING | JOBCTL_STOP_DEQUEUED);
	if (p->group_stop_count <= 0 || --p->group_stop_count)
		return false;
	p->group_stopped = true;
	return true;
}

void do_signal_stop(int sig)
{
	struct task *t = current, *p = process_of(t);
	unsigned long flags = tasklist_lock_irqsave();
	bool last;

	spin_lock(&siglock);
	if (sig && !(t->jobctl & JOBCTL_STOP_PENDING))
		start_group_stop(t, sig);
	t->jobctl &= ~JOBCTL_STOP_DEQUEUED;
	if (!(t->jobctl & JOBCTL_STOP_PENDING)) {
		spin_unlock(&siglock);
		tasklist_unlock_irqrestore(flags);
		return;
	}
	last = participate_group_stop(t);
	t->stopped = true;
	sig = p->group_stop_sig;
	spin_unlock(&siglock);
	tasklist_unlock_irqrestore(flags);
	if (last)
		notify_parent_jobctl(p, sig);
	for (;;) { /* Linux's TASK_STOPPED: only SIGCONT (stopped cleared) or SIGKILL ends it */
		flags = spin_lock_irqsave(&siglock);
		if (!t->stopped || sigkill_pending(t)) {
			t->stopped = false;
			spin_unlock_irqrestore(&siglock, flags);
			return;
		}
		t->state = TASK_SLEEPING;
		spin_unlock_irqrestore(&siglock, flags);
		schedule();
	}
}

void task_join_group_stop(struct task *p)
{
	struct task *cur = current;

	spin_lock(&siglock);
	if (cur->jobctl & JOBCTL_STOP_PENDING) {
		p->jobctl |= JOBCTL_STOP_PENDING;
		p->thread_flags |= TIF_SIGPENDING;
		process_of(cur)->group_stop_count++;
	}
	spin_unlock(&siglock);
}

/* SIGCONT or SIGKILL for t's process: no thread stops any more, the stopped wake. Whether the
 * process had stopped (the parent hears CLD_CONTINUED). Tasklist lock and siglock held. */
bool cancel_group_stop(struct task *t, int sig)
{
	struct task *p = process_of(t);
	bool was_stopped = p->group_stopped;

	p->group_stopped = false;
	p->group_stop_count = 0;
	for (struct task *th = first_thread(t); th; th = next_thread(t, th)) {
		th->jobctl &= ~(JOBCTL_STOP_PENDING | JOBCTL_STOP_DEQUEUED);
		if (th->stopped) {
			was_stopped = true;
			th->stopped = false;
			wake_up_process(
				th); /* out of do_signal_stop()'s sleep (siglock, then rq lock) */
		}
	}
	return was_stopped && sig == SIGCONT;
}

/* A thread that exits while asked to stop counts as stopped (Linux's exit_signals()): the others
 * must not wait for it. Not when the whole process is ending. */
void exit_group_stop(struct task *t)
{
	struct task *p = process_of(t);
	unsigned long flags;
	bool last = false;
	int sig = 0;

	if (!(READ_ONCE(t->jobctl) & JOBCTL_STOP_PENDING))
		return;
	flags = tasklist_lock_irqsave();
	spin_lock(&siglock);
	if ((t->jobctl & JOBCTL_STOP_PENDING) && participate_group_stop(t))
		last = !(t->signal && t->signal->group_exit);
	sig = p->group_stop_sig;
	spin_unlock(&siglock);
	tasklist_unlock_irqrestore(flags);
	if (last)
		notify_parent_jobctl(p, sig);
}
