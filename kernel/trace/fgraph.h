/* function_graph's engine: a shadow stack of return addresses per task, and the return hook. */
#ifndef KERNEL_TRACE_FGRAPH_H
#define KERNEL_TRACE_FGRAPH_H

#include "lib/types.h"

#define FTRACE_RETFUNC_DEPTH 50

struct task;

/* One traced call in progress: where it must really return, and when it started. */
struct ftrace_ret_stack {
	unsigned long ret;  /* the real return address */
	unsigned long func; /* the function called */
	u64 calltime;
	unsigned long *retp; /* the stack slot we changed (kept for an unwinder; not read yet) */
};

/* Hung off struct task (its fgraph field), and this CPU's percpu.fgraph while it runs. */
struct fgraph_task {
	int curr_ret_stack;    /* entries in use */
	unsigned long overrun; /* calls not hooked because the stack was full */
	int in_graph_func;     /* set_graph_function: calls of listed functions now running */
	int in_notrace;	       /* set_graph_notrace: calls of listed functions now running */
	struct ftrace_ret_stack ret_stack[FTRACE_RETFUNC_DEPTH];
};

/* What a graph tracer is told at each entry and return (return: retval and rettime set). */
struct ftrace_graph_ent {
	unsigned long func;
	int depth;
};

struct ftrace_graph_ret {
	unsigned long func;
	int depth;
	unsigned long overrun;
	u64 calltime, rettime;
	unsigned long retval;
};

struct fgraph_ops {
	/* Returns false to leave this call alone (no return hook, no return event). */
	bool (*entryfunc)(struct ftrace_graph_ent *ent, struct fgraph_ops *gops);
	void (*retfunc)(struct ftrace_graph_ret *ret, struct fgraph_ops *gops);
	/* The user's own (Linux's): the function_graph tracer's trace array. Its ftrace_ops gets
	 * it too, so the trampoline's fast path and return_to_handler find the same one. */
	void *private;
};

int register_ftrace_graph(struct fgraph_ops *gops);
void unregister_ftrace_graph(void);
/* Gives a new task its shadow stack if graph tracing has ever run (kthread_create calls it). */
void ftrace_graph_init_task(struct task *t);
extern unsigned int fgraph_max_depth; /* max_graph_depth; 0: FTRACE_RETFUNC_DEPTH */
/* fgraph's ftrace_ops: its func_hash picks the graphed functions (the user's filter set). */
struct ftrace_ops;
extern struct ftrace_ops graph_ftrace_ops;
/* What percpu.fgraph points to while the running task has no shadow stack: curr_ret_stack -1
 * reads as full to a push (unsigned) and as empty to a pop (signed), so the assembly needs no
 * NULL test. */
extern struct fgraph_task fgraph_no_stack;
/* The running task's shadow stack for the assembly, after a switch or a new stack. */
void fgraph_set_cpu_stack(struct task *t);

/* The static build's graph hook, which __fentry__ tests on every call (fgraph.c). */
bool ftrace_graph_entry_stub(struct ftrace_graph_ent *ent, struct fgraph_ops *gops);
extern bool (*ftrace_graph_entry)(struct ftrace_graph_ent *ent, struct fgraph_ops *gops);
void prepare_ftrace_return(unsigned long ip, unsigned long parent_ip, unsigned long *slot);

#endif
