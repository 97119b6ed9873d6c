/* Self-tests of trace events: the tables built at boot, probes on tracepoints and their static
 * keys, a record's bytes where its format file says they are, filters on the write path. */
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/time.h"
#include "kernel/trace/trace_events.h"
#include "kernel/trace/events/bench.h"
#include "lib/errno.h"
#include "lib/string.h"

int bench_target_tp(int x);

SELFTEST(events_ids_fields_and_sizes)
{
	struct trace_event_call **pp;
	unsigned int expect_id = TRACE_EVENT_FIRST_ID;

	KT_ASSERT(t, nr_trace_events > 0);
	for_each_event_call(pp)
	{
		struct trace_event_call *call = *pp;
		u32 end = 0;
		/* Built-in events are numbered in this order; those made at run time (syscalls, probes:
		 * call->reg) after them, in the order they were made. */
		if (!call->reg)
			KT_EXPECT_EQ(t, call->id, expect_id++);
		else
			KT_EXPECT(t, call->id >= TRACE_EVENT_FIRST_ID &&
					     call->id < trace_events_next_id);
		KT_EXPECT(t, trace_event_by_id(call->id) == call);
		KT_EXPECT(t, trace_event_find(call->system, call->name) == call);
		KT_EXPECT(t, call->nr_fields >= 5); /* the four common fields and one of its own */
		KT_EXPECT_STREQ(t, call->fields[0].name, "common_type");
		for (int i = 0; i < call->nr_fields; i++) {
			const struct ftrace_event_field *f = &call->fields[i];
			if (f->offset < end)
				ktest_fail(t, __FILE__, __LINE__, "%s.%s overlaps", call->name,
					   f->name);
			end = f->offset + f->size;
		}
		KT_EXPECT(t, end <= call->size);
		KT_EXPECT(t, !(call->flags & (EVENT_FL_ENABLED | EVENT_FL_PROBED)));
	}
	KT_EXPECT(t, !trace_event_by_id(trace_events_next_id));
	KT_EXPECT(t, !trace_event_by_id(TRACE_EVENT_FIRST_ID - 1));
}

static int probe_calls, probe_last;

static void test_probe(void *data, int x)
{
	probe_calls++;
	probe_last = x + (int)(long)data;
}

SELFTEST(events_tracepoint_probe_switches_key)
{
	struct tracepoint *tp = &__tracepoint_bench_event;

	KT_ASSERT(t, !static_key_enabled(&tp->key.key));
	probe_calls = 0;
	bench_target_tp(1);
	KT_EXPECT_EQ(t, probe_calls, 0);
	KT_ASSERT(t, tracepoint_probe_register(tp, test_probe, (void *)100) == 0);
	KT_EXPECT(t, static_key_enabled(&tp->key.key));
	KT_EXPECT(t, trace_bench_event_enabled());
	KT_EXPECT_EQ(t, tracepoint_probe_register(tp, test_probe, (void *)100), -EEXIST);
	bench_target_tp(5);
	KT_EXPECT_EQ(t, probe_calls, 1);
	KT_EXPECT_EQ(t, probe_last, 105);
	/* A second probe on the same tracepoint: both run, the key stays on when one goes. */
	KT_ASSERT(t, tracepoint_probe_register(tp, test_probe, (void *)200) == 0);
	bench_target_tp(1);
	KT_EXPECT_EQ(t, probe_calls, 3);
	KT_EXPECT_EQ(t, tracepoint_probe_unregister(tp, test_probe, (void *)100), 0);
	KT_EXPECT(t, static_key_enabled(&tp->key.key));
	bench_target_tp(2);
	KT_EXPECT_EQ(t, probe_calls, 4);
	KT_EXPECT_EQ(t, probe_last, 202);
	KT_EXPECT_EQ(t, tracepoint_probe_unregister(tp, test_probe, (void *)200), 0);
	KT_EXPECT(t, !static_key_enabled(&tp->key.key));
	KT_EXPECT(t, tp->funcs == NULL);
	KT_EXPECT_EQ(t, tracepoint_probe_unregister(tp, test_probe, (void *)200), -ENOENT);
	bench_target_tp(3);
	KT_EXPECT_EQ(t, probe_calls, 4);
}

/* The newest record of an event type on this CPU's buffer, copied out; its length, or 0. */
static u32 last_record(u16 type, void *out, u32 size)
{
	struct rb_iter it;
	u32 len, found = 0;
	u64 ts;
	void *d;

	rb_iter_start(&it, &global_trace.buffer.cpu[smp_processor_id()]);
	while ((d = rb_iter_peek(&it, &len, &ts))) {
		if (((struct trace_entry *)d)->type == type && len <= size) {
			memcpy(out, d, len);
			found = len;
		}
		rb_iter_advance(&it);
	}
	return found;
}

static int field_int(struct trace_event_call *call, const void *rec, const char *name)
{
	const struct ftrace_event_field *f = trace_event_field_find(call, name);

	return f ? *(const int *)((const u8 *)rec + f->offset) : -12345;
}

SELFTEST(events_record_matches_format)
{
	struct trace_event_call *call = trace_event_find("bench", "bench_event");
	static u8 rec[64];
	u32 len;

	KT_ASSERT(t, call);
	ring_buffer_reset(&global_trace.buffer);
	event_mutex_lock();
	KT_ASSERT(t, trace_event_enable_disable(call, true) == 0);
	event_mutex_unlock();
	preempt_disable();
	bench_target_tp(41);
	len = last_record(call->id, rec, sizeof(rec));
	preempt_enable_no_resched();
	event_mutex_lock();
	trace_event_enable_disable(call, false);
	event_mutex_unlock();
	KT_ASSERT(t, len >= call->size);
	KT_EXPECT_EQ(t, ((struct trace_entry *)rec)->type, call->id);
	KT_EXPECT_EQ(t, ((struct trace_entry *)rec)->pid, current->pid);
	KT_EXPECT_EQ(t, field_int(call, rec, "x"), 41);
	ring_buffer_reset(&global_trace.buffer);
}

SELFTEST(events_filter_decides_what_is_kept)
{
	struct trace_event_call *call = trace_event_find("bench", "bench_event");
	struct filter_parse_error pe;
	struct event_filter *f = NULL;
	static u8 rec[64];
	int kept = 0;

	KT_ASSERT(t, call);
	KT_ASSERT(t,
		  filter_compile(call->fields, call->nr_fields, "x >= 10 && x < 13", &f, &pe) == 0);
	ring_buffer_reset(&global_trace.buffer);
	event_mutex_lock();
	call->file.filter = f;
	call->flags |= EVENT_FL_FILTERED;
	trace_event_enable_disable(call, true);
	event_mutex_unlock();
	preempt_disable();
	for (int x = 0; x < 20; x++)
		bench_target_tp(x);
	{
		struct rb_iter it;
		u32 len;
		u64 ts;
		void *d;
		rb_iter_start(&it, &global_trace.buffer.cpu[smp_processor_id()]);
		while ((d = rb_iter_peek(&it, &len, &ts))) {
			if (((struct trace_entry *)d)->type == call->id) {
				int x = field_int(call, d, "x");
				if (x < 10 || x >= 13)
					ktest_fail(t, __FILE__, __LINE__, "x=%d kept", x);
				kept++;
			}
			rb_iter_advance(&it);
		}
	}
	preempt_enable_no_resched();
	event_mutex_lock();
	trace_event_enable_disable(call, false);
	call->flags &= ~EVENT_FL_FILTERED;
	call->file.filter = NULL;
	event_mutex_unlock();
	filter_free(f);
	KT_EXPECT_EQ(t, kept, 3);
	(void)rec;
	ring_buffer_reset(&global_trace.buffer);
}
