/* Self-tests of the ring buffer: order, wrap and overwrite counts, time extends, consuming reads
 * racing a writer on another CPU. Each test uses a small buffer of its own. */
#include "kernel/trace/ring_buffer.h"
#include "arch/x86/cpu.h"
#include "kernel/sched.h"
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
	KT_EXPECT_EQ(t, n, in);                       /* the count says what the pages hold */
	KT_EXPECT_EQ(t, tb.cpu[cpu].overrun, 2000 - in); /* and everything else was overwritten */
	KT_EXPECT(t, n > 0 && got[n - 1] == 1999);    /* the newest survive, contiguous */
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
	u64 v, ts, last = 0, taken = 0;
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
			if (taken && v <= last)
				ordered = false; /* values only ever grow, whatever was lost between */
			last = v;
			taken++;
		}
	}
	writer_stop = true;
	while (!writer_done)
		msleep(1); /* the buffer is freed below: the writer must be gone */
	KT_EXPECT(t, ordered);
	KT_EXPECT(t, taken > 0);
	KT_EXPECT(t, taken + tb.cpu[1].overrun <= tb.cpu[1].entries);
	ring_buffer_free(&tb);
}
