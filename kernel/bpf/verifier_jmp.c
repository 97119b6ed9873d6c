/* Conditional jumps in the verifier: a branch whose outcome is known is the only one walked; each
 * walked branch learns the comparison's result (Linux's check_cond_jmp_op(), is_branch_taken(),
 * reg_set_min_max(), mark_ptr_or_null_regs()). */
#include "kernel/bpf/verifier.h"
#include "lib/string.h"

#define U32_MAX 0xffffffffULL
#define S32_MAX 0x7fffffffULL

/* The jump that holds when op does not. */
static u8 negate(u8 op)
{
	switch (op) {
	case BPF_JEQ:
		return BPF_JNE;
	case BPF_JNE:
		return BPF_JEQ;
	case BPF_JGT:
		return BPF_JLE;
	case BPF_JLE:
		return BPF_JGT;
	case BPF_JGE:
		return BPF_JLT;
	case BPF_JLT:
		return BPF_JGE;
	case BPF_JSGT:
		return BPF_JSLE;
	case BPF_JSLE:
		return BPF_JSGT;
	case BPF_JSGE:
		return BPF_JSLT;
	case BPF_JSLT:
		return BPF_JSGE;
	default:
		return 0xff; /* !JSET */
	}
}

/* 1: a op b always holds, 0: never, -1: it depends. Both scalars. */
static int is_branch_taken(const struct bpf_reg_state *a, const struct bpf_reg_state *b, u8 op)
{
	switch (op) {
	case BPF_JEQ:
		if (tnum_is_const(a->var_off) && tnum_is_const(b->var_off))
			return a->var_off.value == b->var_off.value;
		if (a->umin_value > b->umax_value || a->umax_value < b->umin_value ||
		    a->smin_value > b->smax_value || a->smax_value < b->smin_value)
			return 0;
		return -1;
	case BPF_JNE: {
		int r = is_branch_taken(a, b, BPF_JEQ);
		return r < 0 ? r : !r;
	}
	case BPF_JGT:
		return a->umin_value > b->umax_value ? 1 : a->umax_value <= b->umin_value ? 0 : -1;
	case BPF_JGE:
		return a->umin_value >= b->umax_value ? 1 : a->umax_value < b->umin_value ? 0 : -1;
	case BPF_JLT:
		return is_branch_taken(b, a, BPF_JGT);
	case BPF_JLE:
		return is_branch_taken(b, a, BPF_JGE);
	case BPF_JSGT:
		return a->smin_value > b->smax_value ? 1 : a->smax_value <= b->smin_value ? 0 : -1;
	case BPF_JSGE:
		return a->smin_value >= b->smax_value ? 1 : a->smax_value < b->smin_value ? 0 : -1;
	case BPF_JSLT:
		return is_branch_taken(b, a, BPF_JSGT);
	case BPF_JSLE:
		return is_branch_taken(b, a, BPF_JSGE);
	case BPF_JSET:
		if (a->var_off.value & b->var_off.value & ~b->var_off.mask)
			return 1;
		if (!((a->var_off.value | a->var_off.mask) & (b->var_off.value | b->var_off.mask)))
			return 0;
		return -1;
	default: { /* !JSET */
		int r = is_branch_taken(a, b, BPF_JSET);
		return r < 0 ? r : !r;
	}
	}
}

/* After `a op b` held: narrow both. */
static void refine(struct bpf_reg_state *a, struct bpf_reg_state *b, u8 op)
{
	switch (op) {
	case BPF_JEQ:
		a->umin_value = b->umin_value = MAX(a->umin_value, b->umin_value);
		a->umax_value = b->umax_value = MIN(a->umax_value, b->umax_value);
		a->smin_value = b->smin_value = MAX(a->smin_value, b->smin_value);
		a->smax_value = b->smax_value = MIN(a->smax_value, b->smax_value);
		a->var_off = b->var_off = tnum_intersect(a->var_off, b->var_off);
		break;
	case BPF_JNE:
		if (tnum_is_const(b->var_off)) {
			if (a->umin_value == b->var_off.value && a->umin_value != ~0ULL)
				a->umin_value++;
			if (a->umax_value == b->var_off.value && a->umax_value)
				a->umax_value--;
		}
		break;
	case BPF_JGT:
		a->umin_value = MAX(a->umin_value, b->umin_value + 1);
		b->umax_value = MIN(b->umax_value, a->umax_value - 1);
		break;
	case BPF_JGE:
		a->umin_value = MAX(a->umin_value, b->umin_value);
		b->umax_value = MIN(b->umax_value, a->umax_value);
		break;
	case BPF_JLT:
		refine(b, a, BPF_JGT);
		return;
	case BPF_JLE:
		refine(b, a, BPF_JGE);
		return;
	case BPF_JSGT:
		a->smin_value = MAX(a->smin_value, b->smin_value + 1);
		b->smax_value = MIN(b->smax_value, a->smax_value - 1);
		break;
	case BPF_JSGE:
		a->smin_value = MAX(a->smin_value, b->smin_value);
		b->smax_value = MIN(b->smax_value, a->smax_value);
		break;
	case BPF_JSLT:
		refine(b, a, BPF_JSGT);
		return;
	case BPF_JSLE:
		refine(b, a, BPF_JSGE);
		return;
	case BPF_JSET:
		break;
	default: /* !JSET: the bits of a constant b are all clear in a */
		if (tnum_is_const(b->var_off))
			a->var_off = tnum_and(a->var_off, tnum_const(~b->var_off.value));
		break;
	}
	reg_bounds_sync(a);
	reg_bounds_sync(b);
}

/* Comparisons the 64-bit rules may decide for a 32-bit jump: both values fit in the low half (and
 * in its positive half for the signed ones). */
static bool jmp32_as_64(const struct bpf_reg_state *a, const struct bpf_reg_state *b, u8 op)
{
	u64 lim = (op >= BPF_JSLT || op == BPF_JSGT || op == BPF_JSGE) ? S32_MAX : U32_MAX;

	return a->umax_value <= lim && b->umax_value <= lim;
}

/* In a branch where register id's pointer is (not) NULL, every copy of it is too, in every frame. */
static void mark_ptr_or_null(struct bpf_verifier_state *st, u32 id, bool is_null)
{
	struct bpf_reg_state *r;

	for (int i = 0; i < (int)(st->curframe + 1) * (MAX_BPF_REG + MAX_BPF_STACK_SLOTS); i++) {
		u32 f = i / (MAX_BPF_REG + MAX_BPF_STACK_SLOTS),
		    j = i % (MAX_BPF_REG + MAX_BPF_STACK_SLOTS);
		r = j < MAX_BPF_REG ? &frame_regs(st, f)[j]
				    : &frame_stack(st, f)[j - MAX_BPF_REG].spilled_ptr;
		if (r->id != id ||
		    (r->type != PTR_TO_MAP_VALUE_OR_NULL && r->type != PTR_TO_MEM_OR_NULL))
			continue;
		if (is_null) {
			mark_reg_not_init(r);
			mark_reg_known(r, 0);
		} else {
			r->type =
				r->type == PTR_TO_MAP_VALUE_OR_NULL ? PTR_TO_MAP_VALUE : PTR_TO_MEM;
			r->id = 0;
		}
	}
	if (is_null) /* a NULL from bpf_ringbuf_reserve() holds nothing to release */
		for (int i = 0; i < MAX_ACQUIRED_REFS; i++)
			if (st->refs[i] == id)
				st->refs[i] = 0;
}

static int check_jmp_fields(struct bpf_verifier_env *env, const struct bpf_insn *insn)
{
	if ((BPF_SRC(insn->code) == BPF_X && insn->imm) ||
	    (BPF_SRC(insn->code) == BPF_K && insn->src_reg)) {
		verbose(env, "BPF_JMP/JMP32 uses reserved fields\n");
		return -EINVAL;
	}
	return check_reg_arg(env, insn->dst_reg, true)
		       ?: (BPF_SRC(insn->code) == BPF_X ? check_reg_arg(env, insn->src_reg, true)
							: 0);
}

int check_cond_jmp_op(struct bpf_verifier_env *env, const struct bpf_insn *insn, int *insn_idx)
{
	struct bpf_reg_state *regs = env->cur->regs, *dst = &regs[insn->dst_reg], k, *src = &k;
	struct bpf_verifier_state *other;
	u8 op = BPF_OP(insn->code);
	bool is32 = BPF_CLASS(insn->code) == BPF_JMP32;
	int err = check_jmp_fields(env, insn), taken = -1;

	if (err)
		return err;
	if (BPF_SRC(insn->code) == BPF_X) {
		src = &regs[insn->src_reg];
	} else {
		mark_reg_not_init(&k);
		mark_reg_known(&k, is32 ? (u32)insn->imm : (u64)(s64)insn->imm);
	}
	/* a NULL check of a pointer that may be NULL */
	if ((dst->type == PTR_TO_MAP_VALUE_OR_NULL || dst->type == PTR_TO_MEM_OR_NULL) &&
	    (op == BPF_JEQ || op == BPF_JNE) && !is32 && src->type == SCALAR_VALUE &&
	    tnum_is_const(src->var_off) && !src->var_off.value) {
		u32 id = dst->id;
		other = push_stack(env, *insn_idx + insn->off + 1, *insn_idx);
		if (!other)
			return -ENOMEM;
		mark_ptr_or_null(other, id, op == BPF_JEQ);
		mark_ptr_or_null(env->cur, id, op == BPF_JNE);
		return 0;
	}
	if (reg_is_pointer(dst) || reg_is_pointer(src)) {
		if (!env->allow_ptr_leaks) {
			verbose(env, "R%d pointer comparison prohibited\n", insn->dst_reg);
			return -EACCES;
		}
		goto both; /* a privileged pointer comparison teaches nothing */
	}
	if (!is32 || jmp32_as_64(dst, src, op))
		taken = is_branch_taken(dst, src, op);
	if (taken == 1) {
		*insn_idx += insn->off;
		return 0;
	}
	if (taken == 0)
		return 0;
both:
	other = push_stack(env, *insn_idx + insn->off + 1, *insn_idx);
	if (!other)
		return -ENOMEM;
	if (dst->type != SCALAR_VALUE || src->type != SCALAR_VALUE ||
	    (is32 && !jmp32_as_64(dst, src, op)))
		return 0;
	{
		struct bpf_reg_state *odst = &other->regs[insn->dst_reg];
		struct bpf_reg_state ok = k, *osrc = BPF_SRC(insn->code) == BPF_X
							     ? &other->regs[insn->src_reg]
							     : &ok;
		/* a range left empty means that branch never runs: walking it is merely wasted */
		refine(odst, osrc, op);
		refine(dst, src, negate(op));
	}
	return 0;
}
