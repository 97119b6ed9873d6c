/* The eBPF JIT for x86-64: each BPF instruction becomes a few x86 instructions in an execmem page,
 * written only through text_poke's alias, never mapped writable (Linux's
 * arch/x86/net/bpf_jit_comp.c: do_jit(), bpf_int_jit_compile()). */
#include "arch/x86/net/bpf_jit.h"
#include "arch/x86/text_poke.h"
#include "lib/string.h"

/*
 * BPF registers live in x86 registers for the whole program; the ABI lines up, so a helper call
 * is one `call`: R1-R5 are already in rdi, rsi, rdx, rcx, r8 and R0 comes back in rax.
 *
 *   R0 rax   R1 rdi   R2 rsi   R3 rdx   R4 rcx   R5 r8
 *   R6 rbx   R7 r13   R8 r14   R9 r15   R10 rbp (the BPF stack grows down from it)
 *   r9, r10, r11: the JIT's own scratch, never a BPF register
 *
 * Frame: push rbp; mov rbp, rsp; sub rsp, stack (rounded to 16); push those of rbx, r13, r14,
 * r15 the function writes (callee_regs_used()).
 * Each function of the program (bpf-to-bpf calls) has its own frame and prologue, so a `call`
 * to it keeps R1-R5 as arguments and gives back R6-R9 and R10 as its caller had them.
 */
void emit_code(struct jit_ctx *c, const u8 *b, int n)
{
	for (int i = 0; i < n; i++, c->len++)
		if (c->buf && c->len < JIT_MAX_SIZE)
			c->buf[c->len] = b[i];
}

void emit_u32(struct jit_ctx *c, u32 v)
{
	EMIT(v, v >> 8, v >> 16, v >> 24);
}

/* REX prefix: W for 64-bit, R extends ModRM.reg, B extends ModRM.rm; force for byte regs. */
void emit_rex(struct jit_ctx *c, bool w, u8 reg, u8 rm, bool force)
{
	u8 rex = 0x40 | (w << 3) | ((reg >> 3) << 2) | (rm >> 3);

	if (rex != 0x40 || force)
		EMIT(rex);
}

/* op reg, rm (register direct). */
static void emit_rr(struct jit_ctx *c, bool w, u8 op, u8 reg, u8 rm)
{
	emit_rex(c, w, reg, rm, false);
	EMIT(op, 0xc0 | ((reg & 7) << 3) | (rm & 7));
}

/* [opcode bytes] with ModRM for [base + disp32]; reg is the /r or /digit field. */
void emit_mem(struct jit_ctx *c, u8 reg, u8 base, s32 disp)
{
	EMIT(0x80 | ((reg & 7) << 3) | (base & 7));
	if ((base & 7) == RSP)
		EMIT(0x24); /* SIB: no index */
	emit_u32(c, disp);
}

static void emit_mov_imm64(struct jit_ctx *c, u8 dst, u64 imm)
{
	emit_rex(c, true, 0, dst, false);
	EMIT(0xb8 | (dst & 7));
	emit_u32(c, imm);
	emit_u32(c, imm >> 32);
}

/* mov dst, imm32 sign-extended (64) or zero-extended (32). */
static void emit_mov_imm(struct jit_ctx *c, bool w, u8 dst, s32 imm)
{
	if (w) {
		emit_rex(c, true, 0, dst, false);
		EMIT(0xc7, 0xc0 | (dst & 7));
	} else {
		emit_rex(c, false, 0, dst, false);
		EMIT(0xb8 | (dst & 7));
	}
	emit_u32(c, imm);
}

void emit_mov_reg(struct jit_ctx *c, bool w, u8 dst, u8 src)
{
	emit_rr(c, w, 0x89, src, dst);
}

/* The /digit of 0x81 (op r/m, imm32) and the opcode of op r/m, reg, per BPF ALU op. */
static int alu_digit(u8 op)
{
	switch (op) {
	case BPF_ADD:
		return 0;
	case BPF_OR:
		return 1;
	case BPF_AND:
		return 4;
	case BPF_SUB:
		return 5;
	case BPF_XOR:
		return 6;
	default:
		return -1;
	}
}

static u8 alu_opcode(u8 op)
{
	static const u8 ops[] = { [0] = 0x01, [1] = 0x09, [4] = 0x21, [5] = 0x29, [6] = 0x31 };
	return ops[alu_digit(op)];
}

/* dst = dst / src or dst % src, unsigned, with Linux's answer for a zero src (0, or dst). */
static void emit_div(struct jit_ctx *c, bool w, bool mod, u8 dst, u8 src, bool imm, s32 k)
{
	u32 jz_at, jmp_at;

	if (imm)
		emit_mov_imm(c, w, R11, k);
	else
		emit_mov_reg(c, w, R11, src);
	emit_rr(c, w, 0x85, R11, R11); /* test r11, r11 */
	EMIT(0x75, 0);		       /* jnz divide */
	jz_at = c->len;
	if (!mod)
		emit_rr(c, false, 0x31, dst, dst); /* xor dst32, dst32 */
	else if (!w)
		emit_mov_reg(c, false, dst, dst); /* the 32-bit result is zero-extended */
	EMIT(0xeb, 0);				  /* jmp done */
	jmp_at = c->len;
	if (c->buf && jz_at <= JIT_MAX_SIZE)
		c->buf[jz_at - 1] = c->len - jz_at;
	EMIT(0x50, 0x52); /* push rax; push rdx */
	emit_mov_reg(c, w, RAX, dst);
	emit_rr(c, false, 0x31, RDX, RDX);
	emit_rex(c, w, 0, R11, false);
	EMIT(0xf7, 0xf0 | (R11 & 7)); /* div r11 */
	emit_mov_reg(c, w, R11, mod ? RDX : RAX);
	EMIT(0x5a, 0x58); /* pop rdx; pop rax */
	emit_mov_reg(c, w, dst, R11);
	if (c->buf && jmp_at <= JIT_MAX_SIZE)
		c->buf[jmp_at - 1] = c->len - jmp_at;
}

/* Shifts by a register go through cl; r11 holds dst meanwhile, so any of them may be rcx. */
static void emit_shift(struct jit_ctx *c, bool w, u8 op, u8 dst, u8 src, bool imm, s32 k)
{
	u8 digit = op == BPF_LSH ? 4 : op == BPF_RSH ? 5 : 7;

	if (imm) {
		emit_rex(c, w, 0, dst, false);
		EMIT(0xc1, 0xc0 | (digit << 3) | (dst & 7), k);
		return;
	}
	emit_mov_reg(c, true, R11, dst);
	EMIT(0x51); /* push rcx */
	emit_mov_reg(c, true, RCX, src);
	emit_rex(c, w, 0, R11, false);
	EMIT(0xd3, 0xc0 | (digit << 3) | (R11 & 7));
	EMIT(0x59); /* pop rcx */
	emit_mov_reg(c, w, dst, R11);
}

static void emit_alu(struct jit_ctx *c, const struct bpf_insn *insn)
{
	bool w = BPF_CLASS(insn->code) == BPF_ALU64, imm = BPF_SRC(insn->code) == BPF_K;
	u8 op = BPF_OP(insn->code), dst = reg2x86[insn->dst_reg], src = reg2x86[insn->src_reg];

	switch (op) {
	case BPF_MOV:
		if (imm)
			emit_mov_imm(c, w, dst, insn->imm);
		else
			emit_mov_reg(c, w, dst, src);
		return;
	case BPF_ADD:
	case BPF_SUB:
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
		if (imm) {
			emit_rex(c, w, 0, dst, false);
			EMIT(0x81, 0xc0 | (alu_digit(op) << 3) | (dst & 7));
			emit_u32(c, insn->imm);
		} else {
			emit_rr(c, w, alu_opcode(op), src, dst);
		}
		return;
	case BPF_MUL:
		/* imul keeps the low half, which is what an unsigned multiply leaves there too */
		emit_rex(c, w, dst, imm ? dst : src, false);
		if (imm) {
			EMIT(0x69, 0xc0 | ((dst & 7) << 3) | (dst & 7));
			emit_u32(c, insn->imm);
		} else {
			EMIT(0x0f, 0xaf, 0xc0 | ((dst & 7) << 3) | (src & 7));
		}
		return;
	case BPF_DIV:
	case BPF_MOD:
		emit_div(c, w, op == BPF_MOD, dst, src, imm, insn->imm);
		return;
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		emit_shift(c, w, op, dst, src, imm, insn->imm);
		return;
	case BPF_NEG:
		emit_rex(c, w, 0, dst, false);
		EMIT(0xf7, 0xd8 | (dst & 7));
		return;
	default: /* BPF_END */
		if (BPF_SRC(insn->code) == BPF_TO_BE && insn->imm == 16) {
			EMIT(0x66); /* ror dst16, 8 */
			emit_rex(c, false, 0, dst, false);
			EMIT(0xc1, 0xc8 | (dst & 7), 8);
		} else if (BPF_SRC(insn->code) == BPF_TO_BE) {
			emit_rex(c, insn->imm == 64, 0, dst, false);
			EMIT(0x0f, 0xc8 | (dst & 7)); /* bswap */
			return;
		}
		if (insn->imm == 16) { /* movzx dst32, dst16 */
			emit_rex(c, false, dst, dst, false);
			EMIT(0x0f, 0xb7, 0xc0 | ((dst & 7) << 3) | (dst & 7));
		} else if (insn->imm == 32) {
			emit_mov_reg(c, false, dst, dst);
		}
		return;
	}
}

static void emit_ldx(struct jit_ctx *c, u8 size, u8 dst, u8 src, s16 off)
{
	switch (size) {
	case BPF_B:
		emit_rex(c, false, dst, src, false);
		EMIT(0x0f, 0xb6);
		break;
	case BPF_H:
		emit_rex(c, false, dst, src, false);
		EMIT(0x0f, 0xb7);
		break;
	case BPF_W:
		emit_rex(c, false, dst, src, false);
		EMIT(0x8b);
		break;
	default:
		emit_rex(c, true, dst, src, false);
		EMIT(0x8b);
		break;
	}
	emit_mem(c, dst, src, off);
}

static void emit_stx(struct jit_ctx *c, u8 size, u8 dst, u8 src, s16 off)
{
	switch (size) {
	case BPF_B:
		emit_rex(c, false, src, dst, true);
		EMIT(0x88);
		break;
	case BPF_H:
		EMIT(0x66);
		emit_rex(c, false, src, dst, false);
		EMIT(0x89);
		break;
	case BPF_W:
		emit_rex(c, false, src, dst, false);
		EMIT(0x89);
		break;
	default:
		emit_rex(c, true, src, dst, false);
		EMIT(0x89);
		break;
	}
	emit_mem(c, src, dst, off);
}

static void emit_st_imm(struct jit_ctx *c, u8 size, u8 dst, s16 off, s32 imm)
{
	switch (size) {
	case BPF_B:
		emit_rex(c, false, 0, dst, false);
		EMIT(0xc6);
		break;
	case BPF_H:
		EMIT(0x66);
		emit_rex(c, false, 0, dst, false);
		EMIT(0xc7);
		break;
	case BPF_W:
		emit_rex(c, false, 0, dst, false);
		EMIT(0xc7);
		break;
	default:
		emit_rex(c, true, 0, dst, false);
		EMIT(0xc7);
		break;
	}
	emit_mem(c, 0, dst, off);
	if (size == BPF_B)
		EMIT(imm);
	else if (size == BPF_H)
		EMIT(imm, imm >> 8);
	else
		emit_u32(c, imm);
}

/* lock add/and/or/xor, xadd, xchg, cmpxchg; the fetch forms of and/or/xor loop on cmpxchg with
 * the address in r10 and src's value in r9, so that dst or src may be rax. */
static void emit_atomic(struct jit_ctx *c, const struct bpf_insn *insn)
{
	bool w = BPF_SIZE(insn->code) == BPF_DW;
	u8 dst = reg2x86[insn->dst_reg], src = reg2x86[insn->src_reg];
	int op = insn->imm & ~BPF_FETCH;

	if (insn->imm == BPF_XCHG || insn->imm == BPF_CMPXCHG ||
	    (op == BPF_ADD && (insn->imm & BPF_FETCH)) || !(insn->imm & BPF_FETCH)) {
		EMIT(0xf0); /* lock */
		emit_rex(c, w, src, dst, false);
		if (insn->imm == BPF_XCHG)
			EMIT(0x87);
		else if (insn->imm == BPF_CMPXCHG)
			EMIT(0x0f, 0xb1);
		else if (insn->imm & BPF_FETCH)
			EMIT(0x0f, 0xc1); /* xadd */
		else
			EMIT(alu_opcode(op));
		emit_mem(c, src, dst, insn->off);
		if (insn->imm == BPF_CMPXCHG && !w) /* a match leaves rax's top half: clear it */
			emit_mov_reg(c, false, RAX, RAX);
		return;
	}
	emit_rex(c, true, R10, dst, false); /* lea r10, [dst + off] */
	EMIT(0x8d);
	emit_mem(c, R10, dst, insn->off);
	emit_mov_reg(c, true, R9, src);
	EMIT(0x50); /* push rax */
	emit_rex(c, w, RAX, R10, false);
	EMIT(0x8b);
	emit_mem(c, RAX, R10, 0); /* mov rax, [r10] */
	{
		u32 loop = c->len;
		emit_mov_reg(c, w, R11, RAX);
		emit_rr(c, w, alu_opcode(op), R9, R11);
		EMIT(0xf0);
		emit_rex(c, w, R11, R10, false);
		EMIT(0x0f, 0xb1);
		emit_mem(c, R11, R10, 0); /* lock cmpxchg [r10], r11 */
		EMIT(0x75, (u8)(loop - (c->len + 2)));
	}
	emit_mov_reg(c, w, R11, RAX);
	EMIT(0x58); /* pop rax */
	emit_mov_reg(c, w, src, R11);
}

static u8 jmp_cc(u8 op)
{
	switch (op) {
	case BPF_JEQ:
		return 0x84;
	case BPF_JNE:
		return 0x85;
	case BPF_JGT:
		return 0x87;
	case BPF_JGE:
		return 0x83;
	case BPF_JLT:
		return 0x82;
	case BPF_JLE:
		return 0x86;
	case BPF_JSGT:
		return 0x8f;
	case BPF_JSGE:
		return 0x8d;
	case BPF_JSLT:
		return 0x8c;
	case BPF_JSLE:
		return 0x8e;
	default:
		return 0x85; /* BPF_JSET: jnz after test */
	}
}

static void emit_cond_jmp(struct jit_ctx *c, const struct bpf_insn *insn, u32 target)
{
	bool w = BPF_CLASS(insn->code) == BPF_JMP, imm = BPF_SRC(insn->code) == BPF_K;
	u8 op = BPF_OP(insn->code), dst = reg2x86[insn->dst_reg], src = reg2x86[insn->src_reg];

	if (op == BPF_JSET) {
		if (imm) {
			emit_rex(c, w, 0, dst, false);
			EMIT(0xf7, 0xc0 | (dst & 7));
			emit_u32(c, insn->imm);
		} else {
			emit_rr(c, w, 0x85, src, dst);
		}
	} else if (imm) {
		emit_rex(c, w, 0, dst, false);
		EMIT(0x81, 0xf8 | (dst & 7)); /* cmp dst, imm32 */
		emit_u32(c, insn->imm);
	} else {
		emit_rr(c, w, 0x39, src, dst); /* cmp dst, src */
	}
	EMIT(0x0f, jmp_cc(op));
	emit_u32(c, target - (c->len + 4));
}

/* One pass over the program; addrs and entry from the pass before give the jump targets. */
static void do_jit(struct bpf_prog *prog, struct jit_ctx *c)
{
	u32 next_fn = 1;

	c->len = 0;
	c->entry[0] = 0;
	emit_fn_prologue(
		c, c->stack,
		callee_regs_used(prog, 0,
				 prog->subprog_cnt > 1 ? prog->subprogs[1].start : prog->len),
		true);
	for (u32 i = 0; i < prog->len; i++) {
		const struct bpf_insn *insn = &prog->insnsi[i];
		u8 cls = BPF_CLASS(insn->code), op = BPF_OP(insn->code);
		u8 dst = reg2x86[insn->dst_reg & 0xf], src = reg2x86[insn->src_reg & 0xf];

		if (next_fn < prog->subprog_cnt && prog->subprogs[next_fn].start == i) {
			c->entry[next_fn] = c->len;
			u32 end = next_fn + 1 < prog->subprog_cnt
					  ? prog->subprogs[next_fn + 1].start
					  : prog->len;
			emit_fn_prologue(c, ALIGN(prog->subprogs[next_fn].stack_depth, 16),
					 callee_regs_used(prog, i, end), false);
			next_fn++;
		}
		c->addrs[i] = c->len;
		switch (cls) {
		case BPF_ALU:
		case BPF_ALU64:
			emit_alu(c, insn);
			break;
		case BPF_LD: /* ld_imm64: the second slot emits nothing */
			emit_mov_imm64(c, dst, (u32)insn[0].imm | ((u64)(u32)insn[1].imm << 32));
			c->addrs[++i] = c->len;
			break;
		case BPF_LDX:
			emit_ldx(c, BPF_SIZE(insn->code), dst, src, insn->off);
			break;
		case BPF_ST:
			emit_st_imm(c, BPF_SIZE(insn->code), dst, insn->off, insn->imm);
			break;
		case BPF_STX:
			if (BPF_MODE(insn->code) == BPF_ATOMIC)
				emit_atomic(c, insn);
			else
				emit_stx(c, BPF_SIZE(insn->code), dst, src, insn->off);
			break;
		default:
			if (op == BPF_EXIT) {
				emit_epilogue(c);
			} else if (insn->code == (BPF_JMP | BPF_TAIL_CALL)) {
				emit_tail_call(c, c->addrs[i + 1]);
			} else if (op == BPF_CALL && insn->src_reg == BPF_PSEUDO_CALL) {
				emit_bpf_call(c, c->entry[subprog_at(prog, i + 1 + insn->imm)]);
			} else if (op == BPF_CALL) {
				unsigned long fn = (unsigned long)__bpf_call_base + (long)insn->imm;
				EMIT(0xe8);
				emit_u32(c, fn - (c->base + c->len + 4));
			} else if (op == BPF_JA) {
				EMIT(0xe9);
				emit_u32(c, c->addrs[i + 1 + insn->off] - (c->len + 4));
			} else {
				emit_cond_jmp(c, insn, c->addrs[i + 1 + insn->off]);
			}
			break;
		}
	}
	c->addrs[prog->len] = c->len;
}

void bpf_int_jit_compile(struct bpf_prog *prog)
{
	struct jit_ctx c = { .stack = ALIGN(prog->stack_depth, 16) };
	void *image = NULL;

	for (u32 i = 0; i < prog->len; i++)
		c.tail_calls |= prog->insnsi[i].code == (BPF_JMP | BPF_TAIL_CALL);

	c.addrs = kzalloc((prog->len + 1) * sizeof(u32));
	c.entry = kzalloc(MAX(prog->subprog_cnt, 1U) * sizeof(u32));
	if (!c.addrs || !c.entry)
		goto out;
	/* every encoding has a fixed size (rel32, disp32), so the second pass's offsets are final */
	do_jit(prog, &c);
	do_jit(prog, &c);
	if (c.len > JIT_MAX_SIZE)
		goto out;
	image = execmem_alloc(c.len);
	c.buf = kmalloc(JIT_MAX_SIZE);
	if (!image || !c.buf)
		goto out;
	c.base = (unsigned long)image;
	do_jit(prog, &c);
	text_poke_copy(image, c.buf, c.len);
	prog->jit_image = image;
	prog->jited_len = c.len;
	prog->jited = true;
	prog->bpf_func = image;
	prog->tail_call_entry = (u8 *)image + (c.tail_calls ? 2 : 0);
	image = NULL;
out:
	if (image)
		execmem_free(image);
	kfree(c.buf);
	kfree(c.addrs);
	kfree(c.entry);
}

/* Called when the last reference went: every link or event that ran it has waited until no CPU
 * can still be inside it, so the page may go (execmem fills it with int3). */
void bpf_jit_free(struct bpf_prog *prog)
{
	execmem_free(prog->jit_image);
	prog->jit_image = NULL;
}
