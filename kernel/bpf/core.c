/* The eBPF interpreter, and the life of a program's memory (Linux's kernel/bpf/core.c). */
#include "kernel/bpf/bpf.h"
#include "kernel/bpf/core.h"
#include "kernel/mm/mm.h"
#include "lib/sha1.h"
#include "lib/string.h"

/*
 * Helper calls: after verification a call's imm is the helper's distance from __bpf_call_base,
 * as in Linux, so the interpreter adds it back and the JIT emits one `call rel32` to it.
 */
u64 __bpf_call_base(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
{
	return 0;
}

typedef u64 (*bpf_helper_fn)(u64, u64, u64, u64, u64);

static inline bpf_helper_fn helper_at(s32 imm)
{
	return (bpf_helper_fn)((unsigned long)__bpf_call_base + (long)imm);
}

static u64 alu_div(u64 a, u64 b, bool is64, bool mod)
{
	/* Linux's runtime rule for a register divisor that is zero: x / 0 = 0, x % 0 = x. */
	if (!is64) {
		a = (u32)a;
		b = (u32)b;
	}
	if (!b)
		return mod ? a : 0;
	return mod ? a % b : a / b;
}

static u64 swap_bytes(u64 v, int bits)
{
	switch (bits) {
	case 16:
		return __builtin_bswap16((u16)v);
	case 32:
		return __builtin_bswap32((u32)v);
	default:
		return __builtin_bswap64(v);
	}
}

static u64 alu(u8 op, u64 dst, u64 src, bool is64)
{
	u64 r;
	int shmask = is64 ? 63 : 31;

	switch (op) {
	case BPF_ADD:
		r = dst + src;
		break;
	case BPF_SUB:
		r = dst - src;
		break;
	case BPF_MUL:
		r = is64 ? dst * src : (u64)((u32)dst * (u32)src);
		break;
	case BPF_DIV:
		r = alu_div(dst, src, is64, false);
		break;
	case BPF_MOD:
		r = alu_div(dst, src, is64, true);
		break;
	case BPF_OR:
		r = dst | src;
		break;
	case BPF_AND:
		r = dst & src;
		break;
	case BPF_XOR:
		r = dst ^ src;
		break;
	case BPF_LSH:
		r = is64 ? dst << (src & shmask) : (u32)((u32)dst << (src & shmask));
		break;
	case BPF_RSH:
		r = is64 ? dst >> (src & shmask) : (u32)dst >> (src & shmask);
		break;
	case BPF_ARSH:
		r = is64 ? (u64)((s64)dst >> (src & shmask)) : (u32)((s32)dst >> (src & shmask));
		break;
	case BPF_NEG:
		r = -dst;
		break;
	case BPF_MOV:
		r = src;
		break;
	default:
		r = 0;
		break; /* the verifier lets no other op through */
	}
	return is64 ? r : (u32)r;
}

static bool jmp_taken(u8 op, u64 a, u64 b, bool is64)
{
	s64 sa = (s64)a, sb = (s64)b;

	if (!is64) {
		a = (u32)a;
		b = (u32)b;
		sa = (s32)a;
		sb = (s32)b;
	}
	switch (op) {
	case BPF_JEQ:
		return a == b;
	case BPF_JNE:
		return a != b;
	case BPF_JGT:
		return a > b;
	case BPF_JGE:
		return a >= b;
	case BPF_JLT:
		return a < b;
	case BPF_JLE:
		return a <= b;
	case BPF_JSET:
		return a & b;
	case BPF_JSGT:
		return sa > sb;
	case BPF_JSGE:
		return sa >= sb;
	case BPF_JSLT:
		return sa < sb;
	case BPF_JSLE:
		return sa <= sb;
	default:
		return true; /* BPF_JA */
	}
}

static u64 load(const void *p, u8 size)
{
	switch (size) {
	case BPF_B:
		return *(const u8 *)p;
	case BPF_H:
		return *(const u16 *)p;
	case BPF_W:
		return *(const u32 *)p;
	default:
		return *(const u64 *)p;
	}
}

static void store(void *p, u8 size, u64 v)
{
	switch (size) {
	case BPF_B:
		*(u8 *)p = (u8)v;
		break;
	case BPF_H:
		*(u16 *)p = (u16)v;
		break;
	case BPF_W:
		*(u32 *)p = (u32)v;
		break;
	default:
		*(u64 *)p = v;
		break;
	}
}

static void atomic_op(const struct bpf_insn *in, u64 *regs)
{
	bool dw = BPF_SIZE(in->code) == BPF_DW;
	void *p = (void *)(unsigned long)(regs[in->dst_reg] + in->off);
	u64 v = regs[in->src_reg], old;

	switch (in->imm & ~BPF_FETCH) {
	case BPF_ADD:
		old = dw ? __atomic_fetch_add((u64 *)p, v, __ATOMIC_SEQ_CST)
			 : __atomic_fetch_add((u32 *)p, (u32)v, __ATOMIC_SEQ_CST);
		break;
	case BPF_OR:
		old = dw ? __atomic_fetch_or((u64 *)p, v, __ATOMIC_SEQ_CST)
			 : __atomic_fetch_or((u32 *)p, (u32)v, __ATOMIC_SEQ_CST);
		break;
	case BPF_AND:
		old = dw ? __atomic_fetch_and((u64 *)p, v, __ATOMIC_SEQ_CST)
			 : __atomic_fetch_and((u32 *)p, (u32)v, __ATOMIC_SEQ_CST);
		break;
	case BPF_XOR:
		old = dw ? __atomic_fetch_xor((u64 *)p, v, __ATOMIC_SEQ_CST)
			 : __atomic_fetch_xor((u32 *)p, (u32)v, __ATOMIC_SEQ_CST);
		break;
	case 0xe0:
		old = dw ? __atomic_exchange_n((u64 *)p, v, __ATOMIC_SEQ_CST)
			 : __atomic_exchange_n((u32 *)p, (u32)v, __ATOMIC_SEQ_CST);
		break;
	default: { /* BPF_CMPXCHG: compares with r0, the old value lands in r0 */
		u64 exp = dw ? regs[0] : (u32)regs[0];
		if (dw)
			__atomic_compare_exchange_n((u64 *)p, &exp, v, false, __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST);
		else {
			u32 e32 = (u32)exp;
			__atomic_compare_exchange_n((u32 *)p, &e32, (u32)v, false, __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST);
			exp = e32;
		}
		regs[0] = exp;
		return;
	}
	}
	if (in->imm & BPF_FETCH)
		regs[in->src_reg] = dw ? old : (u32)old;
}

/*
 * The run's state in the register file's spare slot, after R10 (no instruction can name it): the
 * count of tail calls in the low half, the windows taken (below) above it, and whether the function
 * running is a bpf-to-bpf callee. Kept there rather than in arguments, so that the interpreter's
 * loop costs what it did before programs could mix the two.
 */
#define RUN_STATE MAX_BPF_REG
#define RUN_WINDOW (1ULL << 32)
#define RUN_IN_CALLEE (1ULL << 63)
#define run_windows(st) ((u32)(((st) & ~RUN_IN_CALLEE) >> 32))

/*
 * A bpf-to-bpf call: the callee's frame sits below its caller's in the one 512-byte stack (the
 * verifier put the caller's share in off and proved all frames fit), and R6-R9 come back as the
 * caller left them, as the calling convention promises. The callee starts with the caller's count
 * of tail calls (Linux's JIT hands it down in rax). Out of line: its locals would otherwise weigh
 * on every run of the interpreter's loop.
 */
static noinline u64 call_subprog(u64 *regs, const struct bpf_insn *insn)
{
	u64 saved[6], r0;

	memcpy(saved, &regs[BPF_REG_6], sizeof(saved)); /* R6-R9, R10 and the run's state */
	regs[BPF_REG_FP] -= (u16)insn->off;
	regs[RUN_STATE] |= RUN_IN_CALLEE;
	r0 = ___bpf_prog_run(regs, insn + insn->imm + 1);
	memcpy(&regs[BPF_REG_6], saved, sizeof(saved));
	return r0;
}

/*
 * A tail call made inside a callee: the JIT unwinds the callee's frame and the target's frame
 * takes its place below the callers' (the verifier keeps those under 256 bytes, so the sum stays
 * bounded). The interpreter's one stack has only 512 bytes, so the target gets a fresh 512-byte
 * window here instead, and its r0 is the callee's return value. Each window is kernel stack: a
 * run takes at most BPF_TAIL_CALL_WINDOWS of them, and a tail call that would need one more falls
 * through, as one past MAX_TAIL_CALL_CNT does.
 */
#define BPF_TAIL_CALL_WINDOWS 4
static noinline u64 tail_call_window(u64 *regs, const struct bpf_insn *to)
{
	u64 stack[MAX_BPF_STACK / 8] __aligned(8);

	regs[BPF_REG_FP] = (u64)(unsigned long)&stack[MAX_BPF_STACK / 8];
	regs[RUN_STATE] = (regs[RUN_STATE] & ~RUN_IN_CALLEE) + RUN_WINDOW;
	return ___bpf_prog_run(regs, to);
}

/*
 * BPF_JMP | BPF_TAIL_CALL with R2 a prog array and R3 the index: the target's first instruction,
 * or NULL to go on with the next one (an index past the end, an empty slot, or the run's
 * MAX_TAIL_CALL_CNT used up). The target keeps this run's registers and stack: R1 is the context.
 */
static const struct bpf_insn *tail_call_target(u64 *regs)
{
	struct bpf_prog_array_map *a = (void *)(unsigned long)regs[BPF_REG_2];
	u32 index = (u32)regs[BPF_REG_3];
	struct bpf_prog *prog;

	if (index >= a->map.max_entries || (u32)regs[RUN_STATE] >= MAX_TAIL_CALL_CNT)
		return NULL;
	regs[RUN_STATE]++;
	prog = READ_ONCE(a->ptrs[index]);
	return prog ? prog->insnsi : NULL;
}

/*
 * Runs a verified program: the verifier has proved every access in bounds, every register read
 * initialised and every path ending in exit, so this loop checks nothing itself. The caller has
 * set regs[RUN_STATE].
 */
u64 ___bpf_prog_run(u64 *regs, const struct bpf_insn *insn)
{
	for (;; insn++) {
		u8 code = insn->code, cls = BPF_CLASS(code);
		u64 *dst = &regs[insn->dst_reg];
		u64 src = BPF_SRC(code) == BPF_X ? regs[insn->src_reg] : (u64)(s64)insn->imm;

		switch (cls) {
		case BPF_ALU64:
		case BPF_ALU:
			if (BPF_OP(code) == BPF_END) {
				if (BPF_SRC(code) == BPF_TO_BE)
					*dst = swap_bytes(*dst, insn->imm);
				else
					*dst = insn->imm == 64 ? *dst
							       : *dst & ((1ULL << insn->imm) - 1);
				break;
			}
			if (cls == BPF_ALU && BPF_SRC(code) == BPF_K)
				src = (u32)insn->imm;
			*dst = alu(BPF_OP(code), *dst, src, cls == BPF_ALU64);
			break;
		case BPF_LD: /* BPF_LD | BPF_IMM | BPF_DW: two slots */
			*dst = (u32)insn[0].imm | ((u64)(u32)insn[1].imm << 32);
			insn++;
			break;
		case BPF_LDX:
			*dst = load((void *)(unsigned long)(regs[insn->src_reg] + insn->off),
				    BPF_SIZE(code));
			break;
		case BPF_ST:
			store((void *)(unsigned long)(*dst + insn->off), BPF_SIZE(code),
			      (u64)(s64)insn->imm);
			break;
		case BPF_STX:
			if (BPF_MODE(code) == BPF_ATOMIC)
				atomic_op(insn, regs);
			else
				store((void *)(unsigned long)(*dst + insn->off), BPF_SIZE(code),
				      regs[insn->src_reg]);
			break;
		default: /* BPF_JMP, BPF_JMP32 */
			if (BPF_OP(code) == BPF_EXIT)
				return regs[0];
			if (code == (BPF_JMP | BPF_TAIL_CALL)) {
				bool callee = regs[RUN_STATE] & RUN_IN_CALLEE;
				const struct bpf_insn *to;

				if (callee && run_windows(regs[RUN_STATE]) >= BPF_TAIL_CALL_WINDOWS)
					break;
				to = tail_call_target(regs);
				if (to && callee)
					return tail_call_window(regs, to);
				if (to)
					insn = to - 1; /* the loop's insn++ lands on it */
				break;
			}
			if (BPF_OP(code) == BPF_CALL && insn->src_reg == BPF_PSEUDO_CALL) {
				regs[0] = call_subprog(regs, insn);
				break;
			}
			if (BPF_OP(code) == BPF_CALL) {
				regs[0] = helper_at(insn->imm)(regs[1], regs[2], regs[3], regs[4],
							       regs[5]);
				break;
			}
			if (cls == BPF_JMP32 && BPF_SRC(code) == BPF_K)
				src = (u32)insn->imm;
			if (jmp_taken(BPF_OP(code), *dst, src, cls == BPF_JMP))
				insn += insn->off;
			break;
		}
	}
}

/* The interpreter's entry as a bpf_func: a 512-byte stack on the caller's, r1 = ctx. */
u64 __bpf_prog_run(const void *ctx, const struct bpf_insn *insn)
{
	u64 stack[MAX_BPF_STACK / 8] __aligned(8);
	u64 regs[MAX_BPF_REG + 1];

	memset(regs, 0, sizeof(regs));
	regs[BPF_REG_FP] = (u64)(unsigned long)&stack[MAX_BPF_STACK / 8];
	regs[1] = (u64)(unsigned long)ctx;
	return ___bpf_prog_run(regs, insn);
}

/*
 * Linux's bpf_prog_calc_tag(): the first 8 bytes of the SHA-1 of the instructions as loaded, with
 * the fds of ld_imm64 map loads zeroed (they differ from one load to the next, the program does
 * not). What bpftool prints as `tag`, and what tells the same program loaded twice.
 */
int bpf_prog_calc_tag(struct bpf_prog *prog)
{
	struct bpf_insn *dst = kmalloc(prog->len * sizeof(*dst) + 1);
	u8 digest[SHA1_DIGEST_SIZE];
	bool was_ld_map = false;

	if (!dst)
		return -ENOMEM;
	for (u32 i = 0; i < prog->len; i++) {
		dst[i] = prog->insnsi[i];
		if (!was_ld_map && dst[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
		    (dst[i].src_reg == BPF_PSEUDO_MAP_FD ||
		     dst[i].src_reg == BPF_PSEUDO_MAP_VALUE)) {
			was_ld_map = true;
			dst[i].imm = 0;
		} else if (was_ld_map && !dst[i].code && !dst[i].dst_reg && !dst[i].src_reg &&
			   !dst[i].off) {
			was_ld_map = false;
			dst[i].imm = 0; /* a map value's offset: zeroed too, as Linux does */
		} else {
			was_ld_map = false;
		}
	}
	sha1(dst, prog->len * sizeof(*dst), digest);
	memcpy(prog->tag, digest, sizeof(prog->tag));
	kfree(dst);
	return 0;
}

struct bpf_prog *bpf_prog_alloc(u32 len)
{
	struct bpf_prog *prog = kzalloc(sizeof(*prog) + len * sizeof(struct bpf_insn));

	if (prog)
		prog->len = len;
	return prog;
}

void bpf_prog_free(struct bpf_prog *prog)
{
	if (!prog)
		return;
	if (prog->jit_image)
		bpf_jit_free(prog);
	for (u32 i = 0; i < prog->used_map_cnt; i++)
		bpf_map_put(prog->used_maps[i]);
	kfree(prog->used_maps);
	kfree(prog->subprogs);
	kfree(prog);
}
