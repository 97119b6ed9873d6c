/* asm-offsets.c: the C layout the assembly fast paths read (arch/x86/ftrace_fast.asm, through the
 * macros of kernel/trace/ring_buffer.inc, trace.inc and fgraph.inc), turned into numbers nasm
 * understands, as Linux's asm-offsets.c does. Never linked: the Makefile compiles it
 * to assembly and turns each "->NAME value" line into `NAME equ value` in $(B)/gen/asm-offsets.inc,
 * so a structure that changes moves the assembly with it. */
#include "kernel/trace/trace.h"
#include "kernel/trace/fgraph.h"
#include "kernel/trace/ftrace.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "kernel/tracepoint.h"
#include "kernel/kprobes_internal.h"

#define DEFINE(sym, val) __asm__ volatile("\n.ascii \"->" #sym " %c0\"" : : "i"(val))
#define OFFSET(sym, str, mem) DEFINE(sym, __builtin_offsetof(struct str, mem))

void asm_offsets(void);
void asm_offsets(void)
{
	/* struct percpu, through %gs */
	OFFSET(PC_TRACE_CTX, percpu, trace_ctx);
	OFFSET(PC_TRACE_BUF_OFF, percpu, trace_buf_off);
	OFFSET(PC_TRACE_REC, percpu, trace_recursion);
	OFFSET(PC_FGRAPH, percpu, fgraph);

	/* an ops's trace array */
	OFFSET(OPS_PRIVATE, ftrace_ops, private);
	OFFSET(PC_TOP_OF_STACK, percpu, top_of_stack);
	OFFSET(PC_USER_RSP, percpu, user_rsp);

	/* the system call's fast path (arch/x86/entry/entry_64.asm) */
	OFFSET(PC_CURR, percpu, curr);
	OFFSET(PC_CTX_FLAGS, percpu, ctx_flags);
	DEFINE(CTX_NEED_RESCHED, CTX_NEED_RESCHED);
	OFFSET(TASK_THREAD_FLAGS, task, thread_flags);
	OFFSET(TASK_RESTORE_SIGMASK, task, restore_sigmask);
	/* one 16-bit compare tests restore_sigmask and force_iret together */
	_Static_assert(__builtin_offsetof(struct task, force_iret) ==
			       __builtin_offsetof(struct task, restore_sigmask) + 1,
		       "force_iret must follow restore_sigmask");
	OFFSET(TP_KEY, tracepoint, key.key);
	DEFINE(NR_SYSCALLS, NR_syscalls);

	/* the ring buffer: this CPU's part and a data page */
	OFFSET(RB_LAST_TS, ring_buffer_per_cpu, last_ts);
	OFFSET(RB_TAIL_PAGE, ring_buffer_per_cpu, tail_page);
	OFFSET(RB_WRITER, ring_buffer_per_cpu, writer);
	OFFSET(RB_ENTRIES, ring_buffer_per_cpu, entries);
	OFFSET(RB_WAITERS, ring_buffer_per_cpu, waiters);
	OFFSET(BDP_COMMIT, buffer_data_page, commit);
	OFFSET(BDP_DATA, buffer_data_page, data);
	DEFINE(BUF_PAGE_SIZE, BUF_PAGE_SIZE);
	DEFINE(TS_DELTA_MAX, (1U << TS_DELTA_BITS) - 1);

	/* an optimized kprobe's hit (arch/x86/kprobes/opt_template.asm) */
	OFFSET(PC_KPROBE_SITE, percpu, kprobe_ctlblk.site);
	OFFSET(KPROBE_SITE_ONLY, kprobe_site, only);
	OFFSET(KPROBE_PRE_HANDLER, kprobe, pre_handler);

	/* the gates: fn_gate and graph_gate share their first bytes */
	OFFSET(TA_GATE, trace_array, graph_gate);

	/* events */
	DEFINE(TRACE_FN, TRACE_FN);
	DEFINE(TRACE_GRAPH_ENT, TRACE_GRAPH_ENT);
	DEFINE(TRACE_GRAPH_RET, TRACE_GRAPH_RET);
	DEFINE(CTX_IRQS_OFF, TRACE_FLAG_IRQS_OFF << 16); /* the flags byte, in the 8-byte image */
	DEFINE(FE_SIZE, sizeof(struct ftrace_entry));
	OFFSET(FE_IP, ftrace_entry, ip);
	OFFSET(FE_PARENT_IP, ftrace_entry, parent_ip);
	DEFINE(GE_SIZE, sizeof(struct ftrace_graph_ent_entry));
	OFFSET(GE_FUNC, ftrace_graph_ent_entry, func);
	OFFSET(GE_DEPTH, ftrace_graph_ent_entry, depth);
	DEFINE(GR_SIZE, sizeof(struct ftrace_graph_ret_entry));
	OFFSET(GR_FUNC, ftrace_graph_ret_entry, func);
	OFFSET(GR_DEPTH, ftrace_graph_ret_entry, depth);
	OFFSET(GR_OVERRUN, ftrace_graph_ret_entry, overrun);
	OFFSET(GR_CALLTIME, ftrace_graph_ret_entry, calltime);
	OFFSET(GR_RETTIME, ftrace_graph_ret_entry, rettime);
	OFFSET(GR_RETVAL, ftrace_graph_ret_entry, retval);

	/* the task's shadow stack */
	OFFSET(FG_CURR, fgraph_task, curr_ret_stack);
	OFFSET(FG_OVERRUN, fgraph_task, overrun);
	OFFSET(FG_RET_STACK, fgraph_task, ret_stack);
	DEFINE(RS_SIZE, sizeof(struct ftrace_ret_stack));
	OFFSET(RS_RET, ftrace_ret_stack, ret);
	OFFSET(RS_FUNC, ftrace_ret_stack, func);
	OFFSET(RS_CALLTIME, ftrace_ret_stack, calltime);
	OFFSET(RS_RETP, ftrace_ret_stack, retp);
	DEFINE(FTRACE_RETFUNC_DEPTH, FTRACE_RETFUNC_DEPTH);
}
