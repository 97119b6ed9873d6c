/* Per-ops trampolines: a private copy of ftrace_caller (or ftrace_regs_caller, or a tracer's own
 * template, arch/x86/ftrace_fast.asm) for one ftrace_ops, so a site only that ops wants calls
 * straight into the ops's callback, with no list to walk. This file never looks inside the ops:
 * the ftrace core passes the pointer to embed, the callback to call, and the template's kind.
 *
 *   ops->trampoline: one execmem page, RX, written only through text_poke_copy
 *   +0          copy of the template (ftrace_caller .. ftrace_caller_end)
 *   +fast_off     mov r10, [rip + disp]    a tracer's fast path (ftrace_fast.asm) only: the same
 *   +op_off       mov rdx, [rip + disp]    disp fixed: reads the slot below, not function_trace_op
 *   +call_off     call <ops callback>      was `call <whatever the template calls now>`
 *   ...           ret
 *   +ptr_off    .quad ops                 8-aligned, right after the code
 *   ... 4096    int3                      (the whole page was int3 before the copy)
 *
 * Nothing else in the templates depends on where the code sits, which is why a copy works.
 */
#include "arch/x86/ftrace.h"
#include "arch/x86/text_poke.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "lib/errno.h"
#include "lib/string.h"

#define OP_LOAD_LEN 7 /* mov rdx, [rip + disp32]: 48 8b 15 + disp32 */
static const u8 op_load_opcode[3] = { 0x48, 0x8b, 0x15 };
static const u8 fast_load_opcode[3] = { 0x4c, 0x8b, 0x15 }; /* mov r10, [rip + disp32] */

struct tramp_template {
	const char *start, *op_ptr, *call, *end;
	const char *fast_op; /* the fast path's load of the ops (its first instruction), or NULL */
};

static struct tramp_template template_for(int kind)
{
	switch (kind) {
	case FTRACE_TRAMP_REGS_CALLER:
		return (struct tramp_template){ ftrace_regs_caller, ftrace_regs_caller_op_ptr,
						ftrace_regs_call, ftrace_regs_caller_end, NULL };
	case FTRACE_TRAMP_FUNCTION:
		return (struct tramp_template){ ftrace_function_tramp, ftrace_function_tramp_op_ptr,
						ftrace_function_tramp_call,
						ftrace_function_tramp_end, ftrace_function_tramp };
	case FTRACE_TRAMP_GRAPH:
		return (struct tramp_template){ ftrace_graph_tramp, ftrace_graph_tramp_op_ptr,
						ftrace_graph_tramp_call, ftrace_graph_tramp_end,
						NULL };
	}
	return (struct tramp_template){ ftrace_caller, ftrace_caller_op_ptr, ftrace_call,
					ftrace_caller_end, NULL };
}

/* The trampolines alive now, for kallsyms (names in backtraces and `dis`). */
#define MAX_NAMED_TRAMPS 64
static struct {
	unsigned long start, size;
} named[MAX_NAMED_TRAMPS];

static void name_tramp(unsigned long start, unsigned long size)
{
	for (int i = 0; i < MAX_NAMED_TRAMPS; i++)
		if (!named[i].start) {
			named[i].size = size;
			WRITE_ONCE(named[i].start, start);
			return;
		}
}

const char *ftrace_trampoline_lookup(unsigned long addr, unsigned long *size, unsigned long *off)
{
	if (!is_execmem(addr))
		return NULL;
	for (int i = 0; i < MAX_NAMED_TRAMPS; i++) {
		unsigned long start = READ_ONCE(named[i].start);
		if (start && addr >= start && addr < start + named[i].size) {
			if (size)
				*size = named[i].size;
			if (off)
				*off = addr - start;
			return "ftrace_trampoline";
		}
	}
	return NULL;
}

/* The bytes a trampoline for (kind, op, func) at tramp must hold; returns its size (code + op). */
static unsigned long build_trampoline(int kind, const void *op, unsigned long func,
				      unsigned long tramp, u8 *buf)
{
	struct tramp_template t = template_for(kind);
	unsigned long code = t.end - t.start, op_off = t.op_ptr - t.start;
	unsigned long call_off = t.call - t.start, ptr_off = ALIGN(code, 8);
	s32 disp = (s32)(ptr_off - (op_off + OP_LOAD_LEN));

	memcpy(buf, t.start, code);
	memset(buf + code, INT3_INSN_OPCODE, ptr_off - code);
	memcpy(buf + op_off + 3, &disp, 4);
	if (t.fast_op) {
		unsigned long fast_off = t.fast_op - t.start;
		s32 fast_disp = (s32)(ptr_off - (fast_off + OP_LOAD_LEN));
		memcpy(buf + fast_off + 3, &fast_disp, 4);
	}
	ftrace_call_replace(buf + call_off, tramp + call_off, func);
	memcpy(buf + ptr_off, &op, 8);
	return ptr_off + 8;
}

int arch_ftrace_create_trampoline(int kind, const void *op, unsigned long func,
				  unsigned long *tramp_out, unsigned long *size_out)
{
	struct tramp_template t = template_for(kind);
	u8 *buf;
	void *tramp;
	unsigned long size;

	/* The template must look as this file assumes; a changed ftrace_64.asm fails loudly here. */
	if (memcmp(t.op_ptr, op_load_opcode, 3) || ((const u8 *)t.call)[0] != 0xe8 ||
	    (t.fast_op && memcmp(t.fast_op, fast_load_opcode, 3))) {
		pr_err("ftrace: trampoline template is not what create_trampoline expects\n");
		return -EINVAL;
	}
	buf = kmalloc(PAGE_SIZE);
	if (!buf)
		return -ENOMEM;
	tramp = execmem_alloc(PAGE_SIZE);
	if (!tramp) {
		kfree(buf);
		return -ENOMEM;
	}
	size = build_trampoline(kind, op, func, (unsigned long)tramp, buf);
	text_poke_copy(tramp, buf, size);
	kfree(buf);
	*tramp_out = (unsigned long)tramp;
	*size_out = size;
	name_tramp((unsigned long)tramp, size);
	return 0;
}

/* Call only once no CPU can be inside the trampoline (synchronize_rcu_tasks()). */
void arch_ftrace_trampoline_free(unsigned long tramp)
{
	for (int i = 0; i < MAX_NAMED_TRAMPS; i++)
		if (named[i].start == tramp)
			WRITE_ONCE(named[i].start, 0);
	execmem_free((void *)tramp);
}

/* The callback a trampoline's call goes to now (enabled_functions' "->"). */
unsigned long arch_ftrace_trampoline_func(unsigned long tramp, int kind)
{
	struct tramp_template t = template_for(kind);

	return ftrace_call_target(tramp + (t.call - t.start));
}

/* A live trampoline's bytes against what create_trampoline wrote, ignoring nothing. */
int arch_ftrace_verify_trampoline(unsigned long tramp, unsigned long size, int kind, const void *op,
				  unsigned long func)
{
	u8 *want = kmalloc(PAGE_SIZE);
	int err = 0;

	if (!want)
		return -ENOMEM;
	if (build_trampoline(kind, op, func, tramp, want) != size ||
	    memcmp(want, (void *)tramp, size))
		err = -EINVAL;
	kfree(want);
	return err;
}
