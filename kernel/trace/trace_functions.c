/* The function tracer: global_ops (the sets of set_ftrace_filter) calling function_trace_call,
 * which records ip and parent ip in this CPU's ring buffer. */
#include "kernel/trace/trace.h"
#include "arch/x86/cpu.h"
#include "kernel/trace/ftrace.h"

static void function_trace_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
				struct pt_regs *regs)
{
	unsigned long irq = read_flags(); /* before the buffer turns interrupts off */
	struct rb_reserve r;
	int bit;

	if (!READ_ONCE(global_trace.tracing_on))
		return;
	bit = ftrace_test_recursion_trylock();
	if (bit < 0)
		return;
	if (trace_pid_wanted() &&
	    ring_buffer_lock_reserve(&global_trace.buffer, sizeof(struct ftrace_entry), &r)) {
		struct ftrace_entry *e = r.data;
		/* -1: the trylock raised preempt_count; Linux does not show its own either. */
		tracing_generic_entry_update(&e->ent, TRACE_FN, irq, -1);
		e->ip = ip;
		e->parent_ip = parent_ip;
		ring_buffer_unlock_commit(&r);
	}
	ftrace_test_recursion_unlock(bit);
}

static int function_trace_init(void)
{
	global_ops.func = function_trace_call;
	global_ops.flags |= FTRACE_OPS_FL_RECURSION;
	return register_ftrace_function(&global_ops);
}

static void function_trace_reset(void)
{
	unregister_ftrace_function(&global_ops);
}

static struct tracer function_trace = {
	.name = "function",
	.init = function_trace_init,
	.reset = function_trace_reset,
};

void trace_functions_init(void)
{
	register_tracer(&function_trace);
}
