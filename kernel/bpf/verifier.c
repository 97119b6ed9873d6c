/* The verifier's walk: every path of a program, state pruning, the complexity limit (Linux's
 * kernel/bpf/verifier.c: bpf_check(), check_cfg(), do_check(), is_state_visited()). */
#include "kernel/bpf/verifier.h"
#include "kernel/bpf/maps.h"
#include "kernel/mm/mm.h"
#include "lib/string.h"

/* Instructions walked before a program is refused as too complex: Linux's 1M; the fuzz target
 * lowers it so that each input stays short. */
u32 bpf_complexity_limit = BPF_COMPLEXITY_LIMIT_INSNS;

/* ---- ld_imm64 of a map: the fd becomes the map, as Linux's resolve_pseudo_ldimm64() ---- */

static int add_used_map(struct bpf_verifier_env *env, struct bpf_map *map)
{
	struct bpf_prog *prog = env->prog;
	struct bpf_map **maps;

	for (u32 i = 0; i < prog->used_map_cnt; i++)
		if (prog->used_maps[i] == map) {
			bpf_map_put(map); /* already held once */
			return 0;
		}
	if (prog->used_map_cnt >= 64) { /* Linux: MAX_USED_MAPS */
		verbose(env, "too many maps used by the program\n");
		bpf_map_put(map);
		return -E2BIG;
	}
	maps = kmalloc((prog->used_map_cnt + 1) * sizeof(*maps));
	if (!maps) {
		bpf_map_put(map);
		return -ENOMEM;
	}
	memcpy(maps, prog->used_maps, prog->used_map_cnt * sizeof(*maps));
	maps[prog->used_map_cnt++] = map;
	kfree(prog->used_maps);
	prog->used_maps = maps;
	return 0;
}

static int resolve_pseudo_ldimm64(struct bpf_verifier_env *env)
{
	struct bpf_insn *insn = env->prog->insnsi;
	u32 len = env->prog->len;

	for (u32 i = 0; i < len; i++) {
		struct bpf_map *map;
		int err;

		if (insn[i].code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		if (i == len - 1 || insn[i + 1].code || insn[i + 1].dst_reg ||
		    insn[i + 1].src_reg || insn[i + 1].off) {
			verbose(env, "invalid bpf_ld_imm64 insn\n");
			return -EINVAL;
		}
		if (insn[i].src_reg == 0)
			goto next;
		if (insn[i].src_reg != BPF_PSEUDO_MAP_FD &&
		    insn[i].src_reg != BPF_PSEUDO_MAP_VALUE) {
			verbose(env, "unrecognized bpf_ld_imm64 insn\n");
			return -EINVAL;
		}
		map = bpf_map_get(insn[i].imm);
		if (IS_ERR(map)) {
			verbose(env, "fd %d is not pointing to valid bpf_map\n", insn[i].imm);
			return PTR_ERR(map);
		}
		if (insn[i].src_reg == BPF_PSEUDO_MAP_VALUE &&
		    (map->map_type != BPF_MAP_TYPE_ARRAY || map->max_entries != 1 ||
		     (u32)insn[i + 1].imm >= map->value_size)) {
			verbose(env, "invalid access to map value pointer, value_size=%u off=%u\n",
				map->value_size, (u32)insn[i + 1].imm);
			bpf_map_put(map);
			return -EINVAL;
		}
		env->aux[i].map_ptr = map;
		err = add_used_map(env, map);
		if (err)
			return err;
	next:
		i++; /* the second half */
	}
	return 0;
}

/* ---- check_cfg(): jumps in range, every instruction reachable, no back-edge unless allowed ---- */

static int jump_target(struct bpf_verifier_env *env, int from, int to, int *color, int *stack,
		       int *sp, bool call)
{
	if (to < 0 || to >= (int)env->prog->len) {
		verbose(env, "jump out of range from insn %d to %d\n", from, to);
		return -EINVAL;
	}
	if (to > 0 && env->prog->insnsi[to - 1].code == (BPF_LD | BPF_IMM | BPF_DW) &&
	    !env->prog->insnsi[to].code &&
	    (to < 2 || env->prog->insnsi[to - 2].code != (BPF_LD | BPF_IMM | BPF_DW))) {
		verbose(env, "jump into the middle of ldimm64 insn %d\n", to - 1);
		return -EINVAL;
	}
	/* a loop must end, which the walk proves; a recursive call never may (8 frames) */
	if (color[to] == 1 && (!env->allow_ptr_leaks || call)) {
		verbose(env, "back-edge from insn %d to %d\n", from, to);
		return -EINVAL;
	}
	if (color[to] == 0) {
		color[to] = 1;
		stack[(*sp)++] = to;
	}
	return 0;
}

#define NO_SUCC (-0x7fffffff - 1) /* any other value is a target, in range or not */

/* The successors of insn i: fall-through and/or jump target, NO_SUCC for none. */
static void successors(const struct bpf_insn *insn, int i, int succ[2])
{
	u8 cls = BPF_CLASS(insn->code), op = BPF_OP(insn->code);

	succ[0] = i + 1;
	succ[1] = NO_SUCC;
	if (insn->code == (BPF_LD | BPF_IMM | BPF_DW))
		succ[0] = i + 2;
	if (cls != BPF_JMP && cls != BPF_JMP32)
		return;
	if (op == BPF_EXIT)
		succ[0] = NO_SUCC;
	else if (op == BPF_JA)
		succ[0] = i + 1 + insn->off;
	else if (op != BPF_CALL || bpf_pseudo_call(insn))
		succ[1] = i + 1 + (op == BPF_CALL ? insn->imm : insn->off);
}

static void mark_prune_point(struct bpf_verifier_env *env, int i)
{
	if (i >= 0 && i < (int)env->prog->len)
		env->aux[i].prune_point = true;
}

/* An iterative depth-first walk: color 1 while a node's descendants are being walked, 2 after. */
static int check_cfg(struct bpf_verifier_env *env)
{
	int len = env->prog->len, sp = 0, err = 0;
	int *color = kzalloc(len * sizeof(int)), *stack = kmalloc(len * sizeof(int));
	int *next = kzalloc(len * sizeof(int)); /* which successor to try next */

	if (!color || !stack || !next) {
		err = -ENOMEM;
		goto out;
	}
	color[0] = 1;
	stack[sp++] = 0;
	while (sp && !err) {
		int i = stack[sp - 1], succ[2];

		successors(&env->prog->insnsi[i], i, succ);
		if (succ[1] != NO_SUCC) { /* a conditional jump: both ends are prune points */
			mark_prune_point(env, succ[0]);
			mark_prune_point(env, succ[1]);
		} else if (BPF_CLASS(env->prog->insnsi[i].code) == BPF_JMP &&
			   BPF_OP(env->prog->insnsi[i].code) == BPF_JA) {
			mark_prune_point(env, succ[0]);
		}
		if (next[i] < 2 && succ[next[i]] != NO_SUCC) {
			err = jump_target(env, i, succ[next[i]], color, stack, &sp,
					  next[i] == 1 && bpf_pseudo_call(&env->prog->insnsi[i]));
			next[i]++;
			continue;
		}
		if (next[i] < 2) {
			next[i]++;
			continue;
		}
		color[i] = 2;
		sp--;
	}
	for (int i = 0; i < len && !err; i++) {
		if (color[i])
			continue;
		if (i > 0 && env->prog->insnsi[i - 1].code == (BPF_LD | BPF_IMM | BPF_DW) &&
		    color[i - 1])
			continue; /* the second half of a reached ld_imm64 */
		verbose(env, "unreachable insn %d\n", i);
		err = -EINVAL;
	}
out:
	kfree(color);
	kfree(stack);
	kfree(next);
	return err;
}

/* ---- pending paths ---- */

struct bpf_verifier_state *push_stack(struct bpf_verifier_env *env, int insn_idx, int prev_idx)
{
	size_t size = state_size(env->cur);
	struct bpf_verifier_stack_elem *e =
		kmalloc(offsetof(struct bpf_verifier_stack_elem, st) + size);

	if (!e)
		return NULL;
	memcpy(&e->st, env->cur, size);
	e->insn_idx = insn_idx;
	e->prev_insn_idx = prev_idx;
	e->parent = env->cur_parent;
	if (e->parent)
		e->parent->branches++;
	e->next = env->head;
	env->head = e;
	env->stack_size++;
	return &e->st;
}

/* The path ended (exit, or pruned): every prune point above it loses a branch. */
static void path_done(struct bpf_verifier_env *env)
{
	for (struct bpf_explored_state *p = env->cur_parent; p && !--p->branches; p = p->parent)
		;
	env->cur_parent = NULL;
}

static int pop_stack(struct bpf_verifier_env *env, int *insn_idx, int *prev_idx)
{
	struct bpf_verifier_stack_elem *e = env->head;

	if (!e)
		return -ENOENT;
	memcpy(env->cur, &e->st, state_size(&e->st));
	env->cur_parent = e->parent;
	*insn_idx = e->insn_idx;
	*prev_idx = e->prev_insn_idx;
	env->head = e->next;
	env->stack_size--;
	kfree(e);
	return 0;
}

/* ---- do_check(): one instruction at a time, every pending path in turn ---- */

static void init_state(struct bpf_verifier_env *env)
{
	struct bpf_reg_state *regs = env->cur->regs;

	memset(env->cur, 0, sizeof(*env->cur));
	for (int i = 0; i < MAX_BPF_REG; i++)
		mark_reg_not_init(&regs[i]);
	regs[BPF_REG_FP].type = PTR_TO_STACK;
	mark_reg_known(&regs[BPF_REG_FP], 0);
	regs[BPF_REG_FP].type = PTR_TO_STACK;
	regs[1].type = PTR_TO_CTX;
	mark_reg_known(&regs[1], 0);
	regs[1].type = PTR_TO_CTX;
	env->cur->callsite[0] = -1;
}

static int check_exit(struct bpf_verifier_env *env)
{
	struct bpf_verifier_state *st = env->cur;
	int err = check_reg_arg(env, 0, true);

	if (err)
		return err;
	for (int i = 0; i < MAX_ACQUIRED_REFS; i++)
		if (st->refs[i]) {
			verbose(env, "Unreleased reference id=%u alloc_insn=%u\n", st->refs[i],
				st->ref_insn[i]);
			return -EINVAL;
		}
	if (!env->allow_ptr_leaks && reg_is_pointer(&st->regs[0])) {
		verbose(env, "R0 leaks addr as return value\n");
		return -EACCES;
	}
	return 0;
}

/* What one instruction does to the state: 0, 1 when the path ended here, or -errno. */
static int do_check_insn(struct bpf_verifier_env *env, int *insn_idx)
{
	const struct bpf_insn *insn = &env->prog->insnsi[*insn_idx];
	u8 cls = BPF_CLASS(insn->code), op = BPF_OP(insn->code);

	/* before any register is looked at: r11..r15 do not exist */
	if (insn->dst_reg >= MAX_BPF_REG || insn->src_reg >= MAX_BPF_REG) {
		verbose(env, "R%d is invalid\n",
			insn->dst_reg >= MAX_BPF_REG ? insn->dst_reg : insn->src_reg);
		return -EINVAL;
	}
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		return check_alu_op(env, insn);
	case BPF_LD:
		return check_mem_insn(env, insn) ?: (++*insn_idx, 0);
	case BPF_LDX:
	case BPF_ST:
	case BPF_STX:
		return check_mem_insn(env, insn);
	default: /* BPF_JMP, BPF_JMP32 */
		if (op == BPF_EXIT && cls == BPF_JMP && !insn->src_reg && !insn->dst_reg &&
		    !insn->off && !insn->imm && BPF_SRC(insn->code) == BPF_K) {
			if (env->cur->curframe) /* back to the caller */
				return check_reg_arg(env, 0, true)
					       ?: prepare_func_exit(env, insn_idx);
			return check_exit(env) ?: 1;
		}
		if (bpf_pseudo_call(insn))
			return check_func_call(env, insn, insn_idx);
		if (op == BPF_CALL && cls == BPF_JMP)
			return check_helper_call(env, insn, *insn_idx);
		if (op == BPF_JA && cls == BPF_JMP) {
			if (insn->src_reg || insn->dst_reg || insn->imm ||
			    BPF_SRC(insn->code) != BPF_K) {
				verbose(env, "BPF_JA uses reserved fields\n");
				return -EINVAL;
			}
			*insn_idx += insn->off;
			return 0;
		}
		if (op == BPF_EXIT || op == BPF_CALL || op == BPF_JA || op > BPF_JSLE) {
			verbose(env, "unknown opcode %02x\n", insn->code);
			return -EINVAL;
		}
		return check_cond_jmp_op(env, insn, insn_idx);
	}
}

static int do_check(struct bpf_verifier_env *env)
{
	int insn_idx = 0, prev_idx = 0, err;
	bool print_state = false;

	init_state(env);
	for (;;) {
		if (++env->insn_processed > bpf_complexity_limit) {
			verbose(env, "BPF program is too large. Processed %u insn\n",
				env->insn_processed);
			return -E2BIG;
		}
		if (env->aux[insn_idx].prune_point) {
			err = is_state_visited(env, insn_idx);
			if (err < 0)
				return err;
			if (err == 1) {
				if (env->log->level)
					verbose(env, "%d: safe\n", insn_idx);
				goto next_path;
			}
		}
		if (env->log->level > 1 || (env->log->level && print_state)) {
			verbose(env, env->log->level > 1 ? "%d:" : "\nfrom %d to %d:",
				env->log->level > 1 ? insn_idx : prev_idx, insn_idx);
			print_verifier_state(env, env->cur);
			print_state = false;
		}
		if (env->log->level) {
			verbose(env, "%d: (%02x) ", insn_idx, env->prog->insnsi[insn_idx].code);
			print_bpf_insn(env, &env->prog->insnsi[insn_idx]);
		}
		env->aux[insn_idx].seen = true;
		prev_idx = insn_idx;
		err = do_check_insn(env, &insn_idx);
		if (err < 0)
			return err;
		if (!err) {
			insn_idx++;
			continue;
		}
	next_path:
		path_done(env);
		if (pop_stack(env, &insn_idx, &prev_idx))
			return 0;
		print_state = true;
	}
}

/* ---- after the walk: what the interpreter and the JIT run ---- */

static void fixup_insns(struct bpf_verifier_env *env)
{
	struct bpf_insn *insn = env->prog->insnsi;

	for (u32 i = 0; i < env->prog->len; i++) {
		if (env->aux[i].map_ptr) {
			u64 addr = (u64)(unsigned long)env->aux[i].map_ptr;
			if (insn[i].src_reg == BPF_PSEUDO_MAP_VALUE)
				addr = (u64)(unsigned long)bpf_array_value_addr(
					env->aux[i].map_ptr, (u32)insn[i + 1].imm);
			insn[i].imm = (s32)(u32)addr;
			insn[i + 1].imm = (s32)(u32)(addr >> 32);
			insn[i].src_reg = 0;
		}
		if (env->aux[i].fn && insn[i].imm == BPF_FUNC_tail_call) {
			/* carried out by the runtime itself: no helper to call (Linux's fixup) */
			insn[i].code = BPF_JMP | BPF_TAIL_CALL;
			insn[i].imm = 0;
		} else if (env->aux[i].fn)
			insn[i].imm = (s32)((unsigned long)env->aux[i].fn->func -
					    (unsigned long)__bpf_call_base);
	}
}

static void free_env(struct bpf_verifier_env *env)
{
	int i, p = 0;

	while (!pop_stack(env, &i, &p))
		;
	for (u32 n = 0; env->explored && n < env->prog->len; n++)
		for (struct bpf_explored_state *s = env->explored[n], *next; s; s = next) {
			next = s->next;
			kfree(s);
		}
	kfree(env->explored);
	kfree(env->aux);
	kfree(env->cur);
	kfree(env->subprog);
}

int bpf_check(struct bpf_prog *prog, struct bpf_verifier_log *log, bool privileged)
{
	struct bpf_verifier_env env = { .prog = prog, .log = log, .allow_ptr_leaks = privileged };
	int err = -ENOMEM;

	env.ops = bpf_verifier_ops_of(prog->type);
	if (!env.ops)
		return -EINVAL;
	env.aux = kzalloc(prog->len * sizeof(*env.aux));
	env.explored = kzalloc(prog->len * sizeof(*env.explored));
	env.cur = kzalloc(sizeof(*env.cur));
	env.subprog = kzalloc((BPF_MAX_SUBPROGS + 1) * sizeof(*env.subprog));
	if (!env.aux || !env.explored || !env.cur || !env.subprog)
		goto out;
	err = bpf_prog_calc_tag(prog); /* on the instructions as loaded, before any rewriting */
	if (!err)
		err = resolve_pseudo_ldimm64(&env);
	if (!err)
		err = check_subprogs(&env);
	if (!err)
		err = check_cfg(&env);
	if (!err)
		err = compute_live_regs(&env);
	if (!err)
		err = do_check(&env);
	if (!err)
		err = check_max_stack_depth(&env);
	if (log->level)
		verbose(&env,
			"processed %u insns (limit %u) max_states_per_insn %u total_states %u "
			"peak_states %u mark_read 0\n",
			env.insn_processed, bpf_complexity_limit, env.max_states_per_insn,
			env.total_states, env.peak_states);
	prog->verified_insns = env.insn_processed;
	prog->stack_depth = env.subprog[0].stack_depth;
	if (!err)
		err = fixup_subprogs(&env);
	if (!err)
		fixup_insns(&env);
out:
	free_env(&env);
	return err;
}
