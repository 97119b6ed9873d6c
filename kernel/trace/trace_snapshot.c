/* The snapshot (max) buffer: Linux's max_tr, a second buffer per CPU swapped with the live one.
 *
 *   snapshot                   read: the max buffer, in trace's format (empty: Linux's help);
 *                              write 0: free it; 1: allocate it if needed, then swap it with
 *                              the live buffer; any other number: empty it (if allocated)
 *   per_cpu/cpuN/snapshot      the same for one CPU's part (0 is EINVAL there, as Linux)
 *   per_cpu/cpuN/snapshot_raw  that CPU's max-buffer pages, binary, as trace_pipe_raw (EBUSY
 *                              while a latency tracer owns the buffer, as Linux)
 *
 *     live  (global_trace.buffer)  cpu0 [pages A]  cpu1 [pages B]       after update_max_tr():
 *     max   (global_trace.max_buffer) cpu0 [pages C]  cpu1 [pages D]    live C D, max A B
 *
 * The swap trades each CPU's descriptor (ring_buffer_swap()): the pages never move, so taking a
 * snapshot costs the same whatever the buffer's size. A latency tracer (use_max_tr) calls
 * update_max_tr() at each new maximum; the user's commands then get EBUSY, as in Linux.
 */
#include "kernel/trace/trace_snapshot.h"
#include "kernel/fs/tracefs.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

/* Orders swaps with the notes about them, and with a free or resize of the max buffer. */
static DEFINE_SPINLOCK(max_lock);

/* A buffer like tr's live one, so the two can be swapped: its size, its clock. */
static struct trace_buffer *snapshot_buffer_alloc(struct trace_array *tr, unsigned long kb)
{
	struct trace_buffer *b = kzalloc(sizeof(*b));

	if (b && ring_buffer_alloc(b, kb)) {
		kfree(b);
		return NULL;
	}
	if (b) {
		ring_buffer_set_clock(b, tr->buffer.clock);
		ring_buffer_change_overwrite(b, trace_array_option(tr, TRACE_OPT_OVERWRITE));
	}
	return b;
}

int tracing_alloc_snapshot_instance(struct trace_array *tr)
{
	struct trace_buffer *b;

	if (tr->max_buffer)
		return 0;
	b = snapshot_buffer_alloc(tr, tr->buffer_kb);
	if (!b)
		return -ENOMEM;
	unsigned long flags = spin_lock_irqsave(&max_lock);
	__atomic_store_n(&tr->max_buffer, b, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&max_lock, flags);
	return 0;
}

void free_snapshot(struct trace_array *tr)
{
	unsigned long flags = spin_lock_irqsave(&max_lock);
	struct trace_buffer *b = tr->max_buffer;

	/* A swap reads the pointer under the lock: after this no CPU can reach the pages. */
	WRITE_ONCE(tr->max_buffer, NULL);
	spin_unlock_irqrestore(&max_lock, flags);
	if (b) {
		ring_buffer_free(b);
		kfree(b);
	}
}

void trace_snapshot_set_clock(struct trace_array *tr, const struct trace_clock *clock)
{
	if (tr->max_buffer)
		ring_buffer_set_clock(tr->max_buffer, clock);
}

int tracing_resize_max_buffer(struct trace_array *tr, unsigned long kb, int cpu)
{
	/* Held off by the resize, a swap waits for it (or it for the swap): never half of each. */
	return tr->max_buffer ? ring_buffer_resize(tr->max_buffer, kb, cpu) : 0;
}

/* What __update_max_tr() notes in Linux: the task that caused it, where, and the section. */
static void note_max(struct trace_array *tr, struct task *task, int cpu,
		     const struct max_section *s)
{
	struct trace_max_data *d = &tr->max_data;

	d->cpu = cpu;
	d->pid = task ? task->pid : 0;
	strscpy(d->comm, task && task->pid ? task->comm : "<idle>", sizeof(d->comm));
	d->policy = task ? task->policy : 0;
	d->rt_priority = task ? task->rt_priority : 0;
	if (s)
		tr->max_latency = s->latency;
	d->saved_latency = tr->max_latency;
	d->critical_start = s ? s->critical_start : 0;
	d->critical_end = s ? s->critical_end : 0;
	d->time_start = s ? s->time_start : 0;
	/* Readers start the max buffer at the section's start (0, a snapshot's: everything). The
	 * latency tracers time sections with the TSC: under a clock that is not, nothing skipped. */
	tr->max_buffer->time_start = tr->max_buffer->clock->read ? 0 : d->time_start;
}

/* Linux's trace_array_printk_buf() into the max buffer: a print line that says the swap failed. */
static void max_buffer_puts(struct trace_buffer *b, const char *text)
{
	size_t len = strlen(text);
	struct rb_reserve r;
	struct print_entry *p;

	if (!ring_buffer_lock_reserve(b, sizeof(*p) + len + 1, &r))
		return; /* a reader holds it: Linux's write is refused the same way */
	p = r.data;
	tracing_generic_entry_update(&p->ent, TRACE_PRINT, r.flags, 0);
	p->ip = (unsigned long)update_max_tr_single;
	memcpy(p->buf, text, len + 1);
	ring_buffer_unlock_commit(&r);
}

/*
 * Linux's: a swap refused because this CPU's commit was interrupted (EBUSY) still notes the section,
 * and says in the max buffer that its trace is missing; refused by a reader or a resize (EAGAIN),
 * nothing changes, as nothing does in Linux while tracing is stopped for a reader.
 */
static int swap_and_note(struct trace_array *tr, struct task *task, int cpu, int swap_cpu,
			 const struct max_section *s)
{
	int err = -ENODEV;

	spin_lock(&max_lock);
	if (tr->max_buffer)
		err = ring_buffer_swap(&tr->buffer, tr->max_buffer, swap_cpu);
	if (err == -EBUSY && s)
		max_buffer_puts(tr->max_buffer,
				"Failed to swap buffers due to commit in progress\n");
	if (!err || (err == -EBUSY && s))
		note_max(tr, task, cpu, s);
	spin_unlock(&max_lock);
	return err;
}

int update_max_tr(struct trace_array *tr, struct task *task, int cpu, const struct max_section *s)
{
	return swap_and_note(tr, task, cpu, -1, s);
}

int update_max_tr_single(struct trace_array *tr, struct task *task, int cpu,
			 const struct max_section *s)
{
	return swap_and_note(tr, task, cpu, cpu, s);
}

/* A snapshot taken by the user, not at a section's end: nothing to skip, no section to name. */
static int update_max_tr_snapshot(struct trace_array *tr, struct task *task, int cpu, int swap_cpu)
{
	return swap_cpu < 0 ? update_max_tr(tr, task, cpu, NULL)
			    : update_max_tr_single(tr, task, swap_cpu, NULL);
}

/* Linux's trace_array_puts(): a line of text in the live buffer, as trace_marker writes. */
static void snapshot_puts(const char *text)
{
	size_t len = strlen(text);
	struct rb_reserve r;
	struct print_entry *p = trace_reserve(&r, TRACE_PRINT, sizeof(*p) + len + 1, 0, 0);

	if (!p)
		return;
	p->ip = (unsigned long)tracing_snapshot_instance;
	memcpy(p->buf, text, len + 1);
	ring_buffer_unlock_commit(&r);
}

void tracing_snapshot_instance(struct trace_array *tr)
{
	unsigned long flags;

	if (this_cpu_read(nmi_depth)) {
		snapshot_puts("*** SNAPSHOT CALLED FROM NMI CONTEXT ***\n");
		snapshot_puts("*** snapshot is being ignored        ***\n");
		return;
	}
	if (!READ_ONCE(tr->max_buffer)) {
		snapshot_puts("*** SNAPSHOT NOT ALLOCATED ***\n");
		snapshot_puts("*** stopping trace here!   ***\n");
		WRITE_ONCE(tr->tracing_on, false);
		return;
	}
	if (tr->current_trace->use_max_tr) {
		snapshot_puts("*** LATENCY TRACER ACTIVE ***\n");
		snapshot_puts("*** Can not use snapshot (sorry) ***\n");
		return;
	}
	flags = local_irq_save();
	update_max_tr_snapshot(tr, current, smp_processor_id(), -1);
	local_irq_restore(flags);
}

void tracing_snapshot(void)
{
	tracing_snapshot_instance(&global_trace);
}

int tracing_snapshot_alloc(void)
{
	int err = tracing_alloc_snapshot_instance(&global_trace);

	if (!err)
		tracing_snapshot();
	return err;
}

/* --- the files ---------------------------------------------------------------------------- */

#define ALL_CPUS (-1)

static int file_cpu(struct fnode *f)
{
	return f->priv == (void *)ALL_CPUS ? ALL_CPUS : (int)(long)f->parent->priv;
}

static bool buffer_empty(struct trace_buffer *b, int only_cpu)
{
	for (int c = 0; c < NR_CPUS; c++) {
		struct ring_buffer_per_cpu *cb = &b->cpu[c];
		if ((only_cpu < 0 || c == only_cpu) && cb->entries - cb->overrun - cb->read)
			return false;
	}
	return true;
}

static void snapshot_help(struct seq_file *m, struct trace_array *tr, int only_cpu)
{
	bool allocated = tr->max_buffer != NULL;

	seq_printf(m, "# tracer: %s\n#\n", tr->current_trace->name);
	seq_printf(m, "#\n# * Snapshot is %s *\n#\n", allocated ? "allocated" : "freed");
	seq_puts(m, "# Snapshot commands:\n");
	if (only_cpu < 0) {
		seq_puts(m, "# echo 0 > snapshot : Clears and frees snapshot buffer\n"
			    "# echo 1 > snapshot : Allocates snapshot buffer, if not already "
			    "allocated.\n"
			    "#                      Takes a snapshot of the main buffer.\n"
			    "# echo 2 > snapshot : Clears snapshot buffer (but does not allocate "
			    "or free)\n");
	} else {
		seq_puts(
			m,
			"# echo 0 > snapshot : Invalid for per_cpu snapshot file.\n"
			"# echo 1 > snapshot : Allocates snapshot buffer, if not already "
			"allocated.\n"
			"#                      Takes a snapshot of the main buffer for this cpu.\n"
			"# echo 2 > snapshot : Clears this cpu's snapshot buffer (but does not "
			"allocate)\n");
	}
	seq_puts(m, "#                      (Doesn't have to be '2' works with any number that\n"
		    "#                       is not a '0' or '1')\n");
}

/* tracing_max_latency, in each array's directory: shown in us, kept in ns; a write sets it
 * (0: start over), as Linux's. */
static int max_latency_show(struct seq_file *m, struct fnode *f)
{
	seq_printf(m, "%lu\n", READ_ONCE(trace_array_of(f)->max_latency) / 1000);
	return 0;
}

static int max_latency_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	unsigned long us;

	if (fs_write_ulong(buf, len, 0, ~0UL / 1000, &us))
		return -EINVAL;
	WRITE_ONCE(trace_array_of(f)->max_latency, us * 1000);
	return 0;
}

static int snapshot_show(struct seq_file *m, struct fnode *f)
{
	struct trace_array *tr = trace_array_of(f);
	struct trace_buffer *b = tr->max_buffer;
	int cpu = file_cpu(f);

	if (!b || buffer_empty(b, cpu)) {
		snapshot_help(m, tr, cpu);
		return 0;
	}
	return trace_show_buffer(tr, m, b, cpu, trace_print_header);
}

/* The switch of Linux's tracing_snapshot_write(); tr's state is untouched on any error. */
static int snapshot_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_array *tr = trace_array_of(f);
	int cpu = file_cpu(f), err = 0;
	unsigned long val, irq;
	char text[24];

	if (fs_write_text(text, sizeof(text), buf, len) || kstrtoul(text, 10, &val))
		return -EINVAL;
	if (tr->current_trace->use_max_tr)
		return -EBUSY;
	switch (val) {
	case 0:
		if (cpu != ALL_CPUS)
			return -EINVAL;
		free_snapshot(tr);
		return 0;
	case 1:
		err = tracing_alloc_snapshot_instance(tr);
		if (err)
			return err;
		irq = local_irq_save();
		err = update_max_tr_snapshot(tr, current, smp_processor_id(), cpu);
		local_irq_restore(irq);
		return err == -EAGAIN ? -EBUSY : err;
	default:
		if (!tr->max_buffer)
			return 0;
		ring_buffer_record_off(tr->max_buffer);
		for (int c = 0; c < NR_CPUS; c++)
			if ((cpu == ALL_CPUS || c == cpu) && tr->max_buffer->cpu[c].pages)
				ring_buffer_reset_cpu(tr->max_buffer, c);
		ring_buffer_record_on(tr->max_buffer);
		return 0;
	}
}

/* Linux's snapshot_raw_open(): EBUSY while a latency tracer owns the max buffer, whose pages
 * update_max_tr() may swap away under the reader; the user's snapshot is read as trace_pipe_raw. */
static int snapshot_raw_show(struct seq_file *m, struct fnode *f)
{
	struct trace_array *tr = trace_array_of(f);
	struct trace_buffer *b = tr->max_buffer;

	if (tr->current_trace->use_max_tr)
		return -EBUSY;
	return b ? trace_pipe_raw_cpu(m, b, file_cpu(f)) : 0;
}

static const struct file_ops snapshot_fops = { .show = snapshot_show, .write = snapshot_write };
static const struct file_ops snapshot_raw_fops = { .show = snapshot_raw_show, .binary = true };

static const struct file_ops max_latency_fops = { .show = max_latency_show,
						  .write = max_latency_write };

/* In dir, an array's directory (the top one or an instance's, as Linux's init_tracer_tracefs()
 * makes them): snapshot, tracing_max_latency and per_cpu/cpuN/snapshot{,_raw}; per_cpu/ exists. */
int trace_snapshot_create_files(struct fnode *dir)
{
	struct fnode *per_cpu = fs_lookup(dir, "per_cpu", 7);
	char name[16];

	if (!tracefs_create_file("snapshot", dir, (void *)ALL_CPUS, &snapshot_fops) ||
	    !tracefs_create_file("tracing_max_latency", dir, NULL, &max_latency_fops) || !per_cpu)
		return -ENOMEM;
	for (int cpu = 0; cpu < nr_cpus_possible && cpu < NR_CPUS; cpu++) {
		struct fnode *d;

		snprintf(name, sizeof(name), "cpu%d", cpu);
		d = fs_lookup(per_cpu, name, strlen(name));
		if (!d || !tracefs_create_file("snapshot", d, NULL, &snapshot_fops) ||
		    !tracefs_create_file("snapshot_raw", d, NULL, &snapshot_raw_fops))
			return -ENOMEM;
	}
	return 0;
}

void trace_snapshot_init(void)
{
	if (trace_snapshot_create_files(global_trace.dir))
		pr_err("trace: cannot create snapshot files\n");
}
