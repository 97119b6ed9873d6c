/* Self-tests of the ring buffer: order, wrap and overwrite counts, time extends, consuming reads
 * racing a writer (on another CPU, or forced into the reader's window). Each test uses a small
 * buffer of its own. */
#include "kernel/trace/ring_buffer.h"
#include "arch/x86/cpu.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/string.h"

static struct trace_buffer tb;

static bool write_u64(u64 v)
{
	struct rb_reserve r;

	if (!ring_buffer_lock_reserve(&tb, sizeof(v), &r))
		return false;
	memcpy(r.data, &v, sizeof(v));
	ring_buffer_unlock_commit(&r);
	return true;
}

/* Values the current CPU's buffer holds, in order, via the non-consuming iterator. */
static int read_all(int cpu, u64 *out, int max)
{
	struct rb_iter it;
	u32 len;
	u64 ts, prev_ts = 0;
	int n = 0;
	void *d;

	rb_iter_start(&it, &tb.cpu[cpu]);
	while ((d = rb_iter_peek(&it, &len, &ts)) && n < max) {
		if (len != 8 || ts < prev_ts)
			return -1;
		prev_ts = ts;
		memcpy(&out[n++], d, 8);
		rb_iter_advance(&it);
	}
	return n;
}

SELFTEST(ring_buffer_order_and_counts)
{
	static u64 got[64];
	u64 written;

	KT_ASSERT(t, ring_buffer_alloc(&tb, 8) == 0);
	preempt_disable();
	int cpu = smp_processor_id();
	for (u64 i = 0; i < 50; i++)
		KT_EXPECT(t, write_u64(i));
	preempt_enable_no_resched();
	KT_ASSERT(t, read_all(cpu, got, 64) == 50);
	for (int i = 0; i < 50; i++)
		KT_EXPECT_EQ(t, got[i], i);
	KT_EXPECT_EQ(t, ring_buffer_entries(&tb, &written), 50);
	KT_EXPECT_EQ(t, written, 50);
	ring_buffer_free(&tb);
}

SELFTEST(ring_buffer_overwrite_counts_lost)
{
	static u64 got[2048];
	u64 written, in;
	int cpu, n;

	KT_ASSERT(t, ring_buffer_alloc(&tb, 8) == 0); /* 2 pages: 4080 / 12 = 340 events each */
	preempt_disable();
	cpu = smp_processor_id();
	for (u64 i = 0; i < 2000; i++)
		write_u64(i);
	preempt_enable_no_resched();
	in = ring_buffer_entries(&tb, &written);
	n = read_all(cpu, got, 2048);
	KT_EXPECT_EQ(t, written, 2000);
	KT_EXPECT_EQ(t, n, in);				 /* the count says what the pages hold */
	KT_EXPECT_EQ(t, tb.cpu[cpu].overrun, 2000 - in); /* and everything else was overwritten */
	KT_EXPECT(t, n > 0 && got[n - 1] == 1999);	 /* the newest survive, contiguous */
	for (int i = 1; i < n; i++)
		if (got[i] != got[i - 1] + 1) {
			ktest_fail(t, __FILE__, __LINE__, "gap after %llu", got[i - 1]);
			break;
		}
	ring_buffer_free(&tb);
}

SELFTEST(ring_buffer_time_extend)
{
	struct rb_iter it;
	u32 len;
	u64 ts1, ts2, start;

	KT_ASSERT(t, ring_buffer_alloc(&tb, 8) == 0);
	preempt_disable();
	int cpu = smp_processor_id();
	write_u64(1);
	start = ktime_get_ns();
	udelay(200000); /* 200 ms: more than 2^27 ns, the delta needs a time extend */
	write_u64(2);
	preempt_enable_no_resched();
	rb_iter_start(&it, &tb.cpu[cpu]);
	KT_ASSERT(t, rb_iter_peek(&it, &len, &ts1) != NULL);
	rb_iter_advance(&it);
	KT_ASSERT(t, rb_iter_peek(&it, &len, &ts2) != NULL);
	KT_EXPECT(t, tsc_to_ns(ts2 - ts1) >= 200000000ULL); /* stamps are raw TSC */
	KT_EXPECT(t, tsc_to_ktime(ts2) >= start);
	ring_buffer_free(&tb);
}

/*
 * A payload over 112 bytes takes type_len 0 and a length word that, as in Linux, counts itself:
 * a reader that subtracts 4 (libtraceevent, our iterator) gets the payload back, and the event
 * after it is found where the length says.
 */
SELFTEST(ring_buffer_long_event_length_word)
{
	struct rb_reserve r;
	struct rb_iter it;
	struct ring_buffer_event *e;
	u8 *d;
	u32 len;
	u64 ts;

	KT_ASSERT(t, ring_buffer_alloc(&tb, 8) == 0);
	preempt_disable();
	int cpu = smp_processor_id();
	KT_ASSERT(t, ring_buffer_lock_reserve(&tb, 140, &r));
	for (int i = 0; i < 140; i++)
		((u8 *)r.data)[i] = (u8)i;
	ring_buffer_unlock_commit(&r);
	write_u64(42);
	preempt_enable_no_resched();
	e = (void *)tb.cpu[cpu].pages[0].page->data;
	KT_EXPECT_EQ(t, e->type_len, 0);
	KT_EXPECT_EQ(t, e->array[0], 144);
	KT_EXPECT_EQ(t, tb.cpu[cpu].pages[0].page->commit, 4 + 144 + 12);
	rb_iter_start(&it, &tb.cpu[cpu]);
	d = rb_iter_peek(&it, &len, &ts);
	KT_ASSERT(t, d != NULL);
	KT_EXPECT_EQ(t, len, 140);
	KT_EXPECT_EQ(t, d[0], 0);
	KT_EXPECT_EQ(t, d[139], 139);
	rb_iter_advance(&it);
	d = rb_iter_peek(&it, &len, &ts);
	KT_ASSERT(t, d != NULL);
	KT_EXPECT_EQ(t, len, 8);
	KT_EXPECT_EQ(t, *(u64 *)d, 42);
	ring_buffer_free(&tb);
}

static volatile bool writer_stop, writer_done;
static volatile u64 writer_count;

static void writer_thread(void *arg)
{
	for (u64 i = 0; !writer_stop; i++) {
		if (write_u64(i))
			writer_count = i + 1;
		if ((i & 63) == 0)
			yield();
	}
	writer_done = true;
}

SELFTEST(ring_buffer_consume_races_writer)
{
	u64 v, ts, last = 0, taken = 0, bad_last = 0, bad_v = 0;
	u32 len;
	struct rb_iter it = { 0 };
	bool ordered = true;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	KT_ASSERT(t, ring_buffer_alloc(&tb, 16) == 0);
	writer_stop = writer_done = false;
	writer_count = 0;
	KT_ASSERT(t, kthread_create(writer_thread, NULL, 1, "rb-writer") != NULL);
	u64 end = rdtsc() + tsc_khz * 300;
	while (rdtsc() < end) {
		if (ring_buffer_consume(&tb.cpu[1], &it, &v, sizeof(v), &len, &ts)) {
			if (taken && v <= last && ordered) {
				ordered =
					false; /* values only ever grow, whatever was lost between */
				bad_last = last;
				bad_v = v;
			}
			last = v;
			taken++;
		}
	}
	writer_stop = true;
	while (!writer_done)
		msleep(1); /* the buffer is freed below: the writer must be gone */
	if (!ordered)
		ktest_fail(t, __FILE__, __LINE__, "expected ordered: %llu after %llu", bad_v,
			   bad_last);
	KT_EXPECT(t, taken > 0);
	KT_EXPECT(t, taken + tb.cpu[1].overrun <= tb.cpu[1].entries);
	ring_buffer_free(&tb);
}

/*
 * The races above, made certain: the reader is stopped where it has picked a page and not yet
 * read its seq, and the writer (this CPU, from the hook) goes round the ring meanwhile, until the
 * page after the reader's is the newest. A reader that takes the page it picked in whatever life
 * it finds there returns the newest events and then, back at the head, older ones.
 */
static u64 lap_next; /* the next value to write */

static void write_until_head(struct ring_buffer_per_cpu *cb, int head)
{
	while (cb->head != head)
		write_u64(lap_next++);
	for (int i = 0; i < 5; i++) /* a few on the new tail page */
		write_u64(lap_next++);
}

static void lap_the_reader(struct ring_buffer_per_cpu *cb)
{
	cb->race_window = NULL;	 /* once */
	write_until_head(cb, 2); /* pages 0 and 1 recycled: 1 is the tail, 2 the oldest */
}

/* Consumes everything; false if a value did not grow. *last: the last value taken. */
static bool consume_all(struct ring_buffer_per_cpu *cb, struct rb_iter *it, u64 *last, u64 *taken)
{
	u64 v, ts;
	u32 len;

	while (ring_buffer_consume(cb, it, &v, sizeof(v), &len, &ts)) {
		if (*taken && v <= *last)
			return false;
		*last = v;
		(*taken)++;
	}
	return true;
}

/* Fills page 0 and starts page 1, then consumes `eat` events with *it (all of page 0 if 0). */
static struct ring_buffer_per_cpu *lap_setup(struct ktest *t, struct rb_iter *it, u64 eat)
{
	struct ring_buffer_per_cpu *cb = &tb.cpu[smp_processor_id()];
	u64 v, ts;
	u32 len;

	lap_next = 0;
	while (cb->tail != 1)
		write_u64(lap_next++);
	write_u64(lap_next++);
	if (!eat)
		eat = cb->pages[0].entries;
	for (u64 i = 0; i < eat; i++)
		KT_EXPECT(t, ring_buffer_consume(cb, it, &v, sizeof(v), &len, &ts) && v == i);
	return cb;
}

/* The reader finished page 0 and steps to page 1 just as the writer recycles 0 and then 1. */
SELFTEST(ring_buffer_consume_lapped_stepping_to_next_page)
{
	struct rb_iter it = { 0 };
	struct ring_buffer_per_cpu *cb;
	u64 last, taken = 1, written;

	KT_ASSERT(t, ring_buffer_alloc(&tb, 16) == 0); /* 4 pages */
	preempt_disable();
	cb = lap_setup(t, &it, 0);
	last = cb->pages[0].entries - 1;
	cb->race_window = lap_the_reader;
	KT_EXPECT(t, consume_all(cb, &it, &last, &taken));
	KT_EXPECT(t, cb->race_window == NULL);			/* the window was reached */
	KT_EXPECT_EQ(t, last, lap_next - 1);			/* up to the newest */
	KT_EXPECT_EQ(t, ring_buffer_entries(&tb, &written), 0); /* nothing left, none taken twice */
	cb->race_window = NULL;
	preempt_enable_no_resched();
	ring_buffer_free(&tb);
}

/* trace_pipe opened again: the new reader picks its place while the writer laps it. */
SELFTEST(ring_buffer_consume_lapped_finding_its_place)
{
	struct rb_iter first = { 0 }, again = { 0 };
	struct ring_buffer_per_cpu *cb;
	u64 last = 9, taken = 1, written;

	KT_ASSERT(t, ring_buffer_alloc(&tb, 16) == 0);
	preempt_disable();
	cb = lap_setup(t, &first, 10); /* the mark: 10 events into page 0 */
	cb->race_window = lap_the_reader;
	KT_EXPECT(t, consume_all(cb, &again, &last, &taken));
	KT_EXPECT(t, cb->race_window == NULL);
	KT_EXPECT_EQ(t, last, lap_next - 1);
	KT_EXPECT_EQ(t, ring_buffer_entries(&tb, &written), 0);
	cb->race_window = NULL;
	preempt_enable_no_resched();
	ring_buffer_free(&tb);
}
