/* Self-tests of the scheduling classes' order: EDF, then real-time priority, then round robin;
 * a preempted real-time task before its equals; SCHED_DEADLINE's parameter checks and admission. */
#include "kernel/selftest.h"
#include "kernel/sched/rq.h"
#include "lib/errno.h"

/* Tasks on a private run queue: only their class fields are used, never run. */
static struct task fake[6];

static void make(struct task *p, int pid, int policy, int rt_priority, u64 deadline)
{
	*p = (struct task){ .pid = pid, .policy = policy, .rt_priority = rt_priority };
	p->prio = policy == SCHED_DEADLINE ? -1
		  : rt_policy(policy)	   ? MAX_RT_PRIO - 1 - rt_priority
					   : DEFAULT_PRIO;
	p->dl.deadline = deadline;
}

SELFTEST(sched_pick_order)
{
	struct runqueue rq = { 0 };
	static const int want[] = { 5, 4, 2, 3, 1, 6 };

	make(&fake[0], 1, SCHED_NORMAL, 0, 0);
	make(&fake[1], 2, SCHED_FIFO, 50, 0);
	make(&fake[2], 3, SCHED_RR, 50, 0);
	make(&fake[3], 4, SCHED_DEADLINE, 0, 2000);
	make(&fake[4], 5, SCHED_DEADLINE, 0, 1000);
	make(&fake[5], 6, SCHED_NORMAL, 0, 0);
	for (int i = 0; i < 6; i++)
		enqueue_task(&rq, &fake[i], false);
	for (int i = 0; i < 6; i++) {
		struct task *p = pick_next_task(&rq);
		KT_EXPECT(t, p && p->pid == want[i] && !p->on_rq);
	}
	KT_EXPECT(t, !pick_next_task(&rq));
}

SELFTEST(sched_rt_head_and_preempt)
{
	struct runqueue rq = { 0 };

	make(&fake[0], 1, SCHED_FIFO, 10, 0);
	make(&fake[1], 2, SCHED_FIFO, 10, 0);
	make(&fake[2], 3, SCHED_NORMAL, 0, 0);
	enqueue_task(&rq, &fake[0], false);
	enqueue_task(&rq, &fake[1], true); /* preempted: before its equal */
	KT_EXPECT(t, pick_next_task(&rq) == &fake[1]);
	KT_EXPECT(t, task_preempts(&fake[0], &fake[2]));
	KT_EXPECT(t, !task_preempts(&fake[2], &fake[0]));
	make(&fake[3], 4, SCHED_DEADLINE, 0, 5000);
	KT_EXPECT(t, task_preempts(&fake[3], &fake[0]));
	KT_EXPECT(t, !task_preempts(&fake[0], &fake[3]));
	dequeue_task(&rq, &fake[0]);
	KT_EXPECT(t, !rq.rt && !fake[0].on_rq);
}

SELFTEST(sched_dl_params_and_admission)
{
	struct runqueue rq = { 0 };
	long saved = sched_rt_runtime_us;

	KT_EXPECT(t, dl_params_valid(1000000, 10000000, 10000000));
	KT_EXPECT(t, dl_params_valid(1000000, 10000000, 0));	  /* period 0: the deadline */
	KT_EXPECT(t, !dl_params_valid(1000, 10000000, 10000000)); /* under 1024 ns */
	KT_EXPECT(t, !dl_params_valid(20000000, 10000000, 10000000));
	KT_EXPECT(t, !dl_params_valid(1000000, 10000000, 5000000));
	KT_EXPECT(t, !dl_params_valid(10000, 50000, 50000)); /* period under 100 us */
	KT_EXPECT(t, !dl_params_valid(1000000, 0, 10000000));
	sched_rt_runtime_us = 950000;
	KT_EXPECT(t, !dl_admit(&rq, 0, dl_bandwidth(5000000, 10000000, 10000000)));
	KT_EXPECT(t, !dl_admit(&rq, 0, dl_bandwidth(4000000, 10000000, 10000000)));
	KT_EXPECT(t, dl_admit(&rq, 0, dl_bandwidth(1000000, 10000000, 10000000)) == -EBUSY);
	KT_EXPECT(t, rq.dl_bw == dl_bandwidth(9000000, 10000000, 10000000));
	sched_rt_runtime_us = -1;
	KT_EXPECT(t, !dl_admit(&rq, 0, dl_bandwidth(1000000, 10000000, 10000000)));
	sched_rt_runtime_us = saved;
}

/* RT throttling on a private run queue, time given by hand: past the runtime the real-time list is
 * not picked from and the running FIFO task must give way; the period's end lifts the throttle. */
SELFTEST(sched_rt_throttle)
{
	struct runqueue rq = { 0 };
	long period = sched_rt_period_us, runtime = sched_rt_runtime_us;
	const u64 ms = 1000000;

	KT_EXPECT(t, !sched_rt_set(100000, 50000)); /* 50 ms of every 100 ms */
	make(&fake[0], 1, SCHED_FIFO, 50, 0);
	make(&fake[1], 2, SCHED_NORMAL, 0, 0);
	enqueue_task(&rq, &fake[1], false);
	rq.rt_exec_start = 1000 * ms;
	KT_EXPECT(t, !rt_period_tick(&rq, &fake[0], 1000 * ms)); /* the period starts */
	KT_EXPECT(t, !rt_period_tick(&rq, &fake[0], 1040 * ms) && !rq.rt_throttled);
	KT_EXPECT(t, rt_period_tick(&rq, &fake[0], 1060 * ms) && rq.rt_throttled);
	KT_EXPECT(t, rq.rt_time == 60 * ms);
	enqueue_task(&rq, &fake[0], true); /* what __schedule() does with it */
	KT_EXPECT(t, pick_next_task(&rq) == &fake[1]);
	KT_EXPECT(t, !task_tick(&rq, &fake[1], 1080 * ms)); /* fair alone may run */
	/* The period ends at 1100 ms: 50 ms paid back, 10 ms left, under the runtime. */
	KT_EXPECT(t, rt_period_tick(&rq, &fake[1], 1100 * ms) && !rq.rt_throttled);
	KT_EXPECT(t, rq.rt_time == 10 * ms && rq.rt_period_end == 1200 * ms);
	KT_EXPECT(t, pick_next_task(&rq) == &fake[0]);
	/* -1: no limit; a throttled CPU is released at the next period. */
	rq.rt_throttled = true;
	KT_EXPECT(t, !sched_rt_set(100000, -1));
	rt_period_tick(&rq, &fake[1], 1200 * ms);
	KT_EXPECT(t, !rq.rt_throttled && rq.rt_time == 0);
	KT_EXPECT(t, !sched_rt_set(period, runtime));
}

/* Linux's checks on the two files: ranges, the runtime within the period, the deadline tasks'
 * reservations; a refused pair changes neither. */
SELFTEST(sched_rt_sysctl_checks)
{
	long period = sched_rt_period_us, runtime = sched_rt_runtime_us;
	u64 saved_bw = runqueues[0].dl_bw;

	KT_EXPECT(t, sched_rt_set(0, 1) == -EINVAL);
	KT_EXPECT(t, sched_rt_set(1000000, -2) == -EINVAL);
	KT_EXPECT(t, sched_rt_set(1000000, 1000001) == -EINVAL);
	KT_EXPECT(t, sched_rt_set(0x80000000L, 1) == -EINVAL);
	KT_EXPECT(t, sched_rt_period_us == period && sched_rt_runtime_us == runtime);
	runqueues[0].dl_bw = dl_bandwidth(5000000, 10000000, 10000000); /* half a CPU admitted */
	KT_EXPECT(t, sched_rt_set(1000000, 400000) == -EBUSY);
	KT_EXPECT(t, !sched_rt_set(1000000, 600000) && !sched_rt_set(1000000, -1));
	runqueues[0].dl_bw = saved_bw;
	KT_EXPECT(t, !sched_rt_set(period, runtime));
}
