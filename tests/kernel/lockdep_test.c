/* Self-tests of the lock validator: each bad pattern built on purpose, on locks of its own, and its report checked. */
#include "kernel/locking/lockdep.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/string.h"

#ifdef CONFIG_LOCKDEP

static DEFINE_SPINLOCK(ld_a);
static DEFINE_SPINLOCK(ld_b);
static DEFINE_SPINLOCK(ld_c);
static DEFINE_SPINLOCK(ld_irq);
static DEFINE_SPINLOCK(ld_sleep);
static DEFINE_SPINLOCK(ld_sleep2);
static spinlock_t ld_pair[2];

/* A clean slate before and after: a second `selftest` run reports the same way. */
static void forget(spinlock_t *l)
{
	lockdep_reset_lock(&l->dep_map);
}

static bool validator_on(struct ktest *t)
{
	if (!READ_ONCE(debug_locks))
		ktest_skip(t, "the lock validator gave up earlier in this boot (see its report)");
	return READ_ONCE(debug_locks);
}

static unsigned long reports(enum lockdep_report_kind kind)
{
	return READ_ONCE(lockdep_stats.reports[kind]);
}

static bool last_names(const char *taking, const char *held)
{
	return lockdep_last_report_names[0] && lockdep_last_report_names[1] &&
	       !strcmp(lockdep_last_report_names[0], taking) &&
	       !strcmp(lockdep_last_report_names[1], held);
}

static void take_two(spinlock_t *outer, spinlock_t *inner)
{
	spin_lock(outer);
	spin_lock(inner);
	spin_unlock(inner);
	spin_unlock(outer);
}

/* A then B, later B then A, one task, never at the same time: the second order is the report. */
SELFTEST(lockdep_ab_ba_inversion_reported)
{
	unsigned long before = reports(LOCKDEP_CIRCULAR);

	if (!validator_on(t))
		return;
	forget(&ld_a);
	forget(&ld_b);
	take_two(&ld_a, &ld_b);
	take_two(&ld_a, &ld_b); /* the same order again: nothing to say */
	KT_EXPECT_EQ(t, reports(LOCKDEP_CIRCULAR), before);
	cprintf("# lockdep_ab_ba_inversion_reported: a lock validator report follows, on "
		"purpose\n");
	take_two(&ld_b, &ld_a);
	KT_EXPECT_EQ(t, reports(LOCKDEP_CIRCULAR), before + 1);
	KT_EXPECT(t, last_names("ld_a", "ld_b"));
	take_two(&ld_b, &ld_a); /* reported once, not at every pass */
	KT_EXPECT_EQ(t, reports(LOCKDEP_CIRCULAR), before + 1);
	forget(&ld_a);
	forget(&ld_b);
}

/* A -> B and B -> C are each fine; C -> A closes a cycle through a lock neither end holds. */
SELFTEST(lockdep_three_lock_cycle_reported)
{
	unsigned long before = reports(LOCKDEP_CIRCULAR);

	if (!validator_on(t))
		return;
	forget(&ld_a);
	forget(&ld_b);
	forget(&ld_c);
	take_two(&ld_a, &ld_b);
	take_two(&ld_b, &ld_c);
	KT_EXPECT_EQ(t, reports(LOCKDEP_CIRCULAR), before);
	cprintf("# lockdep_three_lock_cycle_reported: a lock validator report follows, on "
		"purpose\n");
	take_two(&ld_c, &ld_a);
	KT_EXPECT_EQ(t, reports(LOCKDEP_CIRCULAR), before + 1);
	KT_EXPECT(t, last_names("ld_a", "ld_c"));
	forget(&ld_a);
	forget(&ld_b);
	forget(&ld_c);
}

static void take_irq_lock(void *info)
{
	spin_lock(&ld_irq);
	spin_unlock(&ld_irq);
}

/* Taken in a hard interrupt (another CPU's IPI handler), then with interrupts on in a task. */
SELFTEST(lockdep_hardirq_safety_reported)
{
	unsigned long before = reports(LOCKDEP_INCONSISTENT);
	int other = smp_processor_id() ? 0 : 1;

	if (!validator_on(t))
		return;
	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs a second CPU to take the lock in its interrupt handler");
		return;
	}
	forget(&ld_irq);
	smp_call_function_single(other, take_irq_lock, NULL, true);
	KT_EXPECT_EQ(t, reports(LOCKDEP_INCONSISTENT), before);
	unsigned long flags = spin_lock_irqsave(&ld_irq); /* interrupts off: still consistent */
	spin_unlock_irqrestore(&ld_irq, flags);
	KT_EXPECT_EQ(t, reports(LOCKDEP_INCONSISTENT), before);
	cprintf("# lockdep_hardirq_safety_reported: a lock validator report follows, on purpose\n");
	spin_lock(&ld_irq);
	spin_unlock(&ld_irq);
	KT_EXPECT_EQ(t, reports(LOCKDEP_INCONSISTENT), before + 1);
	KT_EXPECT(t, last_names("ld_irq", "ld_irq"));
	forget(&ld_irq);
}

/* Two locks of one class (one spin_lock_init() site), the second inside the first. */
SELFTEST(lockdep_recursive_locking_reported)
{
	unsigned long before = reports(LOCKDEP_RECURSIVE);

	if (!validator_on(t))
		return;
	for (int i = 0; i < 2; i++)
		spin_lock_init(&ld_pair[i]);
	cprintf("# lockdep_recursive_locking_reported: a lock validator report follows, on "
		"purpose\n");
	take_two(&ld_pair[0], &ld_pair[1]);
	KT_EXPECT_EQ(t, reports(LOCKDEP_RECURSIVE), before + 1);
	KT_EXPECT(t, last_names("&ld_pair[i]", "&ld_pair[i]"));
	/* Said on purpose with a subclass: the inner one is a class of its own, no report. */
	spin_lock(&ld_pair[0]);
	spin_lock_nested(&ld_pair[1], 1);
	spin_unlock(&ld_pair[1]);
	spin_unlock(&ld_pair[0]);
	KT_EXPECT_EQ(t, reports(LOCKDEP_RECURSIVE), before + 1);
	forget(&ld_pair[0]);
}

static void sleep_holding(struct ktest *t, spinlock_t *l)
{
	cprintf("# lockdep_sleep_under_spinlock_reported: a sleeping-in-atomic report follows, on "
		"purpose\n");
	spin_lock(l);
	KT_EXPECT(t, lockdep_held_spinlock() == &l->dep_map);
	msleep(1);
	spin_unlock(l);
}

/*
 * msleep() under a spinlock: might_sleep() reports it and the validator names the lock. Two
 * locks, because a report like the one just before is not repeated: a second run of this test
 * reports both again.
 */
SELFTEST(lockdep_sleep_under_spinlock_reported)
{
	unsigned long before = READ_ONCE(might_sleep_reports);

	if (!validator_on(t))
		return;
	sleep_holding(t, &ld_sleep);
	sleep_holding(t, &ld_sleep2);
	KT_EXPECT_EQ(t, READ_ONCE(might_sleep_reports), before + 2);
	KT_EXPECT(t, lockdep_held_spinlock() == NULL);
}

/* Taking locks in one order, and letting go of them out of order, is no report at all. */
SELFTEST(lockdep_consistent_order_is_silent)
{
	unsigned long before[LOCKDEP_NR_REPORTS];

	if (!validator_on(t))
		return;
	memcpy(before, lockdep_stats.reports, sizeof(before));
	forget(&ld_a);
	forget(&ld_b);
	for (int i = 0; i < 3; i++) {
		spin_lock(&ld_a);
		spin_lock(&ld_b);
		spin_unlock(&ld_a); /* out of order */
		spin_unlock(&ld_b);
	}
	spin_lock(&ld_b);
	KT_EXPECT(t, spin_trylock(&ld_a)); /* B then A, but A by trylock: it never waits */
	spin_unlock(&ld_a);
	spin_unlock(&ld_b);
	KT_EXPECT(t, !memcmp(before, lockdep_stats.reports, sizeof(before)));
	forget(&ld_a);
	forget(&ld_b);
}

#endif /* CONFIG_LOCKDEP */
