/* events/ftrace/<name>/{format,id}: the fixed entry types of trace.h described as events, so a
 * reader of the raw buffer (trace-cmd, the exporter) decodes them from their format files as it
 * decodes trace events. Linux's names, ids, field names and print fmt lines; offsets, sizes and
 * signedness taken from our structs by the compiler.
 *
 *   events/ftrace/function/        TRACE_FN         struct ftrace_entry
 *                 funcgraph_entry/ TRACE_GRAPH_ENT  struct ftrace_graph_ent_entry
 *                 funcgraph_exit/  TRACE_GRAPH_RET  struct ftrace_graph_ret_entry
 *                 print/           TRACE_PRINT      struct print_entry (trace_marker)
 *                 bprint/, bputs/  TRACE_BPRINT, TRACE_BPUTS: trace_printk() (trace_printk.c)
 *                 raw_data/        TRACE_RAW_DATA   trace_marker_raw
 *                 kernel_stack/    TRACE_STACK      struct stack_entry
 *
 * They are not in trace_events_sorted: nothing switches them (no enable or filter file, no line
 * in available_events or set_event), as in Linux, where the tracer that owns a type decides when
 * it is written. print alone has a trigger file (and hist): a trace_marker write runs its
 * triggers, as Linux's tracing_mark_write() does.
 */
#include "kernel/trace/trace_events.h"
#include "kernel/fs/tracefs.h"
#include "lib/errno.h"
#include "lib/compiler.h"

/* Fails the build when the type named in the format file is not the member's type. */
#define TYPE_CHECK(st, type, m)                                                                    \
	(0 * sizeof(struct {                                                                       \
		 int : (-!__builtin_types_compatible_p(typeof(((struct st *)0)->m), type));        \
	 }))

#define FIELD(st, _type, m, _name)                                                                 \
	{                                                                                          \
		.type = #_type, .name = _name,                                                     \
		.offset = offsetof(struct st, m) + TYPE_CHECK(st, _type, m),                       \
		.size = sizeof(((struct st *)0)->m), .is_signed = is_signed_type(_type),           \
		.kind = FILTER_OTHER                                                               \
	}

/* A fixed-length array: the type as the format file prints it ("unsigned long[8]"). */
#define ARRAY(st, _type, m, len)                                                                   \
	{                                                                                          \
		.type = #_type "[" __stringify(len) "]", .name = #m,                               \
		.offset = offsetof(struct st, m) + TYPE_CHECK(st, _type[len], m),                  \
		.size = sizeof(((struct st *)0)->m), .is_signed = is_signed_type(_type),           \
		.kind = FILTER_OTHER                                                               \
	}

/* The common fields' offsets are trace_entry's: every record type here must start with it. */
_Static_assert(offsetof(struct ftrace_entry, ent) == 0 && offsetof(struct print_entry, ent) == 0 &&
		       offsetof(struct ftrace_graph_ent_entry, ent) == 0 &&
		       offsetof(struct ftrace_graph_ret_entry, ent) == 0 &&
		       offsetof(struct stack_entry, ent) == 0,
	       "a record starts with its trace_entry");

static struct ftrace_event_field function_fields[] = {
	TRACE_COMMON_FIELDS,
	FIELD(ftrace_entry, unsigned long, ip, "ip"),
	FIELD(ftrace_entry, unsigned long, parent_ip, "parent_ip"),
};

/* Linux packs this one (20 bytes); ours is padded to 24 after depth. */
static struct ftrace_event_field graph_ent_fields[] = {
	TRACE_COMMON_FIELDS,
	FIELD(ftrace_graph_ent_entry, unsigned long, func, "func"),
	FIELD(ftrace_graph_ent_entry, int, depth, "depth"),
};

/*
 * Linux 6.1 has func, depth, then a 4-byte overrun and the two times, packed. Ours keeps depth
 * after func too, but overrun is an unsigned long and a retval follows the times (Linux's
 * CONFIG_FUNCTION_GRAPH_RETVAL puts it right after func instead): the offsets say so.
 */
static struct ftrace_event_field graph_ret_fields[] = {
	TRACE_COMMON_FIELDS,
	FIELD(ftrace_graph_ret_entry, unsigned long, func, "func"),
	FIELD(ftrace_graph_ret_entry, int, depth, "depth"),
	FIELD(ftrace_graph_ret_entry, unsigned long, overrun, "overrun"),
	FIELD(ftrace_graph_ret_entry, unsigned long long, calltime, "calltime"),
	FIELD(ftrace_graph_ret_entry, unsigned long long, rettime, "rettime"),
	FIELD(ftrace_graph_ret_entry, unsigned long, retval, "retval"),
};

/* The text runs to the end of the record: a zero-size array, as Linux prints it. */
static struct ftrace_event_field print_fields[] = {
	TRACE_COMMON_FIELDS,
	FIELD(print_entry, unsigned long, ip, "ip"),
	/* A string to the end of the record: `buf == "start"` filters and keys on it. */
	{ .type = "char[]",
	  .name = "buf",
	  .offset = offsetof(struct print_entry, buf),
	  .size = 0,
	  .is_signed = is_signed_type(char),
	  .kind = FILTER_STATIC_STRING },
};

static struct ftrace_event_field bprint_fields[] = {
	TRACE_COMMON_FIELDS,
	FIELD(bprint_entry, unsigned long, ip, "ip"),
	FIELD(bprint_entry, const char *, fmt, "fmt"),
	{ .type = "u32[]",
	  .name = "buf",
	  .offset = offsetof(struct bprint_entry, buf),
	  .size = 0,
	  .is_signed = 0,
	  .kind = FILTER_OTHER },
};

static struct ftrace_event_field bputs_fields[] = {
	TRACE_COMMON_FIELDS,
	FIELD(bputs_entry, unsigned long, ip, "ip"),
	FIELD(bputs_entry, const char *, str, "str"),
};

static struct ftrace_event_field raw_data_fields[] = {
	TRACE_COMMON_FIELDS,
	FIELD(raw_data_entry, unsigned int, id, "id"),
	{ .type = "char[]",
	  .name = "buf",
	  .offset = offsetof(struct raw_data_entry, buf),
	  .size = 0,
	  .is_signed = is_signed_type(char),
	  .kind = FILTER_OTHER },
};

static struct ftrace_event_field stack_fields[] = {
	TRACE_COMMON_FIELDS,
	FIELD(stack_entry, int, size, "size"),
	ARRAY(stack_entry, unsigned long, caller, FTRACE_STACK_ENTRIES),
};

static struct ftrace_event_field userstack_fields[] = {
	TRACE_COMMON_FIELDS,
	FIELD(userstack_entry, unsigned int, tgid, "tgid"),
	ARRAY(userstack_entry, unsigned long, caller, FTRACE_STACK_ENTRIES),
};

#define FTRACE_EVENT(_name, _id, _st, _fields, _fmt)                                               \
	{                                                                                          \
		.name = _name, .system = "ftrace", .id = _id, .size = sizeof(struct _st),          \
		.fields = _fields, .nr_fields = ARRAY_SIZE(_fields), .print_fmt = _fmt             \
	}

/* Triggers on print attach nothing: the trace_marker write calls them (Linux's
 * ftrace_event_register() stub). */
static int marker_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	return 0;
}

#define PRINT_EVENT 2 /* its index below */

/* In id order. The print fmt lines are Linux's, funcgraph_exit's with its retval. */
struct trace_event_call ftrace_fixed_events[] = {
	FTRACE_EVENT("function", TRACE_FN, ftrace_entry, function_fields,
		     "\" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip"),
	FTRACE_EVENT(
		"kernel_stack", TRACE_STACK, stack_entry, stack_fields,
		"\"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" "
		"\"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], "
		"(void *)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], "
		"(void *)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]"),
	[PRINT_EVENT] = { .name = "print",
			  .system = "ftrace",
			  .id = TRACE_PRINT,
			  .size = sizeof(struct print_entry),
			  .fields = print_fields,
			  .nr_fields = ARRAY_SIZE(print_fields),
			  .print_fmt = "\"%ps: %s\", (void *)REC->ip, REC->buf",
			  .reg = marker_reg },
	FTRACE_EVENT("bprint", TRACE_BPRINT, bprint_entry, bprint_fields,
		     "\"%ps: %s\", (void *)REC->ip, REC->fmt"),
	FTRACE_EVENT("funcgraph_exit", TRACE_GRAPH_RET, ftrace_graph_ret_entry, graph_ret_fields,
		     "\"<-- %ps (%d) (start: %llx  end: %llx) over: %d retval: %lx\", "
		     "(void *)REC->func, REC->depth, REC->calltime, REC->rettime, REC->depth, "
		     "REC->retval"),
	FTRACE_EVENT("funcgraph_entry", TRACE_GRAPH_ENT, ftrace_graph_ent_entry, graph_ent_fields,
		     "\"--> %ps (%d)\", (void *)REC->func, REC->depth"),
	FTRACE_EVENT(
		"user_stack", TRACE_USER_STACK, userstack_entry, userstack_fields,
		"\"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" "
		"\"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], "
		"(void *)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], "
		"(void *)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]"),
	FTRACE_EVENT("bputs", TRACE_BPUTS, bputs_entry, bputs_fields,
		     "\"%ps: %s\", (void *)REC->ip, REC->str"),
	FTRACE_EVENT("raw_data", TRACE_RAW_DATA, raw_data_entry, raw_data_fields,
		     "\"id:%04x %08x\", REC->id, (int)REC->buf[0]"),
};
const unsigned int nr_ftrace_fixed_events = ARRAY_SIZE(ftrace_fixed_events);
struct trace_event_call *const trace_marker_call = &ftrace_fixed_events[PRINT_EVENT];

int ftrace_formats_files_init(struct fnode *events)
{
	struct fnode *dir = tracefs_create_dir("ftrace", events);

	/* No enable or filter here: Linux leaves them out of events/ftrace/ too. */
	for (unsigned int i = 0; dir && i < nr_ftrace_fixed_events; i++) {
		struct fnode *d = tracefs_create_dir(ftrace_fixed_events[i].name, dir);
		if (trace_event_format_files(d, &ftrace_fixed_events[i]) ||
		    (i == PRINT_EVENT && trace_event_trigger_files(d)))
			return -ENOMEM; /* the caller removes events/ftrace/ */
	}
	return dir ? 0 : -ENOMEM;
}
