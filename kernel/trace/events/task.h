/* task: a task made and a task renamed, as Linux's include/trace/events/task.h names and prints them. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM task
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE "kernel/trace/events/task.h"

#if !defined(_TRACE_TASK_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TASK_H

#include "kernel/tracepoint.h"
#include "kernel/sched/sched.h"
#include "lib/string.h"

/* No OOM killer here: oom_score_adj is always 0, the value of a task nobody adjusted. */
TRACE_EVENT(task_newtask,
	TP_PROTO(struct task *task, unsigned long clone_flags),
	TP_ARGS(task, clone_flags),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__array(char, comm, TASK_COMM_LEN)
		__field(unsigned long, clone_flags)
		__field(short, oom_score_adj)
	),
	TP_fast_assign(
		__entry->pid = task->pid;
		memcpy(__entry->comm, task->comm, TASK_COMM_LEN);
		__entry->clone_flags = clone_flags;
		__entry->oom_score_adj = 0;
	),
	TP_printk("pid=%d comm=%s clone_flags=%lx oom_score_adj=%hd",
		__entry->pid, __entry->comm,
		__entry->clone_flags, __entry->oom_score_adj)
);

/* Before the name changes (exec, PR_SET_NAME): comm is the old one, newcomm the new. */
TRACE_EVENT(task_rename,
	TP_PROTO(struct task *task, const char *comm),
	TP_ARGS(task, comm),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__array(char, oldcomm, TASK_COMM_LEN)
		__array(char, newcomm, TASK_COMM_LEN)
		__field(short, oom_score_adj)
	),
	TP_fast_assign(
		__entry->pid = task->pid;
		memcpy(__entry->oldcomm, task->comm, TASK_COMM_LEN);
		strscpy(__entry->newcomm, comm, TASK_COMM_LEN);
		__entry->oom_score_adj = 0;
	),
	TP_printk("pid=%d oldcomm=%s newcomm=%s oom_score_adj=%hd",
		__entry->pid, __entry->oldcomm,
		__entry->newcomm, __entry->oom_score_adj)
);

#endif /* _TRACE_TASK_H */

#include "kernel/trace/define_trace.h"
