/* /proc files, and the banner they share with the boot log. */
#ifndef KERNEL_PROCFS_H
#define KERNEL_PROCFS_H

#include "kernel/fs/fs.h"

#define FTRACE_OS_VERSION "0.1.0"
#ifndef FTRACE_OS_BUILDER
#define FTRACE_OS_BUILDER "root@ftrace-os"
#endif

/* "ftrace-os version ...": the first line the kernel prints; /proc/version says the same. */
extern const char linux_banner[];
extern const char linux_proc_banner[]; /* /proc/version's format, as Linux names it */

void procfs_init(void);
/* kernel/fs/proc_pid.c: /proc/self/stat, /proc/sys/kernel/sched_rt_{period,runtime}_us. */
void proc_pid_init(void);
/* kernel/fs/proc_base.c: /proc/<pid>/comm and status, and /proc/self/comm and status. */
void proc_base_init(void);
struct task;
/* stat's and status's state letter: R, S, T or Z. */
char task_state_char(const struct task *t);
/* kernel/fs/proc_status.c: the status file of pid; -ESRCH once it is gone. */
int proc_status_show(struct seq_file *m, int pid);
/* The signals t's actions ignore and catch (Linux's collect_sigign_sigcatch()); siglock held. */
struct task;
void collect_sigign_sigcatch(const struct task *t, u64 *ign, u64 *catch);
/* kernel/fs/proc_stat.c: the stat line of pid, its process's sums when whole (/proc/<pid>), the
 * thread's own when not (task/<tid>). */
int proc_stat_show(struct seq_file *m, int pid, bool whole);
int meminfo_show(struct seq_file *m, struct fnode *f);

#endif
