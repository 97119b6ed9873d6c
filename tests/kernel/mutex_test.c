/* Self-tests of struct mutex: it excludes across a sleep, and a waiter sleeps until the unlock wakes it. */
#include "kernel/locking/mutex.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"

static DEFINE_MUTEX(test_mutex);

/* Waits up to ms for *v to reach target, sleeping between looks (the waited-for task may share
 * our CPU: it must get it). */
static bool sleep_until(volatile int *v, int target, unsigned long ms)
{
	for (unsigned long i = 0; i < ms && *v < target; i++)
		msleep(1);
	return *v >= target;
}

SELFTEST(mutex_trylock_and_owner)
{
	KT_ASSERT(t, !mutex_is_locked(&test_mutex));
	KT_EXPECT(t, mutex_trylock(&test_mutex));
	KT_EXPECT(t, mutex_is_locked(&test_mutex) && mutex_owned(&test_mutex));
	KT_EXPECT(t, !mutex_trylock(&test_mutex)); /* not recursive */
	mutex_unlock(&test_mutex);
	KT_EXPECT(t, !mutex_is_locked(&test_mutex));
}

static volatile int waiter_started, waiter_got;

static void waiter(void *arg)
{
	waiter_started = 1;
	mutex_lock(&test_mutex);
	waiter_got = 1;
	mutex_unlock(&test_mutex);
}

/* The waiter runs on `cpu` (ours or another): it must sleep, not spin, while we hold the lock. */
static void check_waiter_sleeps(struct ktest *t, int cpu)
{
	struct task *w;

	waiter_started = waiter_got = 0;
	mutex_lock(&test_mutex);
	w = kthread_create(waiter, NULL, cpu, "mutex-waiter");
	KT_ASSERT(t, w != NULL);
	KT_EXPECT(t, sleep_until(&waiter_started, 1, 5000));
	msleep(20); /* time enough to reach mutex_lock() and go to sleep in it */
	KT_EXPECT_EQ(t, READ_ONCE(w->state), TASK_SLEEPING);
	KT_EXPECT_EQ(t, waiter_got, 0);
	mutex_unlock(&test_mutex); /* wakes it: w may exit from here on, so it is not read again */
	KT_EXPECT(t, sleep_until(&waiter_got, 1, 5000));
}

SELFTEST(mutex_waiter_sleeps_until_unlock)
{
	check_waiter_sleeps(t, smp_processor_id());
	if (num_online_cpus() > 1)
		check_waiter_sleeps(t, smp_processor_id() ? 0 : 1); /* woken by an IPI */
}

#define ROUNDS 20
static volatile int counter, workers_done;

/* Read, sleep, write back: two of these lose updates unless the mutex keeps them apart. */
static void worker(void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		mutex_lock(&test_mutex);
		int v = counter;
		msleep(1);
		counter = v + 1;
		mutex_unlock(&test_mutex);
	}
	__atomic_add_fetch(&workers_done, 1, __ATOMIC_SEQ_CST);
}

SELFTEST(mutex_excludes_across_a_sleep)
{
	int cpus = num_online_cpus() > 1 ? 2 : 1;

	counter = workers_done = 0;
	for (int i = 0; i < 2; i++)
		KT_ASSERT(t, kthread_create(worker, NULL, i % cpus, "mutex-worker") != NULL);
	KT_ASSERT(t, sleep_until(&workers_done, 2, 20000));
	KT_EXPECT_EQ(t, counter, 2 * ROUNDS);
}
