/* The run queue of one CPU, by class: what core.c, rt.c, deadline.c and syscalls.c share. */
#ifndef KERNEL_SCHED_RQ_H
#define KERNEL_SCHED_RQ_H

#include "kernel/sched/sched.h"
#include "kernel/spinlock.h"

/*
 * Three lists, looked at in this order when a CPU picks its next task (Linux's class order,
 * dl_sched_class > rt_sched_class > fair_sched_class):
 *
 *   dl    deadline tasks, earliest absolute deadline first (EDF)
 *   rt    SCHED_FIFO/RR, highest priority first, first come first served within one
 *   fair  every other task, round robin (our stand-in for CFS)
 *
 * A task is on at most one, through rq_next; on_rq says whether it is. The running task is on
 * none, and neither is a throttled deadline task (it waits for its replenishment).
 */
struct runqueue {
	spinlock_t lock;
	struct task *dl, *rt;
	struct task *head, *tail; /* fair */
	struct task *tasks;	  /* all live tasks of this CPU but idle */
	struct task *dead;	  /* exited, stack not yet freed */
	/* The task this CPU runs, as __schedule() last decided under the lock. The per-CPU curr
	 * changes later, outside it, just before switch_to(): a waker deciding by that one could
	 * see a task that just went to sleep as still running, enqueue nothing, and lose it. */
	struct task *curr;
	u64 dl_bw; /* admitted deadline bandwidth, runtime/period << BW_SHIFT */
	/* RT throttling (rt_bandwidth.c): real-time run time in this period, since when the
	 * running real-time task is charged, when the period ends, and whether rt waits for it. */
	u64 rt_time, rt_exec_start, rt_period_end;
	bool rt_throttled;
};

#define BW_SHIFT 20

extern struct runqueue runqueues[NR_CPUS];

static inline bool dl_policy(int policy)
{
	return policy == SCHED_DEADLINE;
}

static inline bool rt_policy(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static inline bool fair_policy(int policy)
{
	return policy == SCHED_NORMAL || policy == SCHED_BATCH || policy == SCHED_IDLE;
}

/* rq lock held. head: a real-time task goes before its equals (it was preempted, not done). */
void enqueue_task(struct runqueue *rq, struct task *t, bool head);
void dequeue_task(struct runqueue *rq, struct task *t);
/* Takes the task to run next off the queue, or NULL for the idle task. */
struct task *pick_next_task(struct runqueue *rq);
/* Whether t, just made runnable, should take the CPU from curr (Linux's check_preempt_curr()). */
bool task_preempts(const struct task *t, const struct task *curr);
/* The timer tick for the running task: whether it should give the CPU up now. */
bool task_tick(struct runqueue *rq, struct task *curr, u64 now);

/* migrate.c: p's run queue, locked (interrupts already off); a waking task's choice of CPU,
 * with its run queue locked before and after; the switch-away end of set_cpus_allowed_ptr(). */
struct runqueue *task_rq_lock(struct task *p);
struct runqueue *ttwu_select(struct task *p, struct runqueue *rq);
void migrate_off_forbidden(struct task *prev);
extern unsigned long sched_migrations;

/* deadline.c: charges the running deadline task; true if it ran out of runtime. */
bool update_curr_dl(struct task *curr, u64 now);
/* A deadline task becomes runnable: a new deadline if the old one cannot be kept (CBS). */
void dl_wakeup(struct task *t, u64 now);
/* Throttled tasks whose period has come again go back on the queue; true if any did. */
bool dl_replenish_due(struct runqueue *rq, u64 now);

/* Linux's sysctl_sched_dl_period_min/max: 100 us and 2^22 us. */
#define DL_PERIOD_MIN_NS (100 * 1000ULL)
#define DL_PERIOD_MAX_NS ((1ULL << 22) * 1000ULL)
bool dl_params_valid(u64 runtime, u64 deadline, u64 period);
/* runtime/period in BW_SHIFT fixed point (period 0: the deadline is the period). */
u64 dl_bandwidth(u64 runtime, u64 deadline, u64 period);
/* Trades a task's old reservation on rq for a new one: 0, or -EBUSY (nothing changed). */
int dl_admit(struct runqueue *rq, u64 old_bw, u64 new_bw);
/* Charges the running real-time task's time since rq->rt_exec_start; may throttle rq. */
void rt_charge(struct runqueue *rq, u64 now);
/* The tick's part: charge, end the period, throttle or unthrottle; true: curr must give way. */
bool rt_period_tick(struct runqueue *rq, struct task *curr, u64 now);

/* Whether rq's real-time list may be picked from now (not throttled). */
static inline bool rt_runnable(const struct runqueue *rq)
{
	return rq->rt && !rq->rt_throttled;
}

#endif
