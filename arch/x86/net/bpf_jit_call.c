/* The x86-64 JIT's frames: prologues and epilogues, the callee-saved registers a function
 * keeps, bpf-to-bpf calls and tail calls (Linux's arch/x86/net/bpf_jit_comp.c: emit_prologue(),
 * emit_bpf_tail_call_indirect()). */
#include "arch/x86/net/bpf_jit.h"

/*
 * R6-R9 (bit n - 6) that insns [start, end) name: only those are saved, as Linux's JIT saves only
 * the callee-saved registers a program uses. A register is written before it is read (the
 * verifier saw to it), so one never named needs no saving. An even number is pushed, so that
 * rsp stays 16-byte aligned at every helper call.
 */
u8 callee_regs_used(const struct bpf_prog *prog, u32 start, u32 end)
{
	u8 used = 0;

	for (u32 i = start; i < end; i++) {
		u8 d = prog->insnsi[i].dst_reg, s = prog->insnsi[i].src_reg;
		if (d >= BPF_REG_6 && d <= BPF_REG_6 + 3)
			used |= 1 << (d - BPF_REG_6);
		if (s >= BPF_REG_6 && s <= BPF_REG_6 + 3 &&
		    BPF_CLASS(prog->insnsi[i].code) != BPF_LD)
			used |= 1 << (s - BPF_REG_6);
	}
	for (u8 r = 0; __builtin_popcount(used) % 2; r++)
		used |= 1 << r;
	return used;
}

/* push (0x50) or pop (0x58) the x86 register of BPF register r */
static void emit_push_pop(struct jit_ctx *c, u8 op, int r)
{
	emit_rex(c, false, 0, reg2x86[r], false);
	EMIT(op | (reg2x86[r] & 7));
}

void emit_prologue(struct jit_ctx *c, u32 stack, u8 saved)
{
	EMIT(0x55, 0x48, 0x89, 0xe5); /* push rbp; mov rbp, rsp */
	EMIT(0x48, 0x81, 0xec);	      /* sub rsp, stack */
	emit_u32(c, stack);
	c->saved = saved;
	for (int r = 0; r < 4; r++) /* push rbx, r13, r14, r15 */
		if (saved & (1 << r))
			emit_push_pop(c, 0x50, BPF_REG_6 + r);
}

void emit_epilogue(struct jit_ctx *c)
{
	for (int r = 3; r >= 0; r--) /* pop r15, r14, r13, rbx */
		if (c->saved & (1 << r))
			emit_push_pop(c, 0x58, BPF_REG_6 + r);
	EMIT(0xc9, 0xc3); /* leave; ret */
}

/*
 * A function's prologue. In a program that makes tail calls, every function keeps the run's count
 * of them at [rbp - tcc_off], below its BPF stack: the main function starts `xor eax, eax` and is
 * entered at +2 by a tail call, with rax the count so far (0 from a real call); a callee gets the
 * count in rax from its caller (emit_bpf_call()), so a tail call inside it goes on counting from
 * there, as Linux's JIT carries tail_call_cnt through bpf-to-bpf calls since 5.10.
 */
void emit_fn_prologue(struct jit_ctx *c, u32 stack, u8 saved, bool main)
{
	if (!c->tail_calls) {
		emit_prologue(c, stack, saved);
		return;
	}
	if (main)
		EMIT(0x31, 0xc0); /* xor eax, eax */
	emit_prologue(c, stack + 16, 0);
	c->tcc_off = stack + 8;
	EMIT(0x48, 0x89); /* mov [rbp - tcc_off], rax */
	emit_mem(c, RAX, RBP, -(s32)c->tcc_off);
	c->saved = saved;
	for (int r = 0; r < 4; r++)
		if (saved & (1 << r))
			emit_push_pop(c, 0x50, BPF_REG_6 + r);
}

/* A bpf-to-bpf call to the function whose prologue is at x86 offset target; R0 (rax) is the
 * callee's to set, so it may carry the count of tail calls in. */
void emit_bpf_call(struct jit_ctx *c, u32 target)
{
	if (c->tail_calls) {
		EMIT(0x48, 0x8b); /* mov rax, [rbp - tcc_off] */
		emit_mem(c, RAX, RBP, -(s32)c->tcc_off);
	}
	EMIT(0xe8);
	emit_u32(c, target - (c->len + 4));
}

/*
 * BPF_JMP | BPF_TAIL_CALL, R1 ctx, R2 (rsi) the prog array, R3 (rdx) the index: on an index past
 * the end, a run that used up MAX_TAIL_CALL_CNT, or an empty slot, on to the next instruction
 * (out); otherwise this function's frame is undone as the epilogue would, so that the stack is as
 * it was entered, and the jump lands in the target's prologue with rax the count. In a callee,
 * the target then returns to the callee's caller, under the callers' frames. R0 and
 * R3-R5 are scratch here: the verifier takes a call to leave them unreadable.
 */
void emit_tail_call(struct jit_ctx *c, u32 out)
{
	emit_mov_reg(c, false, RDX, RDX); /* the index is a u32 */
	EMIT(0x3b);			  /* cmp edx, [rsi + max_entries] */
	emit_mem(c, RDX, RSI, offsetof(struct bpf_prog_array_map, map.max_entries));
	EMIT(0x0f, 0x83); /* jae out */
	emit_u32(c, out - (c->len + 4));
	EMIT(0x8b); /* mov eax, [rbp - tcc_off] */
	emit_mem(c, RAX, RBP, -(s32)c->tcc_off);
	EMIT(0x83, 0xf8, MAX_TAIL_CALL_CNT); /* cmp eax, MAX_TAIL_CALL_CNT */
	EMIT(0x0f, 0x83);		     /* jae out */
	emit_u32(c, out - (c->len + 4));
	EMIT(0x83, 0xc0, 0x01); /* add eax, 1 */
	EMIT(0x89);		/* mov [rbp - tcc_off], eax */
	emit_mem(c, RAX, RBP, -(s32)c->tcc_off);
	EMIT(0x48, 0x8b, 0x8c, 0xd6); /* mov rcx, [rsi + rdx * 8 + ptrs] */
	emit_u32(c, offsetof(struct bpf_prog_array_map, ptrs));
	EMIT(0x48, 0x85, 0xc9); /* test rcx, rcx */
	EMIT(0x0f, 0x84);	/* jz out */
	emit_u32(c, out - (c->len + 4));
	for (int r = 3; r >= 0; r--)
		if (c->saved & (1 << r))
			emit_push_pop(c, 0x58, BPF_REG_6 + r);
	EMIT(0xc9, 0xff); /* leave; jmp [rcx + tail_call_entry] */
	emit_mem(c, 4, RCX, offsetof(struct bpf_prog, tail_call_entry));
}

/* The function starting at insn start (the verifier made every call target one). */
u32 subprog_at(const struct bpf_prog *prog, u32 start)
{
	for (u32 k = 1; k < prog->subprog_cnt; k++)
		if (prog->subprogs[k].start == start)
			return k;
	return 0;
}
