/* Self-tests of trace's copying iterator (ring_buffer_iter.c): an event overwritten while it is
 * copied is never handed out, the loss is noted, and events written after the read began end it. */
#include "kernel/trace/ring_buffer.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "lib/string.h"

static struct trace_buffer tb;
static u64 next_v; /* the next value to write */
static u8 copy[BUF_PAGE_SIZE];

static void write_u64(u64 v)
{
	struct rb_reserve r;

	if (ring_buffer_lock_reserve(&tb, sizeof(v), &r)) {
		memcpy(r.data, &v, sizeof(v));
		ring_buffer_unlock_commit(&r);
	}
}

/* Run between the copy and its check: the writer goes round until the reader's page 0 and page 1
 * are recycled (2 is the oldest then), so the copy just made is of a page in another life. */
static void overwrite_under_reader(struct ring_buffer_per_cpu *cb)
{
	cb->race_window = NULL; /* once */
	while (cb->head != 2)
		write_u64(next_v++);
	for (int i = 0; i < 5; i++)
		write_u64(next_v++);
}

/* Reads the rest with it: the count, or -1 if a value did not grow by exactly one. */
static int read_rest(struct rb_iter *it, u64 first)
{
	u64 v, ts;
	u32 len;
	int n = 0;
	void *d;

	while ((d = rb_iter_peek(it, &len, &ts))) {
		memcpy(&v, d, sizeof(v));
		if (len != 8 || v != first + n)
			return -1;
		n++;
		rb_iter_advance(it);
	}
	return n;
}

SELFTEST(ring_buffer_iter_copy_overwritten_is_skipped)
{
	struct ring_buffer_per_cpu *cb;
	struct rb_iter it;
	u64 in, written, v, ts;
	u32 len;
	void *d;

	KT_ASSERT(t, ring_buffer_alloc(&tb, 16) == 0); /* 4 pages */
	preempt_disable();
	cb = &tb.cpu[smp_processor_id()];
	for (next_v = 0; cb->tail != 1;)
		write_u64(next_v++);
	rb_iter_start_copy(&it, cb, copy, ~0ULL);
	cb->race_window = overwrite_under_reader;
	d = rb_iter_peek(&it, &len, &ts);
	KT_EXPECT(t, cb->race_window == NULL); /* the window was reached */
	KT_ASSERT(t, d == copy);
	KT_EXPECT(t, it.missed); /* `trace` says CPU:N [LOST EVENTS] */
	in = ring_buffer_entries(&tb, &written);
	memcpy(&v, d, sizeof(v));
	KT_EXPECT_EQ(t, v, next_v - in); /* the oldest event still there, not value 0 */
	KT_EXPECT_EQ(t, read_rest(&it, v), (int)in);
	cb->race_window = NULL;
	preempt_enable_no_resched();
	ring_buffer_free(&tb);
}

SELFTEST(ring_buffer_iter_copy_stops_at_its_start)
{
	struct ring_buffer_per_cpu *cb;
	struct rb_iter it;

	KT_ASSERT(t, ring_buffer_alloc(&tb, 16) == 0);
	preempt_disable();
	cb = &tb.cpu[smp_processor_id()];
	for (next_v = 0; next_v < 40;)
		write_u64(next_v++);
	rb_iter_start_copy(&it, cb, copy, ring_buffer_time_stamp(&tb));
	for (int i = 0; i < 40; i++)
		write_u64(next_v++); /* after the read began: not shown */
	KT_EXPECT_EQ(t, read_rest(&it, 0), 40);
	KT_EXPECT(t, !it.missed);
	preempt_enable_no_resched();
	ring_buffer_free(&tb);
}
