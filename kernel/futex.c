/*
 * Futexes (Linux: kernel/futex/): a thread sleeps in FUTEX_WAIT only if the user word still holds
 * the value it expects, checked under the same lock FUTEX_WAKE takes, so a wake between the
 * user's test and the sleep is never lost. pthread mutexes, condition variables and
 * pthread_join are built on the two calls.
 *
 *   waiter: futex(&w, FUTEX_WAIT, 0, timeout)    lock; w == 0? queue q, sleep; unlock
 *   waker:  w = 1; futex(&w, FUTEX_WAKE, 1)      lock; q dequeued, woken; unlock
 *
 * A waiter is keyed by (mm, address), private or not: Linux keys a shared futex by the page
 * behind it, which matters only for memory two processes share, and no file or anonymous
 * mapping two processes share can hold a futex here. One lock for every queue (Linux: one per
 * hash bucket).
 */
#include "kernel/futex.h"
#include "kernel/mm/mm_types.h"
#include "kernel/sched/sched.h"
#include "kernel/signal.h"
#include "kernel/syscalls.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_REQUEUE 3
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_CLOCK_REALTIME 256
#define FUTEX_CMD_MASK (~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME))
#define FUTEX_HASH 64

/* One waiter, on its own kernel stack for the length of its wait. */
struct futex_q {
	struct futex_q *next;
	struct mm_struct *mm;
	unsigned long uaddr;
	u32 bitset;
	struct task *task;
	bool woken; /* dequeued by a waker: the wait succeeded */
};

static DEFINE_SPINLOCK(futex_lock);
static struct futex_q *futex_queues[FUTEX_HASH];

static struct futex_q **hash_head(struct mm_struct *mm, unsigned long uaddr)
{
	return &futex_queues[((uaddr >> 2) ^ ((unsigned long)mm >> 6)) % FUTEX_HASH];
}

/* At the tail: waiters are woken in the order they came (Linux's plist, all of one priority). */
static void enqueue(struct futex_q *q)
{
	struct futex_q **pp = hash_head(q->mm, q->uaddr);

	while (*pp)
		pp = &(*pp)->next;
	q->next = NULL;
	*pp = q;
}

static void unqueue(struct futex_q *q)
{
	for (struct futex_q **pp = hash_head(q->mm, q->uaddr); *pp; pp = &(*pp)->next)
		if (*pp == q) {
			*pp = q->next;
			return;
		}
}

/* Queues q and puts current to sleep if *uaddr == val: 0 queued (state SLEEPING), or -errno. */
static int queue_if_equal(struct futex_q *q, u32 __user *uaddr, u32 val, u64 until)
{
	unsigned long flags;
	u32 uval;

	/* Read once unlocked, so the page is there: under the lock it then reads without a fault. */
	if (get_user(uval, uaddr))
		return -EFAULT;
	flags = spin_lock_irqsave(&futex_lock);
	if (get_user(uval, uaddr)) {
		spin_unlock_irqrestore(&futex_lock, flags);
		return -EFAULT;
	}
	if (uval != val) {
		spin_unlock_irqrestore(&futex_lock, flags);
		return -EAGAIN;
	}
	if (until && ktime_get_ns() >= until) {
		spin_unlock_irqrestore(&futex_lock, flags);
		return -ETIMEDOUT;
	}
	if (signal_pending(current)) {
		spin_unlock_irqrestore(&futex_lock, flags);
		return until ? -ERESTARTNOHAND : -ERESTARTSYS;
	}
	q->woken = false;
	enqueue(q);
	if (until)
		sleep_timer_arm(until);
	current->state = TASK_SLEEPING;
	spin_unlock_irqrestore(&futex_lock, flags);
	return 0;
}

/*
 * until: ktime ns, 0 for none. 0 once woken; -EAGAIN if the word changed; -ETIMEDOUT; a signal
 * restarts the call, or ends it with -EINTR if a handler without SA_RESTART ran (with a timeout,
 * Linux restarts it with the time left; here the whole wait again, as nanosleep here does).
 */
static long futex_wait(u32 __user *uaddr, u32 val, u64 until, u32 bitset)
{
	struct futex_q q = {
		.mm = current->mm, .uaddr = (unsigned long)uaddr, .bitset = bitset, .task = current
	};
	unsigned long flags;
	int err;

	for (;;) {
		if ((err = queue_if_equal(&q, uaddr, val, until)))
			return err;
		schedule();
		flags = spin_lock_irqsave(&futex_lock);
		if (!q.woken)
			unqueue(&q);
		spin_unlock_irqrestore(&futex_lock, flags);
		if (q.woken)
			return 0;
		if (until && ktime_get_ns() >= until)
			return -ETIMEDOUT;
		if (signal_pending(current))
			return until ? -ERESTARTNOHAND : -ERESTARTSYS;
		/* Woken by something else: look at the word again, as Linux does. */
	}
}

/* Moves or wakes the waiters of (mm, uaddr); futex_lock held. */
static int wake_locked(struct mm_struct *mm, unsigned long uaddr, int nr, u32 bitset)
{
	struct futex_q **pp = hash_head(mm, uaddr);
	int woken = 0;

	while (*pp) {
		struct futex_q *q = *pp;
		struct task *t = q->task;

		if (q->mm != mm || q->uaddr != uaddr || !(q->bitset & bitset)) {
			pp = &q->next;
			continue;
		}
		*pp = q->next;
		q->woken = true; /* q may be gone once the lock is free: t read before */
		wake_up_process(t);
		if (++woken >= nr)
			break;
	}
	return woken;
}

int futex_wake(struct mm_struct *mm, unsigned long uaddr, int nr, u32 bitset)
{
	unsigned long flags;
	int woken;

	if (!bitset)
		return -EINVAL;
	flags = spin_lock_irqsave(&futex_lock);
	woken = wake_locked(mm, uaddr, nr, bitset);
	spin_unlock_irqrestore(&futex_lock, flags);
	return woken;
}

void mm_release(struct task *t, struct mm_struct *mm)
{
	/* set_tid_address(), CLONE_CHILD_CLEARTID: the word is zeroed and its waiter woken, which
	 * is how pthread_join() learns that the thread is gone. */
	if (t->clear_child_tid && !put_user(0, t->clear_child_tid))
		futex_wake(mm, (unsigned long)t->clear_child_tid, 1, FUTEX_BITSET_MATCH_ANY);
	t->clear_child_tid = NULL;
}

/* FUTEX_REQUEUE and FUTEX_CMP_REQUEUE: wake nr_wake waiters of uaddr, move up to nr_requeue of
 * the others to uaddr2 (a condition variable's broadcast onto its mutex). */
static long futex_requeue(u32 __user *uaddr, u32 __user *uaddr2, int nr_wake, int nr_requeue,
			  const u32 *cmpval)
{
	struct mm_struct *mm = current->mm;
	struct futex_q **pp;
	unsigned long flags;
	int woken, moved = 0;
	u32 uval;

	if (nr_wake < 0 || nr_requeue < 0)
		return -EINVAL;
	if (cmpval && get_user(uval, uaddr))
		return -EFAULT;
	flags = spin_lock_irqsave(&futex_lock);
	if (cmpval && (get_user(uval, uaddr) || uval != *cmpval)) {
		spin_unlock_irqrestore(&futex_lock, flags);
		return uval != *cmpval ? -EAGAIN : -EFAULT;
	}
	woken = nr_wake ? wake_locked(mm, (unsigned long)uaddr, nr_wake, FUTEX_BITSET_MATCH_ANY)
			: 0;
	pp = hash_head(mm, (unsigned long)uaddr);
	while (*pp && moved < nr_requeue) {
		struct futex_q *q = *pp;

		if (q->mm != mm || q->uaddr != (unsigned long)uaddr) {
			pp = &q->next;
			continue;
		}
		*pp = q->next;
		q->uaddr = (unsigned long)uaddr2;
		enqueue(q);
		moved++;
	}
	spin_unlock_irqrestore(&futex_lock, flags);
	return woken + moved;
}

struct __kernel_timespec {
	s64 tv_sec;
	long tv_nsec;
};

/* The timeout of a wait as a ktime deadline: relative for FUTEX_WAIT, absolute otherwise
 * (CLOCK_REALTIME and CLOCK_MONOTONIC read the same clock here, docs/17). */
static long futex_deadline(const struct __kernel_timespec __user *utime, int cmd, u64 *until)
{
	struct __kernel_timespec ts;

	*until = 0;
	if (!utime)
		return 0;
	if (copy_from_user(&ts, utime, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (long)NSEC_PER_SEC)
		return -EINVAL;
	if ((u64)ts.tv_sec > 100ULL * 365 * 86400)
		ts.tv_sec = 100LL * 365 * 86400; /* a century is forever, and cannot overflow */
	*until = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	if (cmd == FUTEX_WAIT)
		*until += ktime_get_ns();
	*until = *until ?: 1; /* 0 means no timeout: an absolute 0 has passed already */
	return 0;
}

/* Linux's get_futex_key() checks: aligned, a user address, and for a shared futex mapped. */
static long futex_key_ok(u32 __user *uaddr, int op)
{
	struct vm_area_struct *v;

	if ((unsigned long)uaddr % sizeof(u32))
		return -EINVAL;
	if (!access_ok(uaddr, sizeof(u32)))
		return -EFAULT;
	if (op & FUTEX_PRIVATE_FLAG)
		return 0;
	v = find_vma(current->mm, (unsigned long)uaddr);
	return v && v->vm_start <= (unsigned long)uaddr ? 0 : -EFAULT;
}

SYSCALL_DEFINE6(futex, u32 __user *, uaddr, int, op, u32, val,
		const struct __kernel_timespec __user *, utime, u32 __user *, uaddr2, u32, val3)
{
	int cmd = op & FUTEX_CMD_MASK;
	u32 bitset = cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_WAKE_BITSET ? val3
									  : FUTEX_BITSET_MATCH_ANY;
	u64 until = 0;
	long err;

	if ((cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET) &&
	    (err = futex_deadline(utime, cmd, &until)))
		return err;
	if ((op & FUTEX_CLOCK_REALTIME) && cmd != FUTEX_WAIT_BITSET)
		return -ENOSYS;
	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
		if (!bitset)
			return -EINVAL;
		if ((err = futex_key_ok(uaddr, op)))
			return err;
		return futex_wait(uaddr, val, until, bitset);
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
		if (!bitset)
			return -EINVAL;
		if ((err = futex_key_ok(uaddr, op)))
			return err;
		return futex_wake(current->mm, (unsigned long)uaddr, val, bitset);
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
		if ((err = futex_key_ok(uaddr, op)) || (err = futex_key_ok(uaddr2, op)))
			return err;
		return futex_requeue(uaddr, uaddr2, val, (int)(unsigned long)utime,
				     cmd == FUTEX_CMP_REQUEUE ? &val3 : NULL);
	default:
		return -ENOSYS; /* priority inheritance, WAKE_OP, futex_waitv: not built */
	}
}
