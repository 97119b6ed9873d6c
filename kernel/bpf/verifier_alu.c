/* The verifier's arithmetic: scalar bounds through ALU operations, pointer arithmetic, and what a
 * conditional jump teaches each branch (Linux's adjust_reg_min_max_vals(), reg_set_min_max()). */
#include "kernel/bpf/verifier.h"
#include "lib/string.h"

#define S64_MIN ((s64)(1ULL << 63))
#define S64_MAX ((s64) ~(1ULL << 63))
#define U32_MAX 0xffffffffULL
#define BPF_MAX_VAR_OFF (1LL << 29) /* Linux: pointer offsets stay far from overflowing */

void mark_reg_not_init(struct bpf_reg_state *reg)
{
	memset(reg, 0, sizeof(*reg));
	reg->type = NOT_INIT;
}

void mark_reg_unknown(struct bpf_reg_state *reg)
{
	memset(reg, 0, sizeof(*reg));
	reg->type = SCALAR_VALUE;
	reg->var_off = tnum_unknown;
	reg->smin_value = S64_MIN;
	reg->smax_value = S64_MAX;
	reg->umax_value = ~0ULL;
}

/* A constant scalar (or, for a pointer, a fixed variable part) of value imm. */
void mark_reg_known(struct bpf_reg_state *reg, u64 imm)
{
	enum bpf_reg_type t = reg->type;

	memset(reg, 0, sizeof(*reg));
	reg->type = t == NOT_INIT ? SCALAR_VALUE : t;
	reg->var_off = tnum_const(imm);
	reg->smin_value = reg->smax_value = (s64)imm;
	reg->umin_value = reg->umax_value = imm;
}

bool reg_is_pointer(const struct bpf_reg_state *reg)
{
	return reg->type != SCALAR_VALUE && reg->type != NOT_INIT;
}

/* Each of the three descriptions narrows the others, until they agree. */
void reg_bounds_sync(struct bpf_reg_state *reg)
{
	struct tnum t = reg->var_off;

	/* from the known bits */
	reg->umin_value = MAX(reg->umin_value, t.value);
	reg->umax_value = MIN(reg->umax_value, t.value | t.mask);
	reg->smin_value = MAX(reg->smin_value, (s64)(t.value | (t.mask & (1ULL << 63))));
	reg->smax_value = MIN(reg->smax_value, (s64)(t.value | (t.mask & ~(1ULL << 63))));
	/* signed and unsigned agree when the sign is known */
	if (reg->smin_value >= 0 || reg->smax_value < 0) {
		reg->smin_value = reg->umin_value = MAX((u64)reg->smin_value, reg->umin_value);
		reg->smax_value = reg->umax_value = MIN((u64)reg->smax_value, reg->umax_value);
	} else if ((s64)reg->umax_value >= 0) { /* unsigned range below the sign bit */
		reg->smin_value = reg->umin_value;
		reg->smax_value = reg->umax_value = MIN((u64)reg->smax_value, reg->umax_value);
	} else if ((s64)reg->umin_value < 0) { /* unsigned range above it: all negative */
		reg->smin_value = reg->umin_value = MAX((u64)reg->smin_value, reg->umin_value);
		reg->smax_value = reg->umax_value;
	}
	reg->var_off = tnum_intersect(reg->var_off, tnum_range(reg->umin_value, reg->umax_value));
}

int check_reg_arg(struct bpf_verifier_env *env, u32 regno, bool src)
{
	if (regno >= MAX_BPF_REG) {
		verbose(env, "R%d is invalid\n", regno);
		return -EINVAL;
	}
	if (src && env->cur->regs[regno].type == NOT_INIT) {
		verbose(env, "R%d !read_ok\n", regno);
		return -EACCES;
	}
	if (!src && regno == BPF_REG_FP) {
		verbose(env, "frame pointer is read only\n");
		return -EACCES;
	}
	return 0;
}

static bool add_overflows(s64 a, s64 b, s64 *r)
{
	return __builtin_add_overflow(a, b, r);
}

/* dst op= src for two scalars, 64-bit. */
static void scalar_alu64(struct bpf_reg_state *dst, const struct bpf_reg_state *src, u8 op)
{
	struct bpf_reg_state d = *dst;
	s64 s1, s2;
	bool src_const = tnum_is_const(src->var_off);
	u64 k = src->var_off.value;

	mark_reg_unknown(dst);
	switch (op) {
	case BPF_ADD:
		if (!add_overflows(d.smin_value, src->smin_value, &s1) &&
		    !add_overflows(d.smax_value, src->smax_value, &s2))
			dst->smin_value = s1, dst->smax_value = s2;
		if (d.umin_value + src->umin_value >= d.umin_value &&
		    d.umax_value + src->umax_value >= d.umax_value)
			dst->umin_value = d.umin_value + src->umin_value,
			dst->umax_value = d.umax_value + src->umax_value;
		dst->var_off = tnum_add(d.var_off, src->var_off);
		break;
	case BPF_SUB:
		if (!__builtin_sub_overflow(d.smin_value, src->smax_value, &s1) &&
		    !__builtin_sub_overflow(d.smax_value, src->smin_value, &s2))
			dst->smin_value = s1, dst->smax_value = s2;
		if (d.umin_value >= src->umax_value)
			dst->umin_value = d.umin_value - src->umax_value,
			dst->umax_value = d.umax_value - src->umin_value;
		dst->var_off = tnum_sub(d.var_off, src->var_off);
		break;
	case BPF_MUL:
		if (d.umax_value <= U32_MAX && src->umax_value <= U32_MAX)
			dst->umin_value = d.umin_value * src->umin_value,
			dst->umax_value = d.umax_value * src->umax_value;
		dst->var_off = tnum_mul(d.var_off, src->var_off);
		break;
	case BPF_AND:
		dst->var_off = tnum_and(d.var_off, src->var_off);
		dst->umax_value = MIN(d.umax_value, src->umax_value);
		break;
	case BPF_OR:
		dst->var_off = tnum_or(d.var_off, src->var_off);
		dst->umin_value = MAX(d.umin_value, src->umin_value);
		break;
	case BPF_XOR:
		dst->var_off = tnum_xor(d.var_off, src->var_off);
		break;
	case BPF_LSH:
		if (src_const && k < 64) {
			if (d.umax_value <= (~0ULL >> k))
				dst->umin_value = d.umin_value << k,
				dst->umax_value = d.umax_value << k;
			dst->var_off = tnum_lshift(d.var_off, k);
		}
		break;
	case BPF_RSH:
		if (src_const && k < 64) {
			dst->umin_value = d.umin_value >> k;
			dst->umax_value = d.umax_value >> k;
			dst->var_off = tnum_rshift(d.var_off, k);
		}
		break;
	case BPF_ARSH:
		if (src_const && k < 64) {
			dst->smin_value = d.smin_value >> k;
			dst->smax_value = d.smax_value >> k;
			dst->var_off = tnum_arshift(d.var_off, k, 64);
		}
		break;
	case BPF_MOD:
		if (src_const && k) /* unsigned remainder: below the divisor */
			dst->umax_value = MIN(d.umax_value, k - 1);
		else if (src->umax_value) /* or, for a zero divisor, dst itself */
			dst->umax_value = MAX(d.umax_value, src->umax_value - 1);
		break;
	case BPF_DIV:
		dst->umax_value = d.umax_value; /* a quotient never exceeds the dividend */
		break;
	case BPF_NEG:
		if (tnum_is_const(d.var_off))
			mark_reg_known(dst, -d.var_off.value);
		break;
	}
	reg_bounds_sync(dst);
}

/* The same, 32-bit: computed on the low halves, the result zero-extended. */
static void scalar_alu32(struct bpf_reg_state *dst, const struct bpf_reg_state *src, u8 op)
{
	struct bpf_reg_state a = *dst, b = *src;

	/* a constant is computed exactly; otherwise only ops whose low bits depend only on low bits
	 * keep their known bits */
	if (tnum_is_const(a.var_off) && tnum_is_const(b.var_off) && op != BPF_DIV &&
	    op != BPF_MOD) {
		u32 x = a.var_off.value, y = b.var_off.value, r;
		switch (op) {
		case BPF_ADD:
			r = x + y;
			break;
		case BPF_SUB:
			r = x - y;
			break;
		case BPF_MUL:
			r = x * y;
			break;
		case BPF_OR:
			r = x | y;
			break;
		case BPF_AND:
			r = x & y;
			break;
		case BPF_XOR:
			r = x ^ y;
			break;
		case BPF_LSH:
			r = x << (y & 31);
			break;
		case BPF_RSH:
			r = x >> (y & 31);
			break;
		case BPF_ARSH:
			r = (u32)((s32)x >> (y & 31));
			break;
		case BPF_NEG:
			r = -x;
			break;
		default:
			r = y;
			break;
		}
		mark_reg_known(dst, r);
		return;
	}
	mark_reg_unknown(dst);
	switch (op) {
	case BPF_ADD:
		dst->var_off = tnum_add(a.var_off, b.var_off);
		break;
	case BPF_SUB:
		dst->var_off = tnum_sub(a.var_off, b.var_off);
		break;
	case BPF_MUL:
		dst->var_off = tnum_mul(a.var_off, b.var_off);
		break;
	case BPF_AND:
		dst->var_off = tnum_and(a.var_off, b.var_off);
		break;
	case BPF_OR:
		dst->var_off = tnum_or(a.var_off, b.var_off);
		break;
	case BPF_XOR:
		dst->var_off = tnum_xor(a.var_off, b.var_off);
		break;
	case BPF_LSH:
		if (tnum_is_const(b.var_off) && b.var_off.value < 32)
			dst->var_off = tnum_lshift(a.var_off, b.var_off.value);
		break;
	case BPF_RSH:
		if (tnum_is_const(b.var_off) && b.var_off.value < 32)
			dst->var_off = tnum_rshift(tnum_cast(a.var_off, 4), b.var_off.value);
		break;
	}
	dst->var_off = tnum_cast(dst->var_off, 4);
	dst->umax_value = U32_MAX;
	dst->smin_value = 0;
	dst->smax_value = U32_MAX;
	reg_bounds_sync(dst);
}

static const char *op_str(u8 op)
{
	static const char *const s[16] = { "+=",  "-=",	 "*=", "/=", "|=", "&=",   "<<=",
					   ">>=", "neg", "%=", "^=", "=",  "s>>=", "endian" };
	return s[op >> 4];
}

/* ptr += scalar / ptr -= scalar (Linux's adjust_ptr_min_max_vals()). */
static int adjust_ptr(struct bpf_verifier_env *env, const struct bpf_insn *insn,
		      struct bpf_reg_state *ptr, const struct bpf_reg_state *off, u32 dst)
{
	u8 op = BPF_OP(insn->code);
	struct bpf_reg_state res = *ptr;
	s64 k;

	if (BPF_CLASS(insn->code) == BPF_ALU) {
		verbose(env, "R%d 32-bit pointer arithmetic prohibited\n", dst);
		return -EACCES;
	}
	if (ptr->type == CONST_PTR_TO_MAP || ptr->type == PTR_TO_MAP_VALUE_OR_NULL ||
	    ptr->type == PTR_TO_MEM_OR_NULL) {
		verbose(env, "R%d pointer arithmetic on %s prohibited%s\n", dst,
			reg_type_str(ptr->type),
			ptr->type == CONST_PTR_TO_MAP ? "" : ", null-check it first");
		return -EACCES;
	}
	if (op != BPF_ADD && op != BPF_SUB) {
		if (op == BPF_AND || op == BPF_OR || op == BPF_XOR)
			verbose(env, "R%d bitwise operator %s on pointer prohibited\n", dst,
				op_str(op));
		else
			verbose(env, "R%d pointer arithmetic with %s operator prohibited\n", dst,
				op_str(op));
		return -EACCES;
	}
	if (tnum_is_const(off->var_off)) { /* the fixed part moves */
		k = (s64)off->var_off.value;
		if (op == BPF_SUB)
			k = -k;
		if (k <= -BPF_MAX_VAR_OFF || k >= BPF_MAX_VAR_OFF ||
		    ptr->off + k <= -BPF_MAX_VAR_OFF || ptr->off + k >= BPF_MAX_VAR_OFF) {
			verbose(env, "value %lld makes %s pointer be out of bounds\n", (long long)k,
				reg_type_str(ptr->type));
			return -EACCES;
		}
		res.off = (s32)(ptr->off + k);
	} else { /* the variable part grows */
		if (ptr->type == PTR_TO_CTX || ptr->type == PTR_TO_STACK) {
			verbose(env, "R%d variable %s access prohibited\n", dst,
				ptr->type == PTR_TO_CTX ? "ctx" : "stack");
			return -EACCES;
		}
		if (op == BPF_SUB) {
			verbose(env, "R%d tried to subtract pointer from scalar\n", dst);
			return -EACCES;
		}
		res.type = SCALAR_VALUE; /* reuse the scalar rules for the variable part */
		scalar_alu64(&res, off, BPF_ADD);
		res.type = ptr->type;
		res.map_ptr = ptr->map_ptr;
		res.off = ptr->off;
		res.mem_size = ptr->mem_size;
		res.id = ptr->id;
		res.ref_obj_id = ptr->ref_obj_id;
	}
	env->cur->regs[dst] = res;
	return 0;
}

static int check_alu_fields(struct bpf_verifier_env *env, const struct bpf_insn *insn)
{
	u8 op = BPF_OP(insn->code);

	if (op > BPF_END) {
		verbose(env, "invalid BPF_ALU opcode %x\n", op);
		return -EINVAL;
	}
	if (op == BPF_END || op == BPF_NEG) {
		if (insn->src_reg || insn->off ||
		    (op == BPF_NEG && (BPF_SRC(insn->code) != BPF_K || insn->imm)) ||
		    (op == BPF_END && ((insn->imm != 16 && insn->imm != 32 && insn->imm != 64) ||
				       BPF_CLASS(insn->code) == BPF_ALU64))) {
			verbose(env, "BPF_%s uses reserved fields\n",
				op == BPF_END ? "END" : "NEG");
			return -EINVAL;
		}
		return 0;
	}
	if ((BPF_SRC(insn->code) == BPF_X && (insn->imm || insn->off)) ||
	    (BPF_SRC(insn->code) == BPF_K && (insn->src_reg || insn->off))) {
		verbose(env, "BPF_ALU uses reserved fields\n");
		return -EINVAL;
	}
	if ((op == BPF_DIV || op == BPF_MOD) && BPF_SRC(insn->code) == BPF_K && !insn->imm) {
		verbose(env, "div by zero\n");
		return -EINVAL;
	}
	if ((op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) && BPF_SRC(insn->code) == BPF_K &&
	    (u32)insn->imm >= (BPF_CLASS(insn->code) == BPF_ALU64 ? 64U : 32U)) {
		verbose(env, "invalid shift %d\n", insn->imm);
		return -EINVAL;
	}
	return 0;
}

int check_alu_op(struct bpf_verifier_env *env, const struct bpf_insn *insn)
{
	struct bpf_reg_state *regs = env->cur->regs, *dst = &regs[insn->dst_reg], src;
	u8 op = BPF_OP(insn->code);
	bool is64 = BPF_CLASS(insn->code) == BPF_ALU64;
	int err = check_alu_fields(env, insn);

	if (err || (err = check_reg_arg(env, insn->dst_reg, op != BPF_MOV)))
		return err;
	if (BPF_SRC(insn->code) == BPF_X && op != BPF_END && op != BPF_NEG) {
		if ((err = check_reg_arg(env, insn->src_reg, true)))
			return err;
		src = regs[insn->src_reg];
	} else {
		mark_reg_not_init(&src);
		mark_reg_known(&src, is64 ? (u64)(s64)insn->imm : (u32)insn->imm);
	}
	if (op == BPF_MOV) {
		if (is64) {
			*dst = src;
		} else if (reg_is_pointer(&src) && !env->allow_ptr_leaks) {
			verbose(env, "R%d partial copy of pointer\n", insn->src_reg);
			return -EACCES;
		} else if (src.type == SCALAR_VALUE && src.umax_value <= U32_MAX) {
			*dst = src;
		} else {
			mark_reg_unknown(dst);
			dst->var_off =
				tnum_cast(src.type == SCALAR_VALUE ? src.var_off : tnum_unknown, 4);
			dst->umax_value = U32_MAX;
			reg_bounds_sync(dst);
		}
		return 0;
	}
	if (op == BPF_END) {
		mark_reg_unknown(dst);
		return 0;
	}
	if (reg_is_pointer(dst) || reg_is_pointer(&src)) {
		if (reg_is_pointer(dst) && reg_is_pointer(&src)) {
			if (op == BPF_SUB && is64 && dst->type == src.type &&
			    env->allow_ptr_leaks && dst->type == PTR_TO_STACK) {
				mark_reg_unknown(dst); /* a distance between two stack pointers */
				return 0;
			}
			verbose(env, "R%d pointer %s pointer prohibited\n", insn->dst_reg,
				op_str(op));
			return -EACCES;
		}
		if (reg_is_pointer(&src)) { /* scalar += ptr: the same as ptr + scalar */
			struct bpf_reg_state scalar = *dst;
			if (op != BPF_ADD) {
				verbose(env,
					"R%d tried to %s from different maps, paths or scalars\n",
					insn->dst_reg, op == BPF_SUB ? "sub" : "use");
				return -EACCES;
			}
			*dst = src;
			return adjust_ptr(env, insn, dst, &scalar, insn->dst_reg);
		}
		return adjust_ptr(env, insn, dst, &src, insn->dst_reg);
	}
	if (is64)
		scalar_alu64(dst, &src, op);
	else
		scalar_alu32(dst, &src, op);
	return 0;
}
