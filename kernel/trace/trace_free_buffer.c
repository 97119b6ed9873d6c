/* free_buffer: closing it gives a trace array's ring buffer back, down to its smallest size.
 *
 *   echo > free_buffer    the array's buffer shrinks to two pages a CPU (Linux's resize to 0);
 *                         with the disable_on_free option, its tracing_on goes to 0 first
 *
 * Linux acts when the file is closed, not when it is written, so that a tool can hold it open
 * while it traces and have the memory back however it ends (killed included). A program's
 * close here does the same (the release below); the shell's `echo > free_buffer` opens, writes and
 * closes at once, so its write is where the shell's close would be.
 */
#include "kernel/trace/trace.h"
#include "kernel/fs/file.h"
#include "kernel/mm/mm.h"
#include "kernel/fs/tracefs.h"
#include "lib/errno.h"

/* Two pages a CPU, what ring_buffer_resize() keeps at the least (Linux's minimum too). */
#define FREED_KB (2 * PAGE_SIZE / 1024)

static void free_buffer_release_tr(struct trace_array *tr)
{
	if (trace_array_option(tr, TRACE_OPT_STOP_ON_FREE))
		WRITE_ONCE(tr->tracing_on, false); /* Linux's tracer_tracing_off() */
	buffer_size_set(tr, FREED_KB);		   /* Linux's tracing_resize_ring_buffer(tr, 0) */
}

/* The shell's echo: the write and the close in one. */
static int free_buffer_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	free_buffer_release_tr(trace_array_of(f));
	return 0;
}

/* A program's write is taken and ignored, as Linux's tracing_free_buffer_write() does. */
static ssize_t free_buffer_fwrite(struct file *f, const char __user *buf, size_t count, s64 *pos)
{
	*pos += count;
	return count;
}

static void free_buffer_release(struct file *f)
{
	free_buffer_release_tr(trace_array_of(f->node));
}

static const struct file_operations free_buffer_fops = { .write = free_buffer_fwrite,
							 .release = free_buffer_release };
static const struct file_ops free_buffer_ops = { .write = free_buffer_write,
						 .fops = &free_buffer_fops };

int trace_free_buffer_create(struct fnode *dir)
{
	return tracefs_create_file("free_buffer", dir, NULL, &free_buffer_ops) ? 0 : -ENOMEM;
}
