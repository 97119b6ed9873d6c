/* Self-tests of time: the TSC never goes back, ns follow it, and the timer interrupt ticks. */
#include "arch/x86/cpu.h"
#include "kernel/selftest.h"
#include "kernel/time.h"

SELFTEST(tsc_monotonic)
{
	u64 prev = rdtsc();

	for (int i = 0; i < 10000; i++) {
		u64 now = rdtsc();
		if (now < prev) {
			ktest_fail(t, __FILE__, __LINE__, "TSC went back by %llu", prev - now);
			return;
		}
		prev = now;
	}
}

SELFTEST(ktime_follows_tsc)
{
	u64 a = ktime_get_ns();

	udelay(2000);
	KT_EXPECT(t, ktime_get_ns() - a >= 2000000);
	KT_EXPECT(t, tsc_khz > 0);
}

SELFTEST(timer_ticks)
{
	u64 start = jiffies, deadline = rdtsc() + tsc_khz * 5000; /* 5 s of TSC time at most */

	/* Wait for two ticks, halting in between: the timer interrupt is what wakes us. */
	while (jiffies < start + 2 && rdtsc() < deadline)
		safe_halt();
	KT_EXPECT(t, jiffies >= start + 2);
}
