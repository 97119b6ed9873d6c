/* Trace events: tracepoints that record a typed record into the ring buffer, described by a
 * format file, switched from events/ and set_event, filtered and triggered per event. */
#ifndef KERNEL_TRACE_TRACE_EVENTS_H
#define KERNEL_TRACE_TRACE_EVENTS_H

#include "kernel/tracepoint.h"
#include "kernel/trace/trace.h"
#include "kernel/trace/trace_events_filter.h"
#include "lib/string.h"

/* A field as TRACE_EVENT() declares it; the offset is worked out at boot (trace_events_init). */
struct trace_event_fields {
	const char *type;
	const char *name;
	u16 size;
	u8 align;
	u8 is_signed;
	u8 kind; /* enum filter_kind */
};

/* __print_flags / __print_symbolic tables, and the scratch text they print into. */
struct trace_print_flags {
	unsigned long mask;
	const char *name;
};
struct trace_print_tmp {
	u32 len;
	char buf[256];
};
const char *trace_print_flags_seq(struct trace_print_tmp *p, const char *delim, unsigned long flags,
				  const struct trace_print_flags *tab);
const char *trace_print_symbols_seq(struct trace_print_tmp *p, unsigned long val,
				    const struct trace_print_flags *tab);

struct event_trigger_data;
struct perf_event;

/* call->flags */
#define EVENT_FL_ENABLED (1U << 0)     /* recorded: `echo 1 > enable` */
#define EVENT_FL_SOFT_MODE (1U << 1)   /* probe attached for triggers only (enable reads 0*) */
#define EVENT_FL_FILTERED (1U << 2)    /* a filter decides which records are kept */
#define EVENT_FL_PROBED (1U << 3)      /* our probe is attached to the tracepoint */
#define EVENT_FL_WAS_ENABLED (1U << 4) /* recorded at some time: its records may be in the buffer */
#define EVENT_FL_PERF (1U << 5)	       /* perf events listen (kernel/trace/trace_event_perf.c) */
/* sm_mask is not 0: an instance's triggers want the record. A flag beside the others, so the
 * global array's fast path tests it in the same word (event_sm_mask_set()). */
#define EVENT_FL_INST_SOFT (1U << 6)
/* Someone wants the event's records: it cannot be removed, its probe stays attached. */
#define EVENT_FL_IN_USE (EVENT_FL_ENABLED | EVENT_FL_SOFT_MODE | EVENT_FL_PERF)

/* What a dynamic event's reg callback is asked to do (Linux's enum trace_reg). */
enum trace_reg {
	TRACE_REG_REGISTER,   /* attach the probe: the event (or a trigger) wants records */
	TRACE_REG_UNREGISTER, /* detach it */
};

/*
 * An event in one trace array (Linux's trace_event_file): what that array filters it with and
 * which triggers it runs there, so one event can be filtered one way and histogrammed in one
 * instance and another way in the next, each firing only for its own array. The global array's
 * is inside the event (call->file); an instance's are in its event_files (trace_event_file_of()).
 */
struct trace_event_file {
	struct trace_event_call *event_call;
	struct trace_array *tr;
	struct event_filter *filter;
	/* A refused filter's text, caret and message, which `filter` shows in its place (Linux's
	 * append_filter_err()); NULL while a filter, or none, is in force. */
	char *filter_error;
	struct event_trigger_data *triggers; /* singly linked, newest first */
	/* enable_event/disable_event triggers and function commands of this array aiming at the
	 * event: while any exist, its probe stays attached (soft mode) and they switch it on and
	 * off from the tracing path. */
	int sm_ref;
};

/* One event (Linux's trace_event_call), with the global array's trace_event_file. */
struct trace_event_call {
	const char *name;
	const char *system;
	struct tracepoint *tp;
	void *probe; /* trace_event_raw_event_<class>, attached with this call as its data */
	const struct trace_event_fields *fields_desc; /* ended by a NULL name */
	u32 size; /* sizeof the record without dynamic strings */
	void (*print)(struct seq_file *m, const struct trace_entry *ent);
	const char *print_fmt;
	/* print writes the whole line, no "name: " first (syscall events: `sys_write(fd: 1, ...)`) */
	bool print_whole_line;
	/* Set at boot. */
	u16 id;
	int nr_fields;			   /* common fields included */
	struct ftrace_event_field *fields; /* with offsets */
	/* State, changed under event_mutex; read on the tracing path. */
	unsigned int flags;
	/* The instances it is enabled in (bit n: trace_arrays[n]; EVENT_FL_ENABLED is the
	 * global one's): Linux's trace_event_file per instance, here a bit each. */
	u64 tr_mask;
	struct trace_event_file file; /* the global array's filter and triggers */
	/* The instances (bit n: trace_arrays[n]) whose file of this event is in soft mode: its
	 * triggers, or enable commands aiming at it, want the probe attached. */
	u64 sm_mask;
	/* Offset of a pid field set_event_pid also accepts (sched_switch's next_pid), or 0: none. */
	u16 pid_field_offset;
	/* Dynamic events (kprobe events) have no tracepoint: reg attaches and detaches their probe,
	 * data is their owner's. fields and nr_fields come with offsets already worked out. */
	int (*reg)(struct trace_event_call *call, enum trace_reg type, void *data);
	void *data;
	struct fnode *dir;		/* events/<system>/<name>/ of a dynamic event */
	struct perf_event *perf_events; /* perf_event_open()'s on this event (EVENT_FL_PERF) */
	/* A kprobe or uprobe event (Linux's TRACE_EVENT_FL_UKPROBE): a BPF program attached through
	 * perf is a kprobe program, run on the probed registers. */
	bool is_ukprobe;
};

/* call->flags changes under event_mutex and, for EVENT_FL_ENABLED, also from an enable_event or
 * disable_event trigger firing on another CPU: every change is one atomic operation. */
static inline void event_flags_set(struct trace_event_call *call, unsigned int bits)
{
	__atomic_fetch_or(&call->flags, bits, __ATOMIC_RELAXED);
}

static inline void event_flags_clear(struct trace_event_call *call, unsigned int bits)
{
	__atomic_fetch_and(&call->flags, ~bits, __ATOMIC_RELAXED);
}

/* Under event_mutex: sm_mask, and the flag that mirrors it. */
static inline void event_sm_mask_set(struct trace_event_call *call, u64 mask)
{
	WRITE_ONCE(call->sm_mask, mask);
	if (mask)
		event_flags_set(call, EVENT_FL_INST_SOFT);
	else
		event_flags_clear(call, EVENT_FL_INST_SOFT);
}

/* Every event the kernel was built with (linker section _ftrace_events, in no useful order). */
extern struct trace_event_call *const __start_ftrace_events[], *const __stop_ftrace_events[];
/* Every event, the built-in ones and those added at run time, sorted by system, then name:
 * listings and the events/ tree follow it. Changed only under event_mutex. */
extern struct trace_event_call **trace_events_sorted;
extern unsigned int nr_trace_events;
/* The storage behind it (trace_events.c), for trace_events_dyn.c. */
extern unsigned int trace_events_cap, trace_events_next_id;
extern struct trace_event_call **trace_events_ids;
int cmp_event(const void *a, const void *b); /* by system, then name */
#define for_each_event_call(pp)                                                                    \
	for (pp = trace_events_sorted; pp < trace_events_sorted + nr_trace_events; pp++)

/* The first id events get; below it are the fixed types of trace.h (Linux's __TRACE_LAST_TYPE). */
#define TRACE_EVENT_FIRST_ID 32
/* The last: common_type is a u16 (Linux's TRACE_EVENT_TYPE_MAX). */
#define TRACE_EVENT_LAST_ID 65535

/*
 * Events made at run time (kprobe events): call has its name, system, fields (with offsets),
 * size, print, print_fmt and reg. trace_add_event_call() gives it the next unused id and its
 * events/<system>/<name>/ files; 0 or -EEXIST (the name is taken), -ENOSPC (no id left),
 * -ENOMEM. trace_remove_event_call() refuses with -EBUSY while the event is enabled or a
 * trigger holds it, or while the shell stands in its directory; otherwise it removes the
 * files and, once no CPU can still be writing a record of it, returns 0: call may be freed.
 * Ids are never given out twice, so a record left in the buffer never names another event;
 * as Linux does, removing an event that was ever enabled also empties the buffer.
 */
int trace_add_event_call(struct trace_event_call *call);
int trace_remove_event_call(struct trace_event_call *call);

struct trace_event_call *trace_event_by_id(unsigned int id);
struct trace_event_call *trace_event_find(const char *system, const char *name);
const struct ftrace_event_field *trace_event_field_find(const struct trace_event_call *call,
							const char *name);

/* A write in progress: the ring buffer's reservation, or a per-CPU scratch copy when a filter, a
 * trigger condition or a pid list must see the record before it is kept. */
struct trace_event_buffer {
	struct trace_event_call *call;
	struct rb_reserve r;
	void *entry;
	u32 len;
	bool scratch;
	unsigned long flags; /* interrupts as they were, for the scratch path */
};

/* The largest record an event may write (whole, common fields included). */
#define TRACE_EVENT_MAX_SIZE 2048

void *trace_event_buffer_reserve(struct trace_event_buffer *fb, struct trace_event_call *call,
				 u32 len);
void trace_event_buffer_commit(struct trace_event_buffer *fb);
/* A record built elsewhere (an eprobe's, while the scratch area holds the record it fires on),
 * kept as a scratch record is: if the event is enabled and its pid and filter pass, then its
 * triggers run. Interrupts off. */
void trace_event_keep_record(struct trace_event_call *call, void *rec, u32 len);

/* Switching, under event_mutex. 0 or -errno; enabling twice is not an error. */
int trace_event_enable_disable(struct trace_event_call *call, bool enable);
/* The same in one trace array (the global one: the above), and whether it is on there. */
int trace_event_enable_tr(struct trace_event_call *call, struct trace_array *tr, bool enable);
bool trace_event_enabled_in(const struct trace_event_call *call, const struct trace_array *tr);
/* The events an instance has: the built-in ones (an event made at run time can go away, and
 * its files with it; instances do not follow that). */
static inline bool trace_event_in_instances(const struct trace_event_call *call)
{
	return !call->dir;
}
/* events/, set_event and set_event_pid of an instance, in its directory; 0 or -ENOMEM. Before
 * its removal, its triggers go (-EBUSY, nothing changed, while another array shares one of its
 * named histograms); the removal turns off every event the instance had on (under event_mutex,
 * waiting until no CPU still writes one into it) and frees its filters. */
int trace_events_create_instance(struct fnode *dir);
int trace_events_clear_instance(struct trace_array *tr);
void trace_events_remove_instance(struct trace_array *tr);
/* Attach or detach the probe as (enabled or triggered) requires. */
int trace_event_update_probe(struct trace_event_call *call);
void event_mutex_lock(void);
void event_mutex_unlock(void);

/* set_event_pid: events are kept only for these tasks (none listed: every task). */
extern int event_pids[32];
extern int nr_event_pids;
/* set_event_notrace_pid: never these tasks' events, even if set_event_pid lists them. */
extern int event_notrace_pids[32];
extern int nr_event_notrace_pids;

/* The event's file in tr: the global array's is call->file; an instance has one for each event
 * it has (trace_event_in_instances(), and ftrace/print), NULL for the others. */
struct trace_event_file *trace_event_file_of(struct trace_event_call *call, struct trace_array *tr);
/* How many an instance has (its event_files array). */
unsigned int trace_event_file_slots(void);
/* Triggers (kernel/trace/trace_events_trigger.c). */
void event_triggers_call(struct trace_event_file *file, const void *rec, u32 len);
void event_trigger_show(struct seq_file *m, struct trace_event_file *file);
int event_trigger_write(struct trace_event_file *file, const char *buf, size_t len,
			unsigned int flags);
/* An eprobe's hook on call (Linux's EVENT_TRIGGER_FL_PROBE trigger): probe(data, rec, len) runs
 * after the event's commands each time call fires and cond (NULL: always) matches; call runs
 * in soft mode meanwhile (enable reads 0*). A `>` to trigger leaves it. remove frees cond.
 * Under event_mutex: they are called from the eprobe event's reg callback. */
int event_trigger_probe_add(struct trace_event_call *call, struct event_filter *cond,
			    void (*probe)(void *data, const void *rec, u32 len), void *data);
void event_trigger_probe_remove(struct trace_event_call *call, void *data);

/* The line an event prints in trace / trace_pipe, after the context columns. */
bool trace_event_print(struct seq_file *m, struct trace_iterator *it);
/* An event's text after "name: ", its %p as m->show_ptrs says (trace_hash_ptr.c); true when
 * tr (NULL: the global array) has hash-ptr off, so %p shows the address. */
void trace_event_printf(struct seq_file *m, const char *fmt, ...) __printf(2, 3);
bool trace_show_ptrs(struct trace_array *tr);
/* "name: fields" alone, no newline, as tr's options say: for a tracer that frames events its own
 * way (function_graph prints them as C comments). False if ent is not a trace event. */
bool trace_event_print_inline(struct seq_file *m, struct trace_array *tr,
			      const struct trace_entry *ent);
/* Linux's error_log (kernel/trace/trace_error_log.c): an error into tr's log (NULL: the top
 * one's); the file in an array's directory, 0 or -ENOMEM; its removal, for an init that unwinds;
 * an instance's log freed with it. */
void tracing_log_err(struct trace_array *tr, const char *loc, const char *cmd, const char *err_text,
		     int pos);
int trace_error_log_init(struct fnode *top);
void trace_error_log_remove(struct fnode *top);
void trace_error_log_free(struct trace_array *tr);

/* tp_printk, /proc/sys/kernel/tracepoint_printk: recorded events printed on the console too
 * (trace_boot.c). */
extern unsigned long tracepoint_printk;
void trace_events_init(void);
void trace_events_files_init(void);
/* syscalls:sys_enter_NAME / sys_exit_NAME for every call the table has (trace_syscalls.c). */
void init_ftrace_syscalls(void);
/* synthetic_events (trace_events_synth.c). */
void init_synth_events(void);
/* format and id in dir (NULL: its mkdir failed), for call (trace_events_files.c); 0 or -ENOMEM. */
int trace_event_format_files(struct fnode *dir, struct trace_event_call *call);
/* Then hist and trigger, for ftrace/print, the one fixed type with triggers (trace_marker's). */
int trace_event_trigger_files(struct fnode *dir);
/* events/ftrace/print: what a trace_marker write runs the triggers of (ftrace_formats.c). */
extern struct trace_event_call *const trace_marker_call;
/* An event's directory and files, and its system's when it is the first (trace_events_files.c);
 * under event_mutex. 0 or -ENOMEM / -EBUSY, nothing changed then. */
int trace_event_files_add(struct trace_event_call *call);
bool trace_event_files_busy(struct trace_event_call *call);
void trace_event_files_remove(struct trace_event_call *call);

/* The fixed entry types of trace.h as events of system "ftrace", in id order (ftrace_formats.c):
 * a format and an id file each, nothing to switch. */
extern struct trace_event_call ftrace_fixed_events[];
extern const unsigned int nr_ftrace_fixed_events;
/* events/ftrace/ in events; 0 or -ENOMEM, whatever was made left to the caller to remove. */
int ftrace_formats_files_init(struct fnode *events);

#endif
