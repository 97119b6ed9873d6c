/*
 * per_cpu/cpuN/trace_pipe_raw for programs (Linux: kernel/trace/trace.c, tracing_buffers_read()
 * and tracing_buffers_poll()): read() hands out the CPU's data one whole page at a time, in
 * events/header_page's layout, the same bytes the shell's `cat trace_pipe_raw > /dev/ttyS1` and
 * `make trace` take (ring_buffer_peek_page()); what is read is gone. A read smaller than a page
 * gets the rest of that page on the next reads, as Linux keeps its spare page.
 *
 *   empty      O_NONBLOCK: -EAGAIN; else sleeps in ring_buffer_wait() for any event (Linux 6.1's
 *              read waits with full 0; buffer_percent is for poll and splice), -EINTR on a signal
 *   poll       readable at buffer_percent of the CPU's pages (Linux's trace_poll())
 *   buffer_percent  each trace array's, 0 to 100, 50 at first (Linux 6.1's); else EINVAL
 *
 * Unlike the shell's reader this one runs with tracing on: the CPU's writers are held off only
 * while one page is copied out (events in that moment are refused, counted in stats' dropped);
 * Linux swaps a spare page in instead and loses nothing.
 */
#include "kernel/fs/file.h"
#include "kernel/fs/poll.h"
#include "kernel/locking/mutex.h"
#include "kernel/mm/mm.h"
#include "kernel/fs/tracefs.h"
#include "kernel/trace/trace.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

struct raw_reader {
	u8 page[PAGE_SIZE];
	size_t read; /* bytes of page already handed out: PAGE_SIZE when none is left */
};

static DEFINE_MUTEX(raw_lock); /* one page taken at a time (Linux's trace_access_lock()) */

/* One page of cpu's unread events into r->page: false if there is none. */
static bool raw_take_page(struct trace_buffer *b, int cpu, struct raw_reader *r)
{
	struct ring_buffer_per_cpu *cb = &b->cpu[cpu];
	struct rb_page_pos pos;
	unsigned long flags;
	bool got;

	if (!cb->pages)
		return false;
	flags = spin_lock_irqsave(&b->reader_lock); /* never beside a resize or a reset */
	/* ring_buffer_record_off(), for this CPU alone: a write already started finishes first */
	__atomic_add_fetch(&cb->writer, RB_RECORD_OFF, __ATOMIC_SEQ_CST);
	while (rb_writer_busy(cb))
		cpu_relax();
	got = ring_buffer_peek_page(cb, r->page, &pos) != 0;
	if (got)
		ring_buffer_consume_page(cb, &pos);
	__atomic_sub_fetch(&cb->writer, RB_RECORD_OFF, __ATOMIC_SEQ_CST);
	spin_unlock_irqrestore(&b->reader_lock, flags);
	if (got)
		r->read = 0;
	return got;
}

static struct raw_reader *raw_reader_of(struct file *f)
{
	struct raw_reader *r = f->private_data;

	if (!r && (r = kzalloc(sizeof(*r)))) {
		r->read = PAGE_SIZE;
		f->private_data = r;
	}
	return r;
}

static ssize_t trace_pipe_raw_read(struct file *f, char __user *buf, size_t count, s64 *ppos)
{
	struct trace_array *tr = trace_array_of(f->node);
	int cpu = trace_file_cpu(f->node), err;
	struct raw_reader *r;
	size_t n;

	if (!count)
		return 0;
	if (!(r = raw_reader_of(f)))
		return -ENOMEM;
	mutex_lock(&raw_lock);
	while (r->read == PAGE_SIZE && !raw_take_page(&tr->buffer, cpu, r)) {
		mutex_unlock(&raw_lock);
		if (f->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if ((err = ring_buffer_wait(&tr->buffer, cpu, 0)))
			return err;
		mutex_lock(&raw_lock);
	}
	n = MIN(count, PAGE_SIZE - r->read);
	if (copy_to_user(buf, r->page + r->read, n)) {
		mutex_unlock(&raw_lock);
		return -EFAULT;
	}
	r->read += n;
	*ppos += n;
	mutex_unlock(&raw_lock);
	return n;
}

static unsigned int trace_pipe_raw_poll(struct file *f, poll_table *pt)
{
	struct raw_reader *r = f->private_data;

	return trace_pipe_poll_cpu(f, pt, trace_file_cpu(f->node), r && r->read < PAGE_SIZE);
}

/* The reader's page goes with the file (fput() frees private_data). */
const struct file_operations trace_pipe_raw_fops = { .read = trace_pipe_raw_read,
						     .poll = trace_pipe_raw_poll };

static int buffer_percent_show(struct seq_file *m, struct fnode *f)
{
	seq_printf(m, "%lu\n", READ_ONCE(trace_array_of(f)->buffer_percent));
	return 0;
}

/* Linux's buffer_percent_write(): a decimal number up to 100, else EINVAL and nothing changes. */
static int buffer_percent_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	unsigned long v;

	if (fs_write_ulong(buf, len, 0, 100, &v))
		return -EINVAL;
	WRITE_ONCE(trace_array_of(f)->buffer_percent, v);
	return 0;
}

static const struct tracefs_file buffer_percent_file =
	TRACEFS_FILE("buffer_percent", buffer_percent_show, buffer_percent_write);

int trace_buffer_percent_create(struct fnode *dir)
{
	return tracefs_create_files(dir, &buffer_percent_file, 1);
}
