/* The function_graph tracer: an entry event and a return event per call, printed as nested C.
 *
 *  # CPU  DURATION                  FUNCTION CALLS
 *  # |     |   |                     |   |   |   |
 *   1)               |  vfs_open() {
 *   1)   0.912 us    |    path_lookup();            <- a leaf: entry and return on one line
 *   1)   3.104 us    |  }
 */
#include "kernel/trace/trace.h"
#include "kernel/fs/tracefs.h"
#include "kernel/time.h"
#include "arch/x86/cpu.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"
#include "kernel/trace/fgraph.h"
#include "kernel/trace/ftrace.h"
#include "kernel/trace/trace_events.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

#define TRACE_GRAPH_INDENT 2

unsigned long tracing_thresh; /* ns; non-zero: only calls at least this long, returns only */

/*
 * set_graph_function: if not empty, only these functions and what they call are graphed.
 * set_graph_notrace: these functions and what they call are not. Both are counted per task
 * (entries of listed functions still running), so a listed function's children know.
 */
static struct ftrace_hash *graph_hash, *graph_notrace_hash;
static bool graph_tracer_on; /* this tracer is fgraph's user (not the function profiler) */
static struct fgraph_ops graph_ops;

/* The trace array the tracer writes to, through its ops as the function tracer's: the global one. */
static struct trace_array *graph_array(void)
{
	return READ_ONCE(graph_ops.private);
}

/*
 * graph_slow sums up what function_graph's assembly fast path (arch/x86/ftrace_fast.asm) does not
 * do: it is 0 only while this tracer is fgraph's user, funcgraph-irqs is on, set_graph_function
 * and set_graph_notrace are empty, tracing_thresh is 0 and max_graph_depth is the shadow
 * stack's own. Then graph_entry() and graph_return() below would only write their events, which
 * the fast path writes the same way; otherwise every call comes here. Called after a write to
 * any of them.
 */
void trace_graph_update_slow(void)
{
	bool fast = READ_ONCE(graph_tracer_on) && trace_option(TRACE_OPT_GRAPH_IRQS) &&
		    ftrace_hash_empty(READ_ONCE(graph_hash)) &&
		    ftrace_hash_empty(READ_ONCE(graph_notrace_hash)) &&
		    !READ_ONCE(tracing_thresh) &&
		    (!fgraph_max_depth || fgraph_max_depth >= FTRACE_RETFUNC_DEPTH);

	WRITE_ONCE(graph_array()->graph_slow, !fast);
}

/* ftrace_lookup_hash() with its first test inline: both hashes are usually empty. */
static __always_inline bool in_hash(const struct ftrace_hash *hash, unsigned long func)
{
	return !ftrace_hash_empty(hash) && ftrace_lookup_hash(hash, func);
}

/* Returns false if the call must not be graphed; counts entries of listed functions. */
static bool graph_filter_entry(struct fgraph_task *g, unsigned long func, bool *record)
{
	struct ftrace_hash *only = READ_ONCE(graph_hash), *skip = READ_ONCE(graph_notrace_hash);

	*record = true;
	if (g->in_notrace || in_hash(skip, func)) {
		/* Hook the return all the same, to know when the excluded call is over. */
		if (in_hash(skip, func))
			g->in_notrace++;
		*record = false;
		return g->in_notrace > 0 && in_hash(skip, func);
	}
	if (ftrace_hash_empty(only))
		return true;
	if (ftrace_lookup_hash(only, func))
		g->in_graph_func++;
	return g->in_graph_func > 0;
}

static bool graph_entry(struct ftrace_graph_ent *trace, struct fgraph_ops *gops)
{
	struct trace_array *tr = gops->private;
	struct fgraph_task *g = current->fgraph;
	bool record;

	if (!READ_ONCE(tr->tracing_on) || !trace_array_pid_wanted(tr))
		return false;
	if (!trace_option(TRACE_OPT_GRAPH_IRQS) && (this_cpu()->irq_depth || this_cpu()->nmi_depth))
		return false; /* funcgraph-irqs off: interrupts are not traced */
	if (!graph_filter_entry(g, trace->func, &record))
		return false;
	if (!record)
		return true; /* a set_graph_notrace function: its return is hooked, never shown */
	if (tracing_thresh)
		return true; /* hook the return; only it is recorded, if long enough */
	trace_graph_record_entry(tr, trace->func, trace->depth);
	return true;
}

void trace_graph_record_entry(struct trace_array *tr, unsigned long func, int depth)
{
	struct rb_reserve r;
	struct ftrace_graph_ent_entry *e = trace_event_reserve(tr, &r, TRACE_GRAPH_ENT, sizeof(*e));

	if (e) {
		e->func = func;
		e->depth = depth;
		ring_buffer_unlock_commit(&r);
	}
}

void trace_graph_record_return(struct trace_array *tr, const struct ftrace_graph_ret *trace)
{
	struct rb_reserve r;
	struct ftrace_graph_ret_entry *e = trace_event_reserve(tr, &r, TRACE_GRAPH_RET, sizeof(*e));

	if (e) {
		e->func = trace->func;
		e->depth = trace->depth;
		e->overrun = trace->overrun;
		/* Nanoseconds in the event, as Linux records them whatever the trace clock: a reader of
		 * the raw pages (trace-cmd) prints rettime - calltime as ns without asking the clock. */
		e->calltime = tsc_to_ktime(trace->calltime);
		e->rettime = tsc_to_ktime(trace->rettime);
		e->retval = trace->retval;
		ring_buffer_unlock_commit(&r);
	}
}

static void graph_return(struct ftrace_graph_ret *trace, struct fgraph_ops *gops)
{
	struct trace_array *tr = gops->private;
	struct fgraph_task *g = current->fgraph;

	if (in_hash(READ_ONCE(graph_notrace_hash), trace->func) && g->in_notrace) {
		g->in_notrace--;
		return;
	}
	if (in_hash(READ_ONCE(graph_hash), trace->func) && g->in_graph_func)
		g->in_graph_func--;
	if (!READ_ONCE(tr->tracing_on))
		return;
	if (tracing_thresh && tsc_to_ns(trace->rettime - trace->calltime) < tracing_thresh)
		return;
	trace_graph_record_return(tr, trace);
}

static struct fgraph_ops graph_ops = {
	.entryfunc = graph_entry,
	.retfunc = graph_return,
	.private = &global_trace,
};

/* --- output ------------------------------------------------------------------------------ */

/* What has been printed on each CPU: the function entered at each depth, the last task. */
static struct {
	unsigned long enter_funcs[FTRACE_RETFUNC_DEPTH];
	int depth; /* of the code the last line left us in: where a comment is indented */
	int last_pid;
	bool in_irq;
} graph_cpu[NR_CPUS];
static u32 gflags; /* GRAPH_PRINT_*: what the lines being printed show */

/* function_graph's columns, from its options. */
static u32 graph_option_flags(void)
{
	return (trace_option(TRACE_OPT_GRAPH_OVERRUN) ? GRAPH_PRINT_OVERRUN : 0) |
	       (trace_option(TRACE_OPT_GRAPH_CPU) ? GRAPH_PRINT_CPU : 0) |
	       (trace_option(TRACE_OPT_GRAPH_OVERHEAD) ? GRAPH_PRINT_OVERHEAD : 0) |
	       (trace_option(TRACE_OPT_GRAPH_ABSTIME) ? GRAPH_PRINT_ABS_TIME : 0) |
	       (trace_option(TRACE_OPT_GRAPH_PROC) ? GRAPH_PRINT_PROC : 0) |
	       (trace_option(TRACE_OPT_GRAPH_DURATION) ? GRAPH_PRINT_DURATION : 0) |
	       (trace_option(TRACE_OPT_GRAPH_TAIL) ? GRAPH_PRINT_TAIL : 0) |
	       (trace_option(TRACE_OPT_GRAPH_RETVAL) ? GRAPH_PRINT_RETVAL : 0);
}

/* Linux's __print_graph_headers_flags(): columns come and go with the flags. */
void print_graph_headers_flags(struct seq_file *m, u32 flags)
{
	bool lat = flags & GRAPH_PRINT_LAT;

	for (int c = 0; c < NR_CPUS; c++)
		graph_cpu[c].last_pid = -1, graph_cpu[c].in_irq = false, graph_cpu[c].depth = 0;
	if (lat) /* the flag columns' legend, past the columns before them */
		print_graph_lat_header(m, (flags & GRAPH_PRINT_ABS_TIME ? 16 : 0) +
						  (flags & GRAPH_PRINT_REL_TIME ? 16 : 0) +
						  (flags & GRAPH_PRINT_CPU ? 4 : 0) +
						  (flags & GRAPH_PRINT_PROC ? 17 : 0));
	seq_printf(m, "#%s%s%s%s%s%s               FUNCTION CALLS\n",
		   flags & GRAPH_PRINT_ABS_TIME ? "     TIME       " : "",
		   flags & GRAPH_PRINT_REL_TIME ? "   REL TIME     " : "",
		   flags & GRAPH_PRINT_CPU ? " CPU" : "",
		   flags & GRAPH_PRINT_PROC ? "  TASK/PID       " : "", lat ? "||||   " : "",
		   flags & GRAPH_PRINT_DURATION ? "  DURATION   " : "");
	seq_printf(m, "#%s%s%s%s%s%s               |   |   |   |\n",
		   flags & GRAPH_PRINT_ABS_TIME ? "      |         " : "",
		   flags & GRAPH_PRINT_REL_TIME ? "      |         " : "",
		   flags & GRAPH_PRINT_CPU ? " |  " : "",
		   flags & GRAPH_PRINT_PROC ? "   |    |        " : "", lat ? "||||   " : "",
		   flags & GRAPH_PRINT_DURATION ? "   |   |      " : "");
}

static void print_graph_headers(struct seq_file *m)
{
	print_graph_headers_flags(m, graph_option_flags());
}

static char trace_find_mark(u64 ns)
{
	static const struct {
		u64 ns;
		char mark;
	} marks[] = { { 1000000000ULL, '$' }, { 100000000ULL, '@' }, { 10000000ULL, '*' },
		      { 1000000ULL, '#' },    { 100000ULL, '!' },    { 10000ULL, '+' } };

	for (size_t i = 0; i < ARRAY_SIZE(marks); i++)
		if (ns > marks[i].ns)
			return marks[i].mark;
	return ' ';
}

/* "  0.912 us    |  " or "+ 12.345 us   |  ": 14 columns before the bar, as Linux pads them. */
static void print_graph_duration(struct seq_file *m, u64 ns)
{
	char usecs[24], buf[32];
	int len = snprintf(usecs, sizeof(usecs), "%llu", ns / 1000);
	int n = snprintf(buf, sizeof(buf), "%c %s",
			 gflags & GRAPH_PRINT_OVERHEAD ? trace_find_mark(ns) : ' ', usecs);

	if (len < 7) {
		char nsecs[8];
		snprintf(nsecs, sizeof(nsecs), "%03llu", ns % 1000);
		nsecs[MIN(3, 7 - len)] = '\0'; /* never more than 7 digits in all */
		n += snprintf(buf + n, sizeof(buf) - n, ".%s", nsecs);
		len += strlen(nsecs) + 1;
	}
	seq_printf(m, "%s us ", buf);
	for (int i = len; i < 8; i++)
		seq_putc(m, ' ');
	seq_puts(m, "|  ");
}

static void print_graph_proc(struct seq_file *m, int pid)
{
	char comm[40];
	int len = snprintf(comm, sizeof(comm), "%s-%d", trace_find_cmdline(pid), pid);
	int spaces = 14 - len; /* Linux's TRACE_GRAPH_PROCINFO_SIZE */

	for (int i = 0; i < spaces / 2; i++)
		seq_putc(m, ' ');
	seq_puts(m, comm);
	for (int i = 0; i < spaces - spaces / 2; i++)
		seq_putc(m, ' ');
}

static void print_graph_cpu_proc(struct seq_file *m, struct trace_iterator *it);

/* Context lines: a task switch on this CPU, and entering or leaving interrupt context. */
static void print_graph_prologue(struct seq_file *m, struct trace_iterator *it)
{
	int cpu = it->cpu, pid = it->ent->pid;
	bool irq = it->ent->flags & (TRACE_FLAG_HARDIRQ | TRACE_FLAG_NMI);

	if (graph_cpu[cpu].last_pid != pid) {
		if (graph_cpu[cpu].last_pid >= 0) {
			seq_puts(m, " ------------------------------------------\n");
			seq_printf(m, " %d) ", cpu);
			print_graph_proc(m, graph_cpu[cpu].last_pid);
			seq_puts(m, " => ");
			print_graph_proc(m, pid);
			seq_puts(m, "\n ------------------------------------------\n\n");
		}
		graph_cpu[cpu].last_pid = pid;
	}
	if (irq != graph_cpu[cpu].in_irq) {
		if (gflags &
		    GRAPH_PRINT_LAT) /* Linux's print_graph_irq(): with the context columns */
			print_graph_cpu_proc(m, it);
		else if (gflags & GRAPH_PRINT_CPU)
			seq_printf(m, " %d) ", cpu);
		seq_printf(m, "  %s |\n", irq ? "==========>" : "<==========");
		graph_cpu[cpu].in_irq = irq;
	}
}

/* funcgraph-retval: the value in rax at the return; an error code (-4095..-1) in decimal. */
static void print_retval(struct seq_file *m, unsigned long retval, bool leaf, unsigned long func)
{
	long err = (long)retval >= -4095 && (long)retval < 0 ? (long)retval : 0;

	if (leaf)
		seq_printf(m, err ? "%ps(); /* = %ld */\n" : "%ps(); /* = 0x%lx */\n", (void *)func,
			   err ? err : (long)retval);
	else
		seq_printf(m, err ? "} /* %ps = %ld */\n" : "} /* %ps = 0x%lx */\n", (void *)func,
			   err ? err : (long)retval);
}

static void indent(struct seq_file *m, int depth)
{
	for (int i = 0; i < depth * TRACE_GRAPH_INDENT; i++)
		seq_putc(m, ' ');
}

/* The start of every graph line (Linux's print_graph_prologue()): the time, absolute or from the
 * section's start, " 1) ", the task, latency-format's flags. */
static void print_graph_cpu_proc(struct seq_file *m, struct trace_iterator *it)
{
	if (gflags & GRAPH_PRINT_ABS_TIME)
		seq_printf(m, "%5llu.%06llu |  ", it->ts / 1000000000ULL,
			   (it->ts / 1000) % 1000000);
	if (gflags & GRAPH_PRINT_REL_TIME)
		seq_printf(m, "%9llu us |  ",
			   (it->ts > it->time_start ? it->ts - it->time_start : 0) / 1000);
	if (gflags & GRAPH_PRINT_CPU)
		seq_printf(m, " %d) ", it->cpu);
	if (gflags & GRAPH_PRINT_PROC) {
		print_graph_proc(m, it->ent->pid);
		seq_puts(m, " | ");
	}
	if (gflags & GRAPH_PRINT_LAT) {
		seq_putc(m, ' ');
		trace_print_lat_fmt(m, it->ent);
		seq_puts(m, " | ");
	}
}

static void print_graph_time(struct seq_file *m, u64 ns)
{
	if (gflags & GRAPH_PRINT_DURATION)
		print_graph_duration(m, ns);
}

static bool print_graph_entry(struct seq_file *m, struct trace_iterator *it)
{
	const struct ftrace_graph_ent_entry *e = (const void *)it->ent;
	const struct ftrace_graph_ret_entry *r = (const void *)it->next;
	int d = MIN(e->depth, FTRACE_RETFUNC_DEPTH - 1);

	print_graph_cpu_proc(m, it);
	/* A leaf: its return is the very next event on this CPU, for the same task and call. */
	if (r && r->ent.type == TRACE_GRAPH_RET && r->ent.pid == e->ent.pid && r->func == e->func &&
	    r->depth == e->depth) {
		print_graph_time(m, r->rettime - r->calltime);
		indent(m, e->depth);
		if (gflags & GRAPH_PRINT_RETVAL)
			print_retval(m, r->retval, true, e->func);
		else
			seq_printf(m, "%ps();\n", (void *)e->func);
		it->skip_next = true;
		graph_cpu[it->cpu].enter_funcs[d] = 0;
		graph_cpu[it->cpu].depth = e->depth - 1;
		return true;
	}
	if (gflags & GRAPH_PRINT_DURATION)
		seq_puts(m, "              |  ");
	indent(m, e->depth);
	seq_printf(m, "%ps() {\n", (void *)e->func);
	graph_cpu[it->cpu].enter_funcs[d] = e->func;
	graph_cpu[it->cpu].depth = e->depth;
	return true;
}

static bool print_graph_return(struct seq_file *m, struct trace_iterator *it)
{
	const struct ftrace_graph_ret_entry *r = (const void *)it->ent;
	int d = MIN(r->depth, FTRACE_RETFUNC_DEPTH - 1);
	bool matched = graph_cpu[it->cpu].enter_funcs[d] == r->func;

	print_graph_cpu_proc(m, it);
	print_graph_time(m, r->rettime - r->calltime);
	indent(m, r->depth);
	/* No entry printed for it (lost, or before the trace began), or funcgraph-tail: name it. */
	if (gflags & GRAPH_PRINT_RETVAL)
		print_retval(m, r->retval, false, r->func);
	else if (matched && !(gflags & GRAPH_PRINT_TAIL))
		seq_puts(m, "}\n");
	else
		seq_printf(m, "} /* %ps */\n", (void *)r->func);
	if (gflags & GRAPH_PRINT_OVERRUN) /* as Linux: the return line only, never a leaf's */
		seq_printf(m, " (Overruns: %lu)\n", r->overrun);
	graph_cpu[it->cpu].enter_funcs[d] = 0;
	graph_cpu[it->cpu].depth = r->depth - 1;
	return true;
}

/* Any other event, as Linux's print_graph_comment() shows it: a C comment at the current depth;
 * body, if given, prints what the comment holds (a tracer's own entry). */
static bool print_graph_comment(struct seq_file *m, struct trace_iterator *it,
				void (*body)(struct seq_file *m, struct trace_iterator *it))
{
	int depth = graph_cpu[it->cpu].depth;

	print_graph_prologue(m, it);
	print_graph_cpu_proc(m, it);
	if (gflags & GRAPH_PRINT_DURATION)
		seq_puts(m, "              |  ");
	if (depth > 0) /* as Linux: one level deeper than the code it sits in, none at depth 0 */
		indent(m, depth + 1);
	seq_puts(m, "/* ");
	if (body) {
		body(m, it);
	} else if (it->ent->type == TRACE_STACK) {
		/* The latency tracers' stack: its lines as Linux prints them, the last newline out. */
		const struct stack_entry *st = (const void *)it->ent;

		seq_puts(m, "<stack trace>");
		for (int i = 0; i < st->size && i < FTRACE_STACK_ENTRIES; i++) {
			const char *name = stack_entry_name(st->caller[i]);

			if (name)
				seq_printf(m, "\n => %s", name);
			else
				seq_printf(m, "\n => 0x%lx", st->caller[i]);
		}
	} else {
		trace_event_print_inline(m, it->tr, it->ent);
	}
	seq_puts(m, " */\n");
	return true;
}

/* Linux's print_graph_function_flags(): one event in the graph layout the flags describe. */
bool print_graph_function_flags(struct seq_file *m, struct trace_iterator *it, u32 flags)
{
	gflags = flags;
	if (it->ent->type >= TRACE_EVENT_FIRST_ID ||
	    ((flags & GRAPH_PRINT_LAT) && it->ent->type == TRACE_STACK))
		return print_graph_comment(m, it, NULL);
	if (it->ent->type != TRACE_GRAPH_ENT && it->ent->type != TRACE_GRAPH_RET)
		return false;
	print_graph_prologue(m, it);
	return it->ent->type == TRACE_GRAPH_ENT ? print_graph_entry(m, it)
						: print_graph_return(m, it);
}

bool print_graph_comment_flags(struct seq_file *m, struct trace_iterator *it, u32 flags,
			       void (*body)(struct seq_file *m, struct trace_iterator *it))
{
	gflags = flags;
	return print_graph_comment(m, it, body);
}

static bool print_graph_line(struct seq_file *m, struct trace_iterator *it)
{
	return print_graph_function_flags(m, it, graph_option_flags());
}

static int graph_trace_init(void)
{
	int err;

	for (int c = 0; c < NR_CPUS; c++)
		graph_cpu[c].last_pid = -1;
	err = register_ftrace_graph(&graph_ops);
	WRITE_ONCE(graph_tracer_on, !err);
	trace_graph_update_slow();
	return err;
}

static void graph_trace_reset(void)
{
	WRITE_ONCE(graph_tracer_on, false);
	trace_graph_update_slow();
	unregister_ftrace_graph();
}

/*
 * No instance_init: Linux 6.1 lets function_graph run on the top-level array only (its graph_trace
 * has no allow_instances), so an instance neither lists it nor accepts it (EINVAL). 6.9 gave fgraph
 * several users and allowed it.
 */
static struct tracer graph_trace = {
	.name = "function_graph",
	.init = graph_trace_init,
	.reset = graph_trace_reset,
	.print_header = print_graph_headers,
	.print_line = print_graph_line,
};

/* max_graph_depth (0: as deep as the shadow stack) and tracing_thresh (microseconds, as Linux). */
static unsigned long depth_get(void *data)
{
	return fgraph_max_depth;
}

static int depth_set(void *data, unsigned long v)
{
	WRITE_ONCE(fgraph_max_depth, v);
	trace_graph_update_slow();
	return 0;
}

/* The file counts microseconds, as Linux's; the tracer compares nanoseconds. */
static unsigned long thresh_get(void *data)
{
	return tracing_thresh / 1000;
}

static int thresh_set(void *data, unsigned long v)
{
	WRITE_ONCE(tracing_thresh, v * 1000);
	trace_graph_update_slow();
	return 0;
}

/* set_graph_function / set_graph_notrace: set_ftrace_filter's syntax, applied to a graph set. */
static void reset_counts(struct task *t, void *arg)
{
	if (t->fgraph) {
		struct fgraph_task *g = t->fgraph;
		g->in_graph_func = g->in_notrace = 0;
	}
}

static int graph_set_write(struct ftrace_hash **slot, const char *buf, size_t len,
			   unsigned int flags)
{
	char text[1024];
	struct ftrace_hash *new, *old;
	int err = fs_write_text(text, sizeof(text), buf, len);

	if (err)
		return err;
	new = ftrace_build_hash(*slot, text, flags & FS_TRUNC, &err);
	if (!new)
		return err;
	old = *slot;
	WRITE_ONCE(graph_array()->graph_slow, 1); /* the fast path knows nothing of these sets */
	WRITE_ONCE(*slot, new);
	ftrace_synchronize(); /* no graph entry on another CPU still looks at the old set */
	free_ftrace_hash(old);
	for_each_task(reset_counts, NULL); /* counts of calls under the old set mean nothing now */
	trace_graph_update_slow();
	return 0;
}

static int graph_func_show(struct seq_file *m, struct fnode *f)
{
	ftrace_hash_show(m, graph_hash, "#### all functions enabled ####\n");
	return 0;
}

static int graph_func_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	return graph_set_write(&graph_hash, buf, len, flags);
}

static int graph_notrace_show(struct seq_file *m, struct fnode *f)
{
	ftrace_hash_show(m, graph_notrace_hash, "#### no functions disabled ####\n");
	return 0;
}

static int graph_notrace_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	return graph_set_write(&graph_notrace_hash, buf, len, flags);
}

#define T "/sys/kernel/tracing/"
static const struct tracefs_ulong depth = { .max = FTRACE_RETFUNC_DEPTH,
					    .get = depth_get,
					    .set = depth_set };
static const struct tracefs_ulong thresh = { .max = 10000000UL,
					     .get = thresh_get,
					     .set = thresh_set };
static const struct tracefs_file graph_files[] = {
	TRACEFS_ULONG(T "max_graph_depth", &depth),
	TRACEFS_ULONG(T "tracing_thresh", &thresh),
	TRACEFS_FILE(T "set_graph_function", graph_func_show, graph_func_write),
	TRACEFS_FILE(T "set_graph_notrace", graph_notrace_show, graph_notrace_write),
};

void trace_functions_graph_init(void)
{
	register_tracer(&graph_trace);
	tracefs_create_files(NULL, graph_files, ARRAY_SIZE(graph_files));
}
