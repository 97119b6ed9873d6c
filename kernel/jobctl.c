/*
 * Job control (Linux: kernel/sys.c's setpgid family, drivers/tty/tty_jobctrl.c): every process
 * is in a process group inside a session; the console belongs to at most one session, whose
 * foreground group alone gets the signals its keys make (Ctrl-C: SIGINT, Ctrl-\: SIGQUIT) and may
 * read it. While no session owns the console (the kernel shell alone at its prompt), Ctrl-C
 * stays the kernel shell's.
 */
#include "kernel/jobctl.h"
#include "kernel/thread_group.h"
#include "arch/x86/serial.h"
#include "kernel/signal.h"
#include "kernel/syscalls.h"
#include "kernel/uaccess.h"
#include "lib/string.h"
#include "lib/compiler.h"
#include "lib/errno.h"

#define TIOCSCTTY 0x540E
#define TIOCGPGRP 0x540F
#define TIOCSPGRP 0x5410
#define TIOCNOTTY 0x5422
#define TIOCGSID 0x5429

/* The console's session and foreground group (Linux's tty->session, tty->pgrp); 0: none. */
static int tty_session, tty_pgrp;

int tty_console_session(void)
{
	return READ_ONCE(tty_session);
}

int tty_foreground_pgrp(void)
{
	return tty_session ? __atomic_load_n(&tty_pgrp, __ATOMIC_ACQUIRE) : 0;
}

void jobctl_new_session(struct task *p)
{
	serial_rx_hook = tty_receive_signal_char;
	p->pgid = p->sid = p->pid;
	tty_session = p->sid;
	__atomic_store_n(&tty_pgrp, p->pgid, __ATOMIC_RELEASE);
}

void exit_jobctl(struct task *t)
{
	int pgrp = tty_pgrp;

	if (!t->sid || t->sid != t->pid || tty_session != t->sid)
		return;
	tty_session = 0;
	__atomic_store_n(&tty_pgrp, 0, __ATOMIC_RELEASE);
	if (pgrp && pgrp != t->pgid) {
		kill_pgrp(pgrp, SIGHUP, NULL);
		kill_pgrp(pgrp, SIGCONT, NULL);
	}
}

bool tty_receive_signal_char(u8 c)
{
	int pgrp = tty_foreground_pgrp(), sig = pgrp ? tty_signal_of(c) : 0;

	if (!sig)
		return false;
	tty_echo_ctl(c);
	kill_pgrp(pgrp, sig, NULL);
	return true;
}

/* Is there a process in group pgrp of session sid? */
struct pgrp_probe {
	int pgrp, sid;
	bool found;
};

static void probe_pgrp(struct task *t, void *arg)
{
	struct pgrp_probe *p = arg;

	if (t->tgid && !t->exit_state && t->pgid == p->pgrp && t->sid == p->sid)
		p->found = true;
}

static bool zombie_child_in(struct task *parent, int pgrp, int sid)
{
	for (struct task *c = parent ? parent->children : NULL; c; c = c->sibling)
		if (c->pgid == pgrp && c->sid == sid)
			return true;
	return false;
}

/* Live tasks, and zombies, which leave the task lists at exit but stay in their group until
 * reaped: a shell's pipeline leader may exit before the last member joins its group, the member
 * (the leader's sibling) or the shell (its parent) asking. */
static bool pgrp_in_session(int pgrp, int sid)
{
	struct pgrp_probe p = { pgrp, sid, false };
	unsigned long flags;

	for_each_task(probe_pgrp, &p);
	flags = tasklist_lock_irqsave();
	p.found = p.found || zombie_child_in(current, pgrp, sid) ||
		  zombie_child_in(current->parent, pgrp, sid);
	tasklist_unlock_irqrestore(flags);
	return p.found;
}

long tty_jobctl_ioctl(unsigned int cmd, unsigned long arg)
{
	struct task *t = current;
	int __user *p = (int __user *)arg;
	int pgrp;

	switch (cmd) {
	case TIOCGPGRP:
		if (!tty_session || t->sid != tty_session)
			return -ENOTTY;
		return put_user(tty_pgrp, p) ? -EFAULT : 0;
	case TIOCGSID:
		if (!tty_session || t->sid != tty_session)
			return -ENOTTY;
		return put_user(tty_session, p) ? -EFAULT : 0;
	case TIOCSPGRP:
		if (!tty_session || t->sid != tty_session)
			return -ENOTTY;
		if (get_user(pgrp, p))
			return -EFAULT;
		if (pgrp < 0)
			return -EINVAL;
		if (!pgrp_in_session(pgrp, t->sid))
			return -EPERM;
		__atomic_store_n(&tty_pgrp, pgrp, __ATOMIC_RELEASE);
		return 0;
	case TIOCSCTTY:
		if (tty_session == t->sid && t->sid)
			return 0;
		/* Only a session leader without one takes it, and not from another session unless
		 * root asks with arg 1 (Linux's "steal"). */
		if (t->sid != t->pid || (tty_session && !(arg == 1 && !t->euid)))
			return -EPERM;
		tty_session = t->sid;
		__atomic_store_n(&tty_pgrp, t->pgid, __ATOMIC_RELEASE);
		return 0;
	case TIOCNOTTY:
		if (!tty_session || t->sid != tty_session)
			return -ENOTTY;
		if (t->sid == t->pid)
			exit_jobctl(t);
		return 0;
	default:
		return -ENOTTY;
	}
}

/* The group of pid, which must be in the caller's session for setpgid. */
SYSCALL_DEFINE2(setpgid, int, pid, int, pgid)
{
	struct task *t = current, *p;

	if (pid < 0 || pgid < 0)
		return -EINVAL;
	p = pid ? find_task(pid) : t;
	if (!pgid)
		pgid = p ? p->pid : pid;
	if (!p || !p->tgid || p->exit_state || (p != t && p->parent != t))
		return -ESRCH;
	if (p->sid != t->sid)
		return -EPERM;
	if (p->sid == p->pid)
		return -EPERM; /* a session leader stays in its own group */
	if (pgid != p->pid && !pgrp_in_session(pgid, t->sid))
		return -EPERM;
	p->pgid = pgid;
	return 0;
}

static struct task *find_or_self(int pid)
{
	struct task *p = pid ? find_task(pid) : current;

	return p && p->tgid && !p->exit_state ? p : NULL;
}

SYSCALL_DEFINE1(getpgid, int, pid)
{
	struct task *p = pid >= 0 ? find_or_self(pid) : NULL;

	return p ? p->pgid : -ESRCH;
}

SYSCALL_DEFINE0(getpgrp)
{
	return current->pgid;
}

SYSCALL_DEFINE1(getsid, int, pid)
{
	struct task *p = pid >= 0 ? find_or_self(pid) : NULL;

	return p ? p->sid : -ESRCH;
}

struct leader_probe {
	int pid;
	bool found;
};

static void probe_leader(struct task *t, void *arg)
{
	struct leader_probe *p = arg;

	if (t->tgid && !t->exit_state && t != current && t->pgid == p->pid)
		p->found = true;
}

SYSCALL_DEFINE0(setsid)
{
	struct task *t = current;
	struct leader_probe p = { t->pid, false };

	/* Not a group leader already: a group named by our pid must not exist. */
	for_each_task(probe_leader, &p);
	if (t->pgid == t->pid || p.found)
		return -EPERM;
	t->pgid = t->sid = t->pid;
	return t->sid;
}

#define WUNTRACED 0x2
#define WCONTINUED 0x8

struct task *wait_task_stopped(struct task *self, int pid, int options, int *status)
{
	for (struct task *c = self->children; c; c = c->sibling) {
		int report = c->jobctl_report;
		if ((pid > 0 && c->pid != pid) || (pid == 0 && c->pgid != self->pgid) ||
		    (pid < -1 && c->pgid != -pid) || c->exit_state || !report)
			continue;
		if (report == 0xffff ? !(options & WCONTINUED) : !(options & WUNTRACED))
			continue;
		c->jobctl_report = 0;
		*status = report;
		return c;
	}
	return NULL;
}

struct orphan_probe {
	int pgrp, sid;
	bool parent_outside;
};

static void probe_orphan(struct task *t, void *arg)
{
	struct orphan_probe *o = arg;
	struct task *parent;

	if (!t->tgid || t->exit_state || t->pgid != o->pgrp || t->tgid != t->pid)
		return;
	parent = t->parent;
	if (parent && parent->pgid != o->pgrp && parent->sid == o->sid)
		o->parent_outside = true;
}

bool is_current_pgrp_orphaned(void)
{
	struct orphan_probe o = { current->pgid, current->sid, false };

	for_each_task(probe_orphan, &o);
	return !o.parent_outside;
}

/* t: the process (its leader), whose report the parent's wait4 finds among its children. */
void notify_parent_jobctl(struct task *t, int sig)
{
	struct task *parent = t->parent;
	unsigned long flags;
	siginfo_t info;

	t->jobctl_report = sig ? (sig << 8) | 0x7f : 0xffff;
	if (!parent)
		return;
	memset(&info, 0, sizeof(info));
	info.si_code = sig ? CLD_STOPPED : CLD_CONTINUED;
	info.chld.pid = t->tgid;
	info.chld.uid = t->uid;
	info.chld.status = sig ? sig : SIGCONT;
	flags = tasklist_lock_irqsave(); /* the parent's threads stay while one is picked */
	if (!parent->sighand || !(parent->sighand[SIGCHLD - 1].flags & SA_NOCLDSTOP))
		group_send_sig_info_locked(SIGCHLD, &info, parent);
	wake_up_parent(parent); /* a wait4 asleep looks again, SIGCHLD ignored or not */
	tasklist_unlock_irqrestore(flags);
}
