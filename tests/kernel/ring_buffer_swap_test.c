/* Self-tests of ring_buffer_swap(), the max buffer's swap: pages trade places and nothing is copied;
 * a swap is refused whole while recording is off on either side, or when the sizes differ. */
#include "kernel/trace/ring_buffer.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "lib/errno.h"
#include "lib/string.h"

static struct trace_buffer live, max;

static void write_values(struct trace_buffer *b, int n)
{
	for (u64 v = 0; v < (u64)n; v++) {
		struct rb_reserve r;
		if (!ring_buffer_lock_reserve(b, sizeof(v), &r))
			return;
		memcpy(r.data, &v, sizeof(v));
		ring_buffer_unlock_commit(&r);
	}
}

static u64 entries(struct trace_buffer *b)
{
	u64 written;

	return ring_buffer_entries(b, &written);
}

SELFTEST(ring_buffer_swap_trades_pages)
{
	struct buffer_page *live_pages, *max_pages;
	int cpu;

	KT_ASSERT(t, ring_buffer_alloc(&live, 8) == 0);
	KT_ASSERT(t, ring_buffer_alloc(&max, 8) == 0);
	preempt_disable();
	cpu = smp_processor_id();
	write_values(&live, 10);
	preempt_enable_no_resched();
	live_pages = live.cpu[cpu].pages;
	max_pages = max.cpu[cpu].pages;
	KT_EXPECT_EQ(t, ring_buffer_swap(&live, &max, -1), 0);
	/* The same pages, now on the other side: a swap of descriptors, not a copy. */
	KT_EXPECT(t, max.cpu[cpu].pages == live_pages && live.cpu[cpu].pages == max_pages);
	KT_EXPECT_EQ(t, entries(&max), 10);
	KT_EXPECT_EQ(t, entries(&live), 0);
	/* The writer words stayed: both idle again, and the live side takes writes at once. */
	KT_EXPECT_EQ(t, live.cpu[cpu].writer, RB_WRITER_IDLE);
	KT_EXPECT_EQ(t, max.cpu[cpu].writer, RB_WRITER_IDLE);
	preempt_disable();
	write_values(&live, 3);
	preempt_enable_no_resched();
	KT_EXPECT_EQ(t, entries(&live), 3);
	KT_EXPECT_EQ(t, ring_buffer_swap(&live, &max, cpu), 0);
	KT_EXPECT_EQ(t, entries(&live), 10);
	KT_EXPECT_EQ(t, entries(&max), 3);
	ring_buffer_free(&live);
	ring_buffer_free(&max);
}

SELFTEST(ring_buffer_swap_refuses_whole)
{
	struct buffer_page *before;
	int cpu = smp_processor_id();

	KT_ASSERT(t, ring_buffer_alloc(&live, 8) == 0);
	KT_ASSERT(t, ring_buffer_alloc(&max, 16) == 0);
	KT_EXPECT_EQ(t, ring_buffer_swap(&live, &max, -1), -EINVAL);
	ring_buffer_free(&max);
	KT_ASSERT(t, ring_buffer_alloc(&max, 8) == 0);
	before = live.cpu[cpu].pages;
	/* A reader holds the max buffer (as `cat snapshot` does): nothing moves. */
	ring_buffer_record_off(&max);
	KT_EXPECT_EQ(t, ring_buffer_swap(&live, &max, -1), -EAGAIN);
	KT_EXPECT(t, live.cpu[cpu].pages == before);
	KT_EXPECT_EQ(t, live.cpu[cpu].writer, RB_WRITER_IDLE);
	ring_buffer_record_on(&max);
	KT_EXPECT_EQ(t, ring_buffer_swap(&live, &max, -1), 0);
	KT_EXPECT(t, live.cpu[cpu].pages != before);
	ring_buffer_free(&live);
	ring_buffer_free(&max);
}
