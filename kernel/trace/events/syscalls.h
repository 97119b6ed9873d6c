/* raw_syscalls: every system call's entry and exit, as Linux's include/trace/events/syscalls.h. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM raw_syscalls
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE "kernel/trace/events/syscalls.h"

#if !defined(_TRACE_SYSCALLS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SYSCALLS_H

#include "kernel/tracepoint.h"
#include "arch/x86/traps.h"

/*
 * do_syscall_64() calls trace_sys_enter() before the table and trace_sys_exit() after it, each
 * behind its tracepoint's static key: a NOP while nobody listens. The syscalls:sys_enter_NAME
 * events (kernel/trace/trace_syscalls.c) are probes on these same two tracepoints, as Linux's are.
 * The arguments are the registers of the x86-64 convention, r10 in the fourth place.
 */
TRACE_EVENT(sys_enter,
	TP_PROTO(struct pt_regs *regs, long id),
	TP_ARGS(regs, id),
	TP_STRUCT__entry(
		__field(long, id)
		__array(unsigned long, args, 6)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->args[0] = regs->di;
		__entry->args[1] = regs->si;
		__entry->args[2] = regs->dx;
		__entry->args[3] = regs->r10;
		__entry->args[4] = regs->r8;
		__entry->args[5] = regs->r9;
	),
	TP_printk("NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)",
		__entry->id,
		__entry->args[0], __entry->args[1], __entry->args[2],
		__entry->args[3], __entry->args[4], __entry->args[5])
);

TRACE_EVENT(sys_exit,
	TP_PROTO(struct pt_regs *regs, long ret),
	TP_ARGS(regs, ret),
	TP_STRUCT__entry(
		__field(long, id)
		__field(long, ret)
	),
	TP_fast_assign(
		__entry->id = (int)regs->orig_ax;
		__entry->ret = ret;
	),
	TP_printk("NR %ld = %ld",
		__entry->id, __entry->ret)
);

#endif /* _TRACE_SYSCALLS_H */

#include "kernel/trace/define_trace.h"
