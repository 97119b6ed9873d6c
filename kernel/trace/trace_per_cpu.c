/* per_cpu/cpuN/: one CPU's share of the buffer, as Linux lays it out.
 *
 *   trace            that CPU's events only (the same formatter as trace); `echo >` empties them
 *   trace_pipe       consumes that CPU's events only
 *   trace_pipe_raw   consumes whole data pages, binary (the shell: cat FILE > /dev/ttyS1;
 *                    programs: read(2), kernel/trace/trace_pipe_raw.c)
 *   buffer_size_kb   the pages of that CPU, in KiB; a write resizes this CPU alone, keeping the
 *                    newest events that fit (the top-level file then reads X)
 *   stats            Linux's counters, from struct ring_buffer_per_cpu
 *
 * One directory for each CPU the firmware listed, like Linux's possible CPUs; a CPU that never
 * came online has no pages, and its files read as empty.
 */
#include "kernel/trace/trace.h"
#include "kernel/trace/trace_snapshot.h"
#include "kernel/fs/tracefs.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/printf.h"

int trace_file_cpu(struct fnode *f)
{
	return (int)(long)f->parent->priv;
}

static int cpu_trace_show(struct seq_file *m, struct fnode *f)
{
	return trace_array_show_cpu(trace_array_of(f), m, trace_file_cpu(f));
}

static int cpu_trace_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_buffer *b = &trace_array_of(f)->buffer;
	int cpu = trace_file_cpu(f);

	if (!(flags & FS_TRUNC) || !b->cpu[cpu].pages)
		return 0;
	ring_buffer_record_off(b);
	ring_buffer_reset_cpu(b, cpu);
	ring_buffer_record_on(b);
	return 0;
}

static int cpu_trace_pipe_show(struct seq_file *m, struct fnode *f)
{
	return trace_array_pipe_cpu(trace_array_of(f), m, trace_file_cpu(f));
}

/*
 * Whole 4096-byte pages, oldest first, in events/header_page's layout; what is read is gone, as
 * from trace_pipe. Tracing must be off: then no writer races us and the newest page, partly
 * written, can be handed out too (its commit says how much is valid). A page the output cannot
 * take (out of memory) stays in the buffer: the read is short, not lossy.
 */
static u32 raw_peek_page(struct trace_buffer *b, struct ring_buffer_per_cpu *cb, void *page,
			 struct rb_page_pos *pos)
{
	unsigned long flags = spin_lock_irqsave(&b->reader_lock);
	u32 events = ring_buffer_peek_page(cb, page, pos);

	spin_unlock_irqrestore(&b->reader_lock, flags);
	return events;
}

int trace_pipe_raw_cpu(struct seq_file *m, struct trace_buffer *b, int cpu)
{
	struct ring_buffer_per_cpu *cb = &b->cpu[cpu];
	struct rb_page_pos pos;
	void *page;

	if (!cb->pages)
		return 0;
	page = kmalloc(PAGE_SIZE);
	if (!page)
		return -ENOMEM;
	/* A place kept while the console prints: no resize meanwhile; a reset between two pages. */
	ring_buffer_read_prepare(b);
	ring_buffer_record_off(b);
	while (raw_peek_page(b, cb, page, &pos)) {
		seq_write(m, page, PAGE_SIZE);
		seq_flush(m);
		if (m->overflow) {
			m->overflow = false;
			break;
		}
		ring_buffer_consume_page(cb, &pos);
	}
	ring_buffer_record_on(b);
	ring_buffer_read_finish(b);
	kfree(page);
	return 0;
}

static int cpu_trace_pipe_raw_show(struct seq_file *m, struct fnode *f)
{
	struct trace_array *tr = trace_array_of(f);

	if (READ_ONCE(tr->tracing_on))
		return -EBUSY;
	return trace_pipe_raw_cpu(m, &tr->buffer, trace_file_cpu(f));
}

static int cpu_buffer_size_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_array *tr = trace_array_of(f);
	unsigned long kb, was = tr->buffer.cpu[trace_file_cpu(f)].nr_pages * (PAGE_SIZE / 1024);
	int err;

	if (fs_write_ulong(buf, len, 8, 16384, &kb))
		return -EINVAL;
	err = ring_buffer_resize(&tr->buffer, kb, trace_file_cpu(f));
	/* As buffer_size_set(): the max buffer could not follow, the live one goes back. */
	if (!err && (err = tracing_resize_max_buffer(tr, kb, trace_file_cpu(f))))
		ring_buffer_resize(&tr->buffer, was, trace_file_cpu(f));
	if (!err && tr->buffer.nr_pages > 0)
		tr->buffer_kb = kb; /* every CPU the same size again: the top-level file's number */
	return err ? -ENOMEM : 0;   /* as buffer_size_write() */
}

static int cpu_buffer_size_show(struct seq_file *m, struct fnode *f)
{
	const struct ring_buffer_per_cpu *cb = &trace_array_of(f)->buffer.cpu[trace_file_cpu(f)];

	seq_printf(m, "%lu\n", cb->nr_pages * (PAGE_SIZE / 1024));
	return 0;
}

/* Seconds and microseconds, as Linux prints a time in ns ("%5llu.%06lu"); a clock that counts
 * something else (counter, uptime, x86-tsc) as the count. */
static void stats_ts(struct seq_file *m, const char *label, const struct trace_clock *c, u64 ts)
{
	u64 ns = trace_clock_display(c, ts);

	if (c->in_ns)
		seq_printf(m, "%s: %5llu.%06llu\n", label, ns / 1000000000ULL,
			   (ns / 1000) % 1000000);
	else
		seq_printf(m, "%s: %llu\n", label, ts);
}

/*
 * Read with the writers held off, so entries, bytes and the oldest stamp describe one moment.
 * Our writer never runs into its own uncommitted data (one writer per CPU, interrupts off), so
 * commit overrun is always 0; dropped counts the events a full ring refused with the overwrite
 * option off, as Linux's does, and also writes refused while nested or while recording was off
 * (Linux counts only the first kind). Our own hold is a moment's, not counted: reading the count
 * twice gives the same number when nothing else refused a writer in between.
 */
static int cpu_stats_show(struct seq_file *m, struct fnode *f)
{
	struct trace_buffer *b = &trace_array_of(f)->buffer;
	struct ring_buffer_per_cpu *cb = &b->cpu[trace_file_cpu(f)];
	u64 entries, overrun, bytes, oldest, dropped, read;

	unsigned long flags = spin_lock_irqsave(&b->reader_lock);

	ring_buffer_record_hold(b);
	overrun = cb->overrun;
	read = __atomic_load_n(&cb->read, __ATOMIC_RELAXED);
	entries = cb->entries - overrun - read;
	dropped = cb->dropped;
	bytes = cb->pages ? ring_buffer_bytes_cpu(cb) : 0;
	oldest = cb->pages ? ring_buffer_oldest_event_ts(cb) : 0;
	ring_buffer_record_release(b);
	spin_unlock_irqrestore(&b->reader_lock, flags);

	seq_printf(m, "entries: %llu\n", entries);
	seq_printf(m, "overrun: %llu\n", overrun);
	seq_puts(m, "commit overrun: 0\n");
	seq_printf(m, "bytes: %llu\n", bytes);
	stats_ts(m, "oldest event ts", b->clock, oldest);
	stats_ts(m, "now ts", b->clock, ring_buffer_time_stamp(b));
	seq_printf(m, "dropped events: %llu\n", dropped);
	seq_printf(m, "read events: %llu\n", read);
	return 0;
}

static const struct tracefs_file cpu_files[] = {
	TRACEFS_FILE("trace", cpu_trace_show, cpu_trace_write),
	{ .name = "trace_pipe",
	  .fops = { .show = cpu_trace_pipe_show, .fops = &trace_pipe_cpu_fops } },
	{ .name = "trace_pipe_raw",
	  .fops = { .show = cpu_trace_pipe_raw_show,
		    .binary = true,
		    .fops = &trace_pipe_raw_fops } },
	TRACEFS_FILE("buffer_size_kb", cpu_buffer_size_show, cpu_buffer_size_write),
	TRACEFS_FILE("stats", cpu_stats_show, NULL),
};

/* per_cpu/ in a trace array's directory, every CPU's, or none: 0 or -ENOMEM. */
int trace_per_cpu_create(struct fnode *top)
{
	struct fnode *dir = tracefs_create_dir("per_cpu", top);

	if (!dir)
		return -ENOMEM;
	for (int cpu = 0; cpu < nr_cpus_possible && cpu < NR_CPUS; cpu++) {
		char name[16];
		struct fnode *d;

		snprintf(name, sizeof(name), "cpu%d", cpu);
		d = tracefs_create_dir(name, dir);
		if (!d)
			goto fail_dir;
		d->priv = (void *)(long)cpu;
		if (tracefs_create_files(d, cpu_files, ARRAY_SIZE(cpu_files)))
			goto fail_dir;
	}
	return 0;
fail_dir:
	fs_remove(dir);
	return -ENOMEM;
}

void trace_per_cpu_init(void)
{
	if (trace_per_cpu_create(global_trace.dir))
		pr_err("trace: cannot create per_cpu/\n");
}
