/*
 * poll and ppoll (Linux: fs/select.c): which fds are ready, as each file's f_op->poll says (the
 * console, pipes, perf events, BPF ring buffers); a file without one never blocks a read or write
 * at its level of detail, so it is always ready. Waiting is a 10 ms poll of the fds, ended early
 * by a signal.
 */
#include "kernel/fs/file.h"
#include "kernel/fs/poll.h"
#include "kernel/mm/mm.h"
#include "kernel/signal.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define POLLERR EPOLLERR
#define POLLHUP EPOLLHUP
#define POLLNVAL EPOLLNVAL
#define POLL_MAX 1024 /* RLIMIT_NOFILE's order; Linux refuses more than the limit with EINVAL */

struct pollfd {
	int fd;
	short events, revents;
};

struct timespec64 {
	s64 tv_sec;
	long tv_nsec;
};

unsigned int vfs_poll(struct file *f, poll_table *pt)
{
	return f->f_op->poll ? f->f_op->poll(f, pt) : DEFAULT_POLLMASK;
}

static short file_poll(int fd, short events)
{
	struct fd f;
	short mask;

	if (fd < 0)
		return 0;
	if (!(f = fdget(fd)).file)
		return POLLNVAL;
	mask = vfs_poll(f.file, NULL);
	fdput(f);
	return mask;
}

/* One pass: how many fds have something; revents filled in. */
static int poll_pass(struct pollfd *fds, unsigned int n)
{
	int ready = 0;

	for (unsigned int i = 0; i < n; i++) {
		short mask = file_poll(fds[i].fd, fds[i].events);
		fds[i].revents = mask & (fds[i].events | POLLERR | POLLHUP | POLLNVAL);
		if (fds[i].revents)
			ready++;
	}
	return ready;
}

/* until: ktime ns, or 0 to wait for ever; now == until: a single pass. */
static long do_poll(struct pollfd __user *ufds, unsigned int nfds, u64 until, bool forever)
{
	struct pollfd *fds;
	long ret;

	if (nfds > POLL_MAX)
		return -EINVAL;
	if (!(fds = kmalloc(nfds * sizeof(*fds) + 1)))
		return -ENOMEM;
	if (copy_from_user(fds, ufds, nfds * sizeof(*fds))) {
		ret = -EFAULT;
		goto out;
	}
	for (;;) {
		if ((ret = poll_pass(fds, nfds)))
			break;
		if (!forever && ktime_get_ns() >= until)
			break;
		if (signal_pending(current)) {
			ret = -ERESTARTNOHAND;
			goto out;
		}
		msleep(10);
	}
	for (unsigned int i = 0; i < nfds; i++)
		if (put_user(fds[i].revents, &ufds[i].revents)) {
			ret = -EFAULT;
			break;
		}
out:
	kfree(fds);
	return ret;
}

SYSCALL_DEFINE3(poll, struct pollfd __user *, ufds, unsigned int, nfds, int, timeout_msecs)
{
	return do_poll(ufds, nfds,
		       ktime_get_ns() + (u64)(timeout_msecs > 0 ? timeout_msecs : 0) * 1000000,
		       timeout_msecs < 0);
}

SYSCALL_DEFINE5(ppoll, struct pollfd __user *, ufds, unsigned int, nfds,
		const struct timespec64 __user *, tsp, const u64 __user *, sigmask, size_t,
		sigsetsize)
{
	struct timespec64 ts = { 0, 0 };
	u64 old;
	long ret;

	if (tsp && copy_from_user(&ts, tsp, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000L)
		return -EINVAL;
	if ((ret = set_user_sigmask(sigmask, sigsetsize, &old)))
		return ret;
	ret = do_poll(ufds, nfds, ktime_get_ns() + ts.tv_sec * 1000000000ULL + ts.tv_nsec, !tsp);
	if (sigmask)
		restore_saved_sigmask_unless(ret == -ERESTARTNOHAND, old);
	return ret;
}
