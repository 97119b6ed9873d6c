/* Self-tests of trace's copying iterator (ring_buffer_iter.c): an event overwritten while it is
 * copied is never handed out, the loss is noted, and events written after the read began end it;
 * a resize is refused while a read is in the pages, a reset under a read ends it cleanly, and
 * trace_pipe's kept iterator survives a resize. */
#include "kernel/trace/ring_buffer.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "lib/errno.h"
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

/* Reads up to max events with it, each one more than the one before: the count, or -1. */
static int read_rest_upto(struct rb_iter *it, int max)
{
	u64 v, prev = 0, ts;
	u32 len;
	int n = 0;
	void *d;

	while (n < max && (d = rb_iter_peek(it, &len, &ts))) {
		memcpy(&v, d, sizeof(v));
		if (len != 8 || (n && v != prev + 1))
			return -1;
		prev = v;
		n++;
		rb_iter_advance(it);
	}
	return n;
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

/* A `trace` read is in the pages: a resize is refused and changes nothing, the read goes on
 * whole; after the read, the same resize is done, keeping the newest events. */
SELFTEST(ring_buffer_resize_refused_under_reader)
{
	struct ring_buffer_per_cpu *cb;
	struct rb_iter it;
	u64 v, ts;
	u32 len;
	void *d;

	KT_ASSERT(t, ring_buffer_alloc(&tb, 16) == 0); /* 4 pages */
	preempt_disable();
	cb = &tb.cpu[smp_processor_id()];
	for (next_v = 0; cb->tail != 3;)
		write_u64(next_v++); /* every page written, none lapped */
	ring_buffer_read_prepare(&tb);
	rb_iter_start_copy(&it, cb, copy, ring_buffer_time_stamp(&tb));
	d = rb_iter_peek(&it, &len, &ts);
	KT_ASSERT(t, d == copy);
	memcpy(&v, d, sizeof(v));
	KT_EXPECT_EQ(t, ring_buffer_resize(&tb, 8, -1), -EBUSY);
	KT_EXPECT_EQ(t, cb->nr_pages, 4);
	KT_EXPECT_EQ(t, tb.nr_pages, 4);
	KT_EXPECT_EQ(t, read_rest(&it, v), (int)(next_v - v));
	ring_buffer_read_finish(&tb);
	KT_EXPECT_EQ(t, ring_buffer_resize(&tb, 8, -1), 0);
	KT_EXPECT_EQ(t, cb->nr_pages, 2);
	rb_iter_start_copy(&it, cb, copy, ring_buffer_time_stamp(&tb));
	d = rb_iter_peek(&it, &len, &ts);
	KT_ASSERT(t, d != NULL);
	memcpy(&v, d, sizeof(v));
	KT_EXPECT(t, v > 0);				       /* the oldest pages went */
	KT_EXPECT_EQ(t, read_rest(&it, v), (int)(next_v - v)); /* the newest stayed, in order */
	preempt_enable_no_resched();
	ring_buffer_free(&tb);
}

/* Run between a copy and its check: `echo > trace`, then new events. */
static void reset_under_reader(struct ring_buffer_per_cpu *cb)
{
	cb->race_window = NULL;
	ring_buffer_reset(&tb);
	for (int i = 0; i < 50; i++)
		write_u64(1000000 + i);
}

/* A reset while a live read copies an event: the copy is thrown away, and the read ends, since
 * everything left is newer than its start; it never hands out a stale or torn event. */
SELFTEST(ring_buffer_reset_under_live_reader)
{
	struct ring_buffer_per_cpu *cb;
	struct rb_iter it;
	u64 ts;
	u32 len;

	KT_ASSERT(t, ring_buffer_alloc(&tb, 16) == 0);
	preempt_disable();
	cb = &tb.cpu[smp_processor_id()];
	for (next_v = 0; next_v < 100;)
		write_u64(next_v++);
	ring_buffer_read_prepare(&tb);
	rb_iter_start_copy(&it, cb, copy, ring_buffer_time_stamp(&tb));
	KT_EXPECT_EQ(t, read_rest_upto(&it, 10), 10);
	cb->race_window = reset_under_reader;
	KT_EXPECT(t, rb_iter_peek(&it, &len, &ts) == NULL);
	KT_EXPECT(t, cb->race_window == NULL); /* the window was reached */
	ring_buffer_read_finish(&tb);
	rb_iter_start_copy(&it, cb, copy, ~0ULL);
	KT_EXPECT_EQ(t, read_rest(&it, 1000000), 50); /* the new events, whole */
	preempt_enable_no_resched();
	ring_buffer_free(&tb);
}

/* trace_pipe's iterator is kept between its steps: a resize in between may leave it naming a
 * slot that is gone. The next step finds the oldest unread event all the same. */
SELFTEST(ring_buffer_consume_after_resize)
{
	struct ring_buffer_per_cpu *cb;
	struct rb_iter it = { 0 };
	u64 v, prev = 0, ts;
	u32 len;
	int n = 0;

	KT_ASSERT(t, ring_buffer_alloc(&tb, 16) == 0);
	preempt_disable();
	cb = &tb.cpu[smp_processor_id()];
	for (next_v = 0; cb->tail != 3;)
		write_u64(next_v++);
	for (int i = 0; i < 20; i++)
		write_u64(next_v++);
	while (it.page != 3 && ring_buffer_consume(cb, &it, &v, sizeof(v), &len, &ts))
		prev = v; /* the reader stands on the last page */
	KT_ASSERT(t, it.page == 3);
	KT_EXPECT_EQ(t, ring_buffer_resize(&tb, 8, -1), 0);
	while (ring_buffer_consume(cb, &it, &v, sizeof(v), &len, &ts)) {
		KT_EXPECT(t, v == prev + 1);
		prev = v;
		n++;
	}
	KT_EXPECT(t, n > 0);
	KT_EXPECT_EQ(t, prev, next_v - 1);
	preempt_enable_no_resched();
	ring_buffer_free(&tb);
}
