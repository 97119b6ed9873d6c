/* The trace arrays osnoise or timerlat runs on: one workload, every array gets each sample (Linux's
 * osnoise_instances).
 *
 * The first array to start either tracer starts the threads and hooks; the last to stop stops
 * them. The writers (the threads, the tick's timerlat_irq()) walk the set with a count raised, so
 * an array taken out is waited for until nobody is still writing into it: after
 * osnoise_array_del() its buffer is the instance's alone again (an rmdir may free it).
 *
 *     writer:  writers++ (locked: a full barrier) ; read the set ; write each ; writers--
 *     remover: clear the bit ; fence ; wait until writers == 0
 *
 * Either the writer read the set after the bit went (it skips the array) or the remover sees its
 * count (and waits): each side's store is ordered before its load. One count, not one per CPU, so
 * the walk needs no preempt_disable(): that would show in every sample's preempt-depth column.
 */
#include "kernel/trace/trace_osnoise.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/errno.h"

static u64 osnoise_arrays; /* a bit per trace array id */
static int writers;	   /* osnoise_for_each_array() walks running, anywhere */
/* Linux's osnoise_data.timerlat_tracer: timerlat holds the set. */
static bool timerlat_tracer_owner;

bool osnoise_has_arrays(void)
{
	return READ_ONCE(osnoise_arrays) != 0;
}

void osnoise_for_each_array(void (*fn)(struct trace_array *tr, void *arg), void *arg)
{
	u64 set;

	__atomic_add_fetch(&writers, 1, __ATOMIC_SEQ_CST);
	set = READ_ONCE(osnoise_arrays);
	for (int id = 0; set && id < TRACE_ARRAY_MAX; id++) {
		struct trace_array *tr = READ_ONCE(trace_arrays[id]);

		if ((set & (1ULL << id)) && tr)
			fn(tr, arg);
	}
	__atomic_sub_fetch(&writers, 1, __ATOMIC_RELEASE);
}

/*
 * Under trace_lock (the tracer switch). Linux's osnoise_tracer_init() and timerlat_tracer_init():
 * osnoise is EBUSY while timerlat runs anywhere, timerlat while osnoise does; the same tracer in
 * another array joins the running workload. start() runs for the first array only.
 */
int osnoise_array_add(struct trace_array *tr, bool timerlat, int (*start)(void))
{
	int err;

	if (osnoise_has_arrays() && timerlat != timerlat_tracer_owner)
		return -EBUSY;
	tr->max_latency = 0;
	if (!osnoise_has_arrays()) {
		timerlat_tracer_owner = timerlat;
		err = start();
		if (err)
			return err;
	}
	WRITE_ONCE(osnoise_arrays, osnoise_arrays | (1ULL << tr->id));
	return 0;
}

/* Under trace_lock. stop() runs when the last array leaves, before anyone can start again. */
void osnoise_array_del(struct trace_array *tr, void (*stop)(void))
{
	WRITE_ONCE(osnoise_arrays, osnoise_arrays & ~(1ULL << tr->id));
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	while (__atomic_load_n(&writers, __ATOMIC_ACQUIRE))
		msleep(1); /* a writer's walk is short: one sample into a few buffers */
	if (!osnoise_has_arrays()) {
		stop();
		timerlat_tracer_owner = false;
	}
}
