/* signal: a signal sent and a signal taken, as Linux's include/trace/events/signal.h names and prints them. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM signal
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE "kernel/trace/events/signal.h"

#if !defined(_TRACE_SIGNAL_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SIGNAL_H

#include "kernel/tracepoint.h"
#include "kernel/sched/sched.h"
#include "kernel/signal.h"
#include "lib/string.h"

#ifndef TRACE_SIGNAL_RESULTS
#define TRACE_SIGNAL_RESULTS
/* What became of a sent signal: signal_generate's res=, Linux's numbers. */
enum {
	TRACE_SIGNAL_DELIVERED,	      /* now pending */
	TRACE_SIGNAL_IGNORED,	      /* dropped: ignored, or the target is exiting */
	TRACE_SIGNAL_ALREADY_PENDING, /* a standard signal already pending: merged */
	TRACE_SIGNAL_OVERFLOW_FAIL,   /* a real-time one not queued: never here */
	TRACE_SIGNAL_LOSE_INFO,	      /* pending, but no memory for its siginfo */
};
#endif

/* A NULL info is the kernel's own signal (Linux's SEND_SIG_PRIV): no errno, SI_KERNEL. */
#define TP_STORE_SIGINFO(__entry, info)                                                            \
	do {                                                                                       \
		__entry->errno = (info) ? (info)->si_errno : 0;                                    \
		__entry->code = (info) ? (info)->si_code : SI_KERNEL;                              \
	} while (0)

/* group: sent to the process (kill) rather than to one thread (tgkill, a fault). */
TRACE_EVENT(signal_generate,
	TP_PROTO(int sig, const siginfo_t *info, struct task *task, int group, int result),
	TP_ARGS(sig, info, task, group, result),
	TP_STRUCT__entry(
		__field(int, sig)
		__field(int, errno)
		__field(int, code)
		__array(char, comm, TASK_COMM_LEN)
		__field(pid_t, pid)
		__field(int, group)
		__field(int, result)
	),
	TP_fast_assign(
		__entry->sig = sig;
		TP_STORE_SIGINFO(__entry, info);
		memcpy(__entry->comm, task->comm, TASK_COMM_LEN);
		__entry->pid = task->pid;
		__entry->group = group;
		__entry->result = result;
	),
	TP_printk("sig=%d errno=%d code=%d comm=%s pid=%d grp=%d res=%d",
		__entry->sig, __entry->errno, __entry->code,
		__entry->comm, __entry->pid, __entry->group,
		__entry->result)
);

/* Taken by the current task, before its action runs (ignore, stop, end, or the handler). */
TRACE_EVENT(signal_deliver,
	TP_PROTO(int sig, const siginfo_t *info, const struct k_sigaction *ka),
	TP_ARGS(sig, info, ka),
	TP_STRUCT__entry(
		__field(int, sig)
		__field(int, errno)
		__field(int, code)
		__field(unsigned long, sa_handler)
		__field(unsigned long, sa_flags)
	),
	TP_fast_assign(
		__entry->sig = sig;
		TP_STORE_SIGINFO(__entry, info);
		__entry->sa_handler = ka->handler;
		__entry->sa_flags = ka->flags;
	),
	TP_printk("sig=%d errno=%d code=%d sa_handler=%lx sa_flags=%lx",
		__entry->sig, __entry->errno, __entry->code,
		__entry->sa_handler, __entry->sa_flags)
);

#endif /* _TRACE_SIGNAL_H */

#include "kernel/trace/define_trace.h"
