/*
 * /proc/self/stat (kernel/fs/proc_stat.c prints it) and the scheduler tunables
 * /proc/sys/kernel/sched_rt_{period,runtime}_us (ftracetest sets the runtime at its start).
 * /proc/self is whoever reads it: a file's text is made in the reader's own read(). As in Linux,
 * /proc/self is the process: a thread reading it sees its tgid and the process's parent.
 */
#include "kernel/fs/procfs.h"
#include "kernel/fs/tracefs.h"
#include "kernel/mm/mm_types.h"
#include "kernel/sched/sched.h"
#include "kernel/thread_group.h"
#include "kernel/time.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"

#define USER_HZ 100

char task_state_char(const struct task *t)
{
	if (t->exit_state)
		return 'Z';
	if (t->stopped)
		return 'T';
	return t->state == TASK_RUNNING ? 'R' : 'S';
}

static int stat_show(struct seq_file *m, struct fnode *f)
{
	(void)f;
	return proc_stat_show(m, current->tgid ?: current->pid, true);
}

/* The real-time classes' share of each period (kernel/sched/rt_bandwidth.c: what a value means,
 * sched_rt_set(): Linux's checks); each file sets one, against the other's present value. */
static int rt_runtime_show(struct seq_file *m, struct fnode *f)
{
	(void)f;
	seq_printf(m, "%ld\n", READ_ONCE(sched_rt_runtime_us));
	return 0;
}

static int rt_period_show(struct seq_file *m, struct fnode *f)
{
	(void)f;
	seq_printf(m, "%ld\n", READ_ONCE(sched_rt_period_us));
	return 0;
}

static int rt_write(const char *buf, size_t len, bool period)
{
	char text[24];
	long v;

	if (fs_write_text(text, sizeof(text), buf, len) || kstrtol(text, 10, &v))
		return -EINVAL;
	return period ? sched_rt_set(v, READ_ONCE(sched_rt_runtime_us))
		      : sched_rt_set(READ_ONCE(sched_rt_period_us), v);
}

static int rt_runtime_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	(void)f;
	(void)flags;
	return rt_write(buf, len, false);
}

static int rt_period_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	(void)f;
	(void)flags;
	return rt_write(buf, len, true);
}

static const struct tracefs_file proc_pid_files[] = {
	TRACEFS_FILE("/proc/self/stat", stat_show, NULL),
	TRACEFS_FILE("/proc/sys/kernel/sched_rt_period_us", rt_period_show, rt_period_write),
	TRACEFS_FILE("/proc/sys/kernel/sched_rt_runtime_us", rt_runtime_show, rt_runtime_write),
};

void proc_pid_init(void)
{
	tracefs_create_files(NULL, proc_pid_files, ARRAY_SIZE(proc_pid_files));
}
