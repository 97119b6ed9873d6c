/* struct mutex: a lock whose waiters sleep in the scheduler instead of spinning on their CPU.
 *
 *   m->owner  task A                   mutex_unlock() by A: owner = NULL, wake the head waiter
 *   m->head -> waiter(B) -> waiter(C)  B wakes, takes the lock if it is still free, else waits on
 *              (on B's and C's stacks)
 *
 * The queue is guarded by m->wait_lock, a spinlock held only for a few instructions, never across
 * the sleep: a waiter queues itself and marks itself TASK_SLEEPING under it, so an unlock that
 * comes before the waiter reaches schedule() still finds it queued and makes it runnable again
 * (wake_up_process on a task that has not switched out yet only sets it back to running).
 * Tasks stay on their CPU, so a waiter on the owner's CPU simply lets the owner run.
 */
#include "kernel/locking/mutex.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"

struct mutex_waiter {
	struct task *task;
	struct mutex_waiter *next;
};

/* Who to name as owner: the task, or for boot code that runs before any task (none), a marker. */
static struct task *owner_id(void)
{
	struct task *t = current;

	return t ? t : (struct task *)1UL;
}

bool mutex_trylock(struct mutex *m)
{
	struct task *expect = NULL;

	return __atomic_compare_exchange_n(&m->owner, &expect, owner_id(), false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/* Only a task that may switch out can sleep: the idle task and interrupt handlers spin instead
 * (boot, before the first task runs; nobody contends then but another CPU's short holder). */
static bool can_sleep(void)
{
	struct percpu *c = this_cpu();

	return c->curr && c->curr != c->idle && !c->irq_depth && !c->nmi_depth && !irqs_disabled();
}

void mutex_lock(struct mutex *m)
{
	struct mutex_waiter w = { .task = current };
	unsigned long flags;

	might_sleep();
	if (mutex_trylock(m))
		return;
	if (!can_sleep()) {
		while (!mutex_trylock(m))
			cpu_relax();
		return;
	}
	flags = spin_lock_irqsave(&m->wait_lock);
	if (m->tail)
		m->tail->next = &w;
	else
		m->head = &w;
	m->tail = &w;
	while (!mutex_trylock(m)) {
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
	if (m->tail == &w) {
		m->tail = NULL;
		for (struct mutex_waiter *p = m->head; p; p = p->next)
			m->tail = p;
	}
	spin_unlock_irqrestore(&m->wait_lock, flags);
}

void mutex_unlock(struct mutex *m)
{
	unsigned long flags = spin_lock_irqsave(&m->wait_lock);

	__atomic_store_n(&m->owner, NULL, __ATOMIC_RELEASE);
	if (m->head)
		wake_up_process(m->head->task);
	spin_unlock_irqrestore(&m->wait_lock, flags);
}

bool mutex_is_locked(const struct mutex *m)
{
	return READ_ONCE(m->owner) != NULL;
}

bool mutex_owned(const struct mutex *m)
{
	return READ_ONCE(m->owner) == owner_id();
}
