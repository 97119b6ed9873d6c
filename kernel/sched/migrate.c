/* Task migration: which CPU a waking or new task runs on, and moving tasks between run queues.
 *
 *   fork, wake-up      select_task_rq(): its previous CPU if idle, else an idle CPU it may use,
 *                      else the previous one (else any it may use)
 *   sched_setaffinity  set_cpus_allowed_ptr(): a task queued or asleep on a CPU it may no longer
 *                      use is moved at once; a running one is made to switch away, and its CPU
 *                      moves it once switch_to() has left its stack (migrate_off_forbidden())
 *
 * A task changes CPU (set_task_cpu()) only with both run queues locked and when no CPU runs it or
 * is still switching away from it (p->on_cpu clear): its registers are saved, its stack free.
 */
#include "kernel/sched/rq.h"
#include "kernel/smp.h"
#include "kernel/trace/events/sched.h"
#include "lib/errno.h"

/* Bumped by every move: a walk over the per-CPU task lists that missed a task retries on it. */
unsigned long sched_migrations;

/* Nothing to run but the idle task, as far as a lockless look tells (Linux's available_idle_cpu). */
static bool idle_cpu(int cpu)
{
	struct runqueue *rq = &runqueues[cpu];

	return READ_ONCE(rq->curr) == percpu_area[cpu].idle && !READ_ONCE(rq->dl) &&
	       !READ_ONCE(rq->rt) && !READ_ONCE(rq->head);
}

static unsigned long allowed_online(const struct task *p)
{
	unsigned long m = 0;
	int cpu;

	for_each_online_cpu(cpu)
		if (p->cpus_mask & (1UL << cpu))
			m |= 1UL << cpu;
	return m;
}

/*
 * A deadline task stays where it is: its bandwidth was admitted on that CPU's run queue. Idle
 * CPUs are looked at from the one after prev, so wake-ups of many tasks spread out.
 */
int select_task_rq(struct task *p, int prev_cpu)
{
	unsigned long allowed = allowed_online(p);

	if (dl_policy(p->policy) || !allowed)
		return prev_cpu;
	if ((allowed & (1UL << prev_cpu)) && idle_cpu(prev_cpu))
		return prev_cpu;
	for (int i = 1; i <= NR_CPUS; i++) {
		int cpu = (prev_cpu + i) % NR_CPUS;

		if ((allowed & (1UL << cpu)) && idle_cpu(cpu))
			return cpu;
	}
	if (allowed & (1UL << prev_cpu))
		return prev_cpu;
	return __builtin_ctzl(allowed);
}

/* p's run queue, locked: p->cpu may change until its lock is held, so it is read again. */
struct runqueue *task_rq_lock(struct task *p)
{
	for (;;) {
		struct runqueue *rq = &runqueues[READ_ONCE(p->cpu)];

		spin_lock(&rq->lock);
		if (rq == &runqueues[p->cpu])
			return rq;
		spin_unlock(&rq->lock);
	}
}

/*
 * Locks dst too, held holding src: in CPU order, so two CPUs locking the same pair never wait on
 * each other. False if src had to be let go meanwhile (anything seen under it may have changed).
 */
static bool lock_second(struct runqueue *src, struct runqueue *dst)
{
	if (dst > src) {
		spin_lock_nested(&dst->lock, 1);
		return true;
	}
	if (spin_trylock(&dst->lock))
		return true;
	spin_unlock(&src->lock);
	spin_lock(&dst->lock);
	spin_lock_nested(&src->lock, 1);
	return false;
}

/* Both run queues locked: p leaves src's task list for dst's (Linux's set_task_cpu()). */
static void set_task_cpu(struct task *p, struct runqueue *src, int dest_cpu)
{
	struct runqueue *dst = &runqueues[dest_cpu];

	trace_sched_migrate_task(p, dest_cpu);
	for (struct task **pp = &src->tasks; *pp; pp = &(*pp)->cpu_next)
		if (*pp == p) {
			*pp = p->cpu_next;
			break;
		}
	p->cpu_next = dst->tasks;
	dst->tasks = p;
	WRITE_ONCE(p->cpu, dest_cpu);
	__atomic_fetch_add(&sched_migrations, 1, __ATOMIC_RELEASE);
}

/* Whether p, on rq's list, can be moved now: no CPU runs it or is switching away from it. */
static bool off_cpu(struct task *p, struct runqueue *rq)
{
	return p->cpu == rq - runqueues && rq->curr != p && !READ_ONCE(p->on_cpu) &&
	       p->state != TASK_DEAD;
}

/*
 * rq (p's) locked, p off its CPU: moves it to dest_cpu, on the run queue there if it is runnable
 * (queued here, or left off the queue by __schedule() to be moved). Returns with rq unlocked and
 * the run queue p is on locked; *moved says whether it went.
 */
static struct runqueue *move_task(struct task *p, struct runqueue *rq, int dest_cpu, bool *moved)
{
	struct runqueue *dst = &runqueues[dest_cpu];
	bool runnable;

	*moved = false;
	if (dst == rq)
		return rq;
	if (!lock_second(rq, dst) && !off_cpu(p, rq)) {
		spin_unlock(&dst->lock);
		if (p->cpu == rq - runqueues)
			return rq;
		spin_unlock(&rq->lock); /* another CPU moved it meanwhile */
		return task_rq_lock(p);
	}
	runnable = p->on_rq || p->state == TASK_RUNNING;
	if (p->on_rq)
		dequeue_task(rq, p);
	set_task_cpu(p, rq, dest_cpu);
	if (runnable) {
		enqueue_task(dst, p, false);
		if (task_preempts(p, dst->curr))
			smp_send_reschedule(dest_cpu);
	}
	spin_unlock(&rq->lock);
	*moved = true;
	return dst;
}

/*
 * wake_up_process(), rq (p's) locked, p asleep and switched out of rq->curr: moves it to the CPU
 * select_task_rq() prefers. Returns p's run queue, locked. A task its CPU is still switching away
 * from (on_cpu) wakes where it is, as before migration existed: waiting for it here, lock held,
 * could deadlock, since the switch's own probes (sched_switch: a BPF program waking a ring
 * buffer's reader) may wake a task on this run queue, even p itself on this very CPU. Linux
 * queues such a wake-up on the CPU's wake list instead (ttwu_queue_wakelist()).
 */
struct runqueue *ttwu_select(struct task *p, struct runqueue *rq)
{
	int src = rq - runqueues, dest;
	bool moved;

	if (READ_ONCE(p->on_cpu))
		return rq;
	dest = select_task_rq(p, src);
	if (dest == src)
		return rq;
	return move_task(p, rq, dest, &moved);
}

/*
 * From schedule_tail(), interrupts off, on prev's CPU with switch_to() done: a task whose mask
 * no longer has this CPU (set_cpus_allowed_ptr() asked it to switch away) goes to one it may use.
 */
void migrate_off_forbidden(struct task *prev)
{
	struct runqueue *rq;
	bool moved;

	if (prev == this_cpu()->idle || prev->state == TASK_DEAD ||
	    (prev->cpus_mask & (1UL << prev->cpu)))
		return;
	rq = task_rq_lock(prev);
	if (off_cpu(prev, rq) && !(prev->cpus_mask & (1UL << prev->cpu)))
		rq = move_task(prev, rq, select_task_rq(prev, prev->cpu), &moved);
	spin_unlock(&rq->lock);
}

/* Waits, preemptible, until p no longer runs on cpu (it switches away at its next chance). */
static void wait_switched_away(struct task *p, int cpu)
{
	if (p == current) {
		schedule();
		return;
	}
	smp_send_reschedule(cpu);
	while (READ_ONCE(p->cpu) == cpu && READ_ONCE(runqueues[cpu].curr) == p &&
	       READ_ONCE(p->state) != TASK_DEAD)
		cpu_relax();
}

int set_cpus_allowed_ptr(struct task *p, unsigned long mask)
{
	unsigned long flags, online = 0;
	struct runqueue *rq;
	bool moved;
	int cpu;

	for_each_online_cpu(cpu)
		online |= 1UL << cpu;
	if (!(mask & online))
		return -EINVAL;
	if (dl_policy(p->policy) && (mask & online) != online)
		return -EBUSY;
	for (;;) {
		flags = local_irq_save();
		rq = task_rq_lock(p);
		p->cpus_mask = mask;
		cpu = p->cpu;
		if ((mask & (1UL << cpu)) || p->state == TASK_DEAD)
			break;
		if (rq->curr == p || READ_ONCE(p->on_cpu)) {
			spin_unlock(&rq->lock);
			local_irq_restore(flags);
			wait_switched_away(p, cpu);
			continue;
		}
		rq = move_task(p, rq, select_task_rq(p, cpu), &moved);
		if (moved)
			break;
		spin_unlock(&rq->lock);
		local_irq_restore(flags);
	}
	spin_unlock(&rq->lock);
	local_irq_restore(flags);
	return 0;
}
