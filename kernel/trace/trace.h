/* The tracing core: the trace array (buffer + current tracer), event records, and output. */
#ifndef KERNEL_TRACE_TRACE_H
#define KERNEL_TRACE_TRACE_H

#include "kernel/fs/fs.h"
#include "kernel/trace/ring_buffer.h"
#include "kernel/trace/trace_entry.h"
#include "arch/x86/cpu.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"

/* Event types, Linux's numbers. */
enum trace_type {
	TRACE_FN = 1,
	TRACE_CTX = 2,	/* the wakeup tracers' switch (trace_sched_wakeup.c) */
	TRACE_WAKE = 3, /* and wake-up */
	TRACE_STACK = 4,
	TRACE_PRINT = 5,
	TRACE_BPRINT = 6,
	TRACE_GRAPH_RET = 11,
	TRACE_GRAPH_ENT = 12,
	/* Linux 6.1 numbers it 12, its funcgraph_entry 11: ours keep 11 and 12 for the graph. */
	TRACE_USER_STACK = 13,
	TRACE_BPUTS = 14,
	TRACE_HWLAT = 15,    /* trace_hwlat.c */
	TRACE_OSNOISE = 16,  /* trace_osnoise.c */
	TRACE_TIMERLAT = 17, /* trace_timerlat.c */
	TRACE_RAW_DATA = 18
};

#define FTRACE_STACK_ENTRIES 8

/* Latency flags of an entry (Linux's TRACE_FLAG_*); all but irqs-off come from ctx_flags. */
#define TRACE_FLAG_IRQS_OFF 0x01
#define TRACE_FLAG_NEED_RESCHED CTX_NEED_RESCHED
#define TRACE_FLAG_HARDIRQ CTX_HARDIRQ
#define TRACE_FLAG_NMI CTX_NMI

/* struct percpu's trace_ctx is this struct's image: the same bytes at the same places. */
_Static_assert(__builtin_offsetof(struct trace_entry, flags) ==
		       __builtin_offsetof(struct percpu, ctx_flags) -
			       __builtin_offsetof(struct percpu, trace_ctx),
	       "trace_ctx layout");
_Static_assert(__builtin_offsetof(struct trace_entry, preempt_count) ==
		       __builtin_offsetof(struct percpu, preempt_count) -
			       __builtin_offsetof(struct percpu, trace_ctx),
	       "trace_ctx layout");
_Static_assert(__builtin_offsetof(struct trace_entry, pid) ==
		       __builtin_offsetof(struct percpu, ctx_pid) -
			       __builtin_offsetof(struct percpu, trace_ctx),
	       "trace_ctx layout");

_Static_assert(X86_EFLAGS_IF << 7 == TRACE_FLAG_IRQS_OFF << 16, "IF moves onto irqs-off");

struct ftrace_entry {
	struct trace_entry ent;
	unsigned long ip;
	unsigned long parent_ip;
};

struct ftrace_graph_ent_entry {
	struct trace_entry ent;
	unsigned long func;
	int depth;
};

struct ftrace_graph_ret_entry {
	struct trace_entry ent;
	unsigned long func;
	int depth;
	unsigned long overrun;
	u64 calltime, rettime;
	unsigned long retval;
};

struct stack_entry {
	struct trace_entry ent;
	int size;
	unsigned long caller[FTRACE_STACK_ENTRIES];
};

/* userstacktrace: the user's return addresses, newest first, 0 after the last (Linux's). */
struct userstack_entry {
	struct trace_entry ent;
	unsigned int tgid;
	unsigned long caller[FTRACE_STACK_ENTRIES];
};
/* After an event of a task with a user space, when the option is on (trace_user_stack.c). */
void ftrace_trace_userstack(void);
struct seq_file;
struct trace_iterator;
bool trace_user_stack_print(struct seq_file *m, struct trace_iterator *it);

struct print_entry {
	struct trace_entry ent;
	unsigned long ip;
	char buf[];
};

/* trace_printk()'s records (trace_printk.c) and trace_marker_raw's, Linux's layouts. */
struct bprint_entry {
	struct trace_entry ent;
	unsigned long ip;
	const char *fmt; /* in __trace_printk_fmt: printk_formats names it */
	u32 buf[];	 /* the arguments, as vbin_printf() stores them */
};

struct bputs_entry {
	struct trace_entry ent;
	unsigned long ip;
	const char *str;
};

struct raw_data_entry {
	struct trace_entry ent;
	unsigned int id;
	char buf[];
};

/* The line of a trace_printk() or marker record (trace_printk.c); false for any other type. */
bool trace_printk_print(struct seq_file *m, struct trace_iterator *it);
void trace_printk_files_init(void);

/* One event being printed: which CPU, when, and its bytes. */
struct trace_iterator {
	struct trace_array
		*tr; /* whose buffer: its options shape the line (NULL: the global one's) */
	int cpu;
	u64 ts;
	struct trace_entry *ent;
	u32 len;
	u64 lost; /* events lost on this CPU just before this one (trace_pipe) */
	/* The next event on the same CPU, if the reader can see it (function_graph's leaves). */
	struct trace_entry *next;
	u32 next_len;
	bool skip_next; /* set by print_line: the next event was printed with this one */
	u64 next_ts;	/* the next event's time on this CPU (0: none), for latency-format */
	u64 time_start; /* the buffer's time_start in ns: latency-format counts from it */
	/* annotate: `trace`'s CPUs that have printed (NULL: no annotation, the buffer never
	 * overran), and this event's index in the output (Linux's iter->idx). */
	bool *started;
	u64 idx;
};

struct trace_array;
struct tracer {
	const char *name;
	int (*init)(void);
	void (*reset)(void);
	/* Set by a tracer an instance may run (Linux's allow_instances): start and stop it on tr. */
	int (*instance_init)(struct trace_array *tr);
	void (*instance_reset)(struct trace_array *tr);
	void (*print_header)(struct seq_file *m); /* NULL: the function tracer's header */
	/* The latency tracers' (Linux's): it swaps the max buffer itself, so the user's snapshot
	 * commands get EBUSY (use_max_tr), and `trace` shows the max buffer (print_max). */
	bool use_max_tr, print_max;
	/* An option of tr changed while this tracer runs tr, from trace_options or options/
	 * (Linux's flag_changed): 0, or -errno and the option is put back. */
	int (*option_changed)(struct trace_array *tr, int option, bool on);
	/* Prints one event; returns false if the event is not one this tracer knows. */
	bool (*print_line)(struct seq_file *m, struct trace_iterator *it);
	/* latency-format's column header after the latency header; false: the usual one. */
	bool (*print_lat_header)(struct seq_file *m);
	struct tracer *next;
};

/* trace_options and options/: the switches we have (trace_options.c lists them in Linux's
 * order: the general ones, then the tracers'). */
enum trace_option_bit {
	TRACE_OPT_FUNC_STACK_TRACE,
	TRACE_OPT_GRAPH_PROC,
	TRACE_OPT_GRAPH_DURATION,
	TRACE_OPT_GRAPH_IRQS,
	TRACE_OPT_GRAPH_TAIL,
	TRACE_OPT_GRAPH_RETVAL,
	TRACE_OPT_GRAPH_ABSTIME,
	TRACE_OPT_USERSTACKTRACE,
	TRACE_OPT_EVENT_FORK,
	TRACE_OPT_FUNCTION_FORK,
	TRACE_OPT_PRINT_PARENT,
	TRACE_OPT_SYM_OFFSET,
	TRACE_OPT_SYM_ADDR,
	TRACE_OPT_VERBOSE,
	TRACE_OPT_RAW,
	TRACE_OPT_CONTEXT_INFO,
	TRACE_OPT_LATENCY_FMT, /* latency-format: trace_lat_output.c */
	TRACE_OPT_RECORD_CMD,
	TRACE_OPT_IRQ_INFO,
	TRACE_OPT_MARKERS,
	TRACE_OPT_FUNCTION_TRACE, /* the latency tracers' (Linux's function-trace) */
	TRACE_OPT_DISPLAY_GRAPH,  /* the same, graph output */
	TRACE_OPT_PRINTK,	  /* trace_printk() records */
	TRACE_OPT_PRINTK_MSGONLY, /* ... printed as their text alone */
	TRACE_OPT_STACKTRACE,	  /* a stack trace after each event (trace_event_stack_options()) */
	TRACE_OPT_HEX,		  /* hex and bin: the record's fields as hex digits or bytes */
	TRACE_OPT_BIN,
	TRACE_OPT_ANNOTATE,	/* "##### CPU N buffer started ####" after overruns */
	TRACE_OPT_RECORD_TGID,	/* saved_tgids and the TGID column (trace_tgid.c) */
	TRACE_OPT_OVERWRITE,	/* off: a full buffer refuses new events (ring_buffer.c) */
	TRACE_OPT_STOP_ON_FREE, /* disable_on_free: closing free_buffer also turns tracing off */
	TRACE_OPT_BLOCK,	/* a poll of trace_pipe always says readable (trace_pipe_read.c) */
	TRACE_OPT_PAUSE_ON_TRACE, /* reading `trace` holds the writers off (trace_output.c) */
	TRACE_OPT_SYM_USEROBJ,	  /* userstacktrace's addresses as object[+offset] */
	TRACE_OPT_HASH_PTR,	  /* an event's %p printed hashed (trace_hash_ptr.c) */
	TRACE_OPT_GRAPH_OVERRUN,  /* funcgraph-overrun: "(Overruns: N)" after a return's `}` */
	TRACE_OPT_GRAPH_CPU,	  /* funcgraph-cpu: the " N) " column */
	TRACE_OPT_GRAPH_OVERHEAD, /* funcgraph-overhead: the + ! # * @ $ duration marks */
	NR_TRACE_OPTS
};
/* Linux's defaults: these on, the rest off. */
#define TRACE_DEFAULT_OPTIONS                                                                      \
	((1UL << TRACE_OPT_GRAPH_DURATION) | (1UL << TRACE_OPT_GRAPH_IRQS) |                       \
	 (1UL << TRACE_OPT_PRINT_PARENT) | (1UL << TRACE_OPT_CONTEXT_INFO) |                       \
	 (1UL << TRACE_OPT_RECORD_CMD) | (1UL << TRACE_OPT_IRQ_INFO) |                             \
	 (1UL << TRACE_OPT_MARKERS) | (1UL << TRACE_OPT_FUNCTION_TRACE) |                          \
	 (1UL << TRACE_OPT_PRINTK) | (1UL << TRACE_OPT_ANNOTATE) | (1UL << TRACE_OPT_OVERWRITE) |  \
	 (1UL << TRACE_OPT_HASH_PTR) | (1UL << TRACE_OPT_GRAPH_CPU) |                              \
	 (1UL << TRACE_OPT_GRAPH_OVERHEAD))
/* trace_options and options/ in an array's directory (trace_options.c); 0 or -ENOMEM. */
int trace_options_create(struct fnode *dir);
/* trace_clock and timestamp_mode in dir (trace_clock.c); tracing_set_clock() is the write. */
int trace_clock_create_files(struct fnode *dir);
/* tracing_cpumask in dir (trace_cpumask.c). */
int trace_cpumask_create(struct fnode *dir);
int tracing_set_clock(struct trace_array *tr, const char *name);

/* Who and where the section in an array's max buffer was (Linux's max_data of __update_max_tr()):
 * the latency tracers' header prints it (trace_lat_output.c). */
struct trace_max_data {
	int cpu;
	int pid;
	char comm[TASK_COMM_LEN];
	int policy, rt_priority;		    /* its class, for the header's task line */
	unsigned long saved_latency;		    /* ns, tr->max_latency when it was taken */
	unsigned long critical_start, critical_end; /* the section's first and last function */
	u64 time_start;				    /* TSC when the section began */
};

struct trace_array {
	struct trace_buffer buffer;
	struct tracer *current_trace;
	/* The tracers' fast paths (arch/x86/ftrace_fast.asm) read these bytes with one compare.
	 * Each trace array has its own: the trampolines find it through their ops (ops->private). */
	union {
		u16 fn_gate;	/* the function tracer's: tracing_on set, fn_slow clear: 0x0001 */
		u32 graph_gate; /* function_graph's: graph_slow clear too: 0x00000001 */
		struct {
			bool tracing_on;
			u8 fn_slow;    /* set_ftrace_pid has a list, or func_stack_trace is on */
			u8 graph_slow; /* anything function_graph's fast path does not do (below) */
			u8 gate_zero;  /* always 0 */
		};
	};
	unsigned long buffer_kb;
	unsigned long
		buffer_percent; /* how full a CPU's part wakes its pollers (trace_pipe_raw.c) */
	unsigned long options;	/* a bit per enum trace_option_bit */
	int pids[32];		/* set_ftrace_pid; nr_pids == 0: every task */
	int nr_pids;
	unsigned long cpumask_off; /* CPUs tracing_cpumask took out (trace_cpumask.c) */
	int notrace_pids[32];	   /* set_ftrace_notrace_pid: never these, even if in pids */
	int nr_notrace_pids;
	/* The snapshot, Linux's max_tr: a buffer like the live one, NULL until allocated
	 * (kernel/trace/trace_snapshot.c). */
	struct trace_buffer *max_buffer;
	unsigned long max_latency; /* tracing_max_latency, in ns */
	struct trace_max_data max_data;
	/* Instances (trace_instances.c); the global one is id 0, its dir the top directory. */
	int id;		   /* its bit in an event's instances mask, its slot in trace_arrays[] */
	struct fnode *dir; /* instances/<name>/ */
	struct ftrace_ops *ops; /* the function tracer's ops: its set_ftrace_filter and notrace */
	struct ftrace_func_probes *func_probes; /* its function commands (ftrace_probe.c) */
	struct trace_event_file *event_files;	/* its events' filters and triggers */
	struct ftrace_mod_load *mod_trace, *mod_notrace; /* pending :mod: commands (ftrace_mod.c) */
	int event_pids[32]; /* set_event_pid of an instance (the global one's: event_pids) */
	int event_notrace_pids[32]; /* set_event_notrace_pid of an instance */
	int nr_event_notrace_pids;
	int nr_event_pids;
	struct trace_err_log *err_log; /* an instance's error_log, NULL until its first error */
};

extern struct trace_array global_trace;
/* Every trace array by id, NULL where none; the global one at 0. Changed under trace_types_lock
 * only (mkdir, rmdir), read by the event write path, which an instance outlives (rmdir waits). */
#define TRACE_ARRAY_MAX 64
extern struct trace_array *trace_arrays[TRACE_ARRAY_MAX];
/* The trace array whose directory holds f (walking up), the global one if none. */
struct trace_array *trace_array_of(const struct fnode *f);
/* Sets fn_slow and graph_slow from what they sum up; after a write to any of it. */
void trace_update_fn_slow(void);
void trace_array_update_fn_slow(struct trace_array *tr);
/* graph_slow: 0 only while the function_graph tracer is fgraph's user with the defaults its fast
 * path assumes (trace_functions_graph.c). */
void trace_graph_update_slow(void);

static __always_inline bool trace_option(enum trace_option_bit o)
{
	return READ_ONCE(global_trace.options) & (1UL << o);
}

/* Sets an option of tr as a tracer does for itself (irqsoff turns latency-format on), with no
 * option_changed call (trace_options.c); trace_set_option() for the global array's. */
void trace_array_set_option(struct trace_array *tr, enum trace_option_bit o, bool on);
static inline void trace_set_option(enum trace_option_bit o, bool on)
{
	trace_array_set_option(&global_trace, o, on);
}

void register_tracer(struct tracer *t);
/* What a write to current_tracer does: reset the old tracer, empty the buffer, start the new. */
int tracing_set_tracer(const char *name);
void trace_init(void);

/* Fills the common fields for an event made now, in this context (irq_flags: as before the
 * buffer turned interrupts off). Inline: it runs for every traced call. Everything but the type
 * and the irqs-off bit is this CPU's trace_ctx, kept up to date where it changes (percpu.h). */
static __always_inline void tracing_generic_entry_update(struct trace_entry *ent, u16 type,
							 unsigned long irq_flags,
							 int preempt_adjust)
{
	/* irqs-off set, then cleared again if IF (bit 9) was: shifted by 7 it lands on bit 16 */
	u64 ctx = (this_cpu_read(trace_ctx) | type | TRACE_FLAG_IRQS_OFF << 16) ^
		  (irq_flags & X86_EFLAGS_IF) << 7;

	__builtin_memcpy(ent, &ctx, sizeof(ctx)); /* one 8-byte store, wherever the event sits */
	if (preempt_adjust)
		ent->preempt_count += preempt_adjust;
}
bool trace_pid_listed(void);
/* A pid file's write (set_ftrace_pid, set_event_pid): space-separated pids of live tasks (0: the
 * idle tasks); `>` replaces the list, `>>` (FS_APPEND) adds to cur. The new count into out, or
 * -EINVAL (bad number, no such task, more than max) with nothing decided. */
/* event-fork / function-fork: follow a listed parent's children (trace_pid_fork.c). */
struct task;
void trace_pids_fork(struct task *parent, struct task *child);
void trace_pids_exit(struct task *t);
int trace_parse_pid_list(const char *buf, size_t len, unsigned int flags, const int *cur, int ncur,
			 int *out, int max);
/* True if the current task passes set_ftrace_pid (no list: everyone, without a call). */
static __always_inline bool trace_pid_wanted(void)
{
	return !(READ_ONCE(global_trace.nr_pids) | READ_ONCE(global_trace.nr_notrace_pids)) ||
	       trace_pid_listed();
}
bool trace_array_pid_listed(struct trace_array *tr);
/* The same for any trace array's set_ftrace_pid. */
static __always_inline bool trace_array_pid_wanted(struct trace_array *tr)
{
	return !(READ_ONCE(tr->nr_pids) | READ_ONCE(tr->nr_notrace_pids)) ||
	       trace_array_pid_listed(tr);
}
static __always_inline bool trace_array_option(struct trace_array *tr, enum trace_option_bit o)
{
	return READ_ONCE(tr->options) & (1UL << o);
}
/* record-tgid (trace_tgid.c): the scheduler records the task it switches to while some array has
 * the option on; 0 for a pid not recorded. */
void trace_record_tgid(const struct task *t);
int trace_find_tgid(int pid);
void trace_tgid_option_changed(bool on);
void trace_tgid_init(void);
/* buffer_size_kb's write: every CPU's ring of tr (and its max buffer) resized to kb, keeping the
 * newest events that fit; 0 or -errno. */
int buffer_size_set(struct trace_array *tr, unsigned long kb);
/* free_buffer (trace_free_buffer.c) in an array's directory; 0 or -ENOMEM. */
int trace_free_buffer_create(struct fnode *dir);
/* buffer_percent (trace_pipe_raw.c) */
int trace_buffer_percent_create(struct fnode *dir);
/* The name to print for a pid (saved when its task first traced something). */
void trace_save_cmdline(int pid, const char *comm);
/* The same, replacing a name already saved: a task renamed itself (execve, prctl PR_SET_NAME). */
void trace_update_cmdline(int pid, const char *comm);
const char *trace_find_cmdline(int pid);
/* The table behind them (kernel/trace/trace_saved_cmdlines.c): a ring of SAVED_CMDLINES slots, a
 * new pid taking the oldest. The pid in slot (its name into comm), or -1 if the slot is free. Pid
 * 0 is never listed: it is <idle>. */
#define SAVED_CMDLINES 128
int trace_saved_cmdline_at(unsigned int slot, char *comm);
/* saved_cmdlines_size: the slots now (SAVED_CMDLINES at boot), and a write's resize. */
unsigned int trace_saved_cmdlines_size(void);
int trace_resize_saved_cmdlines(unsigned long n);

/* Output helpers shared by tracers (kernel/trace/trace_output.c). */
void trace_print_context(struct seq_file *m, struct trace_iterator *it);
void print_func_help_header(struct seq_file *m, bool irq_info, bool tgid);
bool trace_print_default(struct seq_file *m, struct trace_iterator *it);

void trace_functions_init(void);
struct ftrace_ops;
/* The function tracer's callback: records each call into op->private, a struct trace_array
 * (any instance: its own trampoline does the same, arch/x86/ftrace_fast.asm). */
void function_trace_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			 struct pt_regs *regs);
/* After an event kept in tr: the stacktrace and userstacktrace options' records (trace_events.c). */
void trace_event_stack_options(struct trace_array *tr);
/* The first frame of an event's stack: the one that hit the tracepoint (its return lands in the
 * tracepoint's iterator, __traceiter_*), for __trace_record_stack(). */
bool trace_frame_in_traceiter(unsigned long ret, unsigned long unused);
void trace_array_record_event_stack(struct trace_array *tr);
/* A stack trace event, from the traced function at ip outwards (the stacktrace command). */
void trace_record_stack(unsigned long ip);
void trace_array_record_stack(struct trace_array *tr, unsigned long ip);
/* The same from the first frame whose return address is_first(ret, arg) accepts. */
void __trace_record_stack(bool (*is_first)(unsigned long ret, unsigned long arg),
			  unsigned long arg);
/* The same into tr's buffer (the latency tracers run in instances too). */
void trace_array_record_stack_from(struct trace_array *tr,
				   bool (*is_first)(unsigned long ret, unsigned long arg),
				   unsigned long arg);
/* The return addresses of the caller's stack, its own first (at most max), to be recorded later
 * as a stack trace event of tr's buffer (timerlat's print_stack). */
int trace_save_stack(unsigned long *calls, int max);
void trace_record_saved_stack(struct trace_array *tr, const unsigned long *calls, int n);
/* What trace and trace_pipe print, from every CPU (-1) or one (per_cpu/cpuN/): the global
 * array's, or tr's. */
int trace_show_cpu(struct seq_file *m, int only_cpu);
int trace_array_show_cpu(struct trace_array *tr, struct seq_file *m, int only_cpu);
struct rb_iter;
/* The oldest event across the CPUs' iterators (only_cpu >= 0: that CPU only), its time in ns;
 * false at the end. */
bool trace_next_event(struct rb_iter *its, int only_cpu, struct trace_iterator *it);
/* The same from any buffer of tr (its max buffer: snapshot), with the given header printer. */
typedef void (*trace_header_fn)(struct seq_file *m, struct trace_array *tr, struct trace_buffer *b,
				u64 skipped);
int trace_show_buffer(struct trace_array *tr, struct seq_file *m, struct trace_buffer *b,
		      int only_cpu, trace_header_fn header);
/* trace's own header: `# tracer:`, then the tracer's, the latency or the function tracer's
 * columns as tr's options say (skipped: events before the buffer's time_start, not shown). */
void trace_print_header(struct seq_file *m, struct trace_array *tr, struct trace_buffer *b,
			u64 skipped);
/* latency-format (trace_lat_output.c): the header, and the context a line starts with. */
void trace_latency_header(struct seq_file *m, struct trace_array *tr, struct trace_buffer *b,
			  u64 skipped);
void trace_print_lat_context(struct seq_file *m, struct trace_iterator *it);
/* The five flag columns of a latency line (irqs-off ... migrate-disable), Linux's trace_print_lat_fmt(). */
void trace_print_lat_fmt(struct seq_file *m, const struct trace_entry *e);
void print_graph_lat_header(struct seq_file *m, int size);

/* display-graph (trace_functions_graph.c): what a graph line shows, as Linux's TRACE_GRAPH_PRINT_*;
 * function_graph takes them from its options, the latency tracers use GRAPH_LATENCY_FLAGS. */
enum {
	GRAPH_PRINT_ABS_TIME = 1,
	GRAPH_PRINT_REL_TIME = 2,
	GRAPH_PRINT_PROC = 4,
	GRAPH_PRINT_DURATION = 8,
	GRAPH_PRINT_OVERHEAD = 16,
	GRAPH_PRINT_TAIL = 32,
	GRAPH_PRINT_RETVAL = 64,
	GRAPH_PRINT_LAT = 128,
	GRAPH_PRINT_CPU = 256,
	GRAPH_PRINT_OVERRUN = 512
};
#define GRAPH_LATENCY_FLAGS                                                                        \
	(GRAPH_PRINT_REL_TIME | GRAPH_PRINT_CPU | GRAPH_PRINT_PROC | GRAPH_PRINT_DURATION |        \
	 GRAPH_PRINT_LAT)
bool print_graph_function_flags(struct seq_file *m, struct trace_iterator *it, u32 flags);
void print_graph_headers_flags(struct seq_file *m, u32 flags);
/* A tracer's own entry as a comment line of that layout, body printing what it holds. */
bool print_graph_comment_flags(struct seq_file *m, struct trace_iterator *it, u32 flags,
			       void (*body)(struct seq_file *m, struct trace_iterator *it));
/* A graph entry and a graph return into tr (trace_functions_graph.c). */
void trace_graph_record_entry(struct trace_array *tr, unsigned long func, int depth);
struct ftrace_graph_ret;
void trace_graph_record_return(struct trace_array *tr, const struct ftrace_graph_ret *ret);
/* A stack entry's function name, as `<stack trace>` lines show it (trace_output.c). */
const char *stack_entry_name(unsigned long addr);
char trace_hardsoft_irq(u8 flags);
int trace_pipe_cpu(struct seq_file *m, int only_cpu);
int trace_array_pipe_cpu(struct trace_array *tr, struct seq_file *m, int only_cpu);
/* One reader's place in tr's trace_pipe (kernel/trace/trace_pipe.c): trace_pipe_open() starts
 * it, each trace_pipe_step() prints the oldest unread event into m (false: none now). The shell's
 * cat loops on it until Ctrl-C; a program's read() (kernel/trace/trace_pipe_read.c) until its
 * buffer has something. */
#define PIPE_EVENT_MAX 1200
struct trace_pipe_state {
	struct rb_iter its[NR_CPUS];
	u64 seen_overrun[NR_CPUS];
	/* Each CPU's next event, taken ahead: the oldest of them is printed first. */
	struct trace_pipe_pending {
		bool have;
		u64 ts, lost;
		u32 len;
		union {
			struct trace_entry ent;
			u8 bytes[PIPE_EVENT_MAX];
		} ev;
	} pending[NR_CPUS];
	u8 next[PIPE_EVENT_MAX]; /* the event after the printed one, for a look-ahead */
};
void trace_pipe_open(struct trace_array *tr, struct trace_pipe_state *st);
bool trace_pipe_step(struct trace_array *tr, struct seq_file *m, int only_cpu,
		     struct trace_pipe_state *st);
struct file_operations;
extern const struct file_operations trace_pipe_fops, trace_pipe_cpu_fops, trace_pipe_raw_fops;
/* trace_pipe's and trace_pipe_raw's poll (trace_pipe_read.c): pending, something already taken. */
struct poll_table_struct;
unsigned int trace_pipe_poll_cpu(struct file *f, struct poll_table_struct *pt, int cpu,
				 bool pending);
/* The N of a file in per_cpu/cpuN/ (kernel/trace/trace_per_cpu.c). */
int trace_file_cpu(struct fnode *f);
/* What a write to an instance's current_tracer does (nop, or a tracer with instance_init). */
int trace_array_set_tracer(struct trace_array *tr, const char *name);
/* Records an event into tr's buffer (NULL if refused), as trace_reserve() into the global one. */
void *trace_array_reserve(struct trace_array *tr, struct rb_reserve *r, u16 type, u32 len,
			  unsigned long irq_flags);
/* The files every trace array has (trace.c), made in an instance's directory, and their
 * removal; the instances/ directory (trace_instances.c). */
int trace_array_create_files(struct fnode *dir);
void trace_array_remove_files(struct fnode *dir);
int trace_per_cpu_create(struct fnode *top);
int ftrace_create_instance_files(struct fnode *dir);
void trace_instances_init(void);
/* A new instance's state, as the global one's at boot: nop, tracing on, default options. */
void trace_array_defaults(struct trace_array *tr);
/* Prints every CPU's buffer (or one CPU's) on the console and stops tracing (dump, cpudump;
 * trace_dump.c). */
void trace_dump(int only_cpu);
/* ftrace_dump_on_oops: 0 off, 1 every CPU's buffer, 2 the faulting CPU's (orig_cpu). Dumped by
 * die() on an Oops and by panic(), once; and by a serial BREAK (sysrq-z), on demand. */
extern unsigned long ftrace_dump_on_oops;
void ftrace_dump_oops(void);
void trace_dump_init(void);
void trace_readme_init(void);
/* The command line's tracing parameters (trace_boot.c), once every tracing file exists. */
void trace_boot_init(void);
void trace_functions_graph_init(void);
void trace_per_cpu_init(void);
/* trace_pipe_raw's read of any buffer's part (the live one, or the max buffer's snapshot_raw). */
int trace_pipe_raw_cpu(struct seq_file *m, struct trace_buffer *b, int cpu);
void trace_export_files_init(void);
void ftrace_profile_init(void);
void stack_trace_init(void);

#define KSYM_BUF 160
/* Records an event of len bytes made now; NULL if refused (buffer off, nested). */
void *trace_reserve(struct rb_reserve *r, u16 type, u32 len, unsigned long irq_flags, int adjust);
/* This CPU's part of tr's buffer: one load and one add, for any trace instance (the assembly
 * does the same with PC_TRACE_BUF_OFF). Set up by trace_init(). */
static __always_inline struct ring_buffer_per_cpu *trace_array_cpu_buffer(struct trace_array *tr)
{
	return (void *)tr + this_cpu_read(trace_buf_off);
}

/* The same inline, for tracers that run on every traced call and have tested tracing_on: the
 * event's flags are the interrupt state the caller had (saved by the reserve). */
static __always_inline void *trace_event_reserve(struct trace_array *tr, struct rb_reserve *r,
						 u16 type, u32 len)
{
	if (!__rb_reserve_fast(trace_array_cpu_buffer(tr), len, r) &&
	    !ring_buffer_lock_reserve_slow(&tr->buffer, len, r))
		return NULL;
	tracing_generic_entry_update(r->data, type, r->flags, 0);
	return r->data;
}

#endif
