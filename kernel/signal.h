/* Signals as far as they are built: numbers, the pending and blocked masks, default actions only. */
#ifndef KERNEL_SIGNAL_H
#define KERNEL_SIGNAL_H

#include "kernel/sched/sched.h"

#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGSEGV 11
#define SIGPIPE 13
#define SIGTERM 15
#define SIGCHLD 17
#define SIGSTOP 19
#define _NSIG 64

#define sigmask(sig) (1ULL << ((sig)-1))

/* Linux's struct sigaction as rt_sigaction() passes it (kernel_sigaction). */
struct k_sigaction {
	unsigned long handler; /* SIG_DFL 0, SIG_IGN 1, or a user function */
	unsigned long flags;
	unsigned long restorer;
	u64 mask;
};

/* A signal whose default action ends the process waits, unblocked (SIGKILL always). */
bool fatal_signal_pending(struct task *t);
/* Marks sig pending for t and wakes t if it sleeps: 0, or -EINVAL for a bad number. */
int send_sig(int sig, struct task *t);
/* Ends the current process with the first fatal signal of pending (its wait status). */
void __noreturn do_exit_signal(u64 pending);

/* kernel/exit.c */
void __noreturn do_exit(int code);
/* wait4() for the kernel: pid's wait status once it exits (options: WNOHANG 1, or 0 to sleep). */
long kernel_wait4(int pid, int *status, int options);

#endif
