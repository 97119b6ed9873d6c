/*
 * poll, ppoll, select and pselect6 (Linux: fs/select.c): which fds are ready, as each file's
 * f_op->poll says (the console, pipes, trace_pipe, perf events, BPF ring buffers); a file without
 * one never blocks a read or write at its level of detail, so it is always ready. A waiter sleeps
 * on the wait queues the files name with poll_wait(), as Linux's poll_wqueues, and the first
 * wake_up() on any of them wakes it at once.
 */
#include "kernel/fs/file.h"
#include "kernel/fs/poll.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/wait.h"
#include "kernel/signal.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

#define POLLERR EPOLLERR
#define POLLHUP EPOLLHUP
#define POLLNVAL EPOLLNVAL
#define POLL_MAX 1024 /* RLIMIT_NOFILE's order; Linux refuses more than the limit with EINVAL */
/* A file whose poll names no wait queue cannot wake a sleeper: it is looked at this often. */
#define POLL_NOWAIT_NS 10000000ULL

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

/* ---- the waiter: an entry on each queue a polled file names (Linux's poll_wqueues) ---- */

struct poll_wqueues;

struct poll_table_entry {
	struct wait_queue_entry wait; /* func: pollwake() */
	struct wait_queue_head *wait_address;
	struct file *filp; /* held: the queue lives in what the file owns */
	struct poll_wqueues *pwq;
};

#define POLL_PAGE_ENTRIES 32
struct poll_table_page {
	struct poll_table_page *next;
	unsigned int used;
	struct poll_table_entry entries[POLL_PAGE_ENTRIES];
};

#define POLL_INLINE_ENTRIES 8
struct poll_wqueues {
	poll_table pt;
	struct task *polling_task;
	int triggered; /* a queue was woken since the waiter last looked */
	int error;     /* -ENOMEM: an entry could not be had */
	bool nowait;   /* a file not ready named no queue: look again after POLL_NOWAIT_NS */
	unsigned int inline_used;
	struct poll_table_entry inline_entries[POLL_INLINE_ENTRIES];
	struct poll_table_page *table;
};

/* Linux's pollwake(): under the woken queue's lock, in whatever context woke it. The flag first,
 * so a waiter about to sleep sees it; then the task. */
static void pollwake(struct wait_queue_entry *wait)
{
	struct poll_table_entry *entry = container_of(wait, struct poll_table_entry, wait);

	__atomic_store_n(&entry->pwq->triggered, 1, __ATOMIC_SEQ_CST);
	wake_up_process(entry->pwq->polling_task);
}

static struct poll_table_entry *poll_get_entry(struct poll_wqueues *p)
{
	struct poll_table_page *page = p->table;

	if (p->inline_used < POLL_INLINE_ENTRIES)
		return &p->inline_entries[p->inline_used++];
	if (!page || page->used == POLL_PAGE_ENTRIES) {
		page = kzalloc(sizeof(*page));
		if (!page)
			return NULL;
		page->next = p->table;
		p->table = page;
	}
	return &page->entries[page->used++];
}

/* Linux's __pollwait(): the file's poll named wq; hook an entry there. */
static void __pollwait(struct file *f, struct wait_queue_head *wq, poll_table *pt)
{
	struct poll_wqueues *p = container_of(pt, struct poll_wqueues, pt);
	struct poll_table_entry *entry = poll_get_entry(p);

	if (!entry) {
		p->error = -ENOMEM;
		return;
	}
	entry->filp = get_file(f);
	entry->wait_address = wq;
	entry->pwq = p;
	entry->wait.task = NULL;
	entry->wait.func = pollwake;
	add_wait_queue(wq, &entry->wait);
}

static void poll_initwait(struct poll_wqueues *p)
{
	memset(p, 0, sizeof(*p));
	p->pt._qproc = __pollwait;
	p->polling_task = current;
}

static void free_poll_entry(struct poll_table_entry *entry)
{
	remove_wait_queue(entry->wait_address, &entry->wait);
	fput(entry->filp);
}

/* Off every queue: once remove_wait_queue() returns, no pollwake() runs on the entry. */
static void poll_freewait(struct poll_wqueues *p)
{
	for (unsigned int i = 0; i < p->inline_used; i++)
		free_poll_entry(&p->inline_entries[i]);
	for (struct poll_table_page *page = p->table, *next; page; page = next) {
		next = page->next;
		for (unsigned int i = 0; i < page->used; i++)
			free_poll_entry(&page->entries[i]);
		kfree(page);
	}
}

/*
 * Linux's poll_schedule_timeout(): sleeps unless a queue was woken since the last look, until a
 * wake-up, a signal, or until (ktime ns; 0: none). The state is set before the flag is read, so a
 * pollwake() in between finds the task asleep-to-be and makes schedule() return at once.
 */
static void poll_schedule_timeout(struct poll_wqueues *p, u64 until)
{
	unsigned long flags = local_irq_save();

	current->state = TASK_SLEEPING;
	if (until)
		sleep_timer_arm(until);
	local_irq_restore(flags);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&p->triggered, __ATOMIC_SEQ_CST) && !signal_pending(current))
		schedule();
	flags = local_irq_save();
	current->state = TASK_RUNNING;
	current->wake_at = 0; /* woken before its time: the timer must not fire on a later sleep */
	local_irq_restore(flags);
	__atomic_store_n(&p->triggered, 0, __ATOMIC_SEQ_CST);
}

/* ---- poll ---- */

/* One fd's events; with pt, hooked on its queues (a file not ready that names none: nowait). */
static short file_poll(struct poll_wqueues *p, poll_table *pt, int fd)
{
	unsigned int inl = p->inline_used;
	struct poll_table_page *page = p->table;
	unsigned int used = page ? page->used : 0;
	struct fd f;
	short mask;

	if (fd < 0)
		return 0;
	if (!(f = fdget(fd)).file)
		return POLLNVAL;
	mask = vfs_poll(f.file, pt);
	if (pt && p->inline_used == inl && p->table == page && (!page || page->used == used))
		p->nowait = true; /* hooked nothing: only a later look can see it change */
	fdput(f);
	return mask;
}

/* One pass: how many fds have something; revents filled in. sel: events is the whole mask of
 * interest (select's sets), with no POLLERR or POLLHUP added. */
static int poll_pass(struct poll_wqueues *p, poll_table *pt, struct pollfd *fds, unsigned int n,
		     bool sel)
{
	int ready = 0;

	for (unsigned int i = 0; i < n; i++) {
		short mask = file_poll(p, pt, fds[i].fd);
		fds[i].revents =
			mask & (sel ? fds[i].events : fds[i].events | POLLERR | POLLHUP | POLLNVAL);
		if (fds[i].revents) {
			ready++;
			pt = NULL; /* Linux: once one is ready, no more hooks are needed */
		}
	}
	return ready;
}

/*
 * Linux's do_poll(): the first pass hooks the waiter on every file's queue, the later ones only
 * look. until: ktime ns, or 0 with forever. Returns the ready count, 0 at the timeout,
 * -ERESTARTNOHAND for a signal, -ENOMEM if a hook could not be had and nothing is ready.
 */
static long do_poll(struct pollfd *fds, unsigned int nfds, u64 until, bool forever, bool sel)
{
	struct poll_wqueues table;
	poll_table *pt = &table.pt;
	long ret;

	poll_initwait(&table);
	for (;;) {
		u64 now, wake;

		ret = poll_pass(&table, pt, fds, nfds, sel);
		pt = NULL;
		if (ret)
			break;
		if (table.error) {
			ret = table.error;
			break;
		}
		now = ktime_get_ns();
		if (!forever && now >= until)
			break;
		if (signal_pending(current)) {
			ret = -ERESTARTNOHAND;
			break;
		}
		wake = forever ? 0 : until;
		if (table.nowait)
			wake = wake ? MIN(wake, now + POLL_NOWAIT_NS) : now + POLL_NOWAIT_NS;
		poll_schedule_timeout(&table, wake);
	}
	poll_freewait(&table);
	return ret;
}

static long do_sys_poll(struct pollfd __user *ufds, unsigned int nfds, u64 until, bool forever)
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
	ret = do_poll(fds, nfds, until, forever, false);
	if (ret < 0)
		goto out;
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
	return do_sys_poll(ufds, nfds,
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
	ret = do_sys_poll(ufds, nfds, ktime_get_ns() + ts.tv_sec * 1000000000ULL + ts.tv_nsec,
			  !tsp);
	if (sigmask)
		restore_saved_sigmask_unless(ret == -ERESTARTNOHAND, old);
	return ret;
}

/* ---- select: three bitmaps of fds, each fd polled for the union of what its bits ask ---- */

/* Linux's POLLIN_SET, POLLOUT_SET, POLLEX_SET: what counts as readable, writable, exceptional. */
#define POLLIN_SET (EPOLLRDNORM | EPOLLIN | EPOLLHUP | EPOLLERR)
#define POLLOUT_SET (EPOLLWRNORM | EPOLLOUT | EPOLLERR)
#define POLLEX_SET EPOLLPRI
#define FDS_LONGS(n) (((n) + 63) / 64)

struct timeval64 {
	s64 tv_sec, tv_usec;
};

static bool fd_isset(const u64 *set, int fd)
{
	return set && (set[fd / 64] >> (fd % 64)) & 1;
}

static bool fd_open(int fd)
{
	struct fd f = fdget(fd);

	fdput(f);
	return f.file != NULL;
}

static int get_fd_set(u64 *set, const void __user *uset, int n)
{
	if (!uset)
		return 0;
	return copy_from_user(set, uset, FDS_LONGS(n) * 8) ? -EFAULT : 0;
}

/*
 * Linux's core_sys_select(): n above the fd table is cut to it; an fd set in any set that is not
 * open is EBADF. The sets come back with only the ready bits; the count is of bits.
 */
static long core_sys_select(int n, void __user *inp, void __user *outp, void __user *exp, u64 until,
			    bool forever)
{
	u64 in[FDS_LONGS(NR_OPEN_DEFAULT)] = { 0 }, out[FDS_LONGS(NR_OPEN_DEFAULT)] = { 0 },
	    ex[FDS_LONGS(NR_OPEN_DEFAULT)] = { 0 };
	u64 *sets[3] = { inp ? in : NULL, outp ? out : NULL, exp ? ex : NULL };
	void __user *usets[3] = { inp, outp, exp };
	static const short masks[3] = { POLLIN_SET, POLLOUT_SET, POLLEX_SET };
	struct pollfd fds[NR_OPEN_DEFAULT];
	unsigned int nfds = 0;
	long ret;

	if (n < 0)
		return -EINVAL;
	n = MIN(n, NR_OPEN_DEFAULT);
	for (int k = 0; k < 3; k++)
		if (sets[k] && (ret = get_fd_set(sets[k], usets[k], n)))
			return ret;
	for (int fd = 0; fd < n; fd++) {
		short events = 0;
		for (int k = 0; k < 3; k++)
			if (fd_isset(sets[k], fd))
				events |= masks[k];
		if (!events)
			continue;
		if (!fd_open(fd))
			return -EBADF;
		fds[nfds++] = (struct pollfd){ .fd = fd, .events = events };
	}
	ret = do_poll(fds, nfds, until, forever, true);
	if (ret < 0)
		return ret;
	for (int k = 0; k < 3; k++)
		if (sets[k])
			memset(sets[k], 0, FDS_LONGS(n) * 8);
	ret = 0;
	for (unsigned int i = 0; i < nfds; i++)
		for (int k = 0; k < 3; k++) {
			/* a bit comes back only in a set that asked for it */
			if (!sets[k] || (fds[i].events & masks[k]) != masks[k] ||
			    !(fds[i].revents & masks[k]))
				continue;
			sets[k][fds[i].fd / 64] |= 1ULL << (fds[i].fd % 64);
			ret++;
		}
	for (int k = 0; k < 3; k++)
		if (sets[k] && copy_to_user(usets[k], sets[k], FDS_LONGS(n) * 8))
			return -EFAULT;
	return ret;
}

/* What is left of the timeout, written back as Linux's poll_select_finish() does (a timeout in
 * read-only memory is not an error then). */
static u64 time_left(u64 until)
{
	u64 now = ktime_get_ns();

	return until > now ? until - now : 0;
}

SYSCALL_DEFINE5(select, int, n, void __user *, inp, void __user *, outp, void __user *, exp,
		struct timeval64 __user *, tvp)
{
	struct timeval64 tv = { 0, 0 };
	u64 until;
	long ret;

	if (tvp && copy_from_user(&tv, tvp, sizeof(tv)))
		return -EFAULT;
	if (tv.tv_sec < 0 || tv.tv_usec < 0)
		return -EINVAL;
	until = ktime_get_ns() + tv.tv_sec * 1000000000ULL + tv.tv_usec * 1000ULL;
	ret = core_sys_select(n, inp, outp, exp, until, !tvp);
	if (tvp) {
		u64 left = time_left(until);
		tv = (struct timeval64){ left / 1000000000ULL, left % 1000000000ULL / 1000 };
		(void)copy_to_user(tvp, &tv, sizeof(tv));
	}
	return ret;
}

/* The sixth argument: the mask for the wait and its size, as a pair in user memory. */
struct sigset_argpack {
	const u64 __user *p;
	size_t size;
};

SYSCALL_DEFINE6(pselect6, int, n, void __user *, inp, void __user *, outp, void __user *, exp,
		struct timespec64 __user *, tsp, const struct sigset_argpack __user *, sig)
{
	struct sigset_argpack pack = { NULL, 0 };
	struct timespec64 ts = { 0, 0 };
	u64 until, old;
	long ret;

	if (tsp && copy_from_user(&ts, tsp, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000L)
		return -EINVAL;
	if (sig && copy_from_user(&pack, sig, sizeof(pack)))
		return -EFAULT;
	if ((ret = set_user_sigmask(pack.p, pack.size, &old)))
		return ret;
	until = ktime_get_ns() + ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	ret = core_sys_select(n, inp, outp, exp, until, !tsp);
	if (pack.p)
		restore_saved_sigmask_unless(ret == -ERESTARTNOHAND, old);
	if (tsp) {
		u64 left = time_left(until);
		ts = (struct timespec64){ left / 1000000000ULL, left % 1000000000ULL };
		(void)copy_to_user(tsp, &ts, sizeof(ts));
	}
	return ret;
}
