/* function_graph's engine: hijack each traced function's return address.
 *
 *   on entry to F (through ftrace_regs_caller, regs->sp = the slot holding F's return address):
 *
 *      task stack                            task->fgraph->ret_stack
 *      | ...            |                    | [0] ret=P+n func=F calltime retp=&slot |
 *      | P+n            |  <-- slot   ===>    and the slot now says return_to_handler
 *
 *   when F returns, `ret` lands in return_to_handler, which pops the shadow stack, records the
 *   return (with the duration), and jumps to P+n.
 *
 * Each task has its own shadow stack, so a task switched out in the middle of F comes back to the
 * right one; an interrupt's functions push and pop on the stack of the task they interrupted,
 * which stays LIFO because the interrupt is over before the task runs again. Shadow stacks, once
 * given, are never taken back while the task lives: a return may still be hooked long after the
 * tracer stopped.
 */
#include "kernel/trace/fgraph.h"
#include "arch/x86/cpu.h"
#include "kernel/mm/mm.h"
#include "kernel/panic.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/trace/ftrace.h"
#include "lib/errno.h"

void return_to_handler(void);

static struct fgraph_ops *graph_ops;
static bool fgraph_ever_on;
unsigned int fgraph_max_depth;
struct fgraph_task fgraph_no_stack = { .curr_ret_stack = -1 };

void fgraph_set_cpu_stack(struct task *t)
{
	this_cpu()->fgraph = t && t->fgraph ? t->fgraph : &fgraph_no_stack;
}

void ftrace_graph_init_task(struct task *t)
{
	if (fgraph_ever_on && !t->fgraph)
		t->fgraph = kzalloc(sizeof(struct fgraph_task));
}

static void init_one(struct task *t, void *arg)
{
	ftrace_graph_init_task(t);
}

/*
 * Linux's function_graph_enter(): F at ip was called from parent_ip, whose address sits in *slot.
 * If the tracer wants this call, push it on the task's shadow stack and hook the return.
 */
static __always_inline void function_graph_enter(unsigned long ip, unsigned long parent_ip,
						 unsigned long *slot)
{
	struct task *t = current;
	struct fgraph_task *g = t ? t->fgraph : NULL;
	struct fgraph_ops *gops = READ_ONCE(graph_ops);
	unsigned int max = fgraph_max_depth ? fgraph_max_depth : FTRACE_RETFUNC_DEPTH;
	int bit;

	if (!g || !gops || *slot != parent_ip)
		return;
	bit = ftrace_test_recursion_trylock();
	if (bit < 0)
		return;
	/* Only a full shadow stack is an overrun (Linux's trace_overrun); max_graph_depth is a
	 * choice, not a loss. */
	if (g->curr_ret_stack >= FTRACE_RETFUNC_DEPTH) {
		g->overrun++;
	} else if (g->curr_ret_stack < (int)max) {
		struct ftrace_graph_ent ent = { .func = ip, .depth = g->curr_ret_stack };
		if (gops->entryfunc(&ent, gops)) {
			/* Claim the slot first: an interrupt arriving now pushes above it, not onto it. */
			int idx = g->curr_ret_stack++;
			struct ftrace_ret_stack *rs = &g->ret_stack[idx];
			barrier();
			rs->ret = parent_ip;
			rs->func = ip;
			rs->calltime = rdtsc(); /* raw: converted only when printed */
			rs->retp = slot;
			barrier(); /* the entry is complete before return_to_handler can need it */
			*slot = (unsigned long)return_to_handler;
		}
	}
	ftrace_test_recursion_unlock(bit);
}

/* The dynamic build's way in: an ftrace_ops with registers, for regs->sp (the slot). */
static void ftrace_graph_func(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			      struct pt_regs *regs)
{
	function_graph_enter(ip, parent_ip, (unsigned long *)regs->sp);
}

/* Called by return_to_handler: pop, report, and say where to go. Never traced. */
unsigned long ftrace_return_to_handler(unsigned long retval)
{
	struct task *t = current;
	struct fgraph_task *g = t->fgraph;
	struct ftrace_ret_stack *rs;
	struct fgraph_ops *gops = READ_ONCE(graph_ops);

	BUG_ON(!g || g->curr_ret_stack <= 0); /* a hooked return with no record: lost for good */
	rs = &g->ret_stack[g->curr_ret_stack - 1];
	struct ftrace_graph_ret ret = {
		.func = rs->func,
		.depth = g->curr_ret_stack - 1,
		.overrun = g->overrun,
		.calltime = rs->calltime,
		.rettime = rdtsc(),
		.retval = retval,
	};
	unsigned long to = rs->ret;
	barrier();
	g->curr_ret_stack--;
	if (gops) {
		int bit = ftrace_test_recursion_trylock();
		if (bit >= 0) {
			gops->retfunc(&ret, gops);
			ftrace_test_recursion_unlock(bit);
		}
	}
	return to;
}

/* fgraph's ftrace_ops; its private is the fgraph user's, which its trampoline and
 * return_to_handler (arch/x86/ftrace_fast.asm) read to find the trace array. */
struct ftrace_ops graph_ftrace_ops = {
	.func = ftrace_graph_func,
	.name = "function_graph",
	/* regs->sp tells where the return address is; the callback guards its own recursion */
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_RECURSION,
	.func_hash = &global_ops.local_hash,
	/* its own trampoline: the function_graph tracer's entry inline (ftrace_fast.asm), else
	 * ftrace_regs_caller's full registers */
	.tramp_kind = FTRACE_TRAMP_GRAPH,
};

/*
 * The static build's graph hook (Linux's names). __fentry__ compares ftrace_graph_entry with its
 * stub on every call of every function; while function_graph is on it calls
 * prepare_ftrace_return(), which must test the filters itself: nothing was patched to pick the
 * wanted functions, so every function comes here.
 */
bool ftrace_graph_entry_stub(struct ftrace_graph_ent *ent, struct fgraph_ops *gops)
{
	return false;
}
bool (*ftrace_graph_entry)(struct ftrace_graph_ent *ent,
			   struct fgraph_ops *gops) = ftrace_graph_entry_stub;

void prepare_ftrace_return(unsigned long ip, unsigned long parent_ip, unsigned long *slot)
{
	if (ftrace_ops_test(&graph_ftrace_ops, ip))
		function_graph_enter(ip, parent_ip, slot);
}

int register_ftrace_graph(struct fgraph_ops *gops)
{
	if (graph_ops)
		return -EBUSY; /* one user at a time: the function_graph tracer or the profiler */
	if (!gops->private)
		return -EINVAL; /* the fast paths read its trace array's gate */
	fgraph_ever_on = true;
	for_each_task(init_one, NULL);
	unsigned long flags = local_irq_save();
	fgraph_set_cpu_stack(current); /* the others' at their next task switch */
	local_irq_restore(flags);
	int err = 0;

	graph_ftrace_ops.private = gops->private;

	WRITE_ONCE(graph_ops, gops);
	if (FTRACE_STATIC)
		WRITE_ONCE(ftrace_graph_entry,
			   gops->entryfunc); /* every function calls in from now */
	else
		err = register_ftrace_function(&graph_ftrace_ops);
	if (err)
		WRITE_ONCE(graph_ops, NULL); /* or every later attempt would be EBUSY */
	return err;
}

void unregister_ftrace_graph(void)
{
	if (FTRACE_STATIC) {
		WRITE_ONCE(ftrace_graph_entry, ftrace_graph_entry_stub);
		ftrace_synchronize(); /* no CPU still between the check and the shadow stack push */
	} else {
		unregister_ftrace_function(&graph_ftrace_ops);
	}
	WRITE_ONCE(graph_ops, NULL);
}
