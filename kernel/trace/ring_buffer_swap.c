/* The max buffer's swap (Linux's ring_buffer_swap_cpu()): two buffers trade each CPU's pages.
 *
 *   a.cpu[c] { pages, head, tail, counters, reader marks }  <->  b.cpu[c] { ... }
 *   a.cpu[c].writer and b.cpu[c].writer stay in place: a writer coming after finds the other pages
 *   under the same word
 *
 * The per-CPU descriptors move, never a page, so the cost does not grow with the buffer.
 */
#include "kernel/trace/ring_buffer.h"
#include "kernel/smp.h"
#include "lib/errno.h"

/*
 * The swap takes a CPU's part as a writer that also holds recording off: it adds RB_RECORD_OFF + 1
 * only if no record_off() is in force, then waits out the writer already there. A writer coming
 * after is refused; a record_off() coming after waits for us, as for any writer.
 */
#define RB_SWAP_HOLD (RB_RECORD_OFF + 1)

/* 0, or -EAGAIN (recording is off: a reader or a resize holds it), -EBUSY (we interrupted this
 * CPU's own write: it cannot finish before us; Linux's "commit in progress"). */
static int rb_swap_claim(struct ring_buffer_per_cpu *cb)
{
	u32 w = __atomic_load_n(&cb->writer, __ATOMIC_RELAXED);

	do {
		if ((w + 1) >> 16)
			return -EAGAIN;
		if (cb->cpu == smp_processor_id() && (u16)(w + 1))
			return -EBUSY;
	} while (!__atomic_compare_exchange_n(&cb->writer, &w, w + RB_SWAP_HOLD, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	while ((u16)(__atomic_load_n(&cb->writer, __ATOMIC_ACQUIRE) + 1) != 1)
		cpu_relax();
	return 0;
}

static void rb_swap_release(struct ring_buffer_per_cpu *cb)
{
	__atomic_sub_fetch(&cb->writer, RB_SWAP_HOLD, __ATOMIC_RELEASE);
}

/* Everything but the writer word, the clock, the CPU number, the waiters and the self-tests' hook trades
 * places (the two buffers' clocks are the same: trace_clock sets both). */
static void rb_swap_one(struct ring_buffer_per_cpu *x, struct ring_buffer_per_cpu *y)
{
	struct ring_buffer_per_cpu t = *x;

	*x = *y;
	*y = t;
	y->writer = x->writer;
	x->writer = t.writer;
	y->race_window = x->race_window;
	x->race_window = t.race_window;
	y->clock = x->clock;
	x->clock = t.clock;
	y->dropped = x->dropped; /* refusals belong to the live side: they are counted there */
	x->dropped = t.dropped;
	y->waiters = x->waiters; /* the sleepers wait on the buffer, not on its pages */
	x->waiters = t.waiters;
}

/* A CPU that never came online has pages in neither buffer: nothing to trade there. */
static bool rb_swap_skips(struct trace_buffer *a, struct trace_buffer *b, int c)
{
	return !a->cpu[c].pages && !b->cpu[c].pages;
}

int ring_buffer_swap(struct trace_buffer *a, struct trace_buffer *b, int cpu)
{
	int first = cpu < 0 ? 0 : cpu, last = cpu < 0 ? NR_CPUS - 1 : cpu, c, err = 0;

	for (c = first; c <= last; c++)
		if (a->cpu[c].nr_pages != b->cpu[c].nr_pages)
			return -EINVAL;
	for (c = first; c <= last; c++) {
		if (rb_swap_skips(a, b, c))
			continue;
		err = rb_swap_claim(&a->cpu[c]);
		if (err)
			break;
		err = rb_swap_claim(&b->cpu[c]);
		if (err) {
			rb_swap_release(&a->cpu[c]);
			break;
		}
	}
	for (int i = first; !err && i <= last; i++)
		if (!rb_swap_skips(a, b, i))
			rb_swap_one(&a->cpu[i], &b->cpu[i]);
	while (--c >= first) {
		if (rb_swap_skips(a, b, c))
			continue;
		rb_swap_release(&a->cpu[c]);
		rb_swap_release(&b->cpu[c]);
	}
	return err;
}
