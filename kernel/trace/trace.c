/* The tracing core and its files: the buffer, the current tracer, and the `trace` output.
 *
 *   current_tracer   which tracer fills the buffer (nop, function)    available_tracers lists them
 *   tracing_on       1: events are recorded, 0: the buffer is left as it is
 *   trace            the buffer, oldest first, merged across CPUs, read while the writers run
 *                    (pause-on-trace: they wait); `echo > trace` empties it
 *   trace_pipe       the same lines, consumed as they are read; waits for more until Ctrl-C
 *   buffer_size_kb   pages per CPU, in KiB        trace_marker   write a line into the trace
 *   set_ftrace_pid   only these tasks are traced (empty: all)
 */
#include "kernel/trace/trace.h"
#include "kernel/locking/mutex.h"
#include "arch/x86/cpu.h"
#include "kernel/fs/tracefs.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/shell/shell.h"
#include "kernel/smp.h"
#include "kernel/trace/ftrace.h"
#include "kernel/trace/trace_snapshot.h"
#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_events_trigger.h"
#include "kernel/trace/trace_irqsoff.h"
#include "kernel/trace/trace_osnoise.h"
#include "kernel/mm/mm.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/string.h"

/* Linux's defaults: funcgraph-duration and funcgraph-irqs on, the rest off. */
struct trace_array global_trace = { .tracing_on = true,
				    .ops = &global_ops,
				    .graph_slow = 1,
				    .buffer_kb = RB_DEFAULT_KB,
				    .buffer_percent = 50,
				    .options = TRACE_DEFAULT_OPTIONS };
struct trace_array *trace_arrays[TRACE_ARRAY_MAX] = { &global_trace };
static struct tracer *trace_types;
static DEFINE_MUTEX(trace_lock);

static struct tracer nop_trace = { .name = "nop" };

void trace_array_defaults(struct trace_array *tr)
{
	tr->current_trace = &nop_trace;
	tr->tracing_on = true;
	tr->graph_slow = 1;
	tr->buffer_kb = RB_DEFAULT_KB;
	tr->buffer_percent = 50; /* Linux 6.1's default */
	tr->options = TRACE_DEFAULT_OPTIONS;
}

void register_tracer(struct tracer *t)
{
	t->next = trace_types;
	trace_types = t;
}

void *trace_array_reserve(struct trace_array *tr, struct rb_reserve *r, u16 type, u32 len,
			  unsigned long irq_flags)
{
	if (!READ_ONCE(tr->tracing_on) || !ring_buffer_lock_reserve(&tr->buffer, len, r))
		return NULL;
	tracing_generic_entry_update(r->data, type, irq_flags ? irq_flags : r->flags, 0);
	return r->data;
}

void *trace_reserve(struct rb_reserve *r, u16 type, u32 len, unsigned long irq_flags, int adjust)
{
	if (!READ_ONCE(global_trace.tracing_on) ||
	    !ring_buffer_lock_reserve(&global_trace.buffer, len, r))
		return NULL;
	tracing_generic_entry_update(r->data, type, irq_flags ? irq_flags : r->flags, adjust);
	return r->data;
}

static bool pid_in_list(const int *pids, int n, int pid)
{
	for (int i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* Linux's rule: in set_ftrace_pid (or it is empty) and not in set_ftrace_notrace_pid. */
bool trace_array_pid_listed(struct trace_array *tr)
{
	int pid = current ? current->pid : 0, n = READ_ONCE(tr->nr_pids);

	return (!n || pid_in_list(tr->pids, n, pid)) &&
	       !pid_in_list(tr->notrace_pids, READ_ONCE(tr->nr_notrace_pids), pid);
}

bool trace_pid_listed(void)
{
	return trace_array_pid_listed(&global_trace);
}

/* A frame pointer we may follow: inside the kernel half, aligned, and going up the stack. */
static bool frame_usable(unsigned long fp, unsigned long below)
{
	return fp >= PAGE_OFFSET && !(fp & 7) && fp > below && fp - below < 64 * 1024;
}

/*
 * A stack trace event: our own frames are walked up to the first whose return address is_first()
 * accepts, and recorded from there on (Linux skips a fixed count of its own frames instead; a
 * count would break whenever gcc inlines differently).
 */
static void record_stack(struct trace_array *tr,
			 bool (*is_first)(unsigned long ret, unsigned long arg), unsigned long arg)
{
	struct rb_reserve r;
	struct stack_entry *e = trace_array_reserve(tr, &r, TRACE_STACK, sizeof(*e), 0);
	unsigned long fp = (unsigned long)__builtin_frame_address(0), prev = fp - 8;
	bool found = false;

	if (!e)
		return;
	e->size = 0;
	for (int depth = 0; depth < 32 && frame_usable(fp, prev) && e->size < FTRACE_STACK_ENTRIES;
	     depth++) {
		unsigned long ret = ((unsigned long *)fp)[1];
		found = found || is_first(ret, arg);
		if (found)
			e->caller[e->size++] = ret;
		prev = fp;
		fp = ((unsigned long *)fp)[0];
	}
	ring_buffer_unlock_commit(&r);
}

int trace_save_stack(unsigned long *calls, int max)
{
	unsigned long fp = (unsigned long)__builtin_frame_address(0), prev = fp - 8;
	int n = 0;

	for (int depth = 0; depth < 32 && frame_usable(fp, prev) && n < max; depth++) {
		calls[n++] = ((unsigned long *)fp)[1];
		prev = fp;
		fp = ((unsigned long *)fp)[0];
	}
	return n;
}

void trace_record_saved_stack(struct trace_array *tr, const unsigned long *calls, int n)
{
	struct rb_reserve r;
	struct stack_entry *e = trace_array_reserve(tr, &r, TRACE_STACK, sizeof(*e), 0);

	if (!e)
		return;
	e->size = MIN(n, FTRACE_STACK_ENTRIES);
	memcpy(e->caller, calls, e->size * sizeof(*calls));
	ring_buffer_unlock_commit(&r);
}

/* ftrace_caller's fake frame for the traced function: its return address is ip + 5. */
static bool returns_to_site(unsigned long ret, unsigned long ip)
{
	return ret == ip + MCOUNT_INSN_SIZE;
}

void __trace_record_stack(bool (*is_first)(unsigned long ret, unsigned long arg), unsigned long arg)
{
	record_stack(&global_trace, is_first, arg);
}

void trace_array_record_event_stack(struct trace_array *tr)
{
	record_stack(tr, trace_frame_in_traceiter, 0);
}

void trace_array_record_stack_from(struct trace_array *tr,
				   bool (*is_first)(unsigned long ret, unsigned long arg),
				   unsigned long arg)
{
	record_stack(tr, is_first, arg);
}

void trace_record_stack(unsigned long ip)
{
	record_stack(&global_trace, returns_to_site, ip);
}

void trace_array_record_stack(struct trace_array *tr, unsigned long ip)
{
	record_stack(tr, returns_to_site, ip);
}

/* --- trace: every CPU's events, oldest first (merged by trace_output.c) ------------------ */

/* A latency tracer's trace is its worst section: the max buffer (Linux's print_max). */
int trace_show_cpu(struct seq_file *m, int only_cpu)
{
	return trace_array_show_cpu(&global_trace, m, only_cpu);
}

/* A latency tracer's trace is its worst section: tr's max buffer (Linux's print_max). */
int trace_array_show_cpu(struct trace_array *tr, struct seq_file *m, int only_cpu)
{
	struct trace_buffer *b =
		tr->current_trace->print_max && tr->max_buffer ? tr->max_buffer : &tr->buffer;

	return trace_show_buffer(tr, m, b, only_cpu, trace_print_header);
}

static int trace_show(struct seq_file *m, struct fnode *f)
{
	return trace_array_show_cpu(trace_array_of(f), m, -1);
}

static int trace_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_array *tr = trace_array_of(f);

	if (!(flags & FS_TRUNC))
		return 0;
	/* As Linux: what `trace` shows is what empties, the max buffer under a latency tracer. */
	if (tr->current_trace->print_max && tr->max_buffer)
		ring_buffer_reset(tr->max_buffer);
	else
		ring_buffer_reset(&tr->buffer);
	return 0;
}

/* --- trace_pipe (trace_pipe.c) ---------------------------------------------------------- */

static int trace_pipe_show(struct seq_file *m, struct fnode *f)
{
	return trace_array_pipe_cpu(trace_array_of(f), m, -1);
}

/* --- small files ------------------------------------------------------------------------- */

static int tracing_on_show(struct seq_file *m, struct fnode *f)
{
	seq_printf(m, "%d\n", trace_array_of(f)->tracing_on);
	return 0;
}

static int tracing_on_set(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	unsigned long v;

	if (fs_write_ulong(buf, len, 0, ~0UL, &v))
		return -EINVAL;
	/* Linux takes any number: non-zero is on */
	WRITE_ONCE(trace_array_of(f)->tracing_on, v != 0);
	return 0;
}

/* Linux's trace_ok_for_array(): an instance lists only the tracers it may run. */
static bool tracer_ok_for_array(const struct tracer *t, const struct trace_array *tr)
{
	return tr == &global_trace || t == &nop_trace || t->instance_init;
}

static int available_tracers_show(struct seq_file *m, struct fnode *f)
{
	struct trace_array *tr = trace_array_of(f);
	bool first = true;

	for (struct tracer *t = trace_types; t; t = t->next)
		if (tracer_ok_for_array(t, tr)) {
			seq_printf(m, "%s%s", first ? "" : " ", t->name);
			first = false;
		}
	seq_putc(m, '\n');
	return 0;
}

static int current_tracer_show(struct seq_file *m, struct fnode *f)
{
	seq_printf(m, "%s\n", trace_array_of(f)->current_trace->name);
	return 0;
}

static int current_tracer_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char name[32];

	if (fs_write_text(name, sizeof(name), buf, len))
		return -EINVAL;
	if (text_patch_busy())
		return -EBUSY; /* patch_step holds ftrace_lock until the shell says `next` */
	return trace_array_set_tracer(trace_array_of(f), name);
}

int tracing_set_tracer(const char *name)
{
	struct tracer *t;
	int err = 0;

	for (t = trace_types; t && strcmp(t->name, name); t = t->next)
		;
	if (!t)
		return -EINVAL;
	mutex_lock(&trace_lock);
	if (t != global_trace.current_trace) {
		bool had_max_tr = global_trace.current_trace->use_max_tr;

		/* As Linux: a tracer that swaps the max buffer gets one, and takes it away again. */
		if (t->use_max_tr && !had_max_tr) {
			err = tracing_alloc_snapshot_instance(&global_trace);
			if (err)
				goto out;
		}
		if (global_trace.current_trace->reset)
			global_trace.current_trace->reset();
		global_trace.current_trace = &nop_trace;
		if (had_max_tr && !t->use_max_tr)
			free_snapshot(&global_trace);
		/* Linux empties the buffer when the tracer changes. */
		ring_buffer_reset(&global_trace.buffer);
		err = t->init ? t->init() : 0;
		if (!err)
			global_trace.current_trace = t;
	}
out:
	mutex_unlock(&trace_lock);
	return err;
}

/*
 * An instance runs nop or a tracer that says it can run on any trace array (Linux refuses the
 * others with EINVAL too); the same steps as above on tr.
 */
int trace_array_set_tracer(struct trace_array *tr, const char *name)
{
	struct tracer *t;
	int err = 0;

	if (tr == &global_trace)
		return tracing_set_tracer(name);
	for (t = trace_types; t && strcmp(t->name, name); t = t->next)
		;
	if (!t || !tracer_ok_for_array(t, tr))
		return -EINVAL;
	mutex_lock(&trace_lock);
	if (t != tr->current_trace) {
		bool had_max_tr = tr->current_trace->use_max_tr;

		if (t->use_max_tr && !had_max_tr) {
			err = tracing_alloc_snapshot_instance(tr);
			if (err)
				goto out;
		}
		if (tr->current_trace->instance_reset)
			tr->current_trace->instance_reset(tr);
		tr->current_trace = &nop_trace;
		if (had_max_tr && !t->use_max_tr)
			free_snapshot(tr);
		ring_buffer_reset(&tr->buffer);
		err = t->instance_init ? t->instance_init(tr) : 0;
		if (!err)
			tr->current_trace = t;
	}
out:
	mutex_unlock(&trace_lock);
	return err;
}

static int buffer_size_show(struct seq_file *m, struct fnode *f)
{
	struct trace_array *tr = trace_array_of(f);

	if (tr->buffer.nr_pages < 0)
		seq_puts(m, "X\n"); /* Linux's answer while per_cpu/cpuN/buffer_size_kb differ */
	else
		seq_printf(m, "%lu\n", tr->buffer_kb);
	return 0;
}

/* Linux's resize keeps what is recorded: the newest events that fit stay (ring_buffer_resize). */
int buffer_size_set(struct trace_array *tr, unsigned long kb)
{
	int err = ring_buffer_resize(&tr->buffer, kb, -1);

	/* The max buffer keeps the live one's size, so the two can always be swapped: if it cannot
	 * follow (no memory, or `cat snapshot` reading it), the live one goes back. */
	if (!err && (err = tracing_resize_max_buffer(tr, kb, -1)))
		ring_buffer_resize(&tr->buffer, tr->buffer_kb, -1);
	if (!err)
		tr->buffer_kb = kb;
	return err;
}

static int buffer_size_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	unsigned long kb;

	if (fs_write_ulong(buf, len, 8, 16384, &kb))
		return -EINVAL;
	/* Linux's tracing_entries_write() says ENOMEM of any refused resize, EBUSY under a reader too */
	return buffer_size_set(trace_array_of(f), kb) ? -ENOMEM : 0;
}

/* Linux's name: the print event's ip names it, and trace-cmd prints that name for the line. */
/*
 * events/ftrace/print's triggers on a marker's record (Linux's tracing_mark_write() calls them on
 * the reserved event): run on a copy after the commit, so that a snapshot trigger takes the
 * buffer with this line in it, and a hist reads the record while nothing can overwrite it.
 */
static int tracing_mark_triggers(struct trace_event_file *file, struct rb_reserve *r, u32 size)
{
	void *copy = kmalloc(size);

	if (copy)
		memcpy(copy, r->data, size);
	ring_buffer_unlock_commit(r);
	if (copy) {
		unsigned long irq = local_irq_save(); /* as on the tracing path: the triggers'
							* RCU-like freeing waits for it */
		event_triggers_call(file, copy, size);
		local_irq_restore(irq);
	}
	kfree(copy);
	return 0;
}

static int tracing_mark_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_array *tr = trace_array_of(f);
	struct trace_event_file *file; /* ftrace/print's in tr: an instance's first one */
	struct rb_reserve r;
	unsigned long irq = read_flags();

	if (!trace_array_option(tr, TRACE_OPT_MARKERS))
		return -EINVAL; /* markers off: Linux refuses the write */
	if (!tr->tracing_on)
		return 0;
	len = MIN(len, (size_t)1024);
	if (!ring_buffer_lock_reserve(&tr->buffer, sizeof(struct print_entry) + len + 1, &r))
		return 0;
	struct print_entry *p = r.data;
	tracing_generic_entry_update(&p->ent, TRACE_PRINT, irq, 0);
	p->ip = (unsigned long)tracing_mark_write;
	memcpy(p->buf, buf, len);
	p->buf[len] = '\0';
	file = tr == &global_trace ? &trace_marker_call->file : READ_ONCE(tr->event_files);
	if (file && READ_ONCE(file->triggers))
		return tracing_mark_triggers(file, &r, sizeof(struct print_entry) + len + 1);
	ring_buffer_unlock_commit(&r);
	return 0;
}

void trace_array_update_fn_slow(struct trace_array *tr)
{
	WRITE_ONCE(tr->fn_slow, tr->nr_pids || tr->nr_notrace_pids ||
					trace_array_option(tr, TRACE_OPT_FUNC_STACK_TRACE));
	if (tr == &global_trace)
		trace_graph_update_slow(); /* funcgraph-irqs is an option too */
}

void trace_update_fn_slow(void)
{
	trace_array_update_fn_slow(&global_trace);
}

/* set_ftrace_pid's list, or set_ftrace_notrace_pid's: the file's name says which. */
static int *pid_list_of(struct fnode *f, int **nr)
{
	struct trace_array *tr = trace_array_of(f);
	bool no = !strcmp(f->name, "set_ftrace_notrace_pid");

	*nr = no ? &tr->nr_notrace_pids : &tr->nr_pids;
	return no ? tr->notrace_pids : tr->pids;
}

static int pid_show(struct seq_file *m, struct fnode *f)
{
	int *nr, *list = pid_list_of(f, &nr);

	for (int i = 0; i < *nr; i++)
		seq_printf(m, "%d\n", list[i]);
	return 0;
}

int trace_parse_pid_list(const char *buf, size_t len, unsigned int flags, const int *cur, int ncur,
			 int *out, int max)
{
	char text[256], *p = text, *tok;
	int n = 0;

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	if (flags & FS_APPEND) {
		n = ncur;
		memcpy(out, cur, n * sizeof(int));
	}
	while ((tok = strsep(&p, " \t")) != NULL) {
		int pid;
		if (!*tok)
			continue;
		if (kstrtoint(tok, 10, &pid) || pid < 0 || (pid && !find_task(pid)) || n == max)
			return -EINVAL;
		out[n++] = pid;
	}
	return n;
}

static int pid_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_array *tr = trace_array_of(f);
	int pids[ARRAY_SIZE(tr->pids)];
	int *nr, *list = pid_list_of(f, &nr);
	int n = trace_parse_pid_list(buf, len, flags, list, *nr, pids, ARRAY_SIZE(pids));

	if (n < 0)
		return n;
	WRITE_ONCE(*nr, 0); /* writers see no list while it changes */
	memcpy(list, pids, n * sizeof(int));
	__atomic_store_n(nr, n, __ATOMIC_RELEASE);
	trace_array_update_fn_slow(tr);
	return 0;
}

/* Every trace array's: the top directory's and each instance's (the file's directory says
 * which, trace_array_of()). */
static const struct tracefs_file trace_files[] = {
	TRACEFS_FILE("trace", trace_show, trace_write),
	{ .name = "trace_pipe", .fops = { .show = trace_pipe_show, .fops = &trace_pipe_fops } },
	TRACEFS_FILE("tracing_on", tracing_on_show, tracing_on_set),
	TRACEFS_FILE("available_tracers", available_tracers_show, NULL),
	TRACEFS_FILE("current_tracer", current_tracer_show, current_tracer_write),
	TRACEFS_FILE("buffer_size_kb", buffer_size_show, buffer_size_write),
	TRACEFS_FILE("trace_marker", NULL, tracing_mark_write),
	TRACEFS_FILE("set_ftrace_pid", pid_show, pid_write),
	TRACEFS_FILE("set_ftrace_notrace_pid", pid_show, pid_write),
};

int trace_array_create_files(struct fnode *dir)
{
	return tracefs_create_files(dir, trace_files, ARRAY_SIZE(trace_files))
		       ?: trace_options_create(dir) ?: trace_clock_create_files(dir) ?:
		       trace_cpumask_create(dir) ?: trace_free_buffer_create(dir) ?:
		       trace_buffer_percent_create(dir);
}

void trace_array_remove_files(struct fnode *dir)
{
	tracefs_remove_files(dir, trace_files, ARRAY_SIZE(trace_files));
}

void trace_init(void)
{
	if (ring_buffer_alloc(&global_trace.buffer, global_trace.buffer_kb))
		pr_err("tracing: no memory for the ring buffer\n");
	/* Where each CPU's part sits in any trace array: one load and one add find it. */
	for (int c = 0; c < NR_CPUS; c++)
		percpu_area[c].trace_buf_off = __builtin_offsetof(struct trace_array, buffer.cpu) +
					       c * sizeof(struct ring_buffer_per_cpu);
	register_tracer(&nop_trace);
	global_trace.current_trace = &nop_trace;
	trace_functions_init();
	trace_functions_graph_init();
	ftrace_profile_init();
	stack_trace_init();
	trace_preemptirq_init();
	trace_irqsoff_init();
	trace_wakeup_init();
	trace_hwlat_init();
	trace_osnoise_init();
	global_trace.dir = tracefs_create_path("/sys/kernel/tracing");
	if (trace_array_create_files(global_trace.dir))
		pr_err("tracing: cannot create the tracing files\n");
	trace_per_cpu_init();
	trace_snapshot_init();
	trace_export_files_init();
	trace_tgid_init();
	trace_printk_files_init();
	trace_dump_init();
	trace_readme_init();
	trace_instances_init();
}
