/* The verifier's memory rules: loads and stores against the bounds of what a pointer points at,
 * the stack slot by slot (Linux's check_mem_access(), check_stack_write(), check_map_access()). */
#include "kernel/bpf/verifier.h"
#include "lib/string.h"

#define BPF_MAX_VAR_OFF (1LL << 29)

static int bytes_of(u8 size)
{
	static const int n[4] = { 4, 2, 1, 8 };
	return n[size >> 3];
}

/* A value loaded from memory: unknown but for its width. */
static void mark_reg_loaded(struct bpf_reg_state *reg, int size)
{
	mark_reg_unknown(reg);
	if (size < 8) {
		reg->umax_value = (1ULL << (size * 8)) - 1;
		reg->smin_value = 0;
		reg->smax_value = (s64)reg->umax_value;
		reg->var_off = tnum_cast(tnum_unknown, size);
	}
}

/* [reg's pointer + off, + size) inside [0, limit): what is checked for map values and ringbuf
 * memory, whose pointers may carry a variable part. */
static int check_region(struct bpf_verifier_env *env, u32 regno, int off, int size, u32 limit,
			bool zero_ok)
{
	const struct bpf_reg_state *reg = &env->cur->regs[regno];
	bool map = reg->type == PTR_TO_MAP_VALUE;
	s64 lo = (s64)reg->off + off + reg->smin_value;
	s64 hi = (s64)reg->off + off + (s64)reg->umax_value;

	if (reg->smin_value < 0) {
		verbose(env,
			"R%d min value is negative, either use unsigned index or do a if (index "
			">=0) check.\n",
			regno);
		return -EACCES;
	}
	if (reg->umax_value >= BPF_MAX_VAR_OFF) {
		verbose(env,
			"R%d unbounded memory access, make sure to bounds check any such access\n",
			regno);
		return -EACCES;
	}
	if (lo < 0 || hi + size > limit || (!size && !zero_ok)) {
		if (map)
			verbose(env,
				"invalid access to map value, value_size=%u off=%lld size=%d\n",
				limit, lo < 0 ? lo : hi, size);
		else
			verbose(env, "invalid access to memory, mem_size=%u off=%lld size=%d\n",
				limit, lo < 0 ? lo : hi, size);
		return -EACCES;
	}
	return 0;
}

/* The stack offset a fixed stack pointer plus off means, after the bounds and alignment checks. */
static int stack_offset(struct bpf_verifier_env *env, u32 regno, int off, int size, bool write,
			bool helper, int *out)
{
	const struct bpf_reg_state *reg = &env->cur->regs[regno];
	char tn[48];
	s64 o;

	if (!tnum_is_const(reg->var_off)) {
		tnum_strn(tn, sizeof(tn), reg->var_off);
		verbose(env, "variable stack access var_off=%s off=%d size=%d\n", tn, off, size);
		return -EACCES;
	}
	o = (s64)reg->off + (s64)reg->var_off.value + off;
	if (o < -MAX_BPF_STACK || o + size > 0 || (size == 0 && o >= 0)) {
		if (helper)
			verbose(env, "invalid indirect access to stack R%d off=%lld size=%d\n",
				regno, o, size);
		else
			verbose(env, "invalid %s stack R%d off=%lld size=%d\n",
				write ? "write to" : "read from", regno, o, size);
		return -EACCES;
	}
	if (!helper && o % size) {
		tnum_strn(tn, sizeof(tn), reg->var_off);
		verbose(env, "misaligned stack access off %s+%d+%d size %d\n", tn, reg->off, off,
			size);
		return -EACCES;
	}
	{
		struct bpf_subprog_info *sp = &env->subprog[env->cur->subprogno[reg->frameno]];
		if ((u32)-o > sp->stack_depth)
			sp->stack_depth = -o;
	}
	*out = (int)o;
	return 0;
}

static struct bpf_stack_state *slot_of(struct bpf_verifier_env *env, u32 frameno, int addr,
				       int *byte)
{
	int s = (-addr - 1) / BPF_REG_SIZE;

	*byte = addr + (s + 1) * BPF_REG_SIZE;
	return &frame_stack(env->cur, frameno)[s];
}

/* Bytes [o, o + size) of frame f's stack written with what value holds (NULL: unknown). */
static int stack_write(struct bpf_verifier_env *env, u32 f, int o, int size,
		       const struct bpf_reg_state *value)
{
	int b;
	struct bpf_stack_state *slot = slot_of(env, f, o, &b);
	bool zero = value && value->type == SCALAR_VALUE && tnum_is_const(value->var_off) &&
		    !value->var_off.value;

	if (value && value->type == PTR_TO_STACK && value->frameno > f) {
		/* the callee's frame is gone once it returns: no caller may keep a pointer to it */
		verbose(env, "cannot spill pointers to stack into stack frame of the caller\n");
		return -EACCES;
	}
	if (size == BPF_REG_SIZE && value) { /* a spill: the slot remembers the register */
		slot->spilled_ptr = *value;
		memset(slot->slot_type, STACK_SPILL, BPF_REG_SIZE);
		return 0;
	}
	if (value && reg_is_pointer(value) && !env->allow_ptr_leaks) {
		verbose(env, "invalid size of register spill\n");
		return -EACCES;
	}
	for (int i = 0; i < size; i++) {
		slot = slot_of(env, f, o + i, &b);
		if (slot->slot_type[7] == STACK_SPILL) {
			if (reg_is_pointer(&slot->spilled_ptr) && !env->allow_ptr_leaks) {
				verbose(env, "attempt to corrupt spilled pointer on stack\n");
				return -EACCES;
			}
			memset(slot->slot_type, STACK_MISC, BPF_REG_SIZE);
		}
		slot->slot_type[b] = zero ? STACK_ZERO : STACK_MISC;
	}
	return 0;
}

/* Bytes [o, o + size) of frame f's stack read into dst (NULL: a helper reads them). */
static int stack_read(struct bpf_verifier_env *env, u32 f, int o, int size,
		      struct bpf_reg_state *dst, u32 regno)
{
	int b, zeros = 0;
	struct bpf_stack_state *slot = slot_of(env, f, o, &b);

	if (dst && size == BPF_REG_SIZE && slot->slot_type[0] == STACK_SPILL) {
		*dst = slot->spilled_ptr;
		return 0;
	}
	for (int i = 0; i < size; i++) {
		slot = slot_of(env, f, o + i, &b);
		if (slot->slot_type[b] == STACK_INVALID) {
			if (dst)
				verbose(env, "invalid read from stack off %d+%d size %d\n", o, i,
					size);
			else
				verbose(env,
					"invalid indirect read from stack R%d off %d+%d size %d\n",
					regno, o, i, size);
			return -EACCES;
		}
		if (slot->slot_type[b] == STACK_SPILL && reg_is_pointer(&slot->spilled_ptr) &&
		    !env->allow_ptr_leaks) {
			verbose(env, "leaking pointer from stack off %d\n", o + i);
			return -EACCES;
		}
		zeros += slot->slot_type[b] == STACK_ZERO;
	}
	if (dst) {
		if (zeros == size) {
			mark_reg_not_init(dst);
			mark_reg_known(dst, 0);
		} else {
			mark_reg_loaded(dst, size);
		}
	}
	return 0;
}

static bool map_writable_by_prog(struct bpf_verifier_env *env, const struct bpf_map *map)
{
	if (map->map_flags & BPF_F_RDONLY_PROG) {
		verbose(env, "write into map forbidden, value_size=%u\n", map->value_size);
		return false;
	}
	return true;
}

/*
 * One load (value NULL, dst the register loaded) or store (value: what is stored) of size bytes
 * at regno's pointer + off.
 */
static int check_mem_access(struct bpf_verifier_env *env, u32 regno, int off, int size,
			    const struct bpf_reg_state *value, struct bpf_reg_state *dst)
{
	struct bpf_reg_state *reg = &env->cur->regs[regno], loaded;
	bool write = value != NULL;
	int err = 0, o;

	mark_reg_not_init(&loaded);
	switch (reg->type) {
	case PTR_TO_MAP_VALUE:
	case PTR_TO_MEM:
		if (write && reg_is_pointer(value) && !env->allow_ptr_leaks) {
			verbose(env, "R%d leaks addr into %s\n", regno,
				reg->type == PTR_TO_MAP_VALUE ? "map" : "mem");
			return -EACCES;
		}
		if (write && reg->type == PTR_TO_MAP_VALUE &&
		    !map_writable_by_prog(env, reg->map_ptr))
			return -EACCES;
		err = check_region(env, regno, off, size,
				   reg->type == PTR_TO_MAP_VALUE ? reg->map_ptr->value_size
								 : reg->mem_size,
				   false);
		mark_reg_loaded(&loaded, size);
		break;
	case PTR_TO_CTX:
		if (reg->off || !tnum_is_const(reg->var_off) || reg->var_off.value) {
			verbose(env, "dereference of modified ctx ptr R%d off=%d disallowed\n",
				regno, reg->off);
			return -EACCES;
		}
		if (env->ops->ctx_access) {
			if (env->ops->ctx_access(env, off, size, write))
				return -EACCES;
		} else if (!env->ops->is_valid_access(off, size, write)) {
			verbose(env, "invalid bpf_context access off=%d size=%d\n", off, size);
			return -EACCES;
		}
		mark_reg_loaded(&loaded, size);
		break;
	case PTR_TO_STACK:
		err = stack_offset(env, regno, off, size, write, false, &o);
		if (!err)
			err = write ? stack_write(env, reg->frameno, o, size, value)
				    : stack_read(env, reg->frameno, o, size, &loaded, regno);
		break;
	default:
		verbose(env, "R%d invalid mem access '%s'\n", regno, reg_type_str(reg->type));
		return -EACCES;
	}
	if (!err && dst)
		*dst = loaded;
	return err;
}

static int check_ld_imm64(struct bpf_verifier_env *env, const struct bpf_insn *insn)
{
	struct bpf_reg_state *dst = &env->cur->regs[insn->dst_reg];
	struct bpf_map *map = env->aux[insn - env->prog->insnsi].map_ptr;
	int err = check_reg_arg(env, insn->dst_reg, false);

	if (err)
		return err;
	mark_reg_not_init(dst);
	if (!insn->src_reg) {
		mark_reg_known(dst, (u32)insn[0].imm | ((u64)(u32)insn[1].imm << 32));
		return 0;
	}
	mark_reg_known(dst, 0);
	dst->map_ptr = map;
	if (insn->src_reg == BPF_PSEUDO_MAP_FD) {
		dst->type = CONST_PTR_TO_MAP;
	} else {
		dst->type = PTR_TO_MAP_VALUE;
		dst->off = insn[1].imm;
	}
	return 0;
}

static int check_atomic(struct bpf_verifier_env *env, const struct bpf_insn *insn)
{
	struct bpf_reg_state *regs = env->cur->regs, old;
	int size = bytes_of(BPF_SIZE(insn->code)), err;
	int op = insn->imm & ~BPF_FETCH;

	if ((size != 4 && size != 8) ||
	    (op != BPF_ADD && op != BPF_AND && op != BPF_OR && op != BPF_XOR &&
	     insn->imm != BPF_XCHG && insn->imm != BPF_CMPXCHG)) {
		verbose(env, "BPF_ATOMIC uses invalid atomic opcode %02x\n", insn->imm);
		return -EINVAL;
	}
	if ((err = check_reg_arg(env, insn->src_reg, true)) ||
	    (err = check_reg_arg(env, insn->dst_reg, true)) ||
	    (insn->imm == BPF_CMPXCHG && (err = check_reg_arg(env, 0, true))))
		return err;
	if (reg_is_pointer(&regs[insn->src_reg])) {
		verbose(env, "R%d leaks addr into mem\n", insn->src_reg);
		return -EACCES;
	}
	if (regs[insn->dst_reg].type == PTR_TO_CTX) {
		verbose(env, "BPF_ATOMIC stores into R%d %s is not allowed\n", insn->dst_reg,
			reg_type_str(regs[insn->dst_reg].type));
		return -EACCES;
	}
	/* read, then write: both must be allowed */
	err = check_mem_access(env, insn->dst_reg, insn->off, size, NULL, &old);
	if (!err)
		err = check_mem_access(env, insn->dst_reg, insn->off, size, &regs[insn->src_reg],
				       NULL);
	if (err)
		return err;
	if (insn->imm == BPF_CMPXCHG)
		mark_reg_loaded(&regs[0], size);
	else if (insn->imm & BPF_FETCH)
		mark_reg_loaded(&regs[insn->src_reg], size);
	return 0;
}

int check_mem_insn(struct bpf_verifier_env *env, const struct bpf_insn *insn)
{
	struct bpf_reg_state *regs = env->cur->regs, imm;
	u8 cls = BPF_CLASS(insn->code), mode = BPF_MODE(insn->code);
	int size = bytes_of(BPF_SIZE(insn->code)), err;

	switch (cls) {
	case BPF_LD:
		if (insn->code == (BPF_LD | BPF_IMM | BPF_DW))
			return check_ld_imm64(env, insn);
		if (mode == BPF_ABS || mode == BPF_IND) {
			verbose(env, "BPF_LD_[ABS|IND] instructions not allowed for this program "
				     "type\n");
			return -EINVAL;
		}
		break;
	case BPF_LDX:
		if (mode != BPF_MEM || insn->imm) {
			verbose(env, "BPF_LDX uses reserved fields\n");
			return -EINVAL;
		}
		if ((err = check_reg_arg(env, insn->src_reg, true)) ||
		    (err = check_reg_arg(env, insn->dst_reg, false)))
			return err;
		return check_mem_access(env, insn->src_reg, insn->off, size, NULL,
					&regs[insn->dst_reg]);
	case BPF_ST:
		if (mode != BPF_MEM || insn->src_reg) {
			verbose(env, "BPF_ST uses reserved fields\n");
			return -EINVAL;
		}
		if ((err = check_reg_arg(env, insn->dst_reg, true)))
			return err;
		mark_reg_not_init(&imm);
		mark_reg_known(&imm, (u64)(s64)insn->imm);
		return check_mem_access(env, insn->dst_reg, insn->off, size, &imm, NULL);
	case BPF_STX:
		if (mode == BPF_ATOMIC)
			return check_atomic(env, insn);
		if (mode != BPF_MEM || insn->imm) {
			verbose(env, "BPF_STX uses reserved fields\n");
			return -EINVAL;
		}
		if ((err = check_reg_arg(env, insn->src_reg, true)) ||
		    (err = check_reg_arg(env, insn->dst_reg, true)))
			return err;
		return check_mem_access(env, insn->dst_reg, insn->off, size, &regs[insn->src_reg],
					NULL);
	}
	verbose(env, "unknown opcode %02x\n", insn->code);
	return -EINVAL;
}

/* Memory a helper reads (uninit false) or fills (true): size bytes at regno's pointer. */
int check_helper_mem_access(struct bpf_verifier_env *env, int regno, int size, bool zero_ok,
			    bool uninit)
{
	struct bpf_reg_state *reg = &env->cur->regs[regno];
	int o, err;

	switch (reg->type) {
	case PTR_TO_STACK:
		if (!size && zero_ok)
			return 0;
		err = stack_offset(env, regno, 0, size, uninit, true, &o);
		if (err)
			return err;
		return uninit ? stack_write(env, reg->frameno, o, size, NULL)
			      : stack_read(env, reg->frameno, o, size, NULL, regno);
	case PTR_TO_MAP_VALUE:
		if (uninit && !map_writable_by_prog(env, reg->map_ptr))
			return -EACCES;
		return check_region(env, regno, 0, size, reg->map_ptr->value_size, zero_ok);
	case PTR_TO_MEM:
		return check_region(env, regno, 0, size, reg->mem_size, zero_ok);
	default:
		verbose(env, "R%d type=%s expected=fp, map_value, mem\n", regno,
			reg_type_str(reg->type));
		return -EACCES;
	}
}
