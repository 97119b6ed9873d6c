/*
 * Threads (Linux: the CLONE_THREAD half of kernel/fork.c, exit.c and signal.c): a process is a
 * group of tasks sharing one address space, one fd table and one set of signal handlers. Each
 * thread is a task with its own pid (the trace's pid column, gettid()); getpid() is the group's
 * tgid, the leader's pid. Threads are nobody's children: they free themselves when they end; the
 * process ends, and its parent hears of it, when the last one does.
 *
 *   clone(CLONE_VM|CLONE_THREAD|...)   copy_thread_group(): p joins current's signal_struct
 *   exit(0) in a thread                thread_group_leave(): the last one ends the process
 *   exit_group(3), SIGKILL, SIGSEGV    zap_other_threads(): SIGKILL to the others, status 3
 *   execve in a thread group           de_thread(): the others go first
 */
#include "kernel/thread_group.h"
#include "kernel/signal.h"
#include "kernel/mm/mm.h"
#include "kernel/fs/fs.h"
#include "lib/errno.h"

int copy_thread_group(struct task *p)
{
	struct task *cur = current;
	struct signal_struct *g = cur->signal, *made = NULL;
	unsigned long flags;

	if (!g) {
		if (!(made = kzalloc(sizeof(*made))))
			return -ENOMEM;
		/* One array of actions for all threads, even while every one is SIG_DFL. */
		if (!cur->sighand && !(cur->sighand = kzalloc(_NSIG * sizeof(*cur->sighand)))) {
			kfree(made);
			return -ENOMEM;
		}
		spin_lock_init(&made->wait_chldexit.lock);
		made->leader = made->thread_head = cur;
		made->nr_threads = 1;
		made->sighand = cur->sighand;
		cur->thread_next = NULL;
		g = made;
	}
	flags = tasklist_lock_irqsave();
	if (g->group_exit) { /* exit_group() in another thread: no new thread (Linux's check) */
		tasklist_unlock_irqrestore(flags);
		kfree(made);
		return -ERESTARTNOINTR;
	}
	cur->signal = g;
	p->signal = g;
	p->sighand = g->sighand;
	p->tgid = cur->tgid;
	p->thread_next = g->thread_head;
	g->thread_head = p;
	g->nr_threads++;
	task_join_group_stop(p);
	tasklist_unlock_irqrestore(flags);
	return 0;
}

bool thread_group_leave(struct task *t)
{
	struct signal_struct *g = t->signal;
	unsigned long flags = tasklist_lock_irqsave();
	bool last;

	for (struct task **pp = &g->thread_head; *pp; pp = &(*pp)->thread_next)
		if (*pp == t) {
			*pp = t->thread_next;
			break;
		}
	if (t != g->leader) /* the leader's own stay in its task */
		task_times_add(&g->leader->dead_times, &t->times);
	last = --g->nr_threads == 0;
	if (g->exec_waiter && g->nr_threads == 1)
		wake_up_process(g->exec_waiter);
	tasklist_unlock_irqrestore(flags);
	return last;
}

int zap_other_threads(int code)
{
	struct signal_struct *g = current->signal;
	unsigned long flags;

	if (!g)
		return code;
	flags = tasklist_lock_irqsave();
	if (g->group_exit) { /* the first one sent the SIGKILLs (an execve's: not to itself) */
		tasklist_unlock_irqrestore(flags);
		return g->group_exit_code;
	}
	g->group_exit = true;
	g->group_exit_code = code;
	for (struct task *t = g->thread_head; t; t = t->thread_next)
		if (t != current)
			signal_wake_up_kill(t);
	tasklist_unlock_irqrestore(flags);
	return code;
}

/* Sets what CLONE_FS threads share in current and each of them; tasklist lock held. */
static void for_each_fs_sharer(void (*set)(struct task *t, void *arg), void *arg)
{
	struct signal_struct *g = current->signal;

	set(current, arg);
	if (!g || !current->fs_shared)
		return;
	for (struct task *t = g->thread_head; t; t = t->thread_next)
		if (t != current && t->fs_shared)
			set(t, arg);
}

static void set_pwd(struct task *t, void *arg)
{
	struct fnode *n = arg, *old = t->cwd;

	fs_pin(n);
	t->cwd = n;
	if (old)
		fs_unpin(old);
}

void set_fs_pwd(struct fnode *n)
{
	unsigned long flags = tasklist_lock_irqsave();

	for_each_fs_sharer(set_pwd, n);
	tasklist_unlock_irqrestore(flags);
}

static void set_umask(struct task *t, void *arg)
{
	t->umask = *(unsigned int *)arg;
}

unsigned int set_fs_umask(unsigned int mask)
{
	unsigned long flags = tasklist_lock_irqsave();
	unsigned int old = current->umask;

	for_each_fs_sharer(set_umask, &mask);
	tasklist_unlock_irqrestore(flags);
	return old;
}

void wake_up_parent(struct task *parent)
{
	wake_up_process(parent);
	if (parent->signal)
		wake_up(&parent->signal->wait_chldexit);
}

/*
 * Linux's exchange_tids() and the rest of de_thread()'s end: the exec'ing thread becomes the
 * process: the leader's pid (the old leader, a zombie off its CPU, takes the thread's and goes),
 * its place among the parent's children, its children, its start time. Tasklist lock held; the
 * old leader, for the caller to free.
 */
static struct task *take_leader_place(struct signal_struct *g)
{
	struct task *t = current, *leader = g->leader;
	int pid = leader->pid;
	unsigned long flags;

	leader->pid = t->pid;
	t->pid = pid;
	t->start_ns = leader->start_ns;
	t->parent = leader->parent;
	t->sibling = leader->sibling;
	for (struct task **pp = t->parent ? &t->parent->children : NULL; pp && *pp;
	     pp = &(*pp)->sibling)
		if (*pp == leader) {
			*pp = t;
			break;
		}
	t->children = leader->children;
	for (struct task *c = t->children; c; c = c->sibling)
		c->parent = t;
	leader->parent = leader->sibling = leader->children = NULL;
	leader->signal = NULL; /* the group is ours now: free_task() leaves it alone */
	flags = spin_lock_irqsave(&siglock); /* the process's pending set moves with the leader */
	t->shared_pending = leader->shared_pending;
	t->shared_sigq = leader->shared_sigq;
	leader->shared_pending = 0;
	leader->shared_sigq = NULL;
	g->leader = t;
	spin_unlock_irqrestore(&siglock, flags);
	return leader;
}

int de_thread(void)
{
	struct signal_struct *g = current->signal;
	struct task *old_leader = NULL;
	unsigned long flags;
	int err = 0;

	if (!g)
		return 0;
	flags = tasklist_lock_irqsave();
	if (g->group_exit) { /* another thread's exit_group() came first (Linux: -EAGAIN) */
		tasklist_unlock_irqrestore(flags);
		return -EAGAIN;
	}
	tasklist_unlock_irqrestore(flags);
	zap_other_threads(0);
	flags = tasklist_lock_irqsave();
	while (g->nr_threads > 1 && !sigkill_pending(current)) {
		g->exec_waiter = current;
		current->state = TASK_SLEEPING;
		tasklist_unlock_irqrestore(flags);
		schedule();
		flags = tasklist_lock_irqsave();
	}
	/* A thread that is not the leader waits for the leader's zombie to be off its CPU too:
	 * its stack is freed below. */
	while (g->nr_threads == 1 && g->leader != current && !g->leader->off_cpu &&
	       !sigkill_pending(current)) {
		tasklist_unlock_irqrestore(flags);
		msleep(1);
		flags = tasklist_lock_irqsave();
	}
	g->exec_waiter = NULL;
	if (g->nr_threads > 1 || (g->leader != current && !g->leader->off_cpu)) {
		err = -EINTR; /* killed meanwhile: the group exit stands */
	} else {
		/* The exec is not an exit: the group stays, with only us in it, the leader. */
		g->group_exit = false;
		if (g->leader != current)
			old_leader = take_leader_place(g);
	}
	tasklist_unlock_irqrestore(flags);
	if (old_leader)
		free_task(old_leader);
	return err;
}

void exit_thread_group(struct task *t)
{
	struct signal_struct *g = t->signal;

	if (!g || g->leader != t)
		return;
	flush_sigqueue_mask(&t->shared_pending, &t->shared_sigq, ~0ULL); /* nobody sends now */
	kfree(g->sighand);
	kfree(g);
}

struct find_arg {
	int tgid;
	struct task *found;
};

static void match_tgid(struct task *t, void *arg)
{
	struct find_arg *a = arg;

	if (t->tgid == a->tgid && !t->exit_state && (!a->found || t->pid == a->tgid))
		a->found = t;
}

struct task *find_thread_group(int tgid)
{
	struct find_arg a = { tgid, NULL };

	if (tgid > 0)
		for_each_task(match_tgid, &a);
	return a.found;
}
