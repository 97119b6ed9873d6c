/* Kernel threads and the scheduler: per-CPU run queues, timer-driven preemption, sleep, kill. */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include "lib/types.h"
#include "kernel/percpu.h"
#include "kernel/panic.h"
#include "kernel/locking/lockdep.h"

#define TASK_COMM_LEN 16
#define TASK_STACK_PAGES 4

enum task_state { TASK_RUNNING, TASK_SLEEPING, TASK_DEAD };

/* Scheduling policies, Linux's numbers (include/uapi/linux/sched.h). */
#define SCHED_NORMAL 0
#define SCHED_FIFO 1
#define SCHED_RR 2
#define SCHED_BATCH 3
#define SCHED_IDLE 5
#define SCHED_DEADLINE 6
#define SCHED_RESET_ON_FORK 0x40000000

/* Linux's prio scale: deadline tasks -1, real-time 0..98 (99 - rt_priority), normal 120. */
#define MAX_RT_PRIO 100
#define MAX_DL_PRIO 0
#define DEFAULT_PRIO 120
#define RR_TIMESLICE (100 * 1000000ULL) /* ns: Linux's 100 ms */

/* A deadline task's reservation and its state now (Linux's sched_dl_entity; ns throughout). */
struct sched_dl_entity {
	u64 dl_runtime, dl_deadline, dl_period; /* what sched_setattr() asked for */
	s64 runtime;				/* left in this period */
	u64 deadline;				/* absolute: the EDF key */
	u64 exec_start;				/* when it last began to run */
	bool dl_throttled;			/* out of runtime until deadline's replenishment */
};

struct kretprobe_instance;
struct uprobe_task;
struct mm_struct;
struct files_struct;
struct fnode;
struct k_sigaction;
struct signal_struct;

/* Wait-status states of a process's end (Linux's exit_state). */
#define EXIT_ZOMBIE 16 /* exited, its parent has not waited for it yet */

/* The FPU/SSE registers of a user task, as fxsave writes them (512 bytes, 16-aligned). */
struct fxregs_state {
	u8 bytes[512];
} __aligned(16);

/* CPU time in clock ticks, charged a tick at a time to whoever runs (Linux's tick-based
 * accounting, account_process_tick()), and the page faults resolved (all minor here: no I/O). */
struct task_times {
	u64 utime, stime;
	unsigned long min_flt;
};

struct task {
	unsigned long rsp; /* saved by switch_to(); must stay first */
	int pid;	   /* 0 for each CPU's idle task, as in Linux */
	char comm[TASK_COMM_LEN];
	enum task_state state;
	int cpu;		 /* whose run queue it is on (kernel/sched/migrate.c moves it) */
	unsigned long cpus_mask; /* the CPUs it may run on (sched_setaffinity) */
	volatile bool on_cpu;	 /* a CPU runs it, or has not finished switching away from it */
	void *stack;		 /* NULL for idle tasks (they use their CPU's boot stack) */
	u64 wake_at;		 /* ktime ns to wake a sleeping task, 0 = only wake_up */
	void (*fn)(void *arg);
	void *arg;
	volatile bool should_stop; /* set by kill; the task checks it and returns */
	u64 switches;		   /* times it was switched in */
	/* Quiescent states for synchronize_rcu_tasks(): voluntary switches and cond_resched() calls.
	 * A task in none since a moment may still be inside code it entered before it. */
	u64 tasks_qs;
	bool preempted; /* switched out at an interrupt's end, wherever it was */
	u64 start_ns;
	struct task *rq_next; /* on its CPU's run queue */
	/* Its scheduling class (kernel/sched/rt.c, deadline.c, syscalls.c). */
	int policy;		  /* SCHED_NORMAL, SCHED_FIFO, ... */
	int prio;		  /* Linux's scale, above */
	unsigned int rt_priority; /* 1..99 for SCHED_FIFO and SCHED_RR, else 0 */
	bool sched_reset_on_fork;
	bool on_rq;   /* on its CPU's run queue (the running task is not) */
	bool yielded; /* sched_yield(): to the tail of its priority */
	u64 rr_slice; /* SCHED_RR: ns left of its time slice */
	struct sched_dl_entity dl;
	struct task *cpu_next; /* all live tasks of its CPU (sleepers, ps) */
	void *fgraph;	       /* function_graph's shadow return stack, when tracing */
	struct kretprobe_instance *kretprobe_instances; /* open calls a kretprobe watches */
	struct uprobe_task *utask; /* a uprobe's step in progress, uretprobe returns (NULL: none) */
	unsigned int fail_nth; /* > 0: the fail_nth-th allocation from now fails (fault_inject.c) */
	int spinlocks_held;    /* percpu spinlocks_held while it is switched out */
#ifdef CONFIG_LOCKDEP
	struct lockdep_task lockdep; /* the locks it holds, for the validator */
#endif

	/*
	 * A process (docs/17-user-space.md): all NULL or 0 for a kernel thread. A thread's tgid is
	 * its process's pid (its leader's); Linux's task_struct keeps the same things under the
	 * same names.
	 */
	struct mm_struct *mm;	    /* the address space; NULL: a kernel thread */
	struct files_struct *files; /* the fd table (kernel/fs/file.h) */
	struct fnode *cwd;	    /* the working directory (pinned) */
	unsigned int umask;
	int tgid;
	struct task *parent;		 /* who wait4()s for it; NULL once the parent is gone */
	struct task *children, *sibling; /* the children, linked through their sibling */
	int exit_state;			 /* 0, or EXIT_ZOMBIE */
	int exit_code;			 /* the wait status: (code << 8) or the signal */
	bool off_cpu;			 /* a zombie whose stack nobody runs on any more */
	/* Signals (kernel/signal.c): bit (sig - 1) of each mask; the siginfo of each pending one
	 * queued in sigq (real-time signals once per send, the others once). */
	u64 pending, blocked;
	struct k_sigaction *sighand; /* 64 actions, or NULL while all are SIG_DFL */
	struct sigqueue *sigq;
	/* The process's pending set (Linux's signal->shared_pending), kept in its leader's task,
	 * which outlives every thread; a process of one thread has no signal_struct. */
	u64 shared_pending;
	struct sigqueue *shared_sigq;
	/* Linux's thread_info flags: TIF_SIGPENDING, set for the thread a signal was given to and
	 * recalculated (recalc_sigpending()) when its mask changes or it takes one, so the way back
	 * to ring 3 tests one word. */
	unsigned long thread_flags;
	u64 saved_sigmask; /* sigsuspend()'s caller's mask, back after the handler */
	bool restore_sigmask;
	/* Linux's force_iret(): a handler rewrote the user's registers (execve, rt_sigreturn), so
	 * the way out must check them in C (syscall_exit_check()) before sysretq may load them. */
	bool force_iret;
	bool stopped;	     /* SIGSTOP and kin: asleep until SIGCONT */
	unsigned int jobctl; /* JOBCTL_STOP_PENDING, JOBCTL_STOP_DEQUEUED (kernel/signal_stop.c) */
	/* The process's group stop, kept in its leader as shared_pending is (Linux's signal->
	 * group_stop_count, group_exit_code and the SIGNAL_STOP_STOPPED flag). */
	int group_stop_count, group_stop_sig;
	bool group_stopped;
	struct task_times times; /* this thread's own (/proc/<pid>/task/<tid>/stat) */
	/* The leader's: its process's threads that exited, and its children reaped (Linux's
	 * signal->utime and signal->cutime families). */
	struct task_times dead_times, child_times;
	int jobctl_report; /* the leader's, for the parent's wait4: (sig << 8) | 0x7f stopped,
			    * 0xffff continued */
	unsigned long sas_ss_sp, sas_ss_size; /* sigaltstack() */
	/* The last fault that signalled this task, for a signal frame's sigcontext (Linux's
	 * thread.trap_nr and thread.error_code): the frame no longer holds them. */
	unsigned long trap_nr, error_code;
	int pgid, sid;			     /* process group and session (kernel/jobctl.c) */
	unsigned int uid, euid, suid, fsuid; /* credentials (kernel/cred.c) */
	unsigned int gid, egid, sgid, fsgid;
	unsigned long fsbase, gsbase; /* arch_prctl(): the user's FS and GS bases */
	int *clear_child_tid;	      /* set_tid_address(): zeroed at exit (a user pointer) */
	unsigned long robust_list, robust_len;
	struct fxregs_state *fpu; /* the user's FPU/SSE state while switched out */
	/* Threads (kernel/thread_group.c): the group, NULL while the process has one thread. */
	struct signal_struct *signal;
	struct task *thread_next; /* the next live thread of the group */
	bool fs_shared;		  /* CLONE_FS: chdir and umask reach every such thread */
};

static inline void task_times_add(struct task_times *to, const struct task_times *t)
{
	to->utime += t->utime;
	to->stime += t->stime;
	to->min_flt += t->min_flt;
}

/* The timer tick's charge: to the user's time if it interrupted ring 3, else the kernel's. */
static inline void account_process_tick(struct task *t, bool user)
{
	if (!t->pid)
		return; /* the idle task */
	if (user)
		t->times.utime++;
	else
		t->times.stime++;
}

static inline unsigned long task_top_of_stack(const struct task *t)
{
	return (unsigned long)t->stack + TASK_STACK_PAGES * 4096;
}

/* The user registers a process saved on entry, at the top of its kernel stack. */
#define task_pt_regs(t) ((struct pt_regs *)task_top_of_stack(t) - 1)

/* A task with a pid, a name and a stack, not yet runnable (kthread_create() and fork use it). */
struct task *alloc_task(const char *name, int cpu);
void free_task(struct task *t);
/* Makes a task from alloc_task() runnable: t->rsp must point at a switch_to() frame. */
void wake_up_new_task(struct task *t);
/* The first thing a new task does on its stack: what finishing a switch to it needs. */
void schedule_tail(struct task *prev);

/* Sets up the idle task of this CPU (the context it booted in) and its run queue. */
void sched_init_cpu(int cpu);
/* Lets the idle task of this CPU run forever: halt until an interrupt, then schedule. */
void __noreturn cpu_idle(void);

/* Creates a task running fn(arg) on cpu, ready to run; NULL if out of memory. */
struct task *kthread_create(void (*fn)(void *), void *arg, int cpu, const char *name);
void schedule(void);
void yield(void);
/* A long loop's safe point: reports a quiescent state, and switches if a switch is due. */
void cond_resched(void);
void msleep(unsigned long ms);
/* msleep, ended early by a signal pending, sent before or during the sleep. */
void msleep_interruptible(unsigned long ms);
/* A sleep about to begin ends by ktime `until` at the latest (the tick wakes it, as msleep's);
 * interrupts off, the caller sets TASK_SLEEPING and schedules. */
void sleep_timer_arm(u64 until);
/*
 * Linux's check before anything that may sleep (msleep, schedule, mutex_lock): in the test kernel,
 * sleeping with a spinlock held is reported loudly ("BUG: sleeping function called from invalid
 * context", with a backtrace), which the test harness counts as a failure. Elsewhere it costs a
 * load and a branch.
 */
#define might_sleep()                                                                              \
	do {                                                                                       \
		if (unlikely(test_mode))                                                           \
			__might_sleep(__FILE__, __LINE__);                                         \
	} while (0)
void __might_sleep(const char *file, int line);
extern unsigned long might_sleep_reports; /* how many it printed: for the self-tests */
/* Puts the current task to sleep until wake_up_process(); the caller sets up the wake first. */
void sleep_until_woken(void);
void wake_up_process(struct task *t);
void __noreturn task_exit(void);
/* Serializes parent/child links and the exit of processes (Linux's tasklist_lock). */
unsigned long tasklist_lock_irqsave(void);
void tasklist_unlock_irqrestore(unsigned long flags);

/* Affinity and migration (kernel/sched/migrate.c). Every CPU there is, as a mask. */
#define CPU_MASK_ALL ((1UL << NR_CPUS) - 1)
/* The CPU a task waking up or just forked should run on (Linux's select_task_rq()). */
int select_task_rq(struct task *p, int prev_cpu);
/* Sets the CPUs p may run on, moving it off a CPU no longer allowed: 0, -EINVAL (no online CPU
 * in mask) or -EBUSY (a deadline task, whose bandwidth is its CPU's; Linux's check). */
int set_cpus_allowed_ptr(struct task *p, unsigned long mask);

/* Finds a live task by pid; asks it to stop (it exits at its next check). */
struct task *find_task(int pid);
int kthread_stop(int pid);
static inline bool kthread_should_stop(void)
{
	return current->should_stop;
}

/*
 * Waits until every task that might have been inside some code when the call began has been seen
 * outside it: each task running or preempted then has since switched voluntarily or called
 * cond_resched() (Linux's RCU Tasks). The caller has made sure nobody can enter that code any more;
 * afterwards it may free it. Sleeps: call from a task, with no locks held.
 */
void synchronize_rcu_tasks(void);

/* Walks every live task (ps, the tracers' pid filter). */
void for_each_task(void (*fn)(struct task *t, void *arg), void *arg);

/* Sets a task's class from the kernel (the labs' RT and deadline tasks), without the permission
 * checks of sched_setscheduler(2): 0 or its errno (kernel/sched/syscalls.c). */
int sched_setscheduler_nocheck(struct task *p, int policy, unsigned int prio, u64 runtime,
			       u64 deadline, u64 period);
/* fork: the child's class from the parent's (-EAGAIN for a deadline parent, as Linux). */
int sched_fork(struct task *p);
/* Called from the timer tick and at the end of an interrupt. */
void scheduler_tick(void);
void preempt_schedule_irq(void);

/* /proc/sys/kernel/sched_rt_{runtime,period}_us (kernel/fs/proc_pid.c): the real-time and
 * deadline classes' share of each period, -1 for no limit (kernel/sched/rt_bandwidth.c). */
extern long sched_rt_runtime_us, sched_rt_period_us;
/* Sets both, with Linux's checks: 0, -EINVAL or -EBUSY (a deadline reservation is in the way). */
int sched_rt_set(long period_us, long runtime_us);

#endif
