/* kill, tgkill, tkill (Linux: kernel/signal.c): who may signal whom, and which task a pid names. */
#include "kernel/signal.h"
#include "kernel/thread_group.h"
#include "kernel/syscalls.h"
#include "lib/errno.h"

/* May the current task signal t? Root, or a real or effective uid matching t's real or saved
 * one; SIGCONT within the session always (Linux's check_kill_permission()). */
static int check_kill_permission(int sig, struct task *t)
{
	struct task *c = current;

	if (!c->euid || c->euid == t->uid || c->euid == t->suid || c->uid == t->uid ||
	    c->uid == t->suid)
		return 0;
	if (sig == SIGCONT && c->sid == t->sid)
		return 0;
	return -EPERM;
}

/* A process a user may name, by its pid or any of its threads' (Linux's kill() too signals the
 * process of a thread id): a live thread of it, or NULL. */
static struct task *find_process(int pid)
{
	struct task *t = pid > 0 ? find_task(pid) : NULL;

	if (t && t->tgid && !t->exit_state)
		return t;
	return find_thread_group(pid); /* the leader may be gone, its threads not */
}

/* A process-directed signal goes to a thread of t's process that does not block it. */
static int kill_one(struct task *t, int sig, const siginfo_t *info, bool check)
{
	int err;

	if (check && (err = check_kill_permission(sig, t)))
		return err;
	if (!sig)
		return 0;
	/* To the process, through the task the pid named (complete_signal() picks the thread). */
	return send_sig_info(sig, info, t);
}

#define MAX_TARGETS 128

struct target_list {
	int pgrp; /* > 0: that group; 0: every process but the sender */
	int n;
	int pids[MAX_TARGETS]; /* tgids, each once */
};

static void collect_target(struct task *t, void *arg)
{
	struct target_list *l = arg;

	if (!t->tgid || t->exit_state || l->n == MAX_TARGETS)
		return;
	if (l->pgrp ? t->pgid != l->pgrp : t->tgid == current->tgid)
		return;
	for (int i = 0; i < l->n; i++)
		if (l->pids[i] == t->tgid)
			return;
	l->pids[l->n++] = t->tgid;
}

/* Every process of pgrp (or all but the caller, pgrp 0): 0 if one took it, else the first error,
 * -ESRCH when there was nobody. */
static int kill_many(int pgrp, int sig, const siginfo_t *info, bool check)
{
	struct target_list list, *l = &list; /* 0.5 KiB of stack, from Ctrl-C's interrupt too */
	int ret = -ESRCH, sent = 0;

	l->pgrp = pgrp;
	l->n = 0;
	for_each_task(collect_target, l);
	for (int i = 0; i < l->n; i++) {
		struct task *t = find_process(l->pids[i]);
		int err = t ? kill_one(t, sig, info, check) : -ESRCH;
		if (!err)
			sent++;
		else if (ret == -ESRCH)
			ret = err;
	}
	return sent ? 0 : ret;
}

int kill_pgrp(int pgrp, int sig, const siginfo_t *info)
{
	return pgrp > 0 ? kill_many(pgrp, sig, info, false) : -ESRCH;
}

SYSCALL_DEFINE2(kill, int, pid, int, sig)
{
	siginfo_t info;
	struct task *t;

	if (sig < 0 || sig > _NSIG)
		return -EINVAL;
	user_info(&info, sig, SI_USER);
	if (pid > 0) {
		if (!(t = find_process(pid)))
			return -ESRCH;
		return kill_one(t, sig, &info, true);
	}
	if (pid == -2147483647 - 1)
		return -ESRCH;
	if (pid == -1)
		return kill_many(0, sig, &info, true);
	return kill_many(pid ? -pid : current->pgid, sig, &info, true);
}

/* A thread-directed signal: that thread, whatever it blocks. */
static long do_tkill(int tgid, int tid, int sig)
{
	struct task *t = tid > 0 ? find_task(tid) : NULL;
	siginfo_t info;
	int err;

	if (tid <= 0 || sig < 0 || sig > _NSIG)
		return -EINVAL;
	if (!t || !t->tgid || t->exit_state || (tgid > 0 && t->tgid != tgid))
		return -ESRCH;
	if ((err = check_kill_permission(sig, t)) || !sig)
		return err;
	user_info(&info, sig, SI_TKILL);
	return send_thread_signal(sig, &info, t);
}

SYSCALL_DEFINE3(tgkill, int, tgid, int, pid, int, sig)
{
	if (tgid <= 0)
		return -EINVAL;
	return do_tkill(tgid, pid, sig);
}

SYSCALL_DEFINE2(tkill, int, pid, int, sig)
{
	return do_tkill(0, pid, sig);
}
