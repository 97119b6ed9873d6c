/*
 * The fd table: fd numbers to open files, per process (Linux: fs/file.c). An open file is shared
 * by the slots that hold it (dup, fork) and freed with the last one.
 *
 *   task->files->fd[0] --\
 *              ->fd[1] ---+--> struct file { f_op = &tty_fops, f_count = 3 }   the console
 *              ->fd[2] --/
 *              ->fd[3] ----> struct file { node = /proc/version, f_pos = 0 }
 */
#include "kernel/fs/file.h"
#include "kernel/fs/fs.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "lib/errno.h"
#include "lib/string.h"

#define F_DUPFD 0
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
#define FD_CLOEXEC 1

struct file *alloc_file(const struct file_operations *fop, unsigned int flags)
{
	struct file *f = kzalloc(sizeof(*f));

	if (f) {
		f->f_count = 1;
		f->f_op = fop;
		f->f_flags = flags;
	}
	return f;
}

void fput(struct file *f)
{
	if (__atomic_sub_fetch(&f->f_count, 1, __ATOMIC_ACQ_REL))
		return;
	if (f->f_ep_count)
		eventpoll_release(f);
	if (f->f_op->release)
		f->f_op->release(f);
	if (f->node)
		fs_unpin(f->node);
	kfree(f->private_data);
	kfree(f);
}

struct file *fget(unsigned int fd)
{
	struct files_struct *files = current->files;
	return files && fd < NR_OPEN_DEFAULT ? files->fd[fd] : NULL;
}

/*
 * Threads share a table (CLONE_FILES) and run on one CPU: with preemption off, finding a free
 * slot and filling it (or emptying one) is one step for every other thread. Linux takes
 * files->file_lock, a spinlock, for the same reason.
 */
int fd_install_from(struct file *f, unsigned int from, bool cloexec)
{
	struct files_struct *files = current->files;
	int ret = -EMFILE;

	preempt_disable();
	for (unsigned int fd = from; fd < NR_OPEN_DEFAULT; fd++) {
		if (files->fd[fd])
			continue;
		files->fd[fd] = f;
		__atomic_add_fetch(&f->f_count, 1, __ATOMIC_RELAXED);
		if (cloexec)
			files->close_on_exec |= 1ULL << fd;
		else
			files->close_on_exec &= ~(1ULL << fd);
		ret = fd;
		break;
	}
	preempt_enable_no_resched();
	return ret;
}

int close_fd(struct files_struct *files, unsigned int fd)
{
	struct file *f;

	preempt_disable();
	f = fd < NR_OPEN_DEFAULT ? files->fd[fd] : NULL;
	if (f) {
		files->fd[fd] = NULL;
		files->close_on_exec &= ~(1ULL << fd);
	}
	preempt_enable_no_resched();
	if (!f)
		return -EBADF;
	fput(f);
	return 0;
}

struct files_struct *dup_files(struct files_struct *old)
{
	struct files_struct *files = kzalloc(sizeof(*files));

	if (!files)
		return NULL;
	*files = *old;
	files->count = 1;
	for (int fd = 0; fd < NR_OPEN_DEFAULT; fd++)
		if (files->fd[fd])
			__atomic_add_fetch(&files->fd[fd]->f_count, 1, __ATOMIC_RELAXED);
	return files;
}

void do_close_on_exec(struct files_struct *files)
{
	for (int fd = 0; fd < NR_OPEN_DEFAULT; fd++)
		if (files->close_on_exec & (1ULL << fd))
			close_fd(files, fd);
}

void exit_files(struct task *t)
{
	struct files_struct *files = t->files;

	t->files = NULL;
	if (files)
		put_files_struct(files);
}

void put_files_struct(struct files_struct *files)
{
	if (__atomic_sub_fetch(&files->count, 1, __ATOMIC_ACQ_REL))
		return;
	for (int fd = 0; fd < NR_OPEN_DEFAULT; fd++)
		if (files->fd[fd])
			close_fd(files, fd);
	kfree(files);
}

struct files_struct *console_files(void)
{
	struct files_struct *files = kzalloc(sizeof(*files));
	struct file *con = alloc_file(&tty_fops, O_RDWR);

	if (!files || !con) {
		kfree(files);
		kfree(con);
		return NULL;
	}
	files->count = 1;
	files->fd[0] = files->fd[1] = files->fd[2] = con;
	con->f_count = 3;
	return files;
}

SYSCALL_DEFINE1(close, unsigned int, fd)
{
	return close_fd(current->files, fd);
}

SYSCALL_DEFINE1(dup, unsigned int, fildes)
{
	struct file *f = fget(fildes);
	return f ? fd_install_from(f, 0, false) : -EBADF;
}

/* dup2 and dup3: newfd closed first if open; dup3 refuses newfd == oldfd and flags but O_CLOEXEC. */
static long do_dup3(unsigned int oldfd, unsigned int newfd, int flags)
{
	struct files_struct *files = current->files;
	struct file *f = fget(oldfd);

	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	if (!f)
		return -EBADF;
	if (newfd >= NR_OPEN_DEFAULT)
		return -EBADF;
	if (files->fd[newfd])
		close_fd(files, newfd);
	return fd_install_from(f, newfd, flags & O_CLOEXEC);
}

SYSCALL_DEFINE2(dup2, unsigned int, oldfd, unsigned int, newfd)
{
	if (oldfd == newfd)
		return fget(oldfd) ? (long)newfd : -EBADF;
	return do_dup3(oldfd, newfd, 0);
}

SYSCALL_DEFINE3(dup3, unsigned int, oldfd, unsigned int, newfd, int, flags)
{
	if (oldfd == newfd)
		return -EINVAL;
	return do_dup3(oldfd, newfd, flags);
}

SYSCALL_DEFINE3(fcntl, unsigned int, fd, unsigned int, cmd, unsigned long, arg)
{
	struct files_struct *files = current->files;
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		if (arg >= NR_OPEN_DEFAULT)
			return -EINVAL;
		return fd_install_from(f, arg, cmd == F_DUPFD_CLOEXEC);
	case F_GETFD:
		return files->close_on_exec & (1ULL << fd) ? FD_CLOEXEC : 0;
	case F_SETFD:
		if (arg & FD_CLOEXEC)
			files->close_on_exec |= 1ULL << fd;
		else
			files->close_on_exec &= ~(1ULL << fd);
		return 0;
	case F_GETFL:
		return f->f_flags;
	case F_SETFL: /* only these may change after open, as in Linux */
		f->f_flags =
			(f->f_flags & ~(O_APPEND | O_NONBLOCK)) | (arg & (O_APPEND | O_NONBLOCK));
		return 0;
	default:
		return -EINVAL;
	}
}
