/* The run queue's order by class: EDF, then real-time priority, then round robin; RR's slice. */
#include "kernel/sched/rq.h"
#include "kernel/time.h"

/* Inserts t into a list kept in order of before(): after every task it does not beat. */
static void insert_ordered(struct task **list, struct task *t,
			   bool (*before)(const struct task *a, const struct task *b))
{
	struct task **pp = list;

	while (*pp && !before(t, *pp))
		pp = &(*pp)->rq_next;
	t->rq_next = *pp;
	*pp = t;
}

static bool dl_before(const struct task *a, const struct task *b)
{
	return (s64)(a->dl.deadline - b->dl.deadline) < 0;
}

static bool rt_before(const struct task *a, const struct task *b)
{
	return a->prio < b->prio;
}

/* A preempted real-time task keeps its place: first among its equals, as Linux leaves it. */
static bool rt_before_or_equal(const struct task *a, const struct task *b)
{
	return a->prio <= b->prio;
}

void enqueue_task(struct runqueue *rq, struct task *t, bool head)
{
	if (dl_policy(t->policy)) {
		insert_ordered(&rq->dl, t, dl_before);
	} else if (rt_policy(t->policy)) {
		insert_ordered(&rq->rt, t, head ? rt_before_or_equal : rt_before);
	} else {
		t->rq_next = NULL;
		if (rq->tail)
			rq->tail->rq_next = t;
		else
			rq->head = t;
		rq->tail = t;
	}
	t->on_rq = true;
}

static void unlink(struct task **list, struct task *t)
{
	for (struct task **pp = list; *pp; pp = &(*pp)->rq_next)
		if (*pp == t) {
			*pp = t->rq_next;
			return;
		}
}

void dequeue_task(struct runqueue *rq, struct task *t)
{
	if (!t->on_rq)
		return;
	if (dl_policy(t->policy)) {
		unlink(&rq->dl, t);
	} else if (rt_policy(t->policy)) {
		unlink(&rq->rt, t);
	} else {
		struct task *prev = NULL;
		for (struct task *p = rq->head; p; prev = p, p = p->rq_next)
			if (p == t) {
				if (prev)
					prev->rq_next = t->rq_next;
				else
					rq->head = t->rq_next;
				if (rq->tail == t)
					rq->tail = prev;
				break;
			}
	}
	t->on_rq = false;
}

struct task *pick_next_task(struct runqueue *rq)
{
	struct task *t = rq->dl ? rq->dl : rt_runnable(rq) ? rq->rt : rq->head;

	if (t)
		dequeue_task(rq, t);
	return t;
}

/* The idle task is below every class; a task of a higher class always wins. */
bool task_preempts(const struct task *t, const struct task *curr)
{
	if (!curr->pid)
		return true;
	if (dl_policy(t->policy))
		return !dl_policy(curr->policy) || dl_before(t, curr);
	if (rt_policy(t->policy))
		return !dl_policy(curr->policy) &&
		       (!rt_policy(curr->policy) || t->prio < curr->prio);
	/* Fair against fair: round robin hands the CPU on at once, as before classes existed. */
	return !dl_policy(curr->policy) && !rt_policy(curr->policy);
}

/*
 * A SCHED_FIFO task runs until it blocks, yields or something higher wakes; a SCHED_RR task also
 * gives way to its equals when its slice is used; a fair task to anyone queued at each tick.
 */
bool task_tick(struct runqueue *rq, struct task *curr, u64 now)
{
	if (!curr->pid)
		return rq->dl || rt_runnable(rq) || rq->head;
	if (dl_policy(curr->policy))
		return update_curr_dl(curr, now) || (rq->dl && dl_before(rq->dl, curr));
	if (rt_policy(curr->policy)) {
		if (rq->rt_throttled)
			return true; /* its runtime is spent: the others have the rest of the period */
		if (curr->policy != SCHED_RR || curr->rr_slice > NSEC_PER_SEC / HZ) {
			if (curr->policy == SCHED_RR)
				curr->rr_slice -= NSEC_PER_SEC / HZ;
			return rq->dl || (rq->rt && rq->rt->prio < curr->prio);
		}
		curr->rr_slice = RR_TIMESLICE;
		curr->yielded = true; /* to the tail of its priority, behind its equals */
		return rq->dl || (rq->rt && rq->rt->prio <= curr->prio);
	}
	return rq->dl || rt_runnable(rq) || rq->head;
}
