/* A sleeping lock: a task that finds it taken sleeps until the owner lets go (kernel/locking/mutex.c). */
#ifndef KERNEL_LOCKING_MUTEX_H
#define KERNEL_LOCKING_MUTEX_H

#include "lib/types.h"
#include "kernel/spinlock.h"

struct task;
struct mutex_waiter;

/*
 * For what is held across a sleep (msleep, waiting for other CPUs through the scheduler, another
 * lock of this kind): a spinlock there would make every waiter burn its CPU for the whole sleep,
 * and in the test kernel it is a warning (might_sleep()). Never from an interrupt or with
 * interrupts off when it may be contended: the waiter has to be a task that can sleep.
 */
struct mutex {
	/* The owning task, | MUTEX_FLAG_WAITERS while someone sleeps on the lock (then unlock takes
	 * the slow path and wakes them); 0 when free and nobody waits. As Linux's owner word. */
	unsigned long owner;
	spinlock_t wait_lock; /* guards the queue, never held across a sleep */
	struct mutex_waiter *head, *tail;
	struct lockdep_map dep_map; /* the validator's (kernel/locking/lockdep.c), if built in */
};

#define MUTEX_FLAG_WAITERS 1UL

/* Every mutex's wait_lock is one class for the validator, as in Linux. */
#ifdef CONFIG_LOCKDEP
extern struct lock_class_key mutex_wait_lock_key;
#define MUTEX_WAIT_LOCK_INIT                                                                       \
	{                                                                                          \
		.locked = 0, .dep_map = {.key = &mutex_wait_lock_key, .name = "&m->wait_lock" }    \
	}
#else
#define MUTEX_WAIT_LOCK_INIT SPINLOCK_INIT
#endif

#define MUTEX_INIT(x)                                                                              \
	{                                                                                          \
		.owner = 0, .wait_lock = MUTEX_WAIT_LOCK_INIT, .head = NULL, .tail = NULL,         \
		.dep_map = LOCKDEP_MAP_INIT(#x, LD_WAIT_SLEEP)                                     \
	}
#define DEFINE_MUTEX(x) struct mutex x = MUTEX_INIT(x)

/* Takes m, sleeping until it is free; waiters are served in the order they came. */
void mutex_lock(struct mutex *m);
/* Takes m if it is free now: true if taken. Never sleeps. */
bool mutex_trylock(struct mutex *m);
/* Lets go of m (the owner only), and wakes the first waiter. */
void mutex_unlock(struct mutex *m);
/* True if m is taken, by anyone. */
bool mutex_is_locked(const struct mutex *m);
/* True if the running task holds m. */
bool mutex_owned(const struct mutex *m);

#endif
