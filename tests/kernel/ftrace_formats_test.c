/* Self-tests of the events/ftrace formats: the format table against our structs, and real records read
 * back through it. */
#include "kernel/fs/fs.h"
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/trace/trace_events.h"
#include "lib/string.h"

static const struct {
	const char *name;
	u16 id;
	u32 size;
} fixed[] = {
	{ "function", TRACE_FN, sizeof(struct ftrace_entry) },
	{ "kernel_stack", TRACE_STACK, sizeof(struct stack_entry) },
	{ "print", TRACE_PRINT, sizeof(struct print_entry) },
	{ "bprint", TRACE_BPRINT, sizeof(struct bprint_entry) },
	{ "funcgraph_exit", TRACE_GRAPH_RET, sizeof(struct ftrace_graph_ret_entry) },
	{ "funcgraph_entry", TRACE_GRAPH_ENT, sizeof(struct ftrace_graph_ent_entry) },
	{ "user_stack", TRACE_USER_STACK, sizeof(struct userstack_entry) },
	{ "bputs", TRACE_BPUTS, sizeof(struct bputs_entry) },
	{ "raw_data", TRACE_RAW_DATA, sizeof(struct raw_data_entry) },
};

/* What the compiler aligns a field to: its size, an array's element (all ours are longs). */
static u32 field_align(const struct ftrace_event_field *f)
{
	if (!f->size)
		return 1;
	return strchr(f->type, '[') ? sizeof(long) : f->size;
}

/*
 * Each field must start exactly where the one before ends, rounded up to its alignment, and the
 * last must end where the struct does: a member added to a struct and not to the table leaves a
 * hole this finds (unless it fits in existing padding), one removed fails the build.
 */
SELFTEST(ftrace_formats_match_structs)
{
	KT_ASSERT(t, nr_ftrace_fixed_events == ARRAY_SIZE(fixed));
	for (unsigned int i = 0; i < ARRAY_SIZE(fixed); i++) {
		const struct trace_event_call *call = &ftrace_fixed_events[i];
		u32 end = 0, max_align = 1;

		KT_EXPECT_STREQ(t, call->name, fixed[i].name);
		KT_EXPECT_STREQ(t, call->system, "ftrace");
		KT_EXPECT_EQ(t, call->id, fixed[i].id);
		KT_EXPECT_EQ(t, call->size, fixed[i].size);
		KT_EXPECT(t, call->id < TRACE_EVENT_FIRST_ID && !trace_event_by_id(call->id));
		KT_EXPECT(t, !trace_event_find("ftrace", call->name));
		KT_ASSERT(t, call->nr_fields > 4);
		KT_EXPECT_STREQ(t, call->fields[3].name, "common_pid");
		for (int k = 0; k < call->nr_fields; k++) {
			const struct ftrace_event_field *f = &call->fields[k];
			u32 want = ALIGN(end, field_align(f));
			if (f->offset != want)
				ktest_fail(t, __FILE__, __LINE__, "%s.%s at %u, expected %u",
					   call->name, f->name, f->offset, want);
			end = f->offset + f->size;
			max_align = MAX(max_align, field_align(f));
		}
		KT_EXPECT_EQ(t, ALIGN(end, max_align), call->size);
	}
}

static const struct ftrace_event_field *field(const struct trace_event_call *call, const char *name)
{
	for (int k = 0; k < call->nr_fields; k++)
		if (!strcmp(call->fields[k].name, name))
			return &call->fields[k];
	return NULL;
}

/* A field's value, read as the format file tells a reader to (unsigned, little-endian). */
static u64 read_field(const void *rec, const struct ftrace_event_field *f)
{
	u64 v = 0;

	memcpy(&v, (const u8 *)rec + f->offset, MIN(f->size, (u16)8));
	return v;
}

/* The newest event of type on this CPU, copied out; false if there is none. */
static bool newest_of_type(u16 type, void *out, u32 size)
{
	struct rb_iter it;
	bool found = false;
	void *d;
	u32 len;
	u64 ts;

	rb_iter_start(&it, &global_trace.buffer.cpu[smp_processor_id()]);
	while ((d = rb_iter_peek(&it, &len, &ts)) != NULL) {
		if (((struct trace_entry *)d)->type == type) {
			memcpy(out, d, MIN(len, size));
			found = true;
		}
		rb_iter_advance(&it);
	}
	return found;
}

static bool any_frame(unsigned long ret, unsigned long arg)
{
	return true;
}

SELFTEST(ftrace_formats_decode_real_records)
{
	const struct trace_event_call *print = &ftrace_fixed_events[2];
	const struct trace_event_call *stack = &ftrace_fixed_events[1];
	struct fnode *marker;
	u8 rec[256];
	bool on = global_trace.tracing_on;

	KT_ASSERT(t, !fs_resolve(NULL, "/sys/kernel/tracing/trace_marker", &marker));
	global_trace.tracing_on = true;
	preempt_disable(); /* the records and the read on one CPU */
	fs_write(marker, "format-check", 12, 0);
	KT_EXPECT(t, newest_of_type(TRACE_PRINT, rec, sizeof(rec)));
	KT_EXPECT_EQ(t, read_field(rec, field(print, "common_type")), TRACE_PRINT);
	KT_EXPECT_EQ(t, read_field(rec, field(print, "common_pid")), current->pid);
	KT_EXPECT(t, read_field(rec, field(print, "ip")) >= PAGE_OFFSET);
	KT_EXPECT(t, !strcmp((char *)rec + field(print, "buf")->offset, "format-check"));

	__trace_record_stack(any_frame, 0);
	KT_EXPECT(t, newest_of_type(TRACE_STACK, rec, sizeof(rec)));
	KT_EXPECT_EQ(t, read_field(rec, field(stack, "common_type")), TRACE_STACK);
	u64 depth = read_field(rec, field(stack, "size"));
	KT_EXPECT(t, depth >= 1 && depth <= FTRACE_STACK_ENTRIES);
	/* caller[0]: our own return address, the first frame the walk met */
	KT_EXPECT(t, kallsyms_lookup(read_field(rec, field(stack, "caller")) - 1, NULL, NULL));
	preempt_enable_no_resched();
	global_trace.tracing_on = on;
}
