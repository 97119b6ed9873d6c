/* The function tracer: global_ops (the sets of set_ftrace_filter) calling function_trace_call,
 * which records ip and parent ip in this CPU's ring buffer. */
#include "kernel/trace/trace.h"
#include "arch/x86/cpu.h"
#include "kernel/trace/ftrace.h"

/*
 * No recursion lock here: everything this calls is notrace or inline, so it cannot re-enter
 * itself, and the write runs with interrupts off, so the only thing that can nest is an NMI,
 * which the buffer refuses while a write is in progress (it counts it as dropped).
 *
 * The whole way: any case the fast path below leaves (tracing off, a pid filter,
 * func_stack_trace, a new page, a refused write).
 */
static noinline void function_trace_call_slow(struct trace_array *tr, unsigned long ip,
					      unsigned long parent_ip)
{
	struct rb_reserve r;

	if (!READ_ONCE(tr->tracing_on) || !trace_array_pid_wanted(tr))
		return;
	if (ring_buffer_lock_reserve(&tr->buffer, sizeof(struct ftrace_entry), &r)) {
		struct ftrace_entry *e = r.data;
		/* r.flags: the interrupt state of the traced code, saved by the reserve */
		tracing_generic_entry_update(&e->ent, TRACE_FN, r.flags, 0);
		e->ip = ip;
		e->parent_ip = parent_ip;
		ring_buffer_unlock_commit(&r);
		if (unlikely(trace_array_option(tr, TRACE_OPT_FUNC_STACK_TRACE)))
			trace_array_record_stack(
				tr, ip); /* func_stack_trace: where the call came from */
	}
}

/*
 * The common case, all inline and without a call on its way, so it keeps everything in the
 * registers the caller lets it clobber: tracing on, no pid filter, no func_stack_trace, and the
 * buffer's fast path. Anything else is a tail call to the whole way above. The trace array is
 * the ops's (op->private, as in Linux), so the same callback serves any trace instance.
 */
/* No frame of its own either: it calls nothing (a backtrace from the slow path, which it jumps
 * to, sees the trampoline's frames as before). */
__attribute__((optimize("omit-frame-pointer"))) void function_trace_call(unsigned long ip,
									 unsigned long parent_ip,
									 struct ftrace_ops *op,
									 struct pt_regs *regs)
{
	struct trace_array *tr = op->private;
	struct rb_reserve r;

	/* tracing_on set and fn_slow clear: one 16-bit compare (x86 is little-endian) */
	if (likely(READ_ONCE(tr->fn_gate) == 1 &&
		   __rb_reserve_fast(trace_array_cpu_buffer(tr), sizeof(struct ftrace_entry),
				     &r))) {
		struct ftrace_entry *e = r.data;

		tracing_generic_entry_update(&e->ent, TRACE_FN, r.flags, 0);
		e->ip = ip;
		e->parent_ip = parent_ip;
		ring_buffer_unlock_commit(&r);
		return;
	}
	function_trace_call_slow(tr, ip, parent_ip);
}

static int function_trace_init(void)
{
	global_ops.func = function_trace_call;
	global_ops.private = &global_trace;
	global_ops.flags |= FTRACE_OPS_FL_RECURSION;
	/* Its own trampoline writes function_trace_call()'s fast path inline (docs/07, section 2). */
	global_ops.tramp_kind = FTRACE_TRAMP_FUNCTION;
	return register_ftrace_function(&global_ops);
}

static void function_trace_reset(void)
{
	unregister_ftrace_function(&global_ops);
	global_ops.tramp_kind = 0; /* unregistering took the trampoline: nothing copies it now */
}

/* In an instance: the same callback and trampoline on the instance's own ops (its
 * set_ftrace_filter), whose private names the instance, so the fast path is the same code. */
static int function_instance_init(struct trace_array *tr)
{
	tr->ops->func = function_trace_call;
	tr->ops->private = tr;
	tr->ops->flags |= FTRACE_OPS_FL_RECURSION;
	tr->ops->tramp_kind = FTRACE_TRAMP_FUNCTION;
	return register_ftrace_function(tr->ops);
}

static void function_instance_reset(struct trace_array *tr)
{
	unregister_ftrace_function(tr->ops);
	tr->ops->tramp_kind = 0;
}

static struct tracer function_trace = {
	.name = "function",
	.init = function_trace_init,
	.reset = function_trace_reset,
	.instance_init = function_instance_init,
	.instance_reset = function_instance_reset,
};

void trace_functions_init(void)
{
	register_tracer(&function_trace);
}
