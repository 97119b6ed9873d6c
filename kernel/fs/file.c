/*
 * The fd table: fd numbers to open files, per process (Linux: fs/file.c). An open file is shared
 * by the slots that hold it (dup, fork) and by the system calls working in it (fget), and freed
 * with the last of them (docs/17-user-space.md, section 12).
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

/* One place, so every table's lock is one class for the lock validator. */
static void files_init(struct files_struct *files)
{
	files->count = 1;
	spin_lock_init(&files->file_lock);
}

/*
 * files->file_lock makes finding a slot and filling it (or emptying one, or taking a reference
 * to what it holds) one step for every other thread of the table, as Linux's files->file_lock
 * does (its fget() reads the slot under RCU instead, and retries if the file went meanwhile).
 * Preemption stays off under it: a thread of the same CPU that wants the lock would spin until
 * the timer moves the holder on.
 */
static void files_lock(struct files_struct *files)
{
	preempt_disable();
	spin_lock(&files->file_lock);
}

static void files_unlock(struct files_struct *files)
{
	spin_unlock(&files->file_lock);
	preempt_enable_no_resched();
}

struct file *fget(unsigned int fd)
{
	struct files_struct *files = current->files;
	struct file *f = NULL;

	if (!files || fd >= NR_OPEN_DEFAULT)
		return NULL;
	files_lock(files);
	if ((f = files->fd[fd]))
		get_file(f);
	files_unlock(files);
	return f;
}

struct fd fdget(unsigned int fd)
{
	struct files_struct *files = current->files;
	struct file *f;

	/* Only this task could add a user (clone), and it is here: count cannot grow meanwhile. */
	if (files && __atomic_load_n(&files->count, __ATOMIC_ACQUIRE) == 1)
		return (struct fd){ fd < NR_OPEN_DEFAULT ? files->fd[fd] : NULL, 0 };
	f = fget(fd);
	return (struct fd){ f, f ? FDPUT_FPUT : 0 };
}

int fd_install_from(struct file *f, unsigned int from, bool cloexec)
{
	struct files_struct *files = current->files;
	int ret = -EMFILE;

	files_lock(files);
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
	files_unlock(files);
	return ret;
}

int close_fd(struct files_struct *files, unsigned int fd)
{
	struct file *f;

	files_lock(files);
	f = fd < NR_OPEN_DEFAULT ? files->fd[fd] : NULL;
	if (f) {
		files->fd[fd] = NULL;
		files->close_on_exec &= ~(1ULL << fd);
	}
	files_unlock(files);
	if (!f)
		return -EBADF;
	fput(f); /* the table's reference: a call still inside the file holds its own */
	return 0;
}

struct files_struct *dup_files(struct files_struct *old)
{
	struct files_struct *files = kzalloc(sizeof(*files));

	if (!files)
		return NULL;
	files_lock(old); /* a thread of the parent may be closing one */
	memcpy(files->fd, old->fd, sizeof(files->fd));
	files->close_on_exec = old->close_on_exec;
	for (int fd = 0; fd < NR_OPEN_DEFAULT; fd++)
		if (files->fd[fd])
			get_file(files->fd[fd]);
	files_unlock(old);
	files_init(files);
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
	files_init(files);
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
	int ret;

	if (!f)
		return -EBADF;
	ret = fd_install_from(f, 0, false);
	fput(f);
	return ret;
}

/*
 * dup2 and dup3: newfd's old file (if any) replaced in one step under the lock, as Linux's
 * do_dup2(), so no other thread's open() can take newfd between the close and the install; dup3
 * refuses newfd == oldfd and flags but O_CLOEXEC.
 */
static long do_dup3(unsigned int oldfd, unsigned int newfd, int flags)
{
	struct files_struct *files = current->files;
	struct file *f, *old;

	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	if (!(f = fget(oldfd)))
		return -EBADF;
	if (newfd >= NR_OPEN_DEFAULT) {
		fput(f);
		return -EBADF;
	}
	files_lock(files);
	old = files->fd[newfd];
	files->fd[newfd] = f; /* fget()'s reference becomes the table's */
	if (flags & O_CLOEXEC)
		files->close_on_exec |= 1ULL << newfd;
	else
		files->close_on_exec &= ~(1ULL << newfd);
	files_unlock(files);
	if (old)
		fput(old);
	return newfd;
}

SYSCALL_DEFINE2(dup2, unsigned int, oldfd, unsigned int, newfd)
{
	struct file *f;

	if (oldfd != newfd)
		return do_dup3(oldfd, newfd, 0);
	if (!(f = fget(oldfd)))
		return -EBADF;
	fput(f);
	return newfd;
}

SYSCALL_DEFINE3(dup3, unsigned int, oldfd, unsigned int, newfd, int, flags)
{
	if (oldfd == newfd)
		return -EINVAL;
	return do_dup3(oldfd, newfd, flags);
}

static long do_fcntl(struct files_struct *files, struct file *f, unsigned int fd, unsigned int cmd,
		     unsigned long arg)
{
	long ret = 0;

	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		if (arg >= NR_OPEN_DEFAULT)
			return -EINVAL;
		return fd_install_from(f, arg, cmd == F_DUPFD_CLOEXEC);
	case F_GETFD:
	case F_SETFD:
		files_lock(files);
		if (cmd == F_GETFD)
			ret = files->close_on_exec & (1ULL << fd) ? FD_CLOEXEC : 0;
		else if (arg & FD_CLOEXEC)
			files->close_on_exec |= 1ULL << fd;
		else
			files->close_on_exec &= ~(1ULL << fd);
		files_unlock(files);
		return ret;
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

SYSCALL_DEFINE3(fcntl, unsigned int, fd, unsigned int, cmd, unsigned long, arg)
{
	struct file *f = fget(fd);
	long ret;

	if (!f)
		return -EBADF;
	ret = do_fcntl(current->files, f, fd, cmd, arg);
	fput(f);
	return ret;
}
