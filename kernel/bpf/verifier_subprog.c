/* bpf-to-bpf calls in the verifier: the program cut into functions, a frame pushed at each call
 * and popped at its exit, and the stack all frames use together (Linux's check_subprogs(),
 * check_func_call(), prepare_func_exit(), check_max_stack_depth()). */
#include "kernel/bpf/verifier.h"
#include "kernel/mm/mm.h"
#include "lib/string.h"

bool bpf_pseudo_call(const struct bpf_insn *insn)
{
	return insn->code == (BPF_JMP | BPF_CALL) && insn->src_reg == BPF_PSEUDO_CALL;
}

struct bpf_reg_state *frame_regs(struct bpf_verifier_state *st, u32 frameno)
{
	return frameno == st->curframe ? st->regs : st->caller[frameno].regs;
}

struct bpf_stack_state *frame_stack(struct bpf_verifier_state *st, u32 frameno)
{
	return frameno == st->curframe ? st->stack : st->caller[frameno].stack;
}

/* The function insn_idx belongs to: the last one starting at or before it. */
int subprog_of(const struct bpf_verifier_env *env, int insn_idx)
{
	int lo = 0, hi = env->subprog_cnt - 1;

	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if ((int)env->subprog[mid].start <= insn_idx)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* A function starting at start, kept in order of start. */
static int add_subprog(struct bpf_verifier_env *env, int start)
{
	u32 i = 0;

	while (i < env->subprog_cnt && (int)env->subprog[i].start < start)
		i++;
	if (i < env->subprog_cnt && (int)env->subprog[i].start == start)
		return 0;
	if (env->subprog_cnt >= BPF_MAX_SUBPROGS) {
		verbose(env, "too many subprograms\n");
		return -E2BIG;
	}
	memmove(&env->subprog[i + 1], &env->subprog[i],
		(env->subprog_cnt - i) * sizeof(env->subprog[0]));
	env->subprog[i].start = start;
	env->subprog[i].stack_depth = 0;
	env->subprog_cnt++;
	return 0;
}

static bool is_jump(const struct bpf_insn *insn)
{
	u8 cls = BPF_CLASS(insn->code), op = BPF_OP(insn->code);

	return (cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT;
}

/* Each function's jumps stay inside it, and it ends in an exit or a jump back. */
static int check_subprog_jumps(struct bpf_verifier_env *env, u32 s)
{
	const struct bpf_insn *insn = env->prog->insnsi;
	int start = env->subprog[s].start, end = env->subprog[s + 1].start;
	u8 last;

	for (int i = start; i < end; i++) {
		int to = i + 1 + insn[i].off;

		if (insn[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			i++;
			continue;
		}
		if (is_jump(&insn[i]) && (to < start || to >= end)) {
			verbose(env, "jump out of range from insn %d to %d\n", i, to);
			return -EINVAL;
		}
	}
	last = insn[end - 1].code;
	if (last != (BPF_JMP | BPF_EXIT) && last != (BPF_JMP | BPF_JA)) {
		verbose(env, "last insn is not an exit or jmp\n");
		return -EINVAL;
	}
	return 0;
}

int check_subprogs(struct bpf_verifier_env *env)
{
	const struct bpf_insn *insn = env->prog->insnsi;
	int len = env->prog->len, err;

	env->subprog_cnt = 1;
	env->subprog[0].start = 0;
	for (int i = 0; i < len; i++) {
		if (!bpf_pseudo_call(&insn[i]))
			continue;
		if (!env->allow_ptr_leaks) {
			verbose(env,
				"loading/calling other bpf or kernel functions are allowed for "
				"CAP_BPF and CAP_SYS_ADMIN\n");
			return -EPERM;
		}
		if (insn[i].off || insn[i].dst_reg || BPF_SRC(insn[i].code) != BPF_K) {
			verbose(env, "BPF_CALL uses reserved fields\n");
			return -EINVAL;
		}
		if (i + 1 + (s64)insn[i].imm < 0 || i + 1 + (s64)insn[i].imm >= len) {
			verbose(env, "call to invalid destination\n");
			return -EINVAL;
		}
		err = add_subprog(env, i + 1 + insn[i].imm);
		if (err)
			return err;
	}
	env->subprog[env->subprog_cnt].start = len;
	for (u32 s = 0; s < env->subprog_cnt; s++) {
		err = check_subprog_jumps(env, s);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A call: the caller's frame is kept as it is, and the callee starts with R1-R5 as the caller
 * left them, its own empty stack under R10, and nothing else. Every call site walks the callee
 * again in its own context, as Linux does for functions without BTF.
 */
int check_func_call(struct bpf_verifier_env *env, const struct bpf_insn *insn, int *insn_idx)
{
	struct bpf_verifier_state *st = env->cur;
	int target = *insn_idx + insn->imm + 1;
	u32 f = st->curframe;

	if (f + 1 >= MAX_CALL_FRAMES) {
		verbose(env, "the call stack of %d frames is too deep\n", f + 2);
		return -E2BIG;
	}
	if (env->log->level) {
		verbose(env, "caller:\n");
		print_verifier_state(env, st);
	}
	memcpy(st->caller[f].regs, st->regs, sizeof(st->regs));
	memcpy(st->caller[f].stack, st->stack, sizeof(st->stack));
	st->callsite[f] = *insn_idx;
	st->curframe = f + 1;
	st->subprogno[f + 1] = subprog_of(env, target);
	for (int i = 0; i < MAX_BPF_REG; i++)
		if (i < BPF_REG_1 || i > BPF_REG_5)
			mark_reg_not_init(&st->regs[i]);
	st->regs[BPF_REG_FP].type = PTR_TO_STACK;
	mark_reg_known(&st->regs[BPF_REG_FP], 0);
	st->regs[BPF_REG_FP].frameno = f + 1;
	memset(st->stack, 0, sizeof(st->stack)); /* STACK_INVALID */
	if (env->log->level) {
		verbose(env, "callee:\n");
		print_verifier_state(env, st);
	}
	*insn_idx = target - 1; /* do_check() steps on to the callee's first insn */
	return 0;
}

/* The callee's exit: its R0 is the caller's, R1-R5 are gone, R6-R9 and the stack as they were. */
int prepare_func_exit(struct bpf_verifier_env *env, int *insn_idx)
{
	struct bpf_verifier_state *st = env->cur;
	struct bpf_reg_state r0 = st->regs[BPF_REG_0];
	u32 f = st->curframe;

	if (r0.type == PTR_TO_STACK && r0.frameno == f) {
		verbose(env, "cannot return stack pointer to the caller\n");
		return -EINVAL;
	}
	if (env->log->level) {
		verbose(env, "returning from callee:\n");
		print_verifier_state(env, st);
	}
	memcpy(st->regs, st->caller[f - 1].regs, sizeof(st->regs));
	memcpy(st->stack, st->caller[f - 1].stack, sizeof(st->stack));
	st->curframe = f - 1;
	st->regs[BPF_REG_0] = r0;
	for (int i = BPF_REG_1; i <= BPF_REG_5; i++)
		mark_reg_not_init(&st->regs[i]);
	*insn_idx = st->callsite[f - 1]; /* do_check() steps on past the call */
	if (env->log->level) {
		verbose(env, "to caller at %d:\n", *insn_idx + 1);
		print_verifier_state(env, st);
	}
	return 0;
}

/* What a frame takes of the 512 bytes: Linux rounds each to 32, at least one slot's worth. */
static u32 frame_size(const struct bpf_subprog_info *sp)
{
	return ALIGN(MAX(sp->stack_depth, 1U), 32);
}

/* Deepest chain seen into each function: one reached again no deeper needs no second walk. */
struct chain_seen {
	u32 depth;
	int frame;
};

/* Whether function s calls bpf_tail_call() (before fixup_insns() turns the call into a jump). */
static bool has_tail_call(const struct bpf_verifier_env *env, u32 s)
{
	const struct bpf_insn *insn = env->prog->insnsi;

	for (u32 i = env->subprog[s].start; i < env->subprog[s + 1].start; i++)
		if (insn[i].code == (BPF_JMP | BPF_CALL) && !insn[i].src_reg &&
		    insn[i].imm == BPF_FUNC_tail_call)
			return true;
	return false;
}

/*
 * Every chain of calls the code holds, walked or not, fits the stack all frames share. A tail
 * call inside a callee replaces only the callee's frame: the callers' stay under the target's,
 * and each of up to MAX_TAIL_CALL_CNT targets may do it again. So, as Linux's
 * check_max_stack_depth(), the frames above a callee that tail-calls must stay under 256 bytes,
 * which keeps the worst case near 33 * 256 + 512 bytes.
 */
static int chain_depth(struct bpf_verifier_env *env, struct chain_seen *seen, u32 s, int frame,
		       u32 depth)
{
	const struct bpf_insn *insn = env->prog->insnsi;

	if (s && depth >= 256 && has_tail_call(env, s)) {
		verbose(env,
			"tail_calls are not allowed when call stack of previous frames is %u "
			"bytes. Too large\n",
			depth);
		return -EACCES;
	}
	depth += frame_size(&env->subprog[s]);
	if (depth > MAX_BPF_STACK) {
		verbose(env, "combined stack size of %d calls is %u. Too large\n", frame + 1,
			depth);
		return -EACCES;
	}
	if (seen[s].depth >= depth && seen[s].frame >= frame)
		return 0;
	seen[s].depth = MAX(seen[s].depth, depth);
	seen[s].frame = MAX(seen[s].frame, frame);
	for (u32 i = env->subprog[s].start; i < env->subprog[s + 1].start; i++) {
		int err;

		if (!bpf_pseudo_call(&insn[i]))
			continue;
		if (frame + 1 >= MAX_CALL_FRAMES) {
			verbose(env, "the call stack of %d frames is too deep !\n", frame + 1);
			return -E2BIG;
		}
		err = chain_depth(env, seen, subprog_of(env, i + 1 + insn[i].imm), frame + 1,
				  depth);
		if (err)
			return err;
	}
	return 0;
}

int check_max_stack_depth(struct bpf_verifier_env *env)
{
	struct chain_seen *seen = kzalloc(env->subprog_cnt * sizeof(*seen));
	int err;

	if (!seen)
		return -ENOMEM;
	for (u32 s = 0; s < env->subprog_cnt; s++)
		seen[s].frame = -1;
	err = chain_depth(env, seen, 0, 0, 0);
	kfree(seen);
	return err;
}

/*
 * For the interpreter, which keeps every frame in one 512-byte stack: each call says how much of
 * it its caller's frame takes (off, unused by a call otherwise); for the JIT, each function's
 * start and depth.
 */
int fixup_subprogs(struct bpf_verifier_env *env)
{
	struct bpf_prog *prog = env->prog;
	struct bpf_insn *insn = prog->insnsi;

	for (u32 i = 0; i < prog->len; i++)
		if (bpf_pseudo_call(&insn[i]))
			insn[i].off = frame_size(&env->subprog[subprog_of(env, i)]);
	prog->subprogs = kmalloc(env->subprog_cnt * sizeof(*prog->subprogs));
	if (!prog->subprogs)
		return -ENOMEM;
	memcpy(prog->subprogs, env->subprog, env->subprog_cnt * sizeof(*prog->subprogs));
	prog->subprog_cnt = env->subprog_cnt;
	return 0;
}
