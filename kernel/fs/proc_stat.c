/*
 * /proc/<pid>/stat, /proc/<pid>/task/<tid>/stat and /proc/self/stat (Linux: fs/proc/array.c,
 * do_task_stat()): the 52 fields of Linux 6.1's line, in its order. What this kernel keeps is
 * real (ids, state, terminal, CPU time and minor faults by the tick, threads, start time, memory
 * layout, signals, scheduling); what it has no such thing for is 0, as Linux prints it for a
 * task that has none (major faults: no I/O; nice: no nice values; swap, guest time, block I/O
 * delay, the interval timer). The directory of a process (whole) sums its threads, living and
 * exited, as Linux's does; a thread's own directory shows the thread.
 *
 * Everything is copied under the tasklist lock (the threads, the mm: exit and exec change a
 * task's mm under it), the signal lock and the task's run queue lock, then printed.
 */
#include "kernel/fs/procfs.h"
#include "kernel/jobctl.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_types.h"
#include "kernel/sched/sched.h"
#include "kernel/signal.h"
#include "kernel/thread_group.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/string.h"

#define USER_HZ 100 /* clock_t; the tick is HZ = 100 too, so ticks are clock_t as they are */
#define PF_EXITING 0x00000004
#define PF_KTHREAD 0x00200000
/* The console's controlling-terminal number as Linux encodes ttyS0 (major 4, minor 64). */
#define CONSOLE_TTY_NR ((4 << 8) | 64)

struct stat_probe {
	int pid;
	bool whole, found;
	char comm[TASK_COMM_LEN];
	char state;
	int ppid, pgid, sid, tty_nr, tpgid, threads, prio, cpu, policy, exit_signal, exit_code;
	unsigned int flags, rt_priority;
	bool sleeping;
	struct task_times times, child_times;
	u64 start;
	unsigned long vsize, rss, code[2], data[2], start_stack, start_brk, arg[2], env[2];
	u64 pending, blocked, ignored, caught;
};

static int ppid_of(struct task *t)
{
	struct task *p = process_of(t)->parent;

	if (!t->mm && !t->exit_state)
		return 0; /* a kernel thread is nobody's child here */
	return p ? (p->tgid ?: p->pid) : 1;
}

static void copy_mm(struct stat_probe *p, const struct mm_struct *mm)
{
	p->vsize = mm->total_vm * PAGE_SIZE;
	p->rss = mm->rss;
	p->code[0] = mm->start_code, p->code[1] = mm->end_code;
	p->data[0] = mm->start_data, p->data[1] = mm->end_data;
	p->start_stack = mm->start_stack;
	p->start_brk = mm->start_brk;
	p->arg[0] = mm->arg_start, p->arg[1] = mm->arg_end;
	p->env[0] = mm->env_start, p->env[1] = mm->env_end;
}

/* The times of t's process: the living threads', the exited ones' (kept by the leader). */
static void process_times(struct task *t, struct task_times *sum)
{
	struct task *leader = process_of(t);

	*sum = leader->times;
	task_times_add(sum, &leader->dead_times);
	for (struct task *th = t->signal ? t->signal->thread_head : NULL; th; th = th->thread_next)
		if (th != leader)
			task_times_add(sum, &th->times);
}

static void copy_one(struct task *t, struct stat_probe *p)
{
	int console_sid = tty_console_session();

	p->found = true;
	memcpy(p->comm, t->comm, sizeof(p->comm));
	p->comm[TASK_COMM_LEN - 1] = 0;
	p->state = task_state_char(t);
	p->ppid = ppid_of(t);
	p->pgid = t->pgid;
	p->sid = t->sid;
	p->tty_nr = console_sid && t->sid == console_sid ? CONSOLE_TTY_NR : 0;
	p->tpgid = p->tty_nr ? tty_foreground_pgrp() : -1;
	p->flags = (t->mm || t->exit_state ? 0 : PF_KTHREAD) | (t->exit_state ? PF_EXITING : 0);
	p->threads = t->signal ? t->signal->nr_threads : 1;
	if (p->whole) {
		process_times(t, &p->times);
		p->child_times = process_of(t)->child_times;
	} else {
		p->times = t->times;
	}
	p->prio = t->prio - MAX_RT_PRIO;
	p->start = t->start_ns / (NSEC_PER_SEC / USER_HZ);
	if (t->mm)
		copy_mm(p, t->mm);
	p->pending = t->pending;
	p->blocked = t->blocked;
	collect_sigign_sigcatch(t, &p->ignored, &p->caught);
	/* Linux 6.1 prints 1 for a task not running, for a process of one thread or a thread. */
	p->sleeping = t->state != TASK_RUNNING && (!p->whole || p->threads < 2);
	p->exit_signal = process_of(t) == t ? SIGCHLD : -1;
	p->cpu = t->cpu;
	p->rt_priority = t->rt_priority;
	p->policy = t->policy;
	p->exit_code = t->exit_state ? t->exit_code : 0;
}

static void probe_task(struct task *t, void *arg)
{
	struct stat_probe *p = arg;

	if (t->pid && t->pid == p->pid && !p->found)
		copy_one(t, p);
}

static bool stat_probe(struct stat_probe *p, int pid, bool whole)
{
	unsigned long flags, sflags;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->whole = whole;
	flags = tasklist_lock_irqsave();
	sflags = spin_lock_irqsave(&siglock);
	for_each_task(probe_task, p);
	spin_unlock_irqrestore(&siglock, sflags);
	tasklist_unlock_irqrestore(flags);
	return p->found;
}

int proc_stat_show(struct seq_file *m, int pid, bool whole)
{
	struct stat_probe p;
	const unsigned long long sigs = 0x7fffffffULL; /* Linux prints the first 31 */

	if (!stat_probe(&p, pid, whole))
		return -ESRCH;
	seq_printf(m, "%d (%s) %c %d %d %d %d %d %u %lu %lu 0 0 ", p.pid, p.comm, p.state, p.ppid,
		   p.pgid, p.sid, p.tty_nr, p.tpgid, p.flags, p.times.min_flt,
		   p.child_times.min_flt);
	seq_printf(m, "%llu %llu %llu %llu %d 0 %d 0 %llu %lu %lu %lu ",
		   (unsigned long long)p.times.utime, (unsigned long long)p.times.stime,
		   (unsigned long long)p.child_times.utime, (unsigned long long)p.child_times.stime,
		   p.prio, p.threads, (unsigned long long)p.start, p.vsize, p.rss, ~0UL);
	seq_printf(m, "%lu %lu %lu 0 0 %llu %llu %llu %llu %d 0 0 %d %d %u %d 0 0 0 ", p.code[0],
		   p.code[1], p.start_stack, p.pending & sigs, p.blocked & sigs, p.ignored & sigs,
		   p.caught & sigs, p.sleeping, p.exit_signal, p.cpu, p.rt_priority, p.policy);
	seq_printf(m, "%lu %lu %lu %lu %lu %lu %lu %d\n", p.data[0], p.data[1], p.start_brk,
		   p.arg[0], p.arg[1], p.env[0], p.env[1], p.exit_code);
	return 0;
}
