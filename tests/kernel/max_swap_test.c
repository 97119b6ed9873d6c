/* Self-tests of update_max_tr_single() when the swap is refused: the header and the max buffer
 * must agree (Linux's "Failed to swap buffers" line for a commit in progress, nothing for a reader). */
#include "kernel/trace/trace_snapshot.h"
#include "arch/x86/cpu.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "lib/errno.h"
#include "lib/string.h"

static struct trace_array tr;
static struct trace_buffer max;

static void write_value(struct trace_buffer *b)
{
	struct rb_reserve r;
	u64 v = 42;

	if (ring_buffer_lock_reserve(b, sizeof(v), &r)) {
		memcpy(r.data, &v, sizeof(v));
		ring_buffer_unlock_commit(&r);
	}
}

static u64 entries(struct trace_buffer *b)
{
	u64 written;

	return ring_buffer_entries(b, &written);
}

static void section(struct max_section *s, unsigned long latency)
{
	*s = (struct max_section){ .latency = latency,
				   .critical_start = (unsigned long)write_value,
				   .critical_end = (unsigned long)entries,
				   .time_start = rdtsc() };
}

/* A new worst section that ends inside this CPU's own write: no swap, the line, the new header. */
SELFTEST(max_swap_busy_notes_the_failure)
{
	struct max_section s;
	struct rb_reserve open;
	struct rb_iter it;
	struct print_entry *p;
	unsigned long irq;
	u32 len;
	u64 ts;
	int cpu, err;

	memset(&tr, 0, sizeof(tr));
	KT_ASSERT(t, ring_buffer_alloc(&tr.buffer, 8) == 0);
	KT_ASSERT(t, ring_buffer_alloc(&max, 8) == 0);
	tr.max_buffer = &max;
	irq = local_irq_save();
	cpu = smp_processor_id();
	write_value(&tr.buffer);
	section(&s, 123000);
	KT_EXPECT(t, ring_buffer_lock_reserve(&tr.buffer, 8, &open)); /* the interrupted commit */
	err = update_max_tr_single(&tr, current, cpu, &s);
	memset(open.data, 0, 8);
	ring_buffer_unlock_commit(&open);
	local_irq_restore(irq);
	KT_EXPECT_EQ(t, err, -EBUSY);
	KT_EXPECT_EQ(t, entries(&tr.buffer), 2); /* the live events stayed where they were */
	KT_EXPECT_EQ(t, entries(&max), 1);
	rb_iter_start(&it, &max.cpu[cpu]);
	p = rb_iter_peek(&it, &len, &ts);
	KT_ASSERT(t, p != NULL);
	KT_EXPECT_EQ(t, p->ent.type, TRACE_PRINT);
	KT_EXPECT(t, !strcmp(p->buf, "Failed to swap buffers due to commit in progress\n"));
	/* As Linux's __update_max_tr() after a failed swap: the header names the new section. */
	KT_EXPECT_EQ(t, tr.max_latency, 123000);
	KT_EXPECT_EQ(t, tr.max_data.saved_latency, 123000);
	KT_EXPECT_EQ(t, tr.max_data.critical_start, s.critical_start);
	KT_EXPECT_EQ(t, tr.max_data.cpu, cpu);
	ring_buffer_free(&tr.buffer);
	ring_buffer_free(&max);
}

/* The max buffer held by a reader (`cat trace`): nothing swapped and nothing noted, the old
 * worst still the one shown and the one to beat. */
SELFTEST(max_swap_held_by_reader_changes_nothing)
{
	struct max_section s;
	unsigned long irq;
	int cpu, err;

	memset(&tr, 0, sizeof(tr));
	KT_ASSERT(t, ring_buffer_alloc(&tr.buffer, 8) == 0);
	KT_ASSERT(t, ring_buffer_alloc(&max, 8) == 0);
	tr.max_buffer = &max;
	irq = local_irq_save();
	cpu = smp_processor_id();
	write_value(&tr.buffer);
	section(&s, 5000);
	err = update_max_tr_single(&tr, current, cpu, &s);
	local_irq_restore(irq);
	KT_EXPECT_EQ(t, err, 0);
	KT_EXPECT_EQ(t, entries(&max), 1);
	KT_EXPECT_EQ(t, tr.max_latency, 5000);

	ring_buffer_record_off(&max);
	irq = local_irq_save();
	write_value(&tr.buffer);
	write_value(&tr.buffer);
	section(&s, 9000);
	s.critical_end = 0;
	err = update_max_tr_single(&tr, current, cpu, &s);
	local_irq_restore(irq);
	ring_buffer_record_on(&max);
	KT_EXPECT_EQ(t, err, -EAGAIN);
	KT_EXPECT_EQ(t, entries(&max), 1);
	KT_EXPECT_EQ(t, entries(&tr.buffer), 2);
	KT_EXPECT_EQ(t, tr.max_latency, 5000);
	KT_EXPECT_EQ(t, tr.max_data.saved_latency, 5000);
	KT_EXPECT(t, tr.max_data.critical_end == (unsigned long)entries);
	ring_buffer_free(&tr.buffer);
	ring_buffer_free(&max);
}
