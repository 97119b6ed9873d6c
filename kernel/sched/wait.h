/* Wait queues: tasks sleeping until some condition changes, woken by whoever changes it. */
#ifndef KERNEL_SCHED_WAIT_H
#define KERNEL_SCHED_WAIT_H

#include "kernel/spinlock.h"

struct task;

/* One sleeper, on the sleeper's stack for the length of its wait; or, with func, a callback that
 * wake_up() calls instead, under the queue's lock (epoll's hook on a watched file). */
struct wait_queue_entry {
	struct task *task;
	struct wait_queue_entry *next;
	void (*func)(struct wait_queue_entry *e);
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
/* Linux's add_wait_queue() and remove_wait_queue(): e (with its func) on wq, no sleep. */
void add_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *e);
void remove_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *e);
/* Wakes every task queued on wq, and calls every callback entry's func. */
void wake_up(struct wait_queue_head *wq);

#endif
