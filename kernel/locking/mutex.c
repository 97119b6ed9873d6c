/* struct mutex: a lock whose waiters sleep in the scheduler instead of spinning on their CPU.
 *
 *   m->owner  task A | WAITERS          mutex_unlock() by A: owner = 0 (or WAITERS), wake the head
 *   m->head -> waiter(B) -> waiter(C)   B wakes, takes the lock if it is still free, else waits on
 *              (on B's and C's stacks)
 *
 * Uncontended, lock and unlock are one compare-and-swap each on the owner word. A waiter sets the
 * WAITERS bit before it sleeps, which makes the owner's compare-and-swap at unlock fail, so the
 * owner takes the slow path and wakes it. The queue is guarded by m->wait_lock, a spinlock held
 * only for a few instructions, never across the sleep: a waiter queues itself and marks itself
 * TASK_SLEEPING under it, so an unlock that comes before the waiter reaches schedule() still finds
 * it queued and makes it runnable again (wake_up_process on a task that has not switched out yet
 * only sets it back to running). Tasks stay on their CPU: a waiter on the owner's CPU lets it run.
 */
#include "kernel/locking/mutex.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"

struct mutex_waiter {
	struct task *task;
	struct mutex_waiter *next;
};

/* Who to name as owner: the task, or for boot code that runs before any task (none), a marker
 * that keeps the WAITERS bit clear. */
static unsigned long owner_id(void)
{
	struct task *t = current;

	return t ? (unsigned long)t : 2UL;
}

#ifdef CONFIG_LOCKDEP
struct lock_class_key mutex_wait_lock_key;
#endif

/* The owner word alone; the validator hears of it from the callers. */
static bool __mutex_trylock(struct mutex *m)
{
	unsigned long old = __atomic_load_n(&m->owner, __ATOMIC_RELAXED);

	/* Free is owner 0, or only the WAITERS bit: the bit stays for whoever unlocks next. */
	if (old & ~MUTEX_FLAG_WAITERS)
		return false;
	return __atomic_compare_exchange_n(&m->owner, &old, owner_id() | old, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* Only a task that may switch out can sleep: the idle task and interrupt handlers spin instead
 * (boot, before the first task runs; nobody contends then but another CPU's short holder). */
static bool can_sleep(void)
{
	struct percpu *c = this_cpu();

	return c->curr && c->curr != c->idle && !c->irq_depth && !c->nmi_depth && !irqs_disabled();
}

static noinline void mutex_lock_slowpath(struct mutex *m)
{
	struct mutex_waiter w = { .task = current };
	unsigned long flags;

	if (!can_sleep()) {
		while (!__mutex_trylock(m))
			cpu_relax();
		return;
	}
	flags = spin_lock_irqsave(&m->wait_lock);
	if (m->tail)
		m->tail->next = &w;
	else
		m->head = &w;
	m->tail = &w;
	for (;;) {
		/* Before the last try: an unlock from now on must take the slow path and wake us. */
		__atomic_fetch_or(&m->owner, MUTEX_FLAG_WAITERS, __ATOMIC_SEQ_CST);
		if (__mutex_trylock(m))
			break;
		w.task->state = TASK_SLEEPING;
		spin_unlock_irqrestore(&m->wait_lock, flags);
		sleep_until_woken();
		flags = spin_lock_irqsave(&m->wait_lock);
	}
	/* Taken: leave the queue (we may not be its head if a spurious wake-up came first). */
	for (struct mutex_waiter **pp = &m->head; *pp; pp = &(*pp)->next)
		if (*pp == &w) {
			*pp = w.next;
			break;
		}
	m->tail = NULL;
	for (struct mutex_waiter *p = m->head; p; p = p->next)
		m->tail = p;
	if (!m->head) /* nobody left to wake: our unlock may take the fast path */
		__atomic_fetch_and(&m->owner, ~MUTEX_FLAG_WAITERS, __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&m->wait_lock, flags);
}

bool mutex_trylock(struct mutex *m)
{
	if (!__mutex_trylock(m))
		return false;
	lock_acquire(&m->dep_map, 0, 1, _RET_IP_);
	return true;
}

void mutex_lock(struct mutex *m)
{
	might_sleep();
	lock_acquire(&m->dep_map, 0, 0, _RET_IP_);
	if (!__mutex_trylock(m))
		mutex_lock_slowpath(m);
}

static noinline void mutex_unlock_slowpath(struct mutex *m)
{
	unsigned long flags = spin_lock_irqsave(&m->wait_lock);

	/* The bit stays while anyone is queued: the one we wake may lose the lock to a newcomer,
	 * and must then be woken again by that one's unlock. */
	__atomic_store_n(&m->owner, m->head ? MUTEX_FLAG_WAITERS : 0, __ATOMIC_RELEASE);
	if (m->head)
		wake_up_process(m->head->task);
	spin_unlock_irqrestore(&m->wait_lock, flags);
}

void mutex_unlock(struct mutex *m)
{
	unsigned long id = owner_id();

	lock_release(&m->dep_map, _RET_IP_);
	if (!__atomic_compare_exchange_n(&m->owner, &id, 0, false, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED))
		mutex_unlock_slowpath(m);
}

bool mutex_is_locked(const struct mutex *m)
{
	return (READ_ONCE(m->owner) & ~MUTEX_FLAG_WAITERS) != 0;
}

bool mutex_owned(const struct mutex *m)
{
	return (READ_ONCE(m->owner) & ~MUTEX_FLAG_WAITERS) == owner_id();
}
