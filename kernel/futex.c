/*
 * Futexes (Linux: kernel/futex/): a thread sleeps in FUTEX_WAIT only if the user word still holds
 * the value it expects, checked under the same lock FUTEX_WAKE takes, so a wake between the
 * user's test and the sleep is never lost. pthread mutexes, condition variables and
 * pthread_join are built on the two calls.
 *
 *   waiter: futex(&w, FUTEX_WAIT, 0, timeout)    lock; w == 0? queue q, sleep; unlock
 *   waker:  w = 1; futex(&w, FUTEX_WAKE, 1)      lock; q dequeued, woken; unlock
 *
 * A waiter is keyed by (mm, address), private or not, as Linux keys both in private memory; a
 * shared futex (no FUTEX_PRIVATE_FLAG) in a MAP_SHARED anonymous area by that area's object and
 * the offset in it (kernel/mm/shmem.c), so two processes that share the area wait on each other
 * (Linux: the page's inode and offset). One lock for every queue (Linux: one per hash bucket).
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

/* What a waiter waits on: (mm, address), or (shmem object, offset). Only compared, never followed. */
struct futex_key {
	const void *base;
	unsigned long off;
};

/* One waiter, on its own kernel stack for the length of its wait. */
struct futex_q {
	struct futex_q *next;
	struct futex_key key;
	u32 bitset;
	struct task *task;
	bool woken; /* dequeued by a waker: the wait succeeded */
};

static DEFINE_SPINLOCK(futex_lock);
static struct futex_q *futex_queues[FUTEX_HASH];

static struct futex_q **hash_head(const struct futex_key *k)
{
	return &futex_queues[((k->off >> 2) ^ ((unsigned long)k->base >> 6)) % FUTEX_HASH];
}

static bool key_eq(const struct futex_key *a, const struct futex_key *b)
{
	return a->base == b->base && a->off == b->off;
}

/* Linux's get_futex_key(): the key of the word at uaddr in mm, after its checks (aligned, a
 * user address; a shared futex must be mapped). 0 or -errno. */
static int get_futex_key(struct mm_struct *mm, u32 __user *uaddr, bool shared, struct futex_key *k)
{
	unsigned long a = (unsigned long)uaddr;
	struct vm_area_struct *v;

	if (a % sizeof(u32))
		return -EINVAL;
	if (!access_ok(uaddr, sizeof(u32)))
		return -EFAULT;
	*k = (struct futex_key){ mm, a };
	if (!shared)
		return 0;
	v = find_vma(mm, a);
	if (!v || v->vm_start > a)
		return -EFAULT;
	if (v->vm_ops == &shmem_vm_ops)
		*k = (struct futex_key){ v->vm_private_data, v->vm_file_off + (a - v->vm_start) };
	return 0;
}

/* At the tail: waiters are woken in the order they came (Linux's plist, all of one priority). */
static void enqueue(struct futex_q *q)
{
	struct futex_q **pp = hash_head(&q->key);

	while (*pp)
		pp = &(*pp)->next;
	q->next = NULL;
	*pp = q;
}

static void unqueue(struct futex_q *q)
{
	for (struct futex_q **pp = hash_head(&q->key); *pp; pp = &(*pp)->next)
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
	/* Asleep before the signal is looked for, or a sender in between is slept through
	 * (msleep_interruptible() says why). */
	current->state = TASK_SLEEPING;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (signal_pending(current)) {
		current->state = TASK_RUNNING;
		spin_unlock_irqrestore(&futex_lock, flags);
		return until ? -ERESTARTNOHAND : -ERESTARTSYS;
	}
	q->woken = false;
	enqueue(q);
	if (until)
		sleep_timer_arm(until);
	spin_unlock_irqrestore(&futex_lock, flags);
	return 0;
}

/*
 * until: ktime ns, 0 for none. 0 once woken; -EAGAIN if the word changed; -ETIMEDOUT; a signal
 * restarts the call, or ends it with -EINTR if a handler without SA_RESTART ran (with a timeout,
 * Linux restarts it with the time left; here the whole wait again, as nanosleep here does).
 */
static long futex_wait(u32 __user *uaddr, const struct futex_key *key, u32 val, u64 until,
		       u32 bitset)
{
	struct futex_q q = { .key = *key, .bitset = bitset, .task = current };
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

/* Wakes the waiters of key; futex_lock held. */
static int wake_locked(const struct futex_key *key, int nr, u32 bitset)
{
	struct futex_q **pp = hash_head(key);
	int woken = 0;

	while (*pp) {
		struct futex_q *q = *pp;
		struct task *t = q->task;

		if (!key_eq(&q->key, key) || !(q->bitset & bitset)) {
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

static int wake_key(const struct futex_key *key, int nr, u32 bitset)
{
	unsigned long flags = spin_lock_irqsave(&futex_lock);
	int woken = wake_locked(key, nr, bitset);

	spin_unlock_irqrestore(&futex_lock, flags);
	return woken;
}

/* As Linux's exit does it: a shared wake, which reaches a private waiter in private memory. */
int futex_wake(struct mm_struct *mm, unsigned long uaddr, int nr, u32 bitset)
{
	struct futex_key key;
	int err = get_futex_key(mm, (u32 __user *)uaddr, true, &key);

	return err ?: wake_key(&key, nr, bitset);
}

/*
 * Robust futexes (Linux's exit_robust_list()): glibc's robust mutexes a thread holds are on a
 * list in its own memory, named by set_robust_list(). When the thread ends without unlocking one,
 * the kernel walks that list: every futex word whose owner tid is this thread gets
 * FUTEX_OWNER_DIED (its waiters bit kept), and one waiter is woken to find EOWNERDEAD.
 *
 *   head { next, futex_offset, list_op_pending } -> entry { next } -> entry ... -> head
 *                                                   entry + futex_offset: the u32 lock word
 */
#define FUTEX_WAITERS 0x80000000u
#define FUTEX_OWNER_DIED 0x40000000u
#define FUTEX_TID_MASK 0x3fffffffu
#define ROBUST_LIST_LIMIT 2048 /* Linux's: a list that loops is not walked for ever */

struct robust_list_head {
	unsigned long next; /* bit 0: a PI futex, which is not built here */
	long futex_offset;
	unsigned long list_op_pending; /* the entry being locked or unlocked right now */
};

/* One word: 0, or -1 when the walk should stop (the word cannot be read or changed). */
static int handle_futex_death(struct task *t, struct mm_struct *mm, u32 __user *uaddr,
			      bool pending_op)
{
	u32 uval, nval, mval;

	if ((unsigned long)uaddr & 3 || !access_ok(uaddr, sizeof(u32)))
		return -1;
	for (;;) {
		if (get_user(uval, uaddr))
			return -1;
		/* Died between taking the lock and writing its tid: a waiter may sleep on 0. */
		if (pending_op && !uval) {
			futex_wake(mm, (unsigned long)uaddr, 1, FUTEX_BITSET_MATCH_ANY);
			return 0;
		}
		if ((uval & FUTEX_TID_MASK) != (u32)t->pid)
			return 0; /* not ours (any more) */
		mval = (uval & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
		if (futex_atomic_cmpxchg_inatomic(&nval, uaddr, uval, mval))
			return -1;
		if (nval == uval)
			break;
		/* a waiter set FUTEX_WAITERS meanwhile: again, with its bit */
	}
	if (uval & FUTEX_WAITERS)
		futex_wake(mm, (unsigned long)uaddr, 1, FUTEX_BITSET_MATCH_ANY);
	return 0;
}

static void exit_robust_list(struct task *t, struct mm_struct *mm)
{
	struct robust_list_head __user *head = (void __user *)t->robust_list;
	struct robust_list_head h;
	unsigned long entry, pending;
	int limit = ROBUST_LIST_LIMIT;

	if (copy_from_user(&h, head, sizeof(h)))
		return;
	entry = h.next & ~1UL;
	pending = h.list_op_pending & ~1UL;
	while (entry != (unsigned long)head) {
		unsigned long next;
		/* The next entry first: once the word is released, its owner may reuse the entry. */
		int err = get_user(next, (unsigned long __user *)entry);

		if (entry != pending &&
		    handle_futex_death(t, mm, (u32 __user *)(entry + h.futex_offset), false))
			return;
		if (err || !--limit)
			return;
		entry = next & ~1UL;
		cond_resched();
	}
	if (pending)
		handle_futex_death(t, mm, (u32 __user *)(pending + h.futex_offset), true);
}

void mm_release(struct task *t, struct mm_struct *mm)
{
	if (t->robust_list) {
		exit_robust_list(t, mm);
		t->robust_list = 0; /* an exec's new program sets its own */
	}
	/* set_tid_address(), CLONE_CHILD_CLEARTID: the word is zeroed and its waiter woken, which
	 * is how pthread_join() learns that the thread is gone. */
	if (t->clear_child_tid && !put_user(0, t->clear_child_tid))
		futex_wake(mm, (unsigned long)t->clear_child_tid, 1, FUTEX_BITSET_MATCH_ANY);
	t->clear_child_tid = NULL;
}

/* FUTEX_REQUEUE and FUTEX_CMP_REQUEUE: wake nr_wake waiters of key1, move up to nr_requeue of
 * the others to key2 (a condition variable's broadcast onto its mutex). */
static long futex_requeue(u32 __user *uaddr, const struct futex_key *key1,
			  const struct futex_key *key2, int nr_wake, int nr_requeue,
			  const u32 *cmpval)
{
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
	woken = nr_wake ? wake_locked(key1, nr_wake, FUTEX_BITSET_MATCH_ANY) : 0;
	pp = hash_head(key1);
	while (*pp && moved < nr_requeue) {
		struct futex_q *q = *pp;

		if (!key_eq(&q->key, key1)) {
			pp = &q->next;
			continue;
		}
		*pp = q->next;
		q->key = *key2;
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

SYSCALL_DEFINE6(futex, u32 __user *, uaddr, int, op, u32, val,
		const struct __kernel_timespec __user *, utime, u32 __user *, uaddr2, u32, val3)
{
	int cmd = op & FUTEX_CMD_MASK;
	u32 bitset = cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_WAKE_BITSET ? val3
									  : FUTEX_BITSET_MATCH_ANY;
	struct futex_key key, key2;
	u64 until = 0;
	bool shared;
	long err;

	if ((cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET) &&
	    (err = futex_deadline(utime, cmd, &until)))
		return err;
	if ((op & FUTEX_CLOCK_REALTIME) && cmd != FUTEX_WAIT_BITSET)
		return -ENOSYS;
	shared = !(op & FUTEX_PRIVATE_FLAG);
	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
		if (!bitset)
			return -EINVAL;
		if ((err = get_futex_key(current->mm, uaddr, shared, &key)))
			return err;
		if (cmd == FUTEX_WAKE || cmd == FUTEX_WAKE_BITSET)
			return wake_key(&key, val, bitset);
		return futex_wait(uaddr, &key, val, until, bitset);
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
		if ((err = get_futex_key(current->mm, uaddr, shared, &key)) ||
		    (err = get_futex_key(current->mm, uaddr2, shared, &key2)))
			return err;
		return futex_requeue(uaddr, &key, &key2, val, (int)(unsigned long)utime,
				     cmd == FUTEX_CMP_REQUEUE ? &val3 : NULL);
	default:
		return -ENOSYS; /* priority inheritance, WAKE_OP, futex_waitv: not built */
	}
}
