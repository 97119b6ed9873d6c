/*
 * trace_pipe for programs (Linux: kernel/trace/trace.c, tracing_read_pipe()): a read() waits until
 * there is at least one event, then consumes and formats events until the caller's buffer is full,
 * keeping a line that did not fit for the next read. One reader at a time, as Linux serializes
 * them; O_NONBLOCK gives -EAGAIN, a signal -ERESTARTSYS. per_cpu/cpuN/trace_pipe reads CPU N's
 * events alone, in the same way. The shell's `cat trace_pipe` is
 * trace_array_pipe_cpu() (kernel/trace/trace_pipe.c).
 */
#include "kernel/fs/file.h"
#include "kernel/fs/poll.h"
#include "kernel/locking/mutex.h"
#include "kernel/mm/mm.h"
#include "kernel/signal.h"
#include "kernel/trace/trace.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

#define PIPE_TEXT 4096
#define LINE_MAX_TEXT 1500 /* room one more line needs: an event is at most PIPE_EVENT_MAX */

struct pipe_reader {
	struct trace_array *tr; /* whose trace_pipe: the top directory's or an instance's */
	int cpu;		/* per_cpu/cpuN/trace_pipe: N; the whole buffer's: -1 */
	struct trace_pipe_state st;
	char text[PIPE_TEXT];
	size_t len, off; /* formatted text not yet read: [off, len) */
};

static DEFINE_MUTEX(pipe_lock);

/* Formats events into r->text until it is nearly full or none is left: false if none was. */
static bool fill(struct pipe_reader *r)
{
	struct seq_file m = { .buf = r->text, .size = sizeof(r->text) };

	while (m.count + LINE_MAX_TEXT < m.size && trace_pipe_step(r->tr, &m, r->cpu, &r->st))
		;
	r->off = 0;
	r->len = m.count;
	return m.count > 0;
}

static ssize_t pipe_read(struct file *f, char __user *buf, size_t count, int cpu)
{
	struct pipe_reader *r = f->private_data;
	size_t n;

	if (!r) {
		if (!(r = kzalloc(sizeof(*r))))
			return -ENOMEM;
		f->private_data = r;
		r->tr = trace_array_of(f->node);
		r->cpu = cpu;
		mutex_lock(&pipe_lock);
		trace_pipe_open(r->tr, &r->st);
		mutex_unlock(&pipe_lock);
	}
	mutex_lock(&pipe_lock);
	while (r->off == r->len && !fill(r)) {
		mutex_unlock(&pipe_lock);
		if (f->f_flags & O_NONBLOCK)
			return -EAGAIN;
		/* woken by the writers' irq_work (ring_buffer_wait.c), not by a tick */
		if (signal_pending(current) || ring_buffer_wait(&r->tr->buffer, r->cpu, 0))
			return -ERESTARTSYS;
		mutex_lock(&pipe_lock);
	}
	n = MIN(count, r->len - r->off);
	if (copy_to_user(buf, r->text + r->off, n)) {
		mutex_unlock(&pipe_lock);
		return -EFAULT;
	}
	r->off += n;
	mutex_unlock(&pipe_lock);
	return n;
}

static ssize_t trace_pipe_read(struct file *f, char __user *buf, size_t count, s64 *pos)
{
	return pipe_read(f, buf, count, -1);
}

/* per_cpu/cpuN/trace_pipe: the same, with only CPU N's events (Linux's tracing_read_pipe() on
 * an iterator made for one CPU). */
static ssize_t trace_pipe_cpu_read(struct file *f, char __user *buf, size_t count, s64 *pos)
{
	return pipe_read(f, buf, count, trace_file_cpu(f->node));
}

/*
 * Linux's trace_poll(): readable when a read would not wait, text left over or an event taken
 * ahead; with the block option, always (Linux: "always select as readable when in blocking
 * mode"), so a poller goes on to a read that blocks. Else the ring's wait queue is named, so
 * poll and epoll wake when a writer's irq_work says so: at any event for the whole buffer, at
 * buffer_percent for one CPU's file, as Linux's ring_buffer_poll_wait() is asked.
 */
unsigned int trace_pipe_poll_cpu(struct file *f, poll_table *pt, int cpu, bool pending)
{
	struct trace_array *tr = trace_array_of(f->node);

	if (trace_array_option(tr, TRACE_OPT_BLOCK) || pending)
		return EPOLLIN | EPOLLRDNORM;
	return ring_buffer_poll_wait(&tr->buffer, cpu, f, pt, cpu < 0 ? 0 : tr->buffer_percent);
}

static bool pipe_pending(struct file *f)
{
	struct pipe_reader *r = f->private_data;

	if (!r)
		return false;
	if (r->off < r->len)
		return true;
	for (int c = 0; c < NR_CPUS; c++)
		if (r->st.pending[c].have)
			return true;
	return false;
}

static unsigned int trace_pipe_poll(struct file *f, poll_table *pt)
{
	return trace_pipe_poll_cpu(f, pt, -1, pipe_pending(f));
}

static unsigned int trace_pipe_cpu_poll(struct file *f, poll_table *pt)
{
	return trace_pipe_poll_cpu(f, pt, trace_file_cpu(f->node), pipe_pending(f));
}

const struct file_operations trace_pipe_fops = { .read = trace_pipe_read, .poll = trace_pipe_poll };
const struct file_operations trace_pipe_cpu_fops = { .read = trace_pipe_cpu_read,
						     .poll = trace_pipe_cpu_poll };
