/*
 * epoll (Linux: fs/eventpoll.c): an fd that holds a set of watched fds, so a consumer asks once
 * which of them are ready and sleeps until one is (a BPF ring buffer, a pipe, a perf event: what
 * libbpf's ring_buffer__poll() waits on).
 *
 *   epfd = epoll_create1(0)                   an empty interest list
 *   epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev)   watch fd for ev.events, hand back ev.data
 *   epoll_wait(epfd, evs, max, timeout_ms)    the ready ones, at most max; sleeps while none is
 *
 * Readiness is each file's f_op->poll (kernel/fs/poll.h). When an fd is added, its poll operation
 * names the file's wait queue (poll_wait()) and the set hooks an entry there whose callback,
 * ep_poll_callback(), marks the item and wakes the set's sleepers: the waiter sleeps until an
 * arrival wakes it, as in Linux (a BPF or perf ring's wake-up comes through irq_work). A file whose
 * poll names no queue (the console, another set) is looked at again every 10 ms
 * tick while the set sleeps. EPOLLET reports an fd once for each wake-up of its queue (for a file
 * without a queue: when an event became ready since the last look); EPOLLONESHOT stops reporting
 * it until EPOLL_CTL_MOD. A set holds no reference on what it watches: when a watched file's last
 * reference goes, fput() calls eventpoll_release() and the file leaves every set, as in Linux.
 */
#include "kernel/fs/file.h"
#include "kernel/fs/poll.h"
#include "kernel/locking/mutex.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/wait.h"
#include "kernel/signal.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define EPOLL_CLOEXEC O_CLOEXEC
#define EPOLL_CTL_ADD 1
#define EPOLL_CTL_DEL 2
#define EPOLL_CTL_MOD 3
#define EPOLLEXCLUSIVE (1U << 28)
#define EPOLLWAKEUP (1U << 29)
#define EPOLLONESHOT (1U << 30)
#define EPOLLET (1U << 31)
#define EP_PRIVATE_BITS (EPOLLWAKEUP | EPOLLONESHOT | EPOLLET | EPOLLEXCLUSIVE)
#define EP_MAX_NESTS 4	    /* Linux's: epoll sets inside epoll sets, at most this deep */
#define EP_MAX_WATCHES 1024 /* this kernel's max_user_watches: -ENOSPC past it */
#define EP_MAX_EVENTS (0x7fffffff / 12)

/* x86-64 packs it: 12 bytes, data at offset 4 (Linux's EPOLL_PACKED). */
struct epoll_event {
	u32 events;
	u64 data;
} __attribute__((packed));

/* One hook of an item on a watched file's wait queue (Linux's struct eppoll_entry). */
struct eppoll_entry {
	struct eppoll_entry *next;
	struct wait_queue_entry wait; /* func: ep_poll_callback() */
	struct wait_queue_head *whead;
	struct epitem *epi;
};

struct epitem {
	struct epitem *next;
	struct eventpoll *ep;
	struct eppoll_entry *pwqlist; /* its hooks; none: looked at every tick */
	bool nowait;		      /* no hook: the file's poll names no wait queue */
	bool hook_failed;	      /* a hook could not be allocated: -ENOMEM */
	u8 rdy;			      /* woken since the last look (atomic) */
	struct file *file;	      /* no reference: eventpoll_release() removes the item first */
	int fd;
	u32 events; /* what the caller asked for, EPOLLERR | EPOLLHUP always */
	u64 data;
	u32 last_ready; /* EPOLLET: what was ready at the last look */
	bool disabled;	/* EPOLLONESHOT, reported once */
};

struct eventpoll {
	struct epitem *items;
	int nr_items;
	struct wait_queue_head wq; /* tasks in epoll_wait */
	u32 wake_seq;		   /* ep_poll_callback()s so far: a wake-up is never lost */
	struct eventpoll *next_ep; /* every set, for eventpoll_release() */
};

/* Every set's list, the list of sets and the nesting checks (Linux's ep->mtx and epmutex, as one). */
static DEFINE_MUTEX(epmutex);
static struct eventpoll *all_eps;

static unsigned int ep_poll(struct file *f, poll_table *pt);
static void ep_release(struct file *f);

static const struct file_operations eventpoll_fops = {
	.poll = ep_poll, .release = ep_release, .mode = 0600, /* Linux's anon inode: [eventpoll] */
};

static bool is_file_epoll(const struct file *f)
{
	return f->f_op == &eventpoll_fops;
}

/* Off every wait queue: once remove_wait_queue() returns, no callback runs on it. */
static void ep_unregister_pollwait(struct epitem *epi)
{
	for (struct eppoll_entry *pwq = epi->pwqlist, *next; pwq; pwq = next) {
		next = pwq->next;
		remove_wait_queue(pwq->whead, &pwq->wait);
		kfree(pwq);
	}
	epi->pwqlist = NULL;
}

static void ep_free_items(struct epitem *it)
{
	for (struct epitem *next; it; it = next) {
		next = it->next;
		ep_unregister_pollwait(it);
		it->file->f_ep_count--;
		kfree(it);
	}
}

/* Under epmutex: the items of ep that watch f, off its list. */
static void ep_unlink_file(struct eventpoll *ep, struct file *f)
{
	for (struct epitem **pp = &ep->items, *it; (it = *pp);) {
		if (it->file != f) {
			pp = &it->next;
			continue;
		}
		*pp = it->next;
		ep->nr_items--;
		it->next = NULL;
		ep_free_items(it);
	}
}

void eventpoll_release(struct file *f)
{
	mutex_lock(&epmutex);
	for (struct eventpoll *ep = all_eps; ep && f->f_ep_count; ep = ep->next_ep)
		ep_unlink_file(ep, f);
	mutex_unlock(&epmutex);
}

static unsigned int ep_item_poll(struct epitem *it, poll_table *pt, int depth);

/* Under epmutex: a nested set is readable when one of its own fds is ready. */
static unsigned int ep_ready_locked(struct eventpoll *ep, int depth)
{
	if (depth > EP_MAX_NESTS)
		return 0;
	for (struct epitem *it = ep->items; it; it = it->next)
		if (!it->disabled && (ep_item_poll(it, NULL, depth + 1) & it->events))
			return EPOLLIN | EPOLLRDNORM;
	return 0;
}

/* A nested set names no queue (its sleepers' one would nest queue locks of a kind in each other):
 * the outer set looks at it every tick. */
static unsigned int ep_item_poll(struct epitem *it, poll_table *pt, int depth)
{
	if (is_file_epoll(it->file))
		return ep_ready_locked(it->file->private_data, depth);
	return vfs_poll(it->file, pt);
}

static unsigned int ep_poll(struct file *f, poll_table *pt)
{
	unsigned int mask;

	mutex_lock(&epmutex);
	mask = ep_ready_locked(f->private_data, 0);
	mutex_unlock(&epmutex);
	return mask;
}

static void ep_release(struct file *f)
{
	struct eventpoll *ep = f->private_data;

	mutex_lock(&epmutex);
	for (struct eventpoll **pp = &all_eps; *pp; pp = &(*pp)->next_ep)
		if (*pp == ep) {
			*pp = ep->next_ep;
			break;
		}
	ep_free_items(ep->items);
	mutex_unlock(&epmutex);
	kfree(ep);
	f->private_data = NULL;
}

static long do_epoll_create(int flags)
{
	struct eventpoll *ep;
	struct file *f;
	int fd;

	if (flags & ~EPOLL_CLOEXEC)
		return -EINVAL;
	ep = kzalloc(sizeof(*ep));
	f = ep ? alloc_file(&eventpoll_fops, O_RDWR) : NULL;
	if (!f) {
		kfree(ep);
		return -ENOMEM;
	}
	f->private_data = ep;
	spin_lock_init(&ep->wq.lock);
	mutex_lock(&epmutex);
	ep->next_ep = all_eps;
	all_eps = ep;
	mutex_unlock(&epmutex);
	fd = fd_install_from(f, 0, flags & EPOLL_CLOEXEC);
	fput(f); /* the table holds it now, or nothing does and it goes */
	return fd;
}

SYSCALL_DEFINE1(epoll_create1, int, flags)
{
	return do_epoll_create(flags);
}

SYSCALL_DEFINE1(epoll_create, int, size)
{
	return size <= 0 ? -EINVAL : do_epoll_create(0);
}

static struct epitem *ep_find(struct eventpoll *ep, int fd, struct file *f)
{
	for (struct epitem *it = ep->items; it; it = it->next)
		if (it->fd == fd && it->file == f)
			return it;
	return NULL;
}

/* Would watching target from ep close a loop, or nest deeper than Linux allows (-ELOOP)? */
static bool ep_loop_check(struct eventpoll *ep, struct eventpoll *target, int depth)
{
	if (target == ep || depth >= EP_MAX_NESTS)
		return true;
	for (struct epitem *it = target->items; it; it = it->next)
		if (is_file_epoll(it->file) && ep_loop_check(ep, it->file->private_data, depth + 1))
			return true;
	return false;
}

/* The set's sleepers look again: the counter first, so one about to sleep sees it moved. */
static void ep_wake(struct eventpoll *ep)
{
	__atomic_add_fetch(&ep->wake_seq, 1, __ATOMIC_SEQ_CST);
	wake_up(&ep->wq);
}

/* Linux's ep_poll_callback(): the watched file woke its queue (under that queue's lock, in
 * whatever context the file's wake_up() ran). */
static void ep_poll_callback(struct wait_queue_entry *wait)
{
	struct epitem *epi = container_of(wait, struct eppoll_entry, wait)->epi;

	__atomic_store_n(&epi->rdy, 1, __ATOMIC_RELEASE);
	ep_wake(epi->ep);
}

struct ep_pqueue {
	poll_table pt;
	struct epitem *epi;
};

/* Linux's ep_ptable_queue_proc(): the file's poll named wq; hook the item there. */
static void ep_ptable_queue_proc(struct file *f, struct wait_queue_head *wq, poll_table *pt)
{
	struct epitem *epi = container_of(pt, struct ep_pqueue, pt)->epi;
	struct eppoll_entry *pwq = kzalloc(sizeof(*pwq));

	if (!pwq) {
		epi->hook_failed = true;
		return;
	}
	pwq->wait.func = ep_poll_callback;
	pwq->whead = wq;
	pwq->epi = epi;
	pwq->next = epi->pwqlist;
	epi->pwqlist = pwq;
	add_wait_queue(wq, &pwq->wait);
}

/* Under epmutex: hooks it on its file's queues and says what is ready now, which a new or changed
 * item reports once, edge-triggered or not (Linux's ep_insert() and ep_modify()). */
static void ep_item_arm(struct eventpoll *ep, struct epitem *it)
{
	struct ep_pqueue epq = { .pt = { ep_ptable_queue_proc }, .epi = it };
	unsigned int ready = ep_item_poll(it, it->pwqlist ? NULL : &epq.pt, 0) & it->events;

	it->nowait = !it->pwqlist;
	__atomic_store_n(&it->rdy, ready != 0, __ATOMIC_RELEASE);
	if (ready)
		ep_wake(ep);
}

static int ep_insert(struct eventpoll *ep, const struct epoll_event *ev, struct file *tf, int fd)
{
	struct epitem *it;

	if (ep->nr_items >= EP_MAX_WATCHES)
		return -ENOSPC;
	if (is_file_epoll(tf) && ep_loop_check(ep, tf->private_data, 0))
		return -ELOOP;
	if (!(it = kzalloc(sizeof(*it))))
		return -ENOMEM;
	tf->f_ep_count++;
	it->file = tf;
	it->fd = fd;
	it->events = ev->events | EPOLLERR | EPOLLHUP;
	it->data = ev->data;
	it->ep = ep;
	ep_item_arm(ep, it);
	if (it->hook_failed) {
		ep_free_items(it);
		return -ENOMEM;
	}
	it->next = ep->items;
	ep->items = it;
	ep->nr_items++;
	return 0;
}

static struct epitem *ep_remove(struct eventpoll *ep, struct epitem *victim)
{
	for (struct epitem **pp = &ep->items; *pp; pp = &(*pp)->next)
		if (*pp == victim) {
			*pp = victim->next;
			ep->nr_items--;
			victim->next = NULL;
			return victim;
		}
	return NULL;
}

/* Linux's do_epoll_ctl(), its checks in its order, on the two files fget() found. */
static long ep_ctl(struct file *f, struct file *tf, int op, int fd, const struct epoll_event *ev)
{
	struct epitem *it, *gone = NULL;
	struct eventpoll *ep;
	long err;

	if (!tf->f_op->poll)
		return -EPERM; /* a file that cannot say when it is ready */
	if (f == tf || !is_file_epoll(f))
		return -EINVAL;
	if ((ev->events & EPOLLEXCLUSIVE) &&
	    (op == EPOLL_CTL_MOD || is_file_epoll(tf) ||
	     (op == EPOLL_CTL_ADD &&
	      (ev->events & ~(EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLRDNORM | EPOLLWRNORM |
			      EPOLLWAKEUP | EPOLLET | EPOLLEXCLUSIVE)))))
		return -EINVAL;
	ep = f->private_data;
	mutex_lock(&epmutex);
	it = ep_find(ep, fd, tf);
	switch (op) {
	case EPOLL_CTL_ADD:
		err = it ? -EEXIST : ep_insert(ep, ev, tf, fd);
		break;
	case EPOLL_CTL_DEL:
		err = it ? 0 : -ENOENT;
		gone = it ? ep_remove(ep, it) : NULL;
		break;
	case EPOLL_CTL_MOD:
		err = -ENOENT;
		if (!it)
			break;
		err = -EINVAL;
		if (it->events & EPOLLEXCLUSIVE)
			break;
		it->events = ev->events | EPOLLERR | EPOLLHUP;
		it->data = ev->data;
		it->last_ready = 0;
		it->disabled = false;
		ep_item_arm(ep, it);
		err = 0;
		break;
	default:
		err = -EINVAL;
	}
	ep_free_items(gone);
	mutex_unlock(&epmutex);
	return err;
}

static long do_epoll_ctl(int epfd, int op, int fd, const struct epoll_event *ev)
{
	struct file *f = fget(epfd), *tf = fget(fd);
	long err = f && tf ? ep_ctl(f, tf, op, fd, ev) : -EBADF;

	if (tf)
		fput(tf);
	if (f)
		fput(f);
	return err;
}

SYSCALL_DEFINE4(epoll_ctl, int, epfd, int, op, int, fd, struct epoll_event __user *, event)
{
	struct epoll_event ev = { 0, 0 };

	if (op != EPOLL_CTL_DEL && copy_from_user(&ev, event, sizeof(ev)))
		return -EFAULT;
	return do_epoll_ctl(epfd, op, fd, &ev);
}

/* One look: the ready fds, at most max, into evs; EPOLLET and EPOLLONESHOT applied. *tick: an fd
 * without a wait queue is watched, so a sleeper must look again at the next tick. */
static int ep_send_events(struct eventpoll *ep, struct epoll_event *evs, int max, bool *tick)
{
	int n = 0;

	for (struct epitem *it = ep->items; it && n < max; it = it->next) {
		unsigned int ready, report;

		if (it->disabled)
			continue;
		*tick |= it->nowait;
		/* edge-triggered with a queue: only an fd woken since the last look */
		if ((it->events & EPOLLET) && !it->nowait &&
		    !__atomic_exchange_n(&it->rdy, 0, __ATOMIC_ACQ_REL))
			continue;
		ready = ep_item_poll(it, NULL, 0) & it->events;
		report = (it->events & EPOLLET) && it->nowait ? ready & ~it->last_ready : ready;
		it->last_ready = ready;
		if (!report)
			continue;
		evs[n].events = ready;
		evs[n].data = it->data;
		n++;
		if (it->events & EPOLLONESHOT)
			it->disabled = true;
	}
	return n;
}

/* Sleeps until a callback moves wake_seq past seq, a signal, or until (ktime ns; 0: no limit). */
static void ep_sleep(struct eventpoll *ep, u32 seq, u64 until)
{
	struct wait_queue_entry wait;
	unsigned long flags;

	prepare_to_wait(&ep->wq, &wait);
	if (__atomic_load_n(&ep->wake_seq, __ATOMIC_SEQ_CST) == seq && !signal_pending(current)) {
		if (until) {
			flags = local_irq_save();
			sleep_timer_arm(until);
			local_irq_restore(flags);
		}
		schedule();
	}
	finish_wait(&ep->wq, &wait);
	flags = local_irq_save();
	current->wake_at = 0; /* woken before its time: the timer must not fire on a later sleep */
	local_irq_restore(flags);
}

/* Linux's ep_poll(): looks until something is ready, the timeout passes (ms; -1: never) or a
 * signal comes (-EINTR: epoll_wait is never restarted). */
static long do_epoll_wait(int epfd, struct epoll_event __user *uevents, int maxevents, int timeout)
{
	u64 until = ktime_get_ns() + (u64)(timeout > 0 ? timeout : 0) * 1000000;
	struct epoll_event *evs;
	struct file *f;
	long n;

	if (maxevents <= 0 || maxevents > EP_MAX_EVENTS)
		return -EINVAL;
	if (!access_ok(uevents, (unsigned long)maxevents * sizeof(*evs)))
		return -EFAULT;
	if (!(f = fget(epfd))) /* held to the end: another thread may close epfd */
		return -EBADF;
	maxevents = MIN(maxevents, EP_MAX_WATCHES);
	if (!is_file_epoll(f) || !(evs = kmalloc(maxevents * sizeof(*evs)))) {
		n = is_file_epoll(f) ? -ENOMEM : -EINVAL;
		fput(f);
		return n;
	}
	for (;;) {
		struct eventpoll *ep = f->private_data;
		u32 seq = __atomic_load_n(&ep->wake_seq, __ATOMIC_SEQ_CST);
		bool tick = false;
		u64 now;

		mutex_lock(&epmutex);
		n = ep_send_events(ep, evs, maxevents, &tick);
		mutex_unlock(&epmutex);
		now = ktime_get_ns();
		if (n || (timeout >= 0 && now >= until))
			break;
		if (signal_pending(current)) {
			n = -EINTR;
			break;
		}
		if (tick)
			ep_sleep(ep, seq,
				 timeout >= 0 ? MIN(until, now + 10000000) : now + 10000000);
		else
			ep_sleep(ep, seq, timeout >= 0 ? until : 0);
	}
	if (n > 0 && copy_to_user(uevents, evs, n * sizeof(*evs)))
		n = -EFAULT;
	kfree(evs);
	fput(f);
	return n;
}

SYSCALL_DEFINE4(epoll_wait, int, epfd, struct epoll_event __user *, events, int, maxevents, int,
		timeout)
{
	return do_epoll_wait(epfd, events, maxevents, timeout);
}

/* The caller's mask for the wait only, as ppoll's. */
SYSCALL_DEFINE6(epoll_pwait, int, epfd, struct epoll_event __user *, events, int, maxevents, int,
		timeout, const u64 __user *, sigmask, size_t, sigsetsize)
{
	u64 old;
	long ret = set_user_sigmask(sigmask, sigsetsize, &old);

	if (ret)
		return ret;
	ret = do_epoll_wait(epfd, events, maxevents, timeout);
	if (sigmask)
		restore_saved_sigmask_unless(ret == -EINTR, old);
	return ret;
}
