/*
 * Pipes (Linux: fs/pipe.c): a 4 KiB ring between a read end and a write end. A reader of an empty
 * pipe sleeps until a writer writes or the last writer closes (then it reads 0, end of file); a
 * writer to a full pipe sleeps until a reader makes room; a write with no reader left is -EPIPE
 * and SIGPIPE, as in Linux.
 */
#include "kernel/fs/file.h"
#include "kernel/fs/poll.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/wait.h"
#include "kernel/signal.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define PIPE_SIZE 4096
#define CHUNK 256

struct pipe_inode_info {
	spinlock_t lock;
	char buf[PIPE_SIZE];
	size_t head, len; /* bytes at buf[head .. head + len), modulo PIPE_SIZE */
	int readers, writers;
	struct wait_queue_head rd_wait, wr_wait;
};

/* Waits on wq until ready(pipe) or the pipe can never be ready; 0, -EAGAIN, or -ERESTARTSYS. */
static int pipe_wait(struct file *f, struct wait_queue_head *wq,
		     bool (*ready)(struct pipe_inode_info *p))
{
	struct pipe_inode_info *p = f->private_data;
	struct wait_queue_entry e;
	unsigned long flags;
	bool ok;

	for (;;) {
		prepare_to_wait(wq, &e);
		flags = spin_lock_irqsave(&p->lock);
		ok = ready(p);
		spin_unlock_irqrestore(&p->lock, flags);
		if (!ok && !(f->f_flags & O_NONBLOCK) && !fatal_signal_pending(current))
			schedule();
		finish_wait(wq, &e);
		if (ok)
			return 0;
		if (f->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (fatal_signal_pending(current))
			return -ERESTARTSYS; /* -EINTR, or the call again under SA_RESTART */
	}
}

static bool readable(struct pipe_inode_info *p)
{
	return p->len || !p->writers;
}

static bool writable(struct pipe_inode_info *p)
{
	return p->len < PIPE_SIZE || !p->readers;
}

static ssize_t pipe_read(struct file *f, char __user *buf, size_t count, s64 *pos)
{
	struct pipe_inode_info *p = f->private_data;
	char chunk[CHUNK];
	size_t done = 0;
	int err;

	if (!count)
		return 0;
	if ((err = pipe_wait(f, &p->rd_wait, readable)))
		return err;
	while (done < count) {
		unsigned long flags = spin_lock_irqsave(&p->lock);
		size_t n = MIN(MIN(count - done, p->len), sizeof(chunk));
		for (size_t k = 0; k < n; k++)
			chunk[k] = p->buf[(p->head + k) % PIPE_SIZE];
		spin_unlock_irqrestore(&p->lock, flags);
		if (!n)
			break;
		if (copy_to_user(buf + done, chunk, n))
			return done ? (ssize_t)done : -EFAULT;
		flags = spin_lock_irqsave(
			&p->lock); /* one reader at a time consumes what it copied */
		p->head = (p->head + n) % PIPE_SIZE;
		p->len -= n;
		spin_unlock_irqrestore(&p->lock, flags);
		done += n;
	}
	wake_up(&p->wr_wait);
	return done;
}

static ssize_t pipe_write(struct file *f, const char __user *buf, size_t count, s64 *pos)
{
	struct pipe_inode_info *p = f->private_data;
	char chunk[CHUNK];
	size_t done = 0;
	int err;

	while (done < count) {
		unsigned long flags;
		size_t n = MIN(count - done, sizeof(chunk)), room;
		if ((err = pipe_wait(f, &p->wr_wait, writable)))
			return done ? (ssize_t)done : err;
		if (!p->readers) {
			send_sig(SIGPIPE, current);
			return done ? (ssize_t)done : -EPIPE;
		}
		flags = spin_lock_irqsave(&p->lock);
		room = PIPE_SIZE - p->len;
		spin_unlock_irqrestore(&p->lock, flags);
		n = MIN(n, room);
		if (copy_from_user(chunk, buf + done, n))
			return done ? (ssize_t)done : -EFAULT;
		flags = spin_lock_irqsave(&p->lock);
		for (size_t k = 0; k < n; k++)
			p->buf[(p->head + p->len + k) % PIPE_SIZE] = chunk[k];
		p->len += n;
		spin_unlock_irqrestore(&p->lock, flags);
		wake_up(&p->rd_wait);
		done += n;
	}
	return done;
}

/* The last close of an end: the other side learns (end of file, or EPIPE). Both gone: freed. */
static void pipe_release(struct file *f)
{
	struct pipe_inode_info *p = f->private_data;
	unsigned long flags = spin_lock_irqsave(&p->lock);
	bool last;

	if ((f->f_flags & O_ACCMODE) == O_RDONLY)
		p->readers--;
	else
		p->writers--;
	last = !p->readers && !p->writers;
	spin_unlock_irqrestore(&p->lock, flags);
	wake_up(&p->rd_wait);
	wake_up(&p->wr_wait);
	f->private_data = last ? p : NULL; /* fput() frees private_data */
}

/* Linux's pipe_poll(): the read end is readable with bytes in, hung up with no writer left; the
 * write end writable with room, in error with no reader left. */
static unsigned int pipe_poll(struct file *f, poll_table *pt)
{
	struct pipe_inode_info *p = f->private_data;
	bool reader = (f->f_flags & O_ACCMODE) == O_RDONLY;
	unsigned int mask = 0;
	unsigned long flags;

	poll_wait(f, reader ? &p->rd_wait : &p->wr_wait, pt);
	flags = spin_lock_irqsave(&p->lock);
	if (reader)
		mask = (p->len ? EPOLLIN | EPOLLRDNORM : 0) | (!p->writers ? EPOLLHUP : 0);
	else
		mask = (p->len < PIPE_SIZE ? EPOLLOUT | EPOLLWRNORM : 0) |
		       (!p->readers ? EPOLLERR : 0);
	spin_unlock_irqrestore(&p->lock, flags);
	return mask;
}

static const struct file_operations pipe_fops = {
	.read = pipe_read,
	.poll = pipe_poll,
	.write = pipe_write,
	.release = pipe_release,
	.mode = 0010600, /* S_IFIFO | 0600 */
};

static long do_pipe2(int __user *fildes, int flags)
{
	struct pipe_inode_info *p;
	struct file *rd, *wr;
	int fd[2] = { -1, -1 };

	if (flags & ~(O_CLOEXEC | O_NONBLOCK))
		return -EINVAL;
	if (!access_ok(fildes, sizeof(fd)))
		return -EFAULT;
	p = kzalloc(sizeof(*p));
	rd = alloc_file(&pipe_fops, O_RDONLY | (flags & O_NONBLOCK));
	wr = alloc_file(&pipe_fops, O_WRONLY | (flags & O_NONBLOCK));
	if (!p || !rd || !wr) {
		kfree(p);
		kfree(rd);
		kfree(wr);
		return -ENOMEM;
	}
	spin_lock_init(&p->lock);
	spin_lock_init(&p->rd_wait.lock);
	spin_lock_init(&p->wr_wait.lock);
	p->readers = p->writers = 1;
	rd->private_data = wr->private_data = p;
	fd[0] = fd_install_from(rd, 0, flags & O_CLOEXEC);
	fd[1] = fd[0] < 0 ? fd[0] : fd_install_from(wr, 0, flags & O_CLOEXEC);
	fput(rd); /* the table holds them now (or nothing does, and they go) */
	fput(wr);
	if (fd[1] < 0) {
		if (fd[0] >= 0)
			close_fd(current->files, fd[0]);
		return fd[1];
	}
	if (copy_to_user(fildes, fd, sizeof(fd))) {
		close_fd(current->files, fd[0]);
		close_fd(current->files, fd[1]);
		return -EFAULT;
	}
	return 0;
}

SYSCALL_DEFINE2(pipe2, int __user *, fildes, int, flags)
{
	return do_pipe2(fildes, flags);
}

SYSCALL_DEFINE1(pipe, int __user *, fildes)
{
	return do_pipe2(fildes, 0);
}
