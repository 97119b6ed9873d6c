/* SCHED_DEADLINE: a runtime every period, due by a relative deadline; EDF with a simple CBS.
 *
 *   period ->|<--------------- dl_period --------------->|
 *            |<-- runtime -->|       (throttled)          | replenished: runtime again,
 *            |<------- dl_deadline ------->|              | deadline += dl_period
 *
 * The task with the earliest absolute deadline runs first (rt.c keeps the list in that order).
 * Running charges its runtime; at 0 it is throttled, off the queue until its next period. A task
 * waking with more runtime than it could use by its deadline gets a new deadline (Linux's CBS
 * wake-up rule in update_dl_entity()), so sleeping cannot buy it a burst later.
 *
 * Left out, said in docs/21: replenishment happens at the timer tick (10 ms), not on an hrtimer
 * of its own; no GRUB reclaiming (SCHED_FLAG_RECLAIM), no overrun signal (SCHED_FLAG_DL_OVERRUN),
 * no migration (tasks stay on their CPU, so admission is per CPU rather than per root domain).
 */
#include "kernel/sched/rq.h"
#include "lib/errno.h"

bool update_curr_dl(struct task *curr, u64 now)
{
	u64 delta = now - curr->dl.exec_start;

	curr->dl.exec_start = now;
	curr->dl.runtime -= (s64)delta;
	if (curr->dl.runtime > 0)
		return false;
	curr->dl.dl_throttled = true;
	return true;
}

/* Whether the runtime left, used by the deadline, would beat the reserved bandwidth. */
static bool dl_entity_overflow(const struct task *t, u64 now)
{
	u64 left = (t->dl.deadline - now) >> 10, runtime = (u64)t->dl.runtime >> 10;

	return runtime * (t->dl.dl_period >> 10) > left * (t->dl.dl_runtime >> 10);
}

static void dl_new_period(struct task *t, u64 now)
{
	t->dl.deadline = now + t->dl.dl_deadline;
	t->dl.runtime = t->dl.dl_runtime;
}

void dl_wakeup(struct task *t, u64 now)
{
	if (t->dl.dl_throttled)
		return;
	if ((s64)(t->dl.deadline - now) <= 0 || dl_entity_overflow(t, now))
		dl_new_period(t, now);
}

/* The next period begins dl_period after the current one did (deadline - dl_deadline). */
static void replenish_dl_entity(struct task *t, u64 now)
{
	while (t->dl.runtime <= 0) {
		t->dl.deadline += t->dl.dl_period;
		t->dl.runtime += t->dl.dl_runtime;
	}
	if ((s64)(t->dl.deadline - now) <= 0) /* far behind: start afresh */
		dl_new_period(t, now);
	t->dl.dl_throttled = false;
}

bool dl_replenish_due(struct runqueue *rq, u64 now)
{
	bool any = false;

	for (struct task *t = rq->tasks; t; t = t->cpu_next) {
		if (!t->dl.dl_throttled || !dl_policy(t->policy) ||
		    (s64)(now - (t->dl.deadline - t->dl.dl_deadline + t->dl.dl_period)) < 0)
			continue;
		replenish_dl_entity(t, now);
		if (t->state == TASK_RUNNING && percpu_area[t->cpu].curr != t && !t->on_rq) {
			enqueue_task(rq, t, false);
			any = true;
		}
	}
	return any;
}

/* Linux's __checkparam_dl(): runtime <= deadline <= period, periods within 100 us .. 4.19 s. */
bool dl_params_valid(u64 runtime, u64 deadline, u64 period)
{
	if (!deadline || runtime < (1ULL << 10) || (deadline >> 63) || (period >> 63))
		return false;
	if (!period)
		period = deadline;
	return deadline <= period && runtime <= deadline && period >= DL_PERIOD_MIN_NS &&
	       period <= DL_PERIOD_MAX_NS;
}

u64 dl_bandwidth(u64 runtime, u64 deadline, u64 period)
{
	return (runtime << BW_SHIFT) / (period ? period : deadline);
}

/*
 * Admission (Linux's sched_dl_overflow(), per CPU here since tasks stay on theirs): the deadline
 * tasks of a CPU may reserve at most sched_rt_runtime_us of every sched_rt_period_us; -1 is no
 * limit.
 */
int dl_admit(struct runqueue *rq, u64 old_bw, u64 new_bw)
{
	long limit_us = READ_ONCE(sched_rt_runtime_us);
	u64 limit = ((u64)limit_us << BW_SHIFT) / READ_ONCE(sched_rt_period_us);

	if (limit_us >= 0 && new_bw > old_bw && rq->dl_bw - old_bw + new_bw > limit)
		return -EBUSY;
	rq->dl_bw = rq->dl_bw - old_bw + new_bw;
	return 0;
}
