/* Self-tests of the one write protocol: the assembly macros of kernel/trace/ring_buffer.inc
 * (rb_asm_write, ring_buffer_asm.asm) held against the C write path byte for byte, and the
 * function tracer writing into a second trace array, the one its ops names. */
#include "kernel/trace/trace.h"
#include "arch/x86/cpu.h"
#include "arch/x86/ftrace.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/trace/ftrace.h"
#include "lib/string.h"

bool rb_asm_write(struct ring_buffer_per_cpu *cb, u64 a, u64 b);

static struct trace_buffer tb_c, tb_asm;

static bool c_write(struct trace_buffer *b, u64 a, u64 v)
{
	struct rb_reserve r;
	u64 p[2] = { a, v };

	if (!ring_buffer_lock_reserve(b, sizeof(p), &r))
		return false;
	memcpy(r.data, p, sizeof(p));
	ring_buffer_unlock_commit(&r);
	return true;
}

static bool asm_write(struct ring_buffer_per_cpu *cb, u64 a, u64 v)
{
	unsigned long flags = local_irq_save();
	bool ok = rb_asm_write(cb, a, v);

	local_irq_restore(flags);
	return ok;
}

/* The same pages, events, headers and counts; only the time stamps may differ. */
static void expect_same_layout(struct ktest *t, struct ring_buffer_per_cpu *c,
			       struct ring_buffer_per_cpu *a)
{
	KT_EXPECT_EQ(t, a->entries, c->entries);
	KT_EXPECT_EQ(t, a->overrun, c->overrun);
	KT_EXPECT_EQ(t, a->dropped, c->dropped);
	KT_EXPECT_EQ(t, a->head, c->head);
	KT_EXPECT_EQ(t, a->tail, c->tail);
	KT_EXPECT_EQ(t, a->writer, RB_WRITER_IDLE);
	KT_EXPECT_EQ(t, c->writer, RB_WRITER_IDLE);
	for (int p = 0; p < c->nr_pages; p++) {
		struct buffer_data_page *dc = c->pages[p].page, *da = a->pages[p].page;

		KT_EXPECT_EQ(t, da->commit, dc->commit);
		KT_EXPECT_EQ(t, a->pages[p].entries, c->pages[p].entries);
		KT_EXPECT_EQ(t, page_seq(&a->pages[p]), page_seq(&c->pages[p]));
		for (u32 off = 0; off + 20 <= dc->commit && off + 20 <= da->commit; off += 20) {
			u32 hc, ha;
			memcpy(&hc, dc->data + off, 4);
			memcpy(&ha, da->data + off, 4);
			KT_EXPECT_EQ(t, ha & 31, hc & 31); /* type_len: 4, a 16-byte payload */
			KT_EXPECT(t, !memcmp(da->data + off + 4, dc->data + off + 4, 16));
		}
	}
}

/* Five times round a two-page ring, event for event through C and through the macros: the
 * buffers end up the same, and the assembly's events read back in order through the iterator. */
SELFTEST(ring_buffer_asm_matches_c)
{
	struct ring_buffer_per_cpu *c, *a;
	struct rb_iter it;
	u64 prev = 0, ts, last = 0, v[2];
	u32 len;
	int n = 0;

	KT_ASSERT(t, ring_buffer_alloc(&tb_c, 8) == 0);
	if (ring_buffer_alloc(&tb_asm, 8)) {
		ring_buffer_free(&tb_c);
		KT_ASSERT(t, false);
	}
	preempt_disable();
	c = &tb_c.cpu[smp_processor_id()];
	a = &tb_asm.cpu[smp_processor_id()];
	for (u64 i = 0; i < 2040; i++) {
		KT_EXPECT(t, c_write(&tb_c, i, ~i));
		KT_EXPECT(t, asm_write(a, i, ~i));
	}
	preempt_enable_no_resched();
	expect_same_layout(t, c, a);
	KT_EXPECT_EQ(t, a->entries, 2040);
	rb_iter_start(&it, a);
	for (void *d; (d = rb_iter_peek(&it, &len, &ts)); rb_iter_advance(&it), n++) {
		KT_EXPECT_EQ(t, len, 16);
		memcpy(v, d, sizeof(v));
		KT_EXPECT(t, ts >= prev && v[1] == ~v[0] && (!n || v[0] == last + 1));
		prev = ts;
		last = v[0];
	}
	KT_EXPECT_EQ(t, last, 2039);
	KT_EXPECT_EQ(t, n, ring_buffer_entries(&tb_asm, &ts));
	ring_buffer_free(&tb_c);
	ring_buffer_free(&tb_asm);
}

/* The macros refuse what the C refuses, leaving everything as it was: recording off, a write
 * already in progress on this CPU (an NMI's view), a CPU without pages. */
SELFTEST(ring_buffer_asm_refuses_as_c)
{
	struct ring_buffer_per_cpu *a;
	struct rb_reserve r;
	unsigned long flags;

	KT_ASSERT(t, ring_buffer_alloc(&tb_asm, 8) == 0);
	preempt_disable();
	a = &tb_asm.cpu[smp_processor_id()];
	KT_EXPECT(t, asm_write(a, 1, 2));
	ring_buffer_record_off(&tb_asm);
	KT_EXPECT(t, !asm_write(a, 3, 4));
	KT_EXPECT(t, !ring_buffer_reserve_fast(&tb_asm, 16, &r));
	KT_EXPECT_EQ(t, a->writer, RB_WRITER_IDLE + RB_RECORD_OFF);
	ring_buffer_record_on(&tb_asm);
	flags = local_irq_save();
	KT_EXPECT(t, rb_writer_trylock(a));
	KT_EXPECT(t, !rb_asm_write(a, 5, 6)); /* what an NMI inside the write sees */
	KT_EXPECT(t, !rb_reserve_fast_irqoff(a, 16, &r, flags & ~X86_EFLAGS_IF));
	rb_writer_unlock(a);
	local_irq_restore(flags);
	KT_EXPECT_EQ(t, a->writer, RB_WRITER_IDLE);
	KT_EXPECT_EQ(t, a->entries, 1);
	KT_EXPECT_EQ(t, a->tail_page->commit, 20);
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		if (!tb_asm.cpu[cpu].pages) {
			KT_EXPECT(t, !asm_write(&tb_asm.cpu[cpu], 7, 8));
			KT_EXPECT_EQ(t, tb_asm.cpu[cpu].writer, RB_WRITER_IDLE);
			break;
		}
	preempt_enable_no_resched();
	ring_buffer_free(&tb_asm);
}

__attribute__((noipa)) int rb_instance_target(int x)
{
	return x + 3;
}

static volatile int sink;

/* Events of tr's buffer on every CPU: how many, and whether each is a TRACE_FN event of ip. */
static int count_fn_events(struct trace_array *tr, unsigned long ip, bool *all_ip)
{
	int n = 0;

	*all_ip = true;
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct rb_iter it;
		u32 len;
		u64 ts;

		rb_iter_start(&it, &tr->buffer.cpu[cpu]);
		for (struct ftrace_entry *e; (e = rb_iter_peek(&it, &len, &ts));
		     rb_iter_advance(&it)) {
			*all_ip &= len == sizeof(*e) && e->ent.type == TRACE_FN && e->ip == ip;
			n++;
		}
	}
	return n;
}

/* The function tracer's ops pointed at a second trace array (ops->private): its trampoline's
 * fast path, the one the bench measures, writes every call there and nothing into global_trace. */
SELFTEST(trace_instance_function_events)
{
	static struct trace_array tr2;
	static struct ftrace_ops ops;
	u64 before, after;
	bool all_ip;

	if (ftrace_trace_function != ftrace_stub || ftrace_disabled) {
		ktest_skip(t,
			   "another ftrace_ops is live (switch func_hits and tracers off first)");
		return;
	}
	memset(&tr2, 0, sizeof(tr2));
	memset(&ops, 0, sizeof(ops));
	KT_ASSERT(t, ring_buffer_alloc(&tr2.buffer, 8) == 0);
	WRITE_ONCE(tr2.tracing_on, true);
	ops.func = function_trace_call;
	ops.private = &tr2;
	ops.flags = FTRACE_OPS_FL_RECURSION;
	ops.tramp_kind = FTRACE_TRAMP_FUNCTION;
	ops.name = "trace_instance_selftest";
	KT_EXPECT(t, ftrace_set_filter(&ops, "rb_instance_target", true) == 0);
	ring_buffer_entries(&global_trace.buffer, &before);
	if (register_ftrace_function(&ops) == 0) {
		if (!FTRACE_STATIC)
			KT_EXPECT(t, ops.trampoline &&
					     ftrace_ops_tramp_kind(&ops) == FTRACE_TRAMP_FUNCTION);
		for (int i = 0; i < 10; i++)
			sink += rb_instance_target(i);
		unregister_ftrace_function(&ops);
	} else {
		ktest_fail(t, __FILE__, __LINE__, "register_ftrace_function failed");
	}
	ring_buffer_entries(&global_trace.buffer, &after);
	KT_EXPECT_EQ(t, count_fn_events(&tr2, (unsigned long)rb_instance_target, &all_ip), 10);
	KT_EXPECT(t, all_ip);
	KT_EXPECT_EQ(t, after, before);
	free_ftrace_hash(ops.local_hash.filter_hash);
	ring_buffer_free(&tr2.buffer);
}
