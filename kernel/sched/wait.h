/* Wait queues: tasks sleeping until some condition changes, woken by whoever changes it. */
#ifndef KERNEL_SCHED_WAIT_H
#define KERNEL_SCHED_WAIT_H

#include "kernel/spinlock.h"

struct task;

/* One sleeper; lives on the sleeper's stack for the length of its wait. */
struct wait_queue_entry {
	struct task *task;
	struct wait_queue_entry *next;
};

struct wait_queue_head {
	spinlock_t lock;
	struct wait_queue_entry *head;
};

/*
 * The sleeper's side, as in Linux:
 *	prepare_to_wait(&wq, &e);      queued, state SLEEPING
 *	if (!condition) schedule();    a wake_up() between the two makes schedule() return at once
 *	finish_wait(&wq, &e);          dequeued, RUNNING
 * The waker changes the condition first, then calls wake_up().
 */
void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *e);
void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *e);
/* Wakes every task queued on wq. */
void wake_up(struct wait_queue_head *wq);

#endif
