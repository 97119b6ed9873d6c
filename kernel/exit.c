/*
 * A process's end: do_exit() lets go of its memory, files and directory, hands its children to
 * nobody, and leaves a zombie holding the wait status until the parent's wait4() takes it. A
 * thread's exit ends only that thread; the process ends with its last thread, and exit_group()
 * (or a fatal signal) ends every thread first (kernel/thread_group.c).
 *
 *   exit_group(3)      task: ... -> EXIT_ZOMBIE, TASK_DEAD -> schedule() -> off_cpu, parent woken
 *   parent: wait4()    finds the zombie -> status 0x0300 -> free_task(), or schedule_tail() frees
 *                      it once off its CPU
 */
#include "kernel/signal.h"
#include "kernel/jobctl.h"
#include "arch/x86/cpu.h"
#include "arch/x86/process.h"
#include "kernel/fs/file.h"
#include "kernel/fs/fs.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_types.h"
#include "kernel/syscalls.h"
#include "kernel/uaccess.h"
#include "kernel/futex.h"
#include "kernel/thread_group.h"
#include "lib/errno.h"
#include "kernel/trace/events/sched.h"
#include "kernel/trace/trace.h"

#define WNOHANG 0x1
#define WUNTRACED 0x2
#define WCONTINUED 0x8
#define __WALL 0x40000000
#define __WCLONE 0x80000000

static void exit_mm(struct task *t)
{
	struct mm_struct *mm = t->mm;
	unsigned long flags;

	if (!mm)
		return;
	mm_release(t, mm);
	/* Under the tasklist lock: a /proc reader holding it may look at the mm (proc_stat.c). */
	flags = tasklist_lock_irqsave();
	t->mm = NULL;
	switch_mm(NULL); /* off its page tables before they go */
	tasklist_unlock_irqrestore(flags);
	mmput(mm);
}

/* Children of an exiting task belong to nobody: a zombie among them is freed now, the others
 * free themselves when they end (Linux gives them to init; there is no init here yet). */
static void forget_children(struct task *t)
{
	struct task *c, *free_list = NULL;
	unsigned long flags = tasklist_lock_irqsave();

	while ((c = t->children)) {
		t->children = c->sibling;
		c->parent = NULL;
		/* A leader whose threads live on is freed by the last of them (do_exit()). */
		if (c->exit_state == EXIT_ZOMBIE && c->off_cpu && !delay_group_leader(c)) {
			c->sibling = free_list;
			free_list = c;
		}
	}
	tasklist_unlock_irqrestore(flags);
	while ((c = free_list)) {
		free_list = c->sibling;
		free_task(c);
	}
}

/* The process of t (a thread) is over: its leader's zombie, waiting since the leader exited,
 * now tells the parent; with no parent it is freed here. Tasklist lock held: true to free it. */
static bool end_process(struct task *leader)
{
	struct signal_struct *g = leader->signal;

	if (g->group_exit)
		leader->exit_code = g->group_exit_code;
	if (!leader->parent)
		return leader->off_cpu; /* not yet off its CPU: schedule_tail() frees it */
	do_notify_parent(leader, leader->exit_code);
	wake_up_parent(leader->parent);
	return false;
}

void do_exit(int code)
{
	struct task *t = current, *leader;
	bool group_dead, free_leader = false;
	unsigned long flags;

	exit_mm(t);
	exit_files(t);
	if (t->cwd) {
		fs_unpin(t->cwd);
		t->cwd = NULL;
	}
	if (!t->signal)
		kfree(t->sighand); /* a group's goes with its leader (exit_thread_group()) */
	t->sighand = NULL;
	exit_signal_state(t);
	/* The leader, read while we still count in the group: once we leave, the last thread may end
	 * the process and the parent reap the leader and the group with it. */
	leader = process_of(t);
	group_dead = !t->signal || thread_group_leave(t);
	if (leader != t) /* then only leader, and only if we were the last, is ours to touch */
		t->signal = NULL;
	if (group_dead) {
		exit_jobctl(leader);
		forget_children(leader);
	}
	flags = tasklist_lock_irqsave();
	t->exit_code = code;
	if (t->signal && t->signal->group_exit)
		t->exit_code = t->signal->group_exit_code;
	t->exit_state = EXIT_ZOMBIE;
	if (group_dead && leader->signal)
		leader->signal->ended =
			true; /* from here wait4 may take the leader (or we free it) */
	if (group_dead && leader == t)
		do_notify_parent(t, t->exit_code);
	else if (group_dead)
		free_leader = end_process(leader);
	tasklist_unlock_irqrestore(flags);
	/* Only now, as Linux at sched_process_free: the SIGCHLD just sent is still this task's
	 * record, kept out of the trace if the task was (ftracetest's event-no-pid.tc). */
	trace_pids_exit(t);
	if (free_leader)
		free_task(leader);
	task_exit();
}

SYSCALL_DEFINE1(exit, int, error_code)
{
	do_exit((error_code & 0xff) << 8);
}

/* Ends every thread of the process: the others get SIGKILL, and the process's status is the
 * first group exit's. Its own function, as in Linux, so that exit and exit_group stay two entry
 * points in a trace. */
void __noreturn do_group_exit(int exit_code)
{
	do_exit(zap_other_threads(exit_code));
}

SYSCALL_DEFINE1(exit_group, int, error_code)
{
	do_group_exit((error_code & 0xff) << 8);
}

/*
 * One pass over the children: a zombie matching pid (-1: any; 0: one of the caller's process
 * group; < -1: one of group -pid) is unlinked and returned; *found says whether any child matched
 * at all. Its SIGCHLD went before it left its CPU, and a parent that heard it must find it (ash's
 * `wait` asks with WNOHANG once, then sleeps until the next SIGCHLD): so a zombie still on its
 * CPU is reaped too, and freed by schedule_tail() once off it, as an orphan is.
 */
static struct task *reap_child(struct task *self, int pid, bool *found)
{
	for (struct task **pp = &self->children; *pp; pp = &(*pp)->sibling) {
		struct task *c = *pp;
		if ((pid > 0 && c->pid != pid) || (pid == 0 && c->pgid != self->pgid) ||
		    (pid < -1 && c->pgid != -pid))
			continue;
		*found = true;
		/* A leader is reaped with its last thread (Linux's delay_group_leader()). */
		if (c->exit_state == EXIT_ZOMBIE && !delay_group_leader(c)) {
			*pp = c->sibling;
			return c;
		}
	}
	return NULL;
}

/* Any thread of a process waits for the process's children, which are its leader's. */
static long do_wait(int pid, int *status, int options)
{
	struct task *self = process_of(current);
	struct wait_queue_entry e;

	trace_sched_process_wait(pid);
	for (;;) {
		unsigned long flags = tasklist_lock_irqsave();
		bool found = false;
		struct task *c = reap_child(self, pid, &found);

		if (c) {
			int cpid = c->pid;
			bool gone = c->off_cpu;
			*status = c->exit_code;
			/* Its threads' times and its own children's become ours (Linux's cutime). */
			task_times_add(&self->child_times, &c->times);
			task_times_add(&self->child_times, &c->dead_times);
			task_times_add(&self->child_times, &c->child_times);
			if (!gone)
				c->parent = NULL; /* schedule_tail() frees it */
			tasklist_unlock_irqrestore(flags);
			if (gone)
				free_task(c);
			return cpid;
		}
		if (found && (c = wait_task_stopped(self, pid, options, status))) {
			tasklist_unlock_irqrestore(flags);
			return c->pid;
		}
		if (!found || (options & WNOHANG)) {
			tasklist_unlock_irqrestore(flags);
			return found ? 0 : -ECHILD;
		}
		/* The child's last switch wakes us (schedule_tail): the leader, and any thread
		 * queued on the group's wait_chldexit. */
		if (current->signal)
			prepare_to_wait(&current->signal->wait_chldexit, &e);
		current->state = TASK_SLEEPING;
		tasklist_unlock_irqrestore(flags);
		if (current->mm && fatal_signal_pending(current)) {
			if (current->signal)
				finish_wait(&current->signal->wait_chldexit, &e);
			current->state = TASK_RUNNING;
			return -ERESTARTSYS;
		}
		schedule();
		if (current->signal)
			finish_wait(&current->signal->wait_chldexit, &e);
	}
}

SYSCALL_DEFINE4(wait4, int, pid, int __user *, stat_addr, int, options, void __user *, ru)
{
	int status;
	long ret;

	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WALL | __WCLONE))
		return -EINVAL;
	if (pid == -2147483647 - 1)
		return -ESRCH; /* INT_MIN: Linux refuses to negate it */
	/* Check the pointers before a child is reaped: a bad one must not lose its status. */
	if (stat_addr && !access_ok(stat_addr, sizeof(int)))
		return -EFAULT;
	if (ru && !access_ok(ru, 144))
		return -EFAULT;
	ret = do_wait(pid, &status, options);
	if (ret > 0 && stat_addr && put_user(status, stat_addr))
		return -EFAULT;
	if (ret > 0 && ru) {
		char zero[144] = { 0 }; /* struct rusage: no accounting yet, all zero */
		if (copy_to_user(ru, zero, sizeof(zero)))
			return -EFAULT;
	}
	return ret;
}

long kernel_wait4(int pid, int *status, int options)
{
	return do_wait(pid, status, options);
}
