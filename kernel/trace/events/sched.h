/* sched: what the scheduler does, as Linux's include/trace/events/sched.h names and prints it. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sched
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE "kernel/trace/events/sched.h"

#if !defined(_TRACE_SCHED_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SCHED_H

#include "kernel/tracepoint.h"
#include "kernel/sched/sched.h"
#include "lib/string.h"

#ifndef _TRACE_SCHED_HELPERS
#define _TRACE_SCHED_HELPERS
/*
 * Linux's task states as its sched_switch prints them, with Linux's values written the way its
 * headers write them, so that the print fmt line of the format file expands to Linux's text byte
 * for byte. We report S (sleeping), X (dead), R, and R+ for a task preempted while runnable
 * (TASK_REPORT_MAX set); the other letters are Linux's, listed for the tools that read the
 * format file. The priorities are Linux's prio (120 a normal task, 99 - rt_priority a real-time
 * one, -1 a deadline one).
 */
#define TRACE_TASK_RUNNING 0x00000000
#define TRACE_TASK_INTERRUPTIBLE 0x00000001
#define TRACE_TASK_UNINTERRUPTIBLE 0x00000002
#define TRACE_TASK_STOPPED 0x00000004
#define TRACE_TASK_TRACED 0x00000008
#define TRACE_TASK_DEAD 0x00000010 /* Linux's EXIT_DEAD: "X" */
#define TRACE_TASK_ZOMBIE 0x00000020
#define TRACE_TASK_PARKED 0x00000040
#define TRACE_TASK_IDLE 0x00000080
#define TRACE_TASK_REPORT                                                                          \
	(TRACE_TASK_RUNNING | TRACE_TASK_INTERRUPTIBLE | TRACE_TASK_UNINTERRUPTIBLE |              \
	 TRACE_TASK_STOPPED | TRACE_TASK_TRACED | TRACE_TASK_DEAD | TRACE_TASK_ZOMBIE |            \
	 TRACE_TASK_PARKED)
#define TRACE_TASK_REPORT_MAX ((TRACE_TASK_REPORT + 1) << 1)

static inline long trace_sched_switch_state(bool preempt, const struct task *p)
{
	if (preempt)
		return TRACE_TASK_REPORT_MAX;
	return p->state == TASK_SLEEPING ? TRACE_TASK_INTERRUPTIBLE :
	       p->state == TASK_DEAD ? TRACE_TASK_DEAD : TRACE_TASK_RUNNING;
}

/* The name a record carries: Linux's idle tasks are swapper/N, ours are "<idle>" in ps. */
static inline void trace_task_comm(char *dst, const struct task *p)
{
	if (p->pid == 0) {
		memcpy(dst, "swapper/", 8);
		dst[8] = '0' + p->cpu;
		dst[9] = 0;
	} else {
		memcpy(dst, p->comm, TASK_COMM_LEN);
	}
}
#endif

TRACE_EVENT(sched_switch,
	TP_PROTO(bool preempt, struct task *prev, struct task *next),
	TP_ARGS(preempt, prev, next),
	TP_STRUCT__entry(
		__array(char, prev_comm, TASK_COMM_LEN)
		__field(pid_t, prev_pid)
		__field(int, prev_prio)
		__field(long, prev_state)
		__array(char, next_comm, TASK_COMM_LEN)
		__field(pid_t, next_pid)
		__field(int, next_prio)
	),
	TP_fast_assign(
		trace_task_comm(__entry->prev_comm, prev);
		__entry->prev_pid = prev->pid;
		__entry->prev_prio = prev->prio;
		__entry->prev_state = trace_sched_switch_state(preempt, prev);
		trace_task_comm(__entry->next_comm, next);
		__entry->next_pid = next->pid;
		__entry->next_prio = next->prio;
	),
	TP_printk("prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d",
		__entry->prev_comm, __entry->prev_pid, __entry->prev_prio,
		(__entry->prev_state & (TRACE_TASK_REPORT_MAX - 1)) ?
		  __print_flags(__entry->prev_state & (TRACE_TASK_REPORT_MAX - 1), "|",
				{ TRACE_TASK_INTERRUPTIBLE, "S" }, { TRACE_TASK_UNINTERRUPTIBLE, "D" },
				{ TRACE_TASK_STOPPED, "T" }, { TRACE_TASK_TRACED, "t" },
				{ TRACE_TASK_DEAD, "X" }, { TRACE_TASK_ZOMBIE, "Z" },
				{ TRACE_TASK_PARKED, "P" }, { TRACE_TASK_IDLE, "I" }) : "R",
		__entry->prev_state & TRACE_TASK_REPORT_MAX ? "+" : "",
		__entry->next_comm, __entry->next_pid, __entry->next_prio)
);

DECLARE_EVENT_CLASS(sched_wakeup_template,
	TP_PROTO(struct task *p),
	TP_ARGS(p),
	TP_STRUCT__entry(
		__array(char, comm, TASK_COMM_LEN)
		__field(pid_t, pid)
		__field(int, prio)
		__field(int, target_cpu)
	),
	TP_fast_assign(
		trace_task_comm(__entry->comm, p);
		__entry->pid = p->pid;
		__entry->prio = p->prio;
		__entry->target_cpu = p->cpu;
	),
	TP_printk("comm=%s pid=%d prio=%d target_cpu=%03d",
		__entry->comm, __entry->pid, __entry->prio, __entry->target_cpu)
);

/* Called when a wake-up begins, on the waker's CPU, before the task is queued. */
DEFINE_EVENT(sched_wakeup_template, sched_waking,
	TP_PROTO(struct task *p),
	TP_ARGS(p));

/* Called once the woken task is on its run queue. */
DEFINE_EVENT(sched_wakeup_template, sched_wakeup,
	TP_PROTO(struct task *p),
	TP_ARGS(p));

/* A task moves to another CPU's run queue (kernel/sched/migrate.c: set_task_cpu()). */
TRACE_EVENT(sched_migrate_task,
	TP_PROTO(struct task *p, int dest_cpu),
	TP_ARGS(p, dest_cpu),
	TP_STRUCT__entry(
		__array(char, comm, TASK_COMM_LEN)
		__field(pid_t, pid)
		__field(int, prio)
		__field(int, orig_cpu)
		__field(int, dest_cpu)
	),
	TP_fast_assign(
		trace_task_comm(__entry->comm, p);
		__entry->pid = p->pid;
		__entry->prio = p->prio;
		__entry->orig_cpu = p->cpu;
		__entry->dest_cpu = dest_cpu;
	),
	TP_printk("comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d",
		  __entry->comm, __entry->pid, __entry->prio,
		  __entry->orig_cpu, __entry->dest_cpu)
);

DECLARE_EVENT_CLASS(sched_process_template,
	TP_PROTO(struct task *p),
	TP_ARGS(p),
	TP_STRUCT__entry(
		__array(char, comm, TASK_COMM_LEN)
		__field(pid_t, pid)
		__field(int, prio)
	),
	TP_fast_assign(
		trace_task_comm(__entry->comm, p);
		__entry->pid = p->pid;
		__entry->prio = p->prio;
	),
	TP_printk("comm=%s pid=%d prio=%d",
		  __entry->comm, __entry->pid, __entry->prio)
);

/* A task has finished and will not run again. */
DEFINE_EVENT(sched_process_template, sched_process_exit,
	TP_PROTO(struct task *p),
	TP_ARGS(p));

/* A task has been reaped: its memory is going back (Linux: delayed_put_task_struct()). */
DEFINE_EVENT(sched_process_template, sched_process_free,
	TP_PROTO(struct task *p),
	TP_ARGS(p));

/* A parent waits for a child: pid is the one it asked for (0: any), comm and prio its own. */
TRACE_EVENT(sched_process_wait,
	TP_PROTO(int pid),
	TP_ARGS(pid),
	TP_STRUCT__entry(
		__array(char, comm, TASK_COMM_LEN)
		__field(pid_t, pid)
		__field(int, prio)
	),
	TP_fast_assign(
		trace_task_comm(__entry->comm, current);
		__entry->pid = pid > 0 ? pid : 0;
		__entry->prio = current->prio;
	),
	TP_printk("comm=%s pid=%d prio=%d",
		  __entry->comm, __entry->pid, __entry->prio)
);

/* fork: the child exists and is about to be woken. */
TRACE_EVENT(sched_process_fork,
	TP_PROTO(struct task *parent, struct task *child),
	TP_ARGS(parent, child),
	TP_STRUCT__entry(
		__array(char, parent_comm, TASK_COMM_LEN)
		__field(pid_t, parent_pid)
		__array(char, child_comm, TASK_COMM_LEN)
		__field(pid_t, child_pid)
	),
	TP_fast_assign(
		trace_task_comm(__entry->parent_comm, parent);
		__entry->parent_pid = parent->pid;
		trace_task_comm(__entry->child_comm, child);
		__entry->child_pid = child->pid;
	),
	TP_printk("comm=%s pid=%d child_comm=%s child_pid=%d",
		__entry->parent_comm, __entry->parent_pid,
		__entry->child_comm, __entry->child_pid)
);

/* execve succeeded: the process runs filename from now on (old_pid: a thread's exec would
 * take the leader's pid in Linux; without threads they are the same). */
TRACE_EVENT(sched_process_exec,
	TP_PROTO(struct task *p, pid_t old_pid, const char *filename),
	TP_ARGS(p, old_pid, filename),
	TP_STRUCT__entry(
		__string(filename, filename)
		__field(pid_t, pid)
		__field(pid_t, old_pid)
	),
	TP_fast_assign(
		__assign_str(filename, filename);
		__entry->pid = p->pid;
		__entry->old_pid = old_pid;
	),
	TP_printk("filename=%s pid=%d old_pid=%d", __get_str(filename),
		  __entry->pid, __entry->old_pid)
);

#endif /* _TRACE_SCHED_H */

#include "kernel/trace/define_trace.h"
