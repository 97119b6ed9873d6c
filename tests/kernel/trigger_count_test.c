/* Self-tests of counted commands (trace_trigger_count.h): every CPU spends one count at once, and the
 * uses that happen are exactly the count, never one more (an unlimited command by mistake). */
#include "arch/x86/cpu.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/trace/trace_trigger_count.h"

/* One round: the test sets the count, bumps the round, and every CPU takes until refused. */
static long hammer_count;
static volatile u64 hammer_round;
static volatile u64 hammer_done[NR_CPUS];
static long hammer_wins;
static volatile bool hammer_stop;
static volatile int hammer_exited;

/* At most count + 2 tries each: a count that went wrong (unlimited) still ends the round. */
static void hammer_take(long count)
{
	for (long i = 0; i < count + 2; i++) {
		if (!trigger_count_take(&hammer_count))
			return;
		__atomic_add_fetch(&hammer_wins, 1, __ATOMIC_RELAXED);
	}
}

static void hammer_thread(void *arg)
{
	int cpu = (int)(long)arg;
	u64 seen = 0;

	while (!hammer_stop) {
		u64 r = hammer_round;
		unsigned long flags;

		if (r == seen) {
			cpu_relax();
			continue;
		}
		flags = local_irq_save(); /* no tick between the tries: the race as on the tracing path */
		hammer_take(r % 3 + 1);
		local_irq_restore(flags);
		seen = r;
		hammer_done[cpu] = r;
	}
	__atomic_add_fetch(&hammer_exited, 1, __ATOMIC_RELEASE);
}

static bool wait_round(u64 r, int me)
{
	u64 end = rdtsc() + tsc_khz * 5000;

	for (int c = 0; c < num_online_cpus(); c++)
		while (c != me && hammer_done[c] != r)
			if (rdtsc() > end)
				return false;
	return true;
}

SELFTEST(trigger_count_take_every_cpu_exactly_n)
{
	int me = smp_processor_id(), workers = 0, bad = 0;
	u64 end, rounds = 0;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	hammer_stop = false;
	hammer_round = 0;
	hammer_exited = 0;
	for (int c = 0; c < num_online_cpus(); c++) {
		hammer_done[c] = 0;
		if (c != me) {
			KT_ASSERT(t, kthread_create(hammer_thread, (void *)(long)c, c, "count") !=
					     NULL);
			workers++;
		}
	}
	/* Rounds for 2 s of TSC time, at least 200: enough for CPUs to meet inside a try. */
	end = rdtsc() + tsc_khz * 2000;
	while (rounds < 200 || rdtsc() < end) {
		long n = (long)((rounds + 1) % 3 + 1);
		unsigned long flags;

		WRITE_ONCE(hammer_count, n);
		WRITE_ONCE(hammer_wins, 0);
		__atomic_store_n(&hammer_round, ++rounds, __ATOMIC_RELEASE);
		flags = local_irq_save();
		hammer_take(n);
		local_irq_restore(flags);
		if (!wait_round(rounds, me)) {
			ktest_fail(t, __FILE__, __LINE__, "round %llu: a CPU did not finish",
				   rounds);
			break;
		}
		if (READ_ONCE(hammer_wins) != n || READ_ONCE(hammer_count) != 0) {
			if (!bad++)
				ktest_fail(t, __FILE__, __LINE__,
					   "round %llu: count %ld spent %ld times, left %ld",
					   rounds, n, READ_ONCE(hammer_wins),
					   READ_ONCE(hammer_count));
		}
	}
	hammer_stop = true;
	while (hammer_exited < workers)
		msleep(1); /* the workers read these statics: let them go first */
	if (bad)
		ktest_fail(t, __FILE__, __LINE__, "%d of %llu rounds spent a count wrongly", bad,
			   rounds);
}

SELFTEST(trigger_count_unlimited_and_switch)
{
	long count = TRIGGER_COUNT_UNLIMITED;
	bool on = true;

	for (int i = 0; i < 5; i++)
		KT_EXPECT(t, trigger_count_take(&count));
	KT_EXPECT_EQ(t, count, TRIGGER_COUNT_UNLIMITED);
	trigger_count_put(&count);
	KT_EXPECT_EQ(t, count, TRIGGER_COUNT_UNLIMITED);
	count = 0;
	KT_EXPECT(t, !trigger_count_take(&count));
	KT_EXPECT_EQ(t, count, 0);

	/* A use counts only when it changes the state. */
	count = 2;
	KT_EXPECT(t, trigger_count_switch(&count, &on, false));
	KT_EXPECT(t, !on);
	KT_EXPECT_EQ(t, count, 1);
	KT_EXPECT(t, !trigger_count_switch(&count, &on, false));
	KT_EXPECT_EQ(t, count, 1);
	KT_EXPECT(t, trigger_count_switch(&count, &on, true));
	KT_EXPECT(t, on);
	KT_EXPECT_EQ(t, count, 0);
	on = false;
	KT_EXPECT(t, !trigger_count_switch(&count, &on, true));
	KT_EXPECT(t, !on);
}
