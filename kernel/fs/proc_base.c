/*
 * /proc/<pid>/, /proc/<pid>/task/<tid>/ and /proc/self/comm (Linux: fs/proc/base.c): a directory
 * for every live task, kernel threads included, and in a process's one for each of its threads,
 * made when a path names it rather than when the task is born.
 *
 * /proc's list holds the fixed files only; a name the list lacks comes to proc_root_lookup(),
 * which answers a number whose task lives with a directory node kept in pid_dirs. The node holds
 * the pid, never the task: each read finds the task again under its run queue's lock and fails
 * with ESRCH once it is gone, as Linux's get_proc_task() does. Nodes of dead tasks nobody stands
 * in are freed at the next lookup, so the cache is as large as the set of live pids looked up.
 * task/ answers the same way (task_lookup()), for the threads of its process only.
 * A readdir of /proc lists the processes after its fixed files, and of task/ the process's
 * threads (Linux's proc_pid_readdir(), proc_task_readdir()): from f_pos PID_POS + pid on, the
 * smallest live pid at or above it, so a task that comes or goes between two calls never moves
 * the others. Not here: every file but comm, status and stat.
 */
#include "kernel/fs/file.h"
#include "kernel/fs/procfs.h"
#include "kernel/fs/ramfs.h"
#include "kernel/fs/tracefs.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "kernel/spinlock.h"
#include "kernel/trace/events/task.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

struct pid_dir {
	struct fnode *dir;
	int pid;
	int tgid; /* 0: /proc/<pid>; else the process of /proc/<tgid>/task/<pid> */
	struct pid_dir *next;
};

static struct pid_dir *pid_dirs; /* under pid_dirs_lock */
static DEFINE_SPINLOCK(pid_dirs_lock);

/* A copy of what a file shows, taken while the task cannot go away under us. */
struct pid_probe {
	int pid;
	bool found;
	int tgid; /* its process's pid */
	char comm[TASK_COMM_LEN];
};

static void probe_one(struct task *t, void *arg)
{
	struct pid_probe *p = arg;

	if (t->pid && t->pid == p->pid && !p->found) {
		p->found = true;
		p->tgid = t->tgid ?: t->pid;
		memcpy(p->comm, t->comm, sizeof(p->comm));
		p->comm[TASK_COMM_LEN - 1] = 0;
	}
}

static bool pid_probe(struct pid_probe *p, int pid)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	for_each_task(probe_one, p);
	return p->found;
}

/* The pid a comm or status file stands for: its directory's, or the reader's for /proc/self. */
static int comm_pid(const struct fnode *f)
{
	return f->priv ? (int)(long)f->priv : current->pid;
}

static int comm_show(struct seq_file *m, struct fnode *f)
{
	struct pid_probe p;

	if (!pid_probe(&p, comm_pid(f)))
		return -ESRCH;
	seq_printf(m, "%s\n", p.comm);
	return 0;
}

/* As Linux's comm_write(): the first 15 bytes as they are (echo's newline too). Only the writer
 * itself may be renamed here (Linux: any thread of its process), EINVAL for anyone else. */
static int comm_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char name[TASK_COMM_LEN] = { 0 };
	struct pid_probe p;
	int pid = comm_pid(f);

	(void)flags;
	if (!pid_probe(&p, pid))
		return -ESRCH;
	if (pid != current->pid)
		return -EINVAL;
	memcpy(name, buf, len < sizeof(name) - 1 ? len : sizeof(name) - 1);
	trace_task_rename(current, name);
	strscpy(current->comm, name, sizeof(current->comm));
	return 0;
}

static const struct file_ops comm_ops = { .show = comm_show, .write = comm_write };

static int status_show(struct seq_file *m, struct fnode *f)
{
	return proc_status_show(m, comm_pid(f));
}

static const struct file_ops status_ops = { .show = status_show };

static int stat_show(struct seq_file *m, struct fnode *f)
{
	return proc_stat_show(m, comm_pid(f), true);
}

static int task_stat_show(struct seq_file *m, struct fnode *f)
{
	return proc_stat_show(m, comm_pid(f), false);
}

static const struct file_ops stat_ops = { .show = stat_show };
static const struct file_ops task_stat_ops = { .show = task_stat_show };

/* A number with no sign, no leading zero and no more digits than a pid has. */
static int parse_pid(const char *name, size_t len)
{
	int pid = 0;

	if (!len || len > 9 || (name[0] == '0'))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		pid = pid * 10 + (name[i] - '0');
	}
	return pid;
}

/* The cached directory's task is gone: a thread's, or its process's (tgid its own pid). */
static bool pid_dir_dead(const struct pid_dir *d)
{
	struct pid_probe p;

	return !pid_probe(&p, d->pid) || (d->tgid && p.tgid != d->tgid);
}

/* Frees the cached directories of dead tasks nobody stands in; under pid_dirs_lock. A process's
 * goes only after its threads' (task/<tid> points at it as its parent). */
static void prune_dead(void)
{
	for (struct pid_dir **pp = &pid_dirs, *d; (d = *pp);) {
		bool threads_left = false;

		for (struct pid_dir *o = pid_dirs; o && !d->tgid; o = o->next)
			threads_left |= o->tgid == d->pid;
		if (!threads_left && pid_dir_dead(d) && !fs_busy(d->dir)) {
			*pp = d->next;
			fs_remove(d->dir);
			kfree(d);
		} else {
			pp = &d->next;
		}
	}
}

static const struct file_ops task_dir_ops;

/*
 * The directory of a live pid, not yet listed: parent for "..", but not in its list. A process's
 * (/proc/<pid>) also has task/, whose lookup makes task/<tid> for each thread of the process
 * (Linux's proc_task_lookup()); a thread's has comm and status only.
 */
static struct pid_dir *pid_dir_new(struct fnode *parent, int pid, int tgid)
{
	struct fnode *dir = kzalloc(sizeof(*dir)), *task;
	struct pid_dir *d = kzalloc(sizeof(*d));

	if (!dir || !d)
		goto fail;
	snprintf(dir->name, sizeof(dir->name), "%d", pid);
	dir->is_dir = true;
	dir->parent = parent;
	if (!fs_create(dir, "comm", &comm_ops, (void *)(long)pid) ||
	    !fs_create(dir, "status", &status_ops, (void *)(long)pid) ||
	    !fs_create(dir, "stat", tgid ? &task_stat_ops : &stat_ops, (void *)(long)pid))
		goto fail;
	if (!tgid) {
		if (!(task = fs_mkdir(dir, "task")))
			goto fail;
		task->ops = &task_dir_ops;
		task->priv = (void *)(long)pid;
	}
	d->dir = dir;
	d->pid = pid;
	d->tgid = tgid;
	return d;
fail:
	if (dir)
		fs_remove(dir);
	kfree(d);
	return NULL;
}

static struct fnode *find_locked(int pid, int tgid)
{
	for (struct pid_dir *d = pid_dirs; d; d = d->next)
		if (d->pid == pid && d->tgid == tgid)
			return d->dir;
	return NULL;
}

/* The cached directory of pid under parent, made if it is not there yet. */
static struct fnode *pid_dir_get(struct fnode *parent, int pid, int tgid)
{
	struct pid_dir *fresh = NULL;
	struct fnode *found;
	unsigned long flags;

	for (;;) {
		flags = spin_lock_irqsave(&pid_dirs_lock);
		prune_dead();
		found = find_locked(pid, tgid);
		if (!found && fresh) { /* made outside the lock: it allocates */
			fresh->next = pid_dirs;
			pid_dirs = fresh;
			found = fresh->dir;
			fresh = NULL;
		}
		spin_unlock_irqrestore(&pid_dirs_lock, flags);
		if (found || !(fresh = pid_dir_new(parent, pid, tgid)))
			break;
	}
	if (fresh) { /* someone else listed it meanwhile */
		fs_remove(fresh->dir);
		kfree(fresh);
	}
	return found;
}

static struct fnode *proc_root_lookup(struct fnode *proc, const char *name, size_t len)
{
	int pid = parse_pid(name, len);
	struct pid_probe p;

	if (pid <= 0 || !pid_probe(&p, pid))
		return NULL;
	return pid_dir_get(proc, pid, 0);
}

/* /proc/<tgid>/task/<tid>: a thread of that process only (the leader's own pid among them). */
static struct fnode *task_lookup(struct fnode *task, const char *name, size_t len)
{
	int tid = parse_pid(name, len), tgid = (int)(long)task->priv;
	struct pid_probe p;

	if (tid <= 0 || !pid_probe(&p, tid) || p.tgid != tgid)
		return NULL;
	return pid_dir_get(task, tid, tgid);
}

/* Where the pids begin among a readdir's positions: above any count of fixed entries. */
#define PID_POS 0x100000000LL

/* The smallest pid at or above from of a process (tgid 0) or of one of tgid's threads. */
struct next_pid {
	int from, tgid, found;
};

static void probe_next(struct task *t, void *arg)
{
	struct next_pid *n = arg;
	int tgid = t->tgid ?: t->pid;

	if (!t->pid || t->pid < n->from || (n->found && t->pid >= n->found))
		return;
	if (n->tgid ? tgid != n->tgid || t->exit_state : t->pid != tgid)
		return;
	n->found = t->pid;
}

/* getdents64 of /proc and of task/: the fixed entries, then one directory per pid. */
static int pid_readdir(struct file *f, void __user *dirent, unsigned int count)
{
	struct fnode *dir = f->node;
	int tgid = dir->ops == &task_dir_ops ? (int)(long)dir->priv : 0;
	unsigned int used = 0;
	int err;

	if (f->f_pos < PID_POS) {
		s64 fixed = 2;

		if ((err = dir_getdents64(f, dirent, count)) < 0)
			return err;
		used = err;
		for (struct fnode *c = dir->children; c; c = c->next)
			fixed++;
		if (f->f_pos < fixed)
			return used; /* the buffer is full before the fixed entries end */
		f->f_pos = PID_POS;
	}
	for (;;) {
		struct next_pid n = { (int)(f->f_pos - PID_POS), tgid, 0 };
		struct fnode *node;
		char name[12];

		if (f->f_pos - PID_POS > 0x7fffffff)
			break;
		for_each_task(probe_next, &n);
		if (!n.found)
			break;
		snprintf(name, sizeof(name), "%d", n.found);
		node = pid_dir_get(dir, n.found, tgid);
		if (node && (err = dir_emit(dirent, count, &used, name, fs_ino(node),
					    PID_POS + n.found + 1, node)))
			return err < 0 ? err : (int)used;
		f->f_pos = PID_POS + n.found + 1;
	}
	return used;
}

static const struct file_operations pid_dir_fops = { .getdents64 = pid_readdir, .seekable = true };

static const struct file_ops task_dir_ops = { .lookup = task_lookup, .fops = &pid_dir_fops };

static const struct file_ops proc_root_ops = { .lookup = proc_root_lookup, .fops = &pid_dir_fops };

static const struct tracefs_file proc_base_files[] = {
	TRACEFS_FILE("/proc/self/comm", comm_show, comm_write),
	TRACEFS_FILE("/proc/self/status", status_show, NULL),
};

void proc_base_init(void)
{
	struct fnode *proc = fs_mkdir_p("/proc");

	if (proc && !proc->ops)
		proc->ops = &proc_root_ops;
	tracefs_create_files(NULL, proc_base_files, ARRAY_SIZE(proc_base_files));
}
