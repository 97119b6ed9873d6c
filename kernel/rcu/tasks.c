/* synchronize_rcu_tasks(): wait until no task can still be inside code nobody can enter any more.
 *
 * Why IPIs are not enough: a task may be preempted (at an interrupt's end) in the middle of an
 * ftrace trampoline, and sleep there on the run queue while its CPU runs others. What proves it
 * left is the task itself reaching a point that cannot be inside a trampoline: a voluntary
 * schedule() or a cond_resched() (its tasks_qs count moves). So, as Linux's RCU Tasks:
 *
 *   holdouts = every task running on a CPU, or preempted, right now (not the caller)
 *   until each holdout's tasks_qs has moved, or it is switched out voluntarily, or it is gone:
 *       sleep a tick and look again
 *
 * A task that was already switched out voluntarily cannot be inside: it is not a holdout.
 */
#include "kernel/sched/sched.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/string.h"

struct holdout {
	struct task *t;
	int pid;
	u64 qs;	    /* its tasks_qs when the wait began */
	bool found; /* met in this pass (one not met has exited: it is out of everything) */
	bool done;
	int cpu;
	char comm[TASK_COMM_LEN];
};

struct scan {
	struct holdout *h;
	int n, cap;
	bool collect;  /* first pass: build the list; later passes: tick holdouts off */
	int after_pid; /* collect only tasks with a larger pid, the cap smallest of them */
};

static bool quiescent_now(struct task *t)
{
	return !t->preempted && percpu_area[t->cpu].curr != t;
}

/* Called for each task with its CPU's run-queue lock held. */
static void scan_task(struct task *t, void *arg)
{
	struct scan *s = arg;

	if (s->collect) {
		struct holdout *h = NULL;

		if (t == current || quiescent_now(t) || t->pid <= s->after_pid)
			return;
		if (s->n < s->cap) {
			h = &s->h[s->n++];
		} else {
			/* Full: keep the smallest pids, so the next round starts after the largest. */
			for (int i = 0; i < s->n; i++)
				if (s->h[i].pid > t->pid && (!h || s->h[i].pid > h->pid))
					h = &s->h[i];
			if (!h)
				return;
		}
		*h = (struct holdout){
			.t = t, .pid = t->pid, .qs = READ_ONCE(t->tasks_qs), .cpu = t->cpu
		};
		memcpy(h->comm, t->comm, TASK_COMM_LEN);
		return;
	}
	/* The same task: pointer and pid (a freed task's memory may hold a new one). */
	for (int i = 0; i < s->n; i++) {
		struct holdout *h = &s->h[i];
		if (h->t != t || h->pid != t->pid)
			continue;
		h->found = true;
		h->done = h->done || READ_ONCE(t->tasks_qs) != h->qs || quiescent_now(t);
	}
}

static void count_task(struct task *t, void *arg)
{
	(*(int *)arg)++;
}

/* One pass over every task; returns how many holdouts are still to be seen quiescent. */
static int rcu_tasks_pass(struct scan *s)
{
	int remaining = 0;

	for (int i = 0; i < s->n; i++)
		s->h[i].found = false;
	for_each_task(scan_task, s);
	for (int i = 0; i < s->n; i++) {
		s->h[i].done = s->h[i].done || !s->h[i].found;
		remaining += !s->h[i].done;
	}
	return remaining;
}

/* Collects the holdouts (as s->after_pid allows) and waits until each has been seen outside. */
static void wait_for_holdouts(struct scan *s, u64 start, bool *warned)
{
	s->n = 0;
	s->collect = true;
	for_each_task(scan_task, s);
	s->collect = false;
	while (rcu_tasks_pass(s)) {
		/* Nudge holdouts' CPUs: an idle one passes through schedule() at once, and a short
		 * wait catches most grace periods before falling back to sleeping a tick. */
		for (int i = 0; i < s->n; i++)
			if (!s->h[i].done && s->h[i].cpu != smp_processor_id())
				smp_send_reschedule(s->h[i].cpu);
		u64 spin_until = ktime_get_ns() + 200000;
		while (ktime_get_ns() < spin_until && rcu_tasks_pass(s))
			yield();
		if (!rcu_tasks_pass(s))
			break;
		if (!*warned && ktime_get_ns() - start > 5 * NSEC_PER_SEC) {
			for (int i = 0; i < s->n; i++)
				if (!s->h[i].done)
					pr_warn("rcu_tasks: still waiting for pid %d (%s)\n",
						s->h[i].pid, s->h[i].comm);
			*warned = true;
		}
		msleep(1);
	}
}

/*
 * This cannot fail, so it cannot depend on kmalloc(): without memory for the whole list it waits
 * for a few holdouts at a time, in pid order. A task looked at later than the call began is held
 * to a stricter test (its quiescent state must come later still), so the rounds stay correct.
 */
void synchronize_rcu_tasks(void)
{
	struct holdout few[16];
	struct scan s = { .after_pid = -1 };
	u64 start = ktime_get_ns();
	bool warned = false;

	for_each_task(count_task, &s.cap);
	s.cap += 16; /* tasks created meanwhile start outside: they need no watching */
	s.h = kmalloc(s.cap * sizeof(*s.h));
	if (!s.h) {
		s.h = few;
		s.cap = ARRAY_SIZE(few);
	}
	for (;;) {
		wait_for_holdouts(&s, start, &warned);
		if (s.h != few || s.n < s.cap)
			break;
		for (int i = 0; i < s.n; i++)
			s.after_pid = MAX(s.after_pid, s.h[i].pid);
	}
	if (s.h != few)
		kfree(s.h);
}
