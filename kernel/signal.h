/* Signals (kernel/signal.c, arch/x86/signal.c): numbers, siginfo, actions, the way they are sent. */
#ifndef KERNEL_SIGNAL_H
#define KERNEL_SIGNAL_H

#include "kernel/sched/sched.h"
#include "kernel/spinlock.h"

#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGSTKFLT 16
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGTTIN 21
#define SIGTTOU 22
#define SIGURG 23
#define SIGXCPU 24
#define SIGXFSZ 25
#define SIGVTALRM 26
#define SIGPROF 27
#define SIGWINCH 28
#define SIGIO 29
#define SIGPWR 30
#define SIGSYS 31
#define SIGRTMIN 32 /* the kernel's; glibc keeps 32 and 33 for itself and calls 34 SIGRTMIN */
#define _NSIG 64

#define sigmask(sig) (1ULL << ((sig)-1))

/* sa_flags, Linux's values. */
#define SA_NOCLDSTOP 0x00000001
#define SA_NOCLDWAIT 0x00000002
#define SA_SIGINFO 0x00000004
#define SA_RESTORER 0x04000000
#define SA_ONSTACK 0x08000000
#define SA_RESTART 0x10000000
#define SA_NODEFER 0x40000000
#define SA_RESETHAND 0x80000000

#define SIG_DFL 0UL
#define SIG_IGN 1UL

/* si_code values. */
#define SI_USER 0
#define SI_KERNEL 0x80
#define SI_QUEUE -1
#define SI_TKILL -6
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define CLD_EXITED 1
#define CLD_KILLED 2
#define CLD_STOPPED 5
#define CLD_CONTINUED 6

/* What a system call interrupted by a signal returns, so the signal code can decide to restart it
 * or turn it into -EINTR; never seen by a program (Linux: include/linux/errno.h). */
#define ERESTARTSYS 512	   /* restart if the handler has SA_RESTART (or there is no handler) */
#define ERESTARTNOINTR 513 /* always restart */
#define ERESTARTNOHAND 514 /* restart only if no handler ran */

/* Linux's struct sigaction as rt_sigaction() passes it (kernel_sigaction). */
struct k_sigaction {
	unsigned long handler; /* SIG_DFL 0, SIG_IGN 1, or a user function */
	unsigned long flags;
	unsigned long restorer;
	u64 mask;
};

/* Linux's siginfo_t on x86-64: 128 bytes, the union at offset 16. */
typedef struct kernel_siginfo {
	int si_signo, si_errno, si_code, __pad0;
	union {
		struct {
			int pid;
			unsigned int uid;
			int status; /* SIGCHLD: the exit code or the signal */
			int __pad1;
			long utime, stime;
		} chld; /* also kill()'s pid and uid, and sigqueue's (value at +24) */
		struct {
			unsigned long addr;
		} fault;
		u8 raw[112];
	};
} siginfo_t;

/* A signal waiting with its siginfo: at most one per standard signal, a queue of real-time ones. */
struct sigqueue {
	struct sigqueue *next;
	siginfo_t info;
};

/* Guards every task's pending, sigq, stopped, blocked and sighand (kernel/signal.c). */
extern spinlock_t siglock;
/* Takes the next pending signal not in mask, with its siginfo: its number or 0 (sigtimedwait). */
int dequeue_signal_mask(u64 mask, siginfo_t *info);

/* Some signal is pending and not blocked: an interruptible sleep ends (-EINTR, -ERESTARTSYS). */
bool signal_pending(struct task *t);
/* The older name, kept for the callers written before handlers: the same test. */
bool fatal_signal_pending(struct task *t);
/* SIGKILL waits for t, in its own set or its process's. */
bool sigkill_pending(struct task *t);
/* task->jobctl (Linux's names): asked to stop with its process; took a stop signal that may
 * begin the process's stop (cleared by a SIGCONT or SIGKILL sent since). */
#define JOBCTL_STOP_PENDING 1U
#define JOBCTL_STOP_DEQUEUED 2U
/* kernel/signal_stop.c: current stops with its process (sig: the stop signal it took, 0: asked
 * to by another thread's), until SIGCONT or SIGKILL. */
void do_signal_stop(int sig);
/* SIGCONT or SIGKILL for t's process: its stop ends for every thread; true if SIGCONT ended a
 * stop the parent must hear of. Tasklist lock and siglock held. */
bool cancel_group_stop(struct task *t, int sig);
/* clone(CLONE_THREAD) while current is asked to stop: the new thread stops too, before it first
 * reaches ring 3 (Linux's task_join_group_stop()). Tasklist lock held. */
void task_join_group_stop(struct task *p);
/* do_exit(): a thread asked to stop counts as stopped. */
void exit_group_stop(struct task *t);
/* thread_flags: a signal t does not block is pending (the way out to ring 3 tests the word). */
#define TIF_SIGPENDING 1UL
/* The current thread's mask changed: TIF_SIGPENDING again from its own and its process's sets. */
void recalc_sigpending(void);
/* The same with siglock held, for any thread. */
void recalc_sigpending_locked(struct task *t);
/* Drops the signals of mask, with their queued siginfo, from one pending set; siglock held. */
struct sigqueue;
void flush_sigqueue_mask(u64 *pending, struct sigqueue **list, u64 mask);
/* Process-directed send with the tasklist lock held (SIGCHLD to a parent). */
int group_send_sig_info_locked(int sig, const siginfo_t *info, struct task *t);
/* A thread-directed signal (tgkill, a fault): t's own set; no tasklist lock needed. */
int send_thread_signal(int sig, const siginfo_t *info, struct task *t);
/* kill()'s siginfo: SI_USER (or code), the sender's pid and uid. */
void user_info(siginfo_t *info, int sig, int code);
/* zap_other_threads(): SIGKILL straight into t's own set, no event (as Linux's). */
void signal_wake_up_kill(struct task *t);
/* Posts sig to t, as kill() from the current task does (SI_USER): 0, or -EINVAL for a bad number. */
int send_sig(int sig, struct task *t);
/* Posts sig with info (NULL: SI_KERNEL) to t's process; safe from interrupts, not with the tasklist
 * lock held. */
int send_sig_info(int sig, const siginfo_t *info, struct task *t);
/* sig to every process of process group pgrp: 0, or -ESRCH if it has none. */
int kill_pgrp(int pgrp, int sig, const siginfo_t *info);
/* A fault in ring 3 (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP): true if a handler will run; false
 * if the signal's default action applies (the caller prints Linux's report and the task dies). */
bool force_sig_fault(int sig, int code, unsigned long addr);
/* The parent learns of a child's end: SIGCHLD with CLD_EXITED or CLD_KILLED. */
void do_notify_parent(struct task *t, int status);
/* Ends the current process with the first fatal signal of pending (its wait status). */
void __noreturn do_exit_signal(u64 pending);
/* fork: what a child keeps (a copy of the handlers unless it is a thread, which shares them;
 * mask, altstack, groups, ids); exit: queued signals freed. */
int copy_signal_state(struct task *child, struct task *parent, bool copy_handlers);
void exit_signal_state(struct task *t);

/*
 * Called before every return to ring 3 with interrupts on: takes the next pending signal and acts
 * on it: its default action (ignore, stop, continue, end the process), or the user's handler with
 * an rt_sigframe on the user stack. Also restarts or fails (-EINTR) an interrupted system call.
 */
void arch_do_signal_or_restart(struct pt_regs *regs);
/* Whether the way out must call it: a signal, sigsuspend's mask, or a call to restart. */
bool exit_work_pending(struct pt_regs *regs);
/* kernel/signal.c, for the arch half: the next signal to deliver, 0 if none; *ka its action. */
int get_signal(siginfo_t *info, struct k_sigaction *ka);
/* The mask a handler's frame saves: the one sigsuspend() replaced, or the current one. */
u64 sigmask_to_save(void);
/* After delivery: the handler's mask applied, SA_RESETHAND honoured. */
void signal_delivered(int sig, struct k_sigaction *ka);
/* sigsuspend's mask goes back when no handler was run. */
void restore_saved_sigmask(void);
/* kernel/signal_wait.c, for ppoll and epoll_pwait (Linux's names): the caller's mask (if umask) for
 * the wait, the old one in *old; then back, after the handler if the wait was interrupted. */
int set_user_sigmask(const u64 *umask, size_t sigsetsize, u64 *old); /* umask: user memory */
void restore_saved_sigmask_unless(bool interrupted, u64 old);
/* The alternate signal stack: whether sp is on it, and setting it (sigaltstack, rt_sigreturn). */
bool on_sig_stack(unsigned long sp);
int do_sigaltstack(const void *uss, void *uoss, unsigned long sp); /* user pointers */

/* kernel/exit.c */
void __noreturn do_exit(int code);
/* Ends every thread of the current process (exit_group, fatal signals): code its status. */
void __noreturn do_group_exit(int code);
/* wait4() for the kernel: pid's wait status once it exits (options: WNOHANG 1, or 0 to sleep). */
long kernel_wait4(int pid, int *status, int options);

#endif
