/* What the x86-64 JIT's files share: the register map, the context of a pass, the emitters. */
#ifndef ARCH_X86_NET_BPF_JIT_H
#define ARCH_X86_NET_BPF_JIT_H

#include "kernel/bpf/core.h"
#include "kernel/mm/mm.h"

enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };
static const u8 reg2x86[MAX_BPF_REG] = { RAX, RDI, RSI, RDX, RCX, R8, RBX, R13, R14, R15, RBP };

#define JIT_MAX_SIZE PAGE_SIZE /* one execmem page; a larger program stays interpreted */

struct jit_ctx {
	u8 *buf;	    /* NULL while sizing */
	u32 len;	    /* bytes emitted so far */
	u32 *addrs;	    /* x86 offset of each BPF insn's code, and of the end */
	unsigned long base; /* where the image will run: call targets are relative to it */
	u32 stack;
	u32 *entry;	 /* x86 offset of each function's prologue (bpf-to-bpf calls land there) */
	u8 saved;	 /* R6-R9 the function being written saves (callee_regs_used()) */
	bool tail_calls; /* the program makes some: each prologue keeps a counter at [rbp - tcc_off] */
	u32 tcc_off;	 /* ... in the function being written */
};

void emit_code(struct jit_ctx *c, const u8 *b, int n);
#define EMIT(...)                                                                                  \
	do {                                                                                       \
		const u8 __b[] = { __VA_ARGS__ };                                                  \
		emit_code(c, __b, sizeof(__b));                                                    \
	} while (0)
void emit_u32(struct jit_ctx *c, u32 v);
void emit_rex(struct jit_ctx *c, bool w, u8 reg, u8 rm, bool force);
void emit_mem(struct jit_ctx *c, u8 reg, u8 base, s32 disp);
void emit_mov_reg(struct jit_ctx *c, bool w, u8 dst, u8 src);

/* arch/x86/net/bpf_jit_call.c: frames, bpf-to-bpf calls and tail calls */
u8 callee_regs_used(const struct bpf_prog *prog, u32 start, u32 end);
void emit_prologue(struct jit_ctx *c, u32 stack, u8 saved);
void emit_epilogue(struct jit_ctx *c);
void emit_fn_prologue(struct jit_ctx *c, u32 stack, u8 saved, bool main);
void emit_bpf_call(struct jit_ctx *c, u32 target);
void emit_tail_call(struct jit_ctx *c, u32 out);
u32 subprog_at(const struct bpf_prog *prog, u32 start);

#endif
