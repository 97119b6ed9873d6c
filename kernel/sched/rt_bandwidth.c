/* RT throttling: SCHED_FIFO/RR tasks may use sched_rt_runtime_us of every sched_rt_period_us on
 * a CPU, so that a real-time task that never sleeps cannot starve the rest (the shell among them).
 *
 *   period ->|<------------------------ sched_rt_period_us ------------------------>|
 *            |<------- rt tasks run: rt_time grows -------->|<- throttled: fair -->| rt_time -= runtime
 *                                         rt_time > runtime ^                       ^ the next period
 *
 * Each CPU charges the time its real-time tasks run to rq->rt_time: at every switch away from one
 * and at every tick while one runs. Past the runtime the CPU is throttled: its real-time list is
 * not picked from and wakes no preemption until the period ends, when one runtime is paid back
 * (Linux's do_sched_rt_period_timer()). Here the period is checked at the tick (10 ms), not by an
 * hrtimer of its own, and runtime is not borrowed from other CPUs (Linux's RT_RUNTIME_SHARE, off
 * by default since 5.9); deadline tasks are limited by admission alone (deadline.c: dl_admit()).
 */
#include "kernel/sched/rq.h"
#include "kernel/printk/printk.h"
#include "lib/errno.h"

#define RUNTIME_INF (-1L)

/* /proc/sys/kernel/sched_rt_{period,runtime}_us, as Linux's defaults: 95% of each second. */
long sched_rt_period_us = 1000000;
long sched_rt_runtime_us = 950000;

/* Linux's sched_rt_handler(): proc_dointvec_minmax's range, then sched_rt_global_validate()
 * (the runtime fits in the period) and sched_dl_global_validate() (no CPU has already admitted
 * more deadline bandwidth than the new limit allows); a refused pair changes nothing. */
int sched_rt_set(long period_us, long runtime_us)
{
	u64 new_bw;

	if (period_us < 1 || period_us > 0x7fffffffL || runtime_us < RUNTIME_INF ||
	    runtime_us > 0x7fffffffL)
		return -EINVAL;
	if (runtime_us != RUNTIME_INF && runtime_us > period_us)
		return -EINVAL;
	new_bw = runtime_us == RUNTIME_INF ? ~0ULL : ((u64)runtime_us << BW_SHIFT) / period_us;
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		if (new_bw < READ_ONCE(runqueues[cpu].dl_bw))
			return -EBUSY;
	WRITE_ONCE(sched_rt_period_us, period_us);
	WRITE_ONCE(sched_rt_runtime_us, runtime_us);
	return 0;
}

/* The real-time task that ran since rq->rt_exec_start stops running or is charged at a tick. */
void rt_charge(struct runqueue *rq, u64 now)
{
	long runtime_us = READ_ONCE(sched_rt_runtime_us);
	long period_us = READ_ONCE(sched_rt_period_us);

	rq->rt_time += now - rq->rt_exec_start;
	rq->rt_exec_start = now;
	/* Linux's sched_rt_runtime_exceeded(): no limit at -1, nor when the runtime is the period. */
	if (runtime_us == RUNTIME_INF || runtime_us >= period_us || rq->rt_throttled)
		return;
	if (rq->rt_time > (u64)runtime_us * 1000) {
		static bool said;

		rq->rt_throttled = true;
		if (!READ_ONCE(said)) { /* once per boot, as Linux's printk_deferred_once() */
			WRITE_ONCE(said, true);
			printk("sched: RT throttling activated\n");
		}
	}
}

/*
 * At each tick (rq lock held): charge a running real-time task, and once the period is over pay
 * back one runtime per period passed, lifting the throttle when what is left fits again. True if
 * the running task must give way (throttled, or real-time tasks may run again).
 */
bool rt_period_tick(struct runqueue *rq, struct task *curr, u64 now)
{
	long runtime_us = READ_ONCE(sched_rt_runtime_us);
	u64 period = (u64)READ_ONCE(sched_rt_period_us) * 1000;
	bool was = rq->rt_throttled;

	if (rt_policy(curr->policy) && curr->pid)
		rt_charge(rq, now);
	if (!rq->rt_period_end)
		rq->rt_period_end = now + period;
	if ((s64)(now - rq->rt_period_end) >= 0) {
		u64 overrun = 1 + (now - rq->rt_period_end) / period;
		u64 back = runtime_us == RUNTIME_INF ? rq->rt_time : overrun * runtime_us * 1000;

		rq->rt_time -= back < rq->rt_time ? back : rq->rt_time;
		rq->rt_period_end += overrun * period;
		if (runtime_us == RUNTIME_INF || rq->rt_time < (u64)runtime_us * 1000)
			rq->rt_throttled = false;
	}
	if (rq->rt_throttled)
		return rt_policy(curr->policy) && curr->pid;
	return was && rq->rt;
}
