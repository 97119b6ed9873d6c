/* Static ftrace (make STATIC_FTRACE=1): what tracing does when no call site is ever patched.
 *
 *   every traced function      call __fentry__            (left as gcc wrote it, never a NOP)
 *   __fentry__                 ftrace_trace_function != ftrace_stub ?  jmp ftrace_static_caller
 *                              ftrace_graph_entry != its stub ?         jmp ftrace_graph_caller
 *                              ret
 *   ftrace_static_caller       ftrace_caller's frames, call *ftrace_trace_function, then the
 *                              graph hook's test
 *   ftrace_graph_caller        the same frames, prepare_ftrace_return(): filters, shadow stack
 *   ftrace_ops_list_func       each live ops whose filter/notrace sets accept this ip
 *
 * Registering an ops changes one pointer, not code; filtering happens on every call, in the list
 * function, instead of once, in which sites are patched. Only the plain caller exists, so an ops
 * that needs registers (kprobes at offset 0, direct calls, livepatch) is refused. function_graph
 * needs none: it is not an ops here but Linux's graph hook (fgraph.c).
 */
#include "kernel/trace/ftrace.h"
#include "lib/errno.h"

/* 0 if ops can run in this build; -EINVAL for what only dynamic ftrace offers, as Linux refuses
 * FTRACE_OPS_FL_SAVE_REGS when the kernel has no ftrace_regs_caller. */
int ftrace_static_check_ops(const struct ftrace_ops *ops)
{
	if (ops->flags & (FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_DIRECT))
		return -EINVAL;
	return 0;
}

/*
 * Points __fentry__ at the list function while any ops is live, else back at ftrace_stub. Always
 * the list function, even for a single ops: with every function calling in, the per-ops filter
 * test that dynamic ftrace does once, by patching only the wanted sites, must happen per call.
 */
void ftrace_static_update(bool any_live)
{
	WRITE_ONCE(function_trace_op, NULL); /* the list function walks the list itself */
	WRITE_ONCE(ftrace_trace_function, any_live ? ftrace_ops_list_func : ftrace_stub);
}
