/*
 * /proc/<pid>/status and /proc/self/status (Linux: fs/proc/array.c, proc_pid_status()): a task's
 * identity, state and signals, one "Name:\tvalue" line each, in Linux's order and format.
 *
 * Everything is copied while the task cannot go: the tasklist lock (parent links, the thread
 * count), the signal lock (pending and queued signals, the actions), then the task's run queue
 * lock (for_each_task()), in the order every other path takes them; the text is written after.
 * Not here: the lines a task with memory adds after NSsid (VmPeak ... HugetlbPages,
 * CoreDumping, THP_enabled) and those after SigCgt (capabilities, seccomp, speculation,
 * Cpus_allowed, Mems_allowed, context switches).
 */
#include "kernel/fs/file.h"
#include "kernel/fs/procfs.h"
#include "kernel/sched/sched.h"
#include "kernel/signal.h"
#include "kernel/thread_group.h"
#include "lib/errno.h"
#include "lib/string.h"

struct status_probe {
	int pid;
	bool found;
	char comm[TASK_COMM_LEN];
	char state;
	int tgid, ppid, pgid, sid, threads, fdsize;
	unsigned int umask, uid[4], gid[4];
	unsigned int uid_queued; /* queued signals of every task of the same real uid (SigQ) */
	u64 pending, shpending, blocked, ignored, caught;
};

/* The parent's tgid as getppid() gives it; a kernel thread is nobody's child here. */
static int ppid_of(struct task *t)
{
	struct task *p = process_of(t)->parent;

	if (!t->mm)
		return 0;
	return p ? (p->tgid ?: p->pid) : 1;
}

static unsigned int queued(const struct task *t)
{
	unsigned int n = 0;

	for (const struct sigqueue *q = t->sigq; q; q = q->next)
		n++;
	return n;
}

void collect_sigign_sigcatch(const struct task *t, u64 *ign, u64 *catch)
{
	*ign = *catch = 0;
	for (int sig = 1; sig <= _NSIG && t->sighand; sig++) {
		unsigned long h = t->sighand[sig - 1].handler;
		if (h == SIG_IGN)
			*ign |= 1ULL << (sig - 1);
		else if (h != SIG_DFL)
			*catch |= 1ULL << (sig - 1);
	}
}

static void copy_one(struct task *t, struct status_probe *p)
{
	p->found = true;
	memcpy(p->comm, t->comm, sizeof(p->comm));
	p->comm[TASK_COMM_LEN - 1] = 0;
	p->state = task_state_char(t);
	p->tgid = t->tgid ?: t->pid;
	p->ppid = ppid_of(t);
	p->pgid = t->pgid;
	p->sid = t->sid;
	p->threads = t->signal ? t->signal->nr_threads : 1;
	p->fdsize = t->files ? NR_OPEN_DEFAULT : 0;
	p->umask = t->umask;
	p->uid[0] = t->uid, p->uid[1] = t->euid, p->uid[2] = t->suid, p->uid[3] = t->fsuid;
	p->gid[0] = t->gid, p->gid[1] = t->egid, p->gid[2] = t->sgid, p->gid[3] = t->fsgid;
	p->pending = t->pending;
	p->shpending = process_of(t)->shared_pending;
	p->blocked = t->blocked;
	collect_sigign_sigcatch(t, &p->ignored, &p->caught);
}

static void probe_task(struct task *t, void *arg)
{
	struct status_probe *p = arg;

	if (t->pid && t->pid == p->pid && !p->found)
		copy_one(t, p);
}

static void count_queued(struct task *t, void *arg)
{
	struct status_probe *p = arg;

	if (t->pid && t->uid == p->uid[0])
		p->uid_queued += queued(t);
}

static bool status_probe(struct status_probe *p, int pid)
{
	unsigned long flags, sflags;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	flags = tasklist_lock_irqsave();
	sflags = spin_lock_irqsave(&siglock);
	for_each_task(probe_task, p);
	if (p->found)
		for_each_task(count_queued, p);
	spin_unlock_irqrestore(&siglock, sflags);
	tasklist_unlock_irqrestore(flags);
	return p->found;
}

static const char *state_name(char c)
{
	switch (c) {
	case 'R':
		return "R (running)";
	case 'T':
		return "T (stopped)";
	case 'Z':
		return "Z (zombie)";
	default:
		return "S (sleeping)";
	}
}

/* Linux's render_sigset_t(): the 64 signals as 16 hex digits, the highest first. */
static void render_sigset(struct seq_file *m, const char *header, u64 set)
{
	seq_printf(m, "%s%016llx\n", header, (unsigned long long)set);
}

int proc_status_show(struct seq_file *m, int pid)
{
	struct status_probe p;

	if (!status_probe(&p, pid))
		return -ESRCH;
	seq_printf(m, "Name:\t%s\nUmask:\t%04o\nState:\t%s\n", p.comm, p.umask,
		   state_name(p.state));
	seq_printf(m, "Tgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\n", p.tgid, p.pid,
		   p.ppid);
	seq_printf(m, "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\n", p.uid[0], p.uid[1], p.uid[2],
		   p.uid[3], p.gid[0], p.gid[1], p.gid[2], p.gid[3]);
	seq_printf(m, "FDSize:\t%d\nGroups:\t \n", p.fdsize);
	seq_printf(m, "NStgid:\t%d\nNSpid:\t%d\nNSpgid:\t%d\nNSsid:\t%d\n", p.tgid, p.pid, p.pgid,
		   p.sid);
	/* RLIMIT_SIGPENDING: no limit here, which Linux prints as the unsigned long it is */
	seq_printf(m, "Threads:\t%d\nSigQ:\t%u/%lu\n", p.threads, p.uid_queued, ~0UL);
	render_sigset(m, "SigPnd:\t", p.pending);
	render_sigset(m, "ShdPnd:\t", p.shpending);
	render_sigset(m, "SigBlk:\t", p.blocked);
	render_sigset(m, "SigIgn:\t", p.ignored);
	render_sigset(m, "SigCgt:\t", p.caught);
	return 0;
}
