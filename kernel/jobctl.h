/* Process groups, sessions and the console as their controlling terminal (kernel/jobctl.c). */
#ifndef KERNEL_JOBCTL_H
#define KERNEL_JOBCTL_H

#include "lib/types.h"

struct task;

/* A process the kernel starts (init, a program run from the kernel shell) leads a new session
 * whose controlling terminal is the console, its own group in the foreground: as login does. */
void jobctl_new_session(struct task *p);
/* do_exit(): a session leader's end hangs up its terminal (SIGHUP to the foreground group). */
void exit_jobctl(struct task *t);
/* The job-control ioctls of the console: TIOCGPGRP, TIOCSPGRP, TIOCSCTTY, TIOCNOTTY, TIOCGSID;
 * -ENOTTY for any other. */
long tty_jobctl_ioctl(unsigned int cmd, unsigned long arg);
/* The session the console belongs to, 0 while none does. */
int tty_console_session(void);
/* The console's foreground process group, 0 while no session owns the console. */
int tty_foreground_pgrp(void);
/* kernel/fs/tty.c: the signal a byte means under ISIG (0: none), and its echo ("^C"). */
int tty_signal_of(u8 c);
void tty_echo_ctl(u8 c);
/* From the serial interrupt: a byte the line discipline turns into a signal (ISIG). */
bool tty_receive_signal_char(u8 c);

/* wait4 with WUNTRACED or WCONTINUED: a child of self matching pid (wait4's rules) that stopped
 * or continued since it was last reported, its status in *status; tasklist lock held. */
struct task *wait_task_stopped(struct task *self, int pid, int options, int *status);
/* No process of current's group has a parent in another group of its session: nobody there
 * could continue it, so the terminal's stop signals do not stop it (Linux's rule). */
bool is_current_pgrp_orphaned(void);
/* A task stopped (sig) or continued (0): its parent hears of it by SIGCHLD and wait4. */
void notify_parent_jobctl(struct task *t, int sig);

#endif
