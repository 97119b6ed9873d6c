/* The layout arch/x86/trace_fast.inc promises the assembly fast paths, checked at build time. */
#include "kernel/trace/trace.h"
#include "kernel/trace/fgraph.h"
#include "kernel/sched.h"

#define AT(type, field, v) _Static_assert(__builtin_offsetof(type, field) == (v), #type "." #field)
#define SIZE(type, v) _Static_assert(sizeof(type) == (v), "sizeof " #type)

AT(struct percpu, curr, 16);
AT(struct percpu, trace_ctx, 40);
AT(struct percpu, trace_cb, 56);
AT(struct percpu, trace_recursion, 64);

AT(struct ring_buffer_per_cpu, last_ts, 32);
AT(struct ring_buffer_per_cpu, tail_page, 40);
AT(struct ring_buffer_per_cpu, writer, 48);
AT(struct ring_buffer_per_cpu, entries, 56);
AT(struct buffer_data_page, commit, 8);
AT(struct buffer_data_page, data, 16);
_Static_assert(BUF_PAGE_SIZE == 4080 && TS_DELTA_BITS == 27, "ring buffer page");

AT(struct trace_array, fn_gate, 1160);
AT(struct trace_array, graph_gate, 1160);

_Static_assert(TRACE_FN == 1 && TRACE_GRAPH_RET == 11 && TRACE_GRAPH_ENT == 12, "event types");
SIZE(struct ftrace_entry, 24);
AT(struct ftrace_entry, ip, 8);
AT(struct ftrace_entry, parent_ip, 16);
SIZE(struct ftrace_graph_ent_entry, 24);
AT(struct ftrace_graph_ent_entry, func, 8);
AT(struct ftrace_graph_ent_entry, depth, 16);
SIZE(struct ftrace_graph_ret_entry, 56);
AT(struct ftrace_graph_ret_entry, func, 8);
AT(struct ftrace_graph_ret_entry, depth, 16);
AT(struct ftrace_graph_ret_entry, overrun, 24);
AT(struct ftrace_graph_ret_entry, calltime, 32);
AT(struct ftrace_graph_ret_entry, rettime, 40);
AT(struct ftrace_graph_ret_entry, retval, 48);

AT(struct task, fgraph, 128);
AT(struct fgraph_task, curr_ret_stack, 0);
AT(struct fgraph_task, overrun, 8);
AT(struct fgraph_task, ret_stack, 24);
SIZE(struct ftrace_ret_stack, 32);
AT(struct ftrace_ret_stack, ret, 0);
AT(struct ftrace_ret_stack, func, 8);
AT(struct ftrace_ret_stack, calltime, 16);
AT(struct ftrace_ret_stack, retp, 24);
_Static_assert(FTRACE_RETFUNC_DEPTH == 50, "shadow stack depth");
