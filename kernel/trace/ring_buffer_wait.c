/*
 * Readers asleep until the writers bring data (Linux: kernel/trace/ring_buffer.c, rb_wakeups(),
 * ring_buffer_wait(), ring_buffer_poll_wait(), full_hit()).
 *
 *   reader   queued on the CPU's wait queue (or the buffer's, for every CPU), then arms the CPU's
 *            waiters byte with a locked or, then looks at the data, then sleeps
 *   writer   after its commit (the writer word's locked dec orders it), one byte test; only when
 *            a reader armed it, rb_wakeups() queues the CPU's irq_work, since the writer may be an
 *            NMI or hold the runqueue lock, where wake_up() cannot run
 *   irq_work on the writer's CPU once its interrupts are on: wakes the CPU's and the buffer's
 *            queues; each reader looks again and sleeps again if its condition does not hold
 *
 * RB_WAITERS_ANY is cleared by the writer that sees it, as Linux's waiters_pending; a reader arms
 * it again each time it looks. RB_WAITERS_FULL is looked at only when the tail moved to a new page
 * (fullness changes only then, as Linux compares pages_touched), and wakes when the CPU's written
 * pages reach the smallest percent a reader asked for.
 */
#include "kernel/trace/ring_buffer.h"
#include "kernel/fs/poll.h"
#include "kernel/sched/sched.h"
#include "kernel/signal.h"
#include "lib/errno.h"

static void rb_wake_up_waiters(struct irq_work *work)
{
	struct rb_irq_work *w = container_of(work, struct rb_irq_work, work);

	wake_up(&w->waiters);
	wake_up(&w->b->all_waiters);
}

void ring_buffer_wait_init(struct trace_buffer *b)
{
	spin_lock_init(&b->all_waiters.lock);
	for (int c = 0; c < NR_CPUS; c++) {
		struct rb_irq_work *w = &b->wait[c];
		init_irq_work(&w->work, rb_wake_up_waiters);
		spin_lock_init(&w->waiters.lock);
		w->b = b;
		w->cpu = c;
	}
}

/* Linux's full_hit(): the page being written is counted too, so that 100 can be reached. */
bool ring_buffer_full_hit(struct trace_buffer *b, int cpu, int full)
{
	struct ring_buffer_per_cpu *cb = &b->cpu[cpu];

	if (!cb->nr_pages || !full)
		return true;
	return (ring_buffer_dirty_pages(cb) + 1) * 100 >= full * cb->nr_pages;
}

bool ring_buffer_empty_cpu(struct trace_buffer *b, int cpu)
{
	struct ring_buffer_per_cpu *cb = &b->cpu[cpu];

	return !cb->pages || ring_buffer_bytes_cpu(cb) == 0;
}

static bool rb_empty(struct trace_buffer *b, int cpu)
{
	if (cpu >= 0)
		return ring_buffer_empty_cpu(b, cpu);
	for (int c = 0; c < NR_CPUS; c++)
		if (!ring_buffer_empty_cpu(b, c))
			return false;
	return true;
}

/* The writer's side, interrupts off, after the commit: only when cb->waiters was set. */
void rb_wakeups(struct ring_buffer_per_cpu *cb)
{
	struct trace_buffer *b = container_of(cb - cb->cpu, struct trace_buffer, cpu[0]);
	struct rb_irq_work *w = &b->wait[cb->cpu];
	u8 was = __atomic_fetch_and(&cb->waiters, (u8)~RB_WAITERS_ANY, __ATOMIC_SEQ_CST);

	if (was & RB_WAITERS_ANY)
		irq_work_queue(&w->work);
	if (!(was & RB_WAITERS_FULL) || w->last_tail == cb->tail)
		return;
	w->last_tail = cb->tail;
	if (!ring_buffer_full_hit(b, cb->cpu, READ_ONCE(w->shortest_full)))
		return;
	WRITE_ONCE(w->shortest_full, 0); /* every full waiter wakes; each asks again */
	__atomic_fetch_and(&cb->waiters, (u8)~RB_WAITERS_FULL, __ATOMIC_SEQ_CST);
	irq_work_queue(&w->work);
}

/* Arms the writers of cpu (every CPU: cpu < 0) and says whether the reader may go on. */
static bool rb_arm_and_check(struct trace_buffer *b, int cpu, int full)
{
	if (cpu < 0) {
		for (int c = 0; c < NR_CPUS; c++)
			__atomic_fetch_or(&b->cpu[c].waiters, RB_WAITERS_ANY, __ATOMIC_SEQ_CST);
		return !rb_empty(b, -1);
	}
	if (!full) {
		__atomic_fetch_or(&b->cpu[cpu].waiters, RB_WAITERS_ANY, __ATOMIC_SEQ_CST);
		return !rb_empty(b, cpu);
	}
	struct rb_irq_work *w = &b->wait[cpu];
	int shortest = READ_ONCE(w->shortest_full);

	if (!shortest || shortest > full)
		WRITE_ONCE(w->shortest_full, full);
	w->last_tail = -1; /* the next event looks, whatever page it is on */
	__atomic_fetch_or(&b->cpu[cpu].waiters, RB_WAITERS_FULL, __ATOMIC_SEQ_CST);
	return !rb_empty(b, cpu) && ring_buffer_full_hit(b, cpu, full);
}

static struct wait_queue_head *rb_queue(struct trace_buffer *b, int cpu)
{
	return cpu < 0 ? &b->all_waiters : &b->wait[cpu].waiters;
}

int ring_buffer_wait(struct trace_buffer *b, int cpu, int full)
{
	struct wait_queue_head *wq = rb_queue(b, cpu);
	struct wait_queue_entry e;
	bool ok;

	if (cpu < 0)
		full = 0; /* fullness is one CPU's (Linux too) */
	for (;;) {
		prepare_to_wait(wq, &e);
		ok = rb_arm_and_check(b, cpu, full);
		if (!ok && !signal_pending(current))
			schedule();
		finish_wait(wq, &e);
		if (ok)
			return 0;
		if (signal_pending(current))
			return -EINTR;
	}
}

unsigned int ring_buffer_poll_wait(struct trace_buffer *b, int cpu, struct file *f,
				   struct poll_table_struct *pt, int full)
{
	if (cpu < 0)
		full = 0;
	poll_wait(f, rb_queue(b, cpu), pt);
	return rb_arm_and_check(b, cpu, full) ? EPOLLIN | EPOLLRDNORM : 0;
}
