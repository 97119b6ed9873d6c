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
