/* Helper calls in the verifier: each argument against the helper's proto, then what the call
 * leaves in R0..R5 (Linux's check_helper_call(), check_func_arg(), check_map_func_compatibility()). */
#include "kernel/bpf/verifier.h"
#include "lib/string.h"

#define BPF_MAX_VAR_SIZ (1 << 29)

struct call_meta {
	struct bpf_map *map;
	int mem_regno; /* the memory argument a size argument belongs to */
	bool mem_uninit;
	u32 const_size;
	u32 release_id;
};

static bool map_allows(struct bpf_verifier_env *env, const struct bpf_func_proto *fn, int id,
		       const struct bpf_map *map)
{
	bool ok;

	if (fn->map_type)
		ok = map->map_type == fn->map_type;
	else /* lookup/update/delete: maps with elements a program may touch */
		ok = map->map_type != BPF_MAP_TYPE_RINGBUF &&
		     map->map_type != BPF_MAP_TYPE_PERF_EVENT_ARRAY &&
		     map->map_type != BPF_MAP_TYPE_STACK_TRACE &&
		     map->map_type != BPF_MAP_TYPE_PROG_ARRAY;
	if (!ok)
		verbose(env, "cannot pass map_type %u into func bpf_%s#%d\n", map->map_type,
			func_id_name(id), id);
	return ok;
}

static int expect(struct bpf_verifier_env *env, u32 regno, const char *what)
{
	verbose(env, "R%d type=%s expected=%s\n", regno, reg_type_str(env->cur->regs[regno].type),
		what);
	return -EACCES;
}

static int check_size_arg(struct bpf_verifier_env *env, u32 regno, struct call_meta *meta,
			  bool zero_ok)
{
	struct bpf_reg_state *reg = &env->cur->regs[regno];

	if (reg->type != SCALAR_VALUE)
		return expect(env, regno, "scalar");
	if (reg->smin_value < 0) {
		verbose(env, "R%d min value is negative, either use unsigned or 'var &= const'\n",
			regno);
		return -EACCES;
	}
	if (reg->umin_value == 0 && !zero_ok) {
		verbose(env, "R%d invalid zero-sized read\n", regno);
		return -EACCES;
	}
	if (reg->umax_value >= BPF_MAX_VAR_SIZ) {
		verbose(env,
			"R%d unbounded memory access, use 'var &= const' or 'if (var < const)'\n",
			regno);
		return -EACCES;
	}
	return check_helper_mem_access(env, meta->mem_regno, reg->umax_value, zero_ok,
				       meta->mem_uninit);
}

static int check_func_arg(struct bpf_verifier_env *env, const struct bpf_func_proto *fn, int id,
			  int arg, struct call_meta *meta)
{
	u32 regno = arg + 1;
	struct bpf_reg_state *reg = &env->cur->regs[regno];
	enum bpf_arg_type t = fn->arg_type[arg];
	int err = check_reg_arg(env, regno, true);

	if (err)
		return err;
	switch (t) {
	case ARG_ANYTHING:
		if (reg_is_pointer(reg) && !env->allow_ptr_leaks) {
			verbose(env, "R%d leaks addr into helper function\n", regno);
			return -EACCES;
		}
		return 0;
	case ARG_CONST_MAP_PTR:
		if (reg->type != CONST_PTR_TO_MAP)
			return expect(env, regno, "map_ptr");
		meta->map = reg->map_ptr;
		return map_allows(env, fn, id, meta->map) ? 0 : -EINVAL;
	case ARG_PTR_TO_MAP_KEY:
	case ARG_PTR_TO_MAP_VALUE:
		if (!meta->map) {
			verbose(env, "invalid map_ptr to access map->%s\n",
				t == ARG_PTR_TO_MAP_KEY ? "key" : "value");
			return -EACCES;
		}
		return check_helper_mem_access(env, regno,
					       t == ARG_PTR_TO_MAP_KEY ? meta->map->key_size
								       : meta->map->value_size,
					       false, false);
	case ARG_PTR_TO_MEM:
	case ARG_PTR_TO_UNINIT_MEM:
		if (reg->type != PTR_TO_STACK && reg->type != PTR_TO_MAP_VALUE &&
		    reg->type != PTR_TO_MEM)
			return expect(env, regno, "fp, map_value, mem");
		meta->mem_regno = regno;
		meta->mem_uninit = t == ARG_PTR_TO_UNINIT_MEM;
		return 0;
	case ARG_CONST_SIZE:
	case ARG_CONST_SIZE_OR_ZERO:
		return check_size_arg(env, regno, meta, t == ARG_CONST_SIZE_OR_ZERO);
	case ARG_PTR_TO_CTX:
		if (reg->type != PTR_TO_CTX)
			return expect(env, regno, "ctx");
		if (reg->off || !tnum_is_const(reg->var_off) || reg->var_off.value) {
			verbose(env, "dereference of modified ctx ptr R%d off=%d disallowed\n",
				regno, reg->off);
			return -EACCES;
		}
		return 0;
	case ARG_PTR_TO_ALLOC_MEM:
		if (reg->type != PTR_TO_MEM || !reg->ref_obj_id)
			return expect(env, regno, "alloc_mem");
		if (reg->off || !tnum_is_const(reg->var_off) || reg->var_off.value) {
			verbose(env, "R%d must have zero offset when passed to release func\n",
				regno);
			return -EACCES;
		}
		meta->release_id = reg->ref_obj_id;
		return 0;
	case ARG_CONST_ALLOC_SIZE_OR_ZERO:
		if (reg->type != SCALAR_VALUE || !tnum_is_const(reg->var_off)) {
			verbose(env, "R%d is not a known constant'\n", regno);
			return -EACCES;
		}
		if (reg->var_off.value >= BPF_MAX_VAR_SIZ) {
			verbose(env, "R%d unbounded memory access\n", regno);
			return -EACCES;
		}
		meta->const_size = reg->var_off.value;
		return 0;
	default:
		return 0;
	}
}

/* The reference released: every register and spill, in every frame, that held it is a plain
 * number now. */
static void release_reference(struct bpf_verifier_state *st, u32 id)
{
	for (int i = 0; i < MAX_ACQUIRED_REFS; i++)
		if (st->refs[i] == id)
			st->refs[i] = 0;
	for (u32 f = 0; f <= st->curframe; f++) {
		struct bpf_reg_state *regs = frame_regs(st, f);
		struct bpf_stack_state *stack = frame_stack(st, f);

		for (int i = 0; i < MAX_BPF_REG; i++)
			if (regs[i].ref_obj_id == id)
				mark_reg_unknown(&regs[i]);
		for (int s = 0; s < MAX_BPF_STACK_SLOTS; s++)
			if (stack[s].slot_type[7] == STACK_SPILL &&
			    stack[s].spilled_ptr.ref_obj_id == id)
				mark_reg_unknown(&stack[s].spilled_ptr);
	}
}

static int acquire_reference(struct bpf_verifier_env *env, u32 id, int insn_idx)
{
	for (int i = 0; i < MAX_ACQUIRED_REFS; i++)
		if (!env->cur->refs[i]) {
			env->cur->refs[i] = id;
			env->cur->ref_insn[i] = insn_idx;
			return 0;
		}
	verbose(env, "too many acquired references\n");
	return -EINVAL;
}

static int set_return(struct bpf_verifier_env *env, const struct bpf_func_proto *fn,
		      const struct call_meta *meta, int insn_idx)
{
	struct bpf_reg_state *r0 = &env->cur->regs[0];

	switch (fn->ret_type) {
	case RET_VOID:
		mark_reg_not_init(r0);
		return 0;
	case RET_PTR_TO_MAP_VALUE_OR_NULL:
		mark_reg_not_init(r0);
		mark_reg_known(r0, 0);
		r0->type = PTR_TO_MAP_VALUE_OR_NULL;
		r0->map_ptr = meta->map;
		r0->id = ++env->id_gen;
		return 0;
	case RET_PTR_TO_ALLOC_MEM_OR_NULL:
		mark_reg_not_init(r0);
		mark_reg_known(r0, 0);
		r0->type = PTR_TO_MEM_OR_NULL;
		r0->mem_size = meta->const_size;
		r0->id = r0->ref_obj_id = ++env->id_gen;
		return acquire_reference(env, r0->id, insn_idx);
	default:
		mark_reg_unknown(r0);
		return 0;
	}
}

/*
 * A tail call leaves this frame for the target's, so it may not happen while a ring buffer record
 * is held: the target could never submit it. Inside a bpf-to-bpf callee it may (Linux's x86 JIT
 * since 5.10): check_max_stack_depth() bounds the frames the target then runs under.
 */
static int check_tail_call(struct bpf_verifier_env *env)
{
	for (int i = 0; i < MAX_ACQUIRED_REFS; i++)
		if (env->cur->refs[i]) {
			verbose(env, "Unreleased reference id=%u alloc_insn=%u\n",
				env->cur->refs[i], env->cur->ref_insn[i]);
			verbose(env, "tail_call would lead to reference leak\n");
			return -EINVAL;
		}
	return 0;
}

int check_helper_call(struct bpf_verifier_env *env, const struct bpf_insn *insn, int insn_idx)
{
	const struct bpf_func_proto *fn;
	struct call_meta meta = { .mem_regno = -1 };
	int id = insn->imm, err;

	if (insn->src_reg || insn->dst_reg || insn->off || BPF_SRC(insn->code) != BPF_K) {
		verbose(env, "BPF_CALL uses reserved fields\n");
		return -EINVAL;
	}
	if (id <= 0 || id >= __BPF_FUNC_MAX_ID) {
		verbose(env, "invalid func unknown#%d\n", id);
		return -EINVAL;
	}
	fn = env->ops->get_func_proto(id);
	if (!fn) {
		verbose(env, "unknown func bpf_%s#%d\n", func_id_name(id), id);
		return -EINVAL;
	}
	for (int i = 0; i < 5 && fn->arg_type[i] != ARG_DONTCARE; i++)
		if ((err = check_func_arg(env, fn, id, i, &meta)))
			return err;
	if (id == BPF_FUNC_tail_call && (err = check_tail_call(env)))
		return err;
	if (fn->releases_ref)
		release_reference(env->cur, meta.release_id);
	for (int i = 1; i <= 5; i++)
		mark_reg_not_init(&env->cur->regs[i]);
	env->aux[insn_idx].fn = fn;
	return set_return(env, fn, &meta, insn_idx);
}
