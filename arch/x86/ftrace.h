/* The x86 side of ftrace (Linux's asm/ftrace.h): the bytes of a call site, the one door that
 * changes them, and the code the sites call (arch/x86/ftrace_64.asm, per-ops trampolines). */
#ifndef ARCH_X86_FTRACE_H
#define ARCH_X86_FTRACE_H

#include "lib/types.h"
#include "arch/x86/text_patch.h"
#include "arch/x86/text_insn.h"

/* Instructions at a call site (arch/x86/ftrace.c): the 5-byte NOP of arch/x86/text_insn.h. */
#define ftrace_nop5 (x86_nops[MCOUNT_INSN_SIZE])
void ftrace_call_replace(u8 insn[MCOUNT_INSN_SIZE], unsigned long ip, unsigned long addr);
/* Where the call at ip goes, or 0 if the bytes there are not a call. */
unsigned long ftrace_call_target(unsigned long ip);

/*
 * The batch every ftrace code change goes into. The ftrace core opens and commits it around each
 * step of an update, and gives it the mismatch callback that reports an ftrace_bug.
 */
extern struct text_patch_batch ftrace_patch_batch;
/* Replaces the 5 bytes at ip if they are old (queued inside a batch); 0 or -EINVAL. */
int ftrace_modify_code(unsigned long ip, const u8 *old, const u8 *new);

/* The callers in arch/x86/ftrace_64.asm, with the places a trampoline copy patches. */
extern char __fentry__[], ftrace_caller[], ftrace_caller_op_ptr[], ftrace_call[],
	ftrace_caller_end[], ftrace_regs_caller[], ftrace_regs_caller_op_ptr[], ftrace_regs_call[],
	ftrace_regs_caller_end[];
/* ...and in arch/x86/ftrace_fast.asm, the two with a tracer's common case written in front (the
 * function tracer's first instruction, the fast path's own load of the ops, is a second place a
 * copy patches). */
extern char ftrace_function_tramp[], ftrace_function_tramp_op_ptr[], ftrace_function_tramp_call[],
	ftrace_function_tramp_end[], ftrace_graph_tramp[], ftrace_graph_tramp_op_ptr[],
	ftrace_graph_tramp_call[], ftrace_graph_tramp_end[];

/*
 * Which template a per-ops trampoline copies. The first two are what an ops's flags ask for (a
 * bool regs converts to them); the others do one tracer's everyday case inline and otherwise
 * run exactly as the one they name, so only that tracer's ops may have them
 * (ftrace_ops.tramp_kind).
 */
enum ftrace_tramp_kind {
	FTRACE_TRAMP_CALLER = 0,      /* ftrace_caller */
	FTRACE_TRAMP_REGS_CALLER = 1, /* ftrace_regs_caller: a full pt_regs */
	FTRACE_TRAMP_FUNCTION,	      /* the function tracer's event, else ftrace_caller */
	FTRACE_TRAMP_GRAPH,	      /* function_graph's entry, else ftrace_regs_caller */
};

/*
 * Per-ops trampolines (arch/x86/ftrace_trampoline.c): a copy of the template `kind` names that
 * loads op (an opaque pointer: the ftrace_ops) and calls func. 0 with the trampoline's address and
 * size, or -errno.
 */
int arch_ftrace_create_trampoline(int kind, const void *op, unsigned long func,
				  unsigned long *tramp, unsigned long *size);
/* Call only once no CPU can be inside the trampoline (synchronize_rcu_tasks()). */
void arch_ftrace_trampoline_free(unsigned long tramp);
/* The callback a trampoline's call goes to now. */
unsigned long arch_ftrace_trampoline_func(unsigned long tramp, int kind);
/* 0 if the trampoline still holds exactly what create wrote for (kind, op, func), else -EINVAL. */
int arch_ftrace_verify_trampoline(unsigned long tramp, unsigned long size, int kind, const void *op,
				  unsigned long func);
/* "ftrace_trampoline" if addr is inside a live one (kallsyms asks), else NULL. */
const char *ftrace_trampoline_lookup(unsigned long addr, unsigned long *size, unsigned long *off);

#endif
