/* State pruning in the verifier: which registers matter at each instruction, and whether a path
 * may stop because a state already proved safe covers it (Linux's is_state_visited(),
 * states_equal(), with its register liveness and scalar precision found here before the walk). */
#include "kernel/bpf/verifier.h"
#include "kernel/mm/mm.h"
#include "lib/string.h"

#define MAX_STATES_PER_INSN 64 /* beyond this a prune point keeps no more: memory stays bounded */
#define R(n) (1U << (n))
#define ARGS R(1) | R(2) | R(3) | R(4) | R(5)
#define CALLER_SAVED (R(0) | ARGS)

/*
 * Liveness and precision, before the walk. A register is live at an insn if some path from it
 * reads the register before writing it: a dead one may differ freely between two states. A live
 * scalar is precise if its value may reach something whose safety depends on it (an address, a
 * store, a helper's argument, a jump's comparison, a subprogram's R0): an imprecise one may differ
 * too, only its type must match. Linux finds precision backwards from each use during the walk
 * (mark_chain_precision()); the same question asked of the program text is coarser (every path
 * counts, the stack is always compared whole) but needs no bookkeeping on the way.
 */
struct regs_use {
	u16 use, def, prec; /* read, written, made precise here */
	bool flows;	    /* the result's precision flows to the operands (ALU) */
};

static struct regs_use insn_use(const struct bpf_verifier_env *env, const struct bpf_insn *insn,
				bool main_prog)
{
	u8 cls = BPF_CLASS(insn->code), op = BPF_OP(insn->code);
	u16 dst = R(insn->dst_reg & 0xf), src = R(insn->src_reg & 0xf);
	struct regs_use u = { 0 };

	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		u.def = dst;
		u.use = op == BPF_MOV ? 0 : dst;
		if (BPF_SRC(insn->code) == BPF_X && op != BPF_END && op != BPF_NEG)
			u.use |= src;
		u.flows = true;
		break;
	case BPF_LD: /* ld_imm64 */
		u.def = dst;
		break;
	case BPF_LDX:
		u.def = dst;
		u.use = u.prec = src;
		break;
	case BPF_ST:
		u.use = u.prec = dst;
		break;
	case BPF_STX:
		u.use = u.prec = dst | src | (insn->imm == BPF_CMPXCHG ? R(0) : 0);
		break;
	default: /* BPF_JMP, BPF_JMP32 */
		if (op == BPF_EXIT) {
			u.use = R(0); /* the main program's R0 is any number a program returns */
			u.prec = main_prog ? 0 : R(0);
		} else if (op == BPF_CALL) {
			const struct bpf_func_proto *fn =
				bpf_pseudo_call(insn) ? NULL : env->ops->get_func_proto(insn->imm);
			u.use = ARGS;
			if (fn) /* only the arguments the helper takes */
				for (int a = 4; a >= 0 && fn->arg_type[a] == ARG_DONTCARE; a--)
					u.use &= ~R(a + 1);
			u.prec = u.use;
			u.def = CALLER_SAVED;
		} else if (op != BPF_JA) {
			u.use = u.prec = dst | (BPF_SRC(insn->code) == BPF_X ? src : 0);
		}
		break;
	}
	return u;
}

/* Successors inside the function: a bpf-to-bpf call returns to the next insn. */
static int next_insns(const struct bpf_insn *insn, int i, int succ[2])
{
	u8 cls = BPF_CLASS(insn->code), op = BPF_OP(insn->code);

	succ[0] = insn->code == (BPF_LD | BPF_IMM | BPF_DW) ? i + 2 : i + 1;
	if (cls != BPF_JMP && cls != BPF_JMP32)
		return 1;
	if (op == BPF_EXIT)
		return 0;
	if (op == BPF_JA) {
		succ[0] = i + 1 + insn->off;
		return 1;
	}
	if (op == BPF_CALL)
		return 1;
	succ[1] = i + 1 + insn->off;
	return 2;
}

/* Backwards to a fixed point: the sets only grow, each by at most 11 registers. */
int compute_live_regs(struct bpf_verifier_env *env)
{
	const struct bpf_insn *insns = env->prog->insnsi;
	int len = env->prog->len;
	bool changed = true;

	while (changed) {
		changed = false;
		for (int i = len - 1; i >= 0; i--) {
			struct bpf_insn_aux_data *aux = &env->aux[i];
			struct regs_use u;
			int succ[2], n;
			u16 live = R(BPF_REG_FP), prec = R(BPF_REG_FP), live_out = 0, prec_out = 0;

			if (i && insns[i - 1].code == (BPF_LD | BPF_IMM | BPF_DW))
				continue; /* the second half */
			n = next_insns(&insns[i], i, succ);
			for (int k = 0; k < n; k++)
				if (succ[k] >= 0 && succ[k] < len) {
					live_out |= env->aux[succ[k]].live;
					prec_out |= env->aux[succ[k]].precise;
				}
			u = insn_use(env, &insns[i], subprog_of(env, i) == 0);
			live |= (live_out & ~u.def) | u.use;
			prec |= (prec_out & ~u.def) | u.prec;
			if (u.flows && (prec_out & u.def))
				prec |= u.use; /* dst = dst op src: an exact dst needs exact operands */
			if (live != aux->live || prec != aux->precise) {
				aux->live |= live;
				aux->precise |= prec;
				changed = true;
			}
		}
	}
	return 0;
}

/* ---- is everything cur may hold something old was already proved safe with? ---- */

static bool range_within(const struct bpf_reg_state *old, const struct bpf_reg_state *cur)
{
	return old->umin_value <= cur->umin_value && old->umax_value >= cur->umax_value &&
	       old->smin_value <= cur->smin_value && old->smax_value >= cur->smax_value;
}

static bool regsafe(const struct bpf_reg_state *old, const struct bpf_reg_state *cur, bool precise)
{
	if (old->type == NOT_INIT)
		return true; /* old never read it on any path after here, or failed if it did */
	if (old->type != cur->type)
		return false;
	switch (old->type) {
	case SCALAR_VALUE:
		return !precise || (range_within(old, cur) && tnum_in(old->var_off, cur->var_off));
	case PTR_TO_MAP_VALUE_OR_NULL:
	case PTR_TO_MEM_OR_NULL:
	case PTR_TO_MEM:
		/* ids tie registers together: only the same tie is the same state */
		if (old->id != cur->id || old->ref_obj_id != cur->ref_obj_id)
			return false;
		/* fall through */
	default:
		return old->off == cur->off && old->map_ptr == cur->map_ptr &&
		       old->mem_size == cur->mem_size && old->frameno == cur->frameno &&
		       range_within(old, cur) && tnum_in(old->var_off, cur->var_off);
	}
}

static bool stack_safe(const struct bpf_stack_state *old, const struct bpf_stack_state *cur)
{
	for (int s = 0; s < MAX_BPF_STACK_SLOTS; s++) {
		const struct bpf_stack_state *o = &old[s], *c = &cur[s];
		for (int b = 0; b < BPF_REG_SIZE; b++) {
			if (o->slot_type[b] == STACK_INVALID)
				continue;
			if (o->slot_type[b] == STACK_MISC && c->slot_type[b] == STACK_ZERO)
				continue;
			if (o->slot_type[b] != c->slot_type[b])
				return false;
		}
		if (o->slot_type[7] == STACK_SPILL &&
		    !regsafe(&o->spilled_ptr, &c->spilled_ptr, true))
			return false;
	}
	return true;
}

/* A frame's registers, those live at insn (a caller's: at its return point) compared. */
static bool frame_safe(const struct bpf_verifier_env *env, const struct bpf_reg_state *old,
		       const struct bpf_reg_state *cur, int insn, bool caller)
{
	u16 live = env->aux[insn].live, prec = env->aux[insn].precise;

	if (caller) { /* R0-R5 are the callee's answer or gone by then */
		live &= ~CALLER_SAVED;
		prec &= ~CALLER_SAVED;
	}
	for (int i = 0; i < MAX_BPF_REG; i++)
		if ((live & R(i)) && !regsafe(&old[i], &cur[i], prec & R(i)))
			return false;
	return true;
}

static bool states_equal(struct bpf_verifier_env *env, struct bpf_verifier_state *old,
			 struct bpf_verifier_state *cur, int insn_idx)
{
	if (old->curframe != cur->curframe ||
	    memcmp(old->callsite, cur->callsite, old->curframe * sizeof(old->callsite[0])))
		return false;
	if (!frame_safe(env, old->regs, cur->regs, insn_idx, false) ||
	    !stack_safe(old->stack, cur->stack))
		return false;
	for (u32 f = 0; f < old->curframe; f++)
		if (!frame_safe(env, old->caller[f].regs, cur->caller[f].regs, old->callsite[f] + 1,
				true) ||
		    !stack_safe(old->caller[f].stack, cur->caller[f].stack))
			return false;
	return !memcmp(old->refs, cur->refs, sizeof(old->refs));
}

static u32 regs_hash(const struct bpf_verifier_state *st)
{
	const u8 *p = (const u8 *)st->regs;
	u32 h = 2166136261u;

	for (size_t i = 0; i < sizeof(st->regs); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* 1: prune this path; 0: go on (the state kept); < 0: an error. */
int is_state_visited(struct bpf_verifier_env *env, int insn_idx)
{
	struct bpf_explored_state *sl, *n, **link = &env->explored[insn_idx];
	u32 count = 0, hash = regs_hash(env->cur);
	size_t size = state_size(env->cur);

	while ((sl = *link)) {
		if (sl->branches) {
			/* still being walked: the same state again means a loop that never ends */
			if (sl->regs_hash == hash &&
			    !memcmp(&sl->st.regs, &env->cur->regs, sizeof(sl->st.regs)) &&
			    states_equal(env, &sl->st, env->cur, insn_idx)) {
				verbose(env, "infinite loop detected at insn %d\n", insn_idx);
				return -EINVAL;
			}
		} else if (states_equal(env, &sl->st, env->cur, insn_idx)) {
			sl->hit_cnt++;
			return 1;
		} else if (++sl->miss_cnt > sl->hit_cnt * 3 + 3) {
			/* Linux's rule: a state that keeps failing to prune costs more than it saves */
			*link = sl->next;
			kfree(sl);
			env->cur_states--;
			continue;
		}
		count++;
		link = &sl->next;
	}
	if (count >= MAX_STATES_PER_INSN)
		return 0;
	n = kzalloc(offsetof(struct bpf_explored_state, st) + size);
	if (!n)
		return -ENOMEM;
	memcpy(&n->st, env->cur, size);
	n->branches = 1;
	n->regs_hash = hash;
	n->parent = env->cur_parent;
	n->next = env->explored[insn_idx];
	env->explored[insn_idx] = n;
	env->cur_parent = n;
	env->total_states++;
	env->cur_states++;
	if (env->cur_states > env->peak_states)
		env->peak_states = env->cur_states;
	if (count + 1 > env->max_states_per_insn)
		env->max_states_per_insn = count + 1;
	return 0;
}
