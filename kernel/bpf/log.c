/* The verifier's log: instructions as Linux's disassembler writes them, register states, and the
 * buffer handed back through bpf(2)'s log_buf (Linux's kernel/bpf/log.c and disasm.c). */
#include "kernel/bpf/verifier.h"
#include "lib/printf.h"
#include "lib/string.h"

void bpf_verifier_vlog(struct bpf_verifier_log *log, const char *fmt, va_list ap)
{
	int n;

	if (!log->level || !log->buf || log->len + 1 >= log->size) {
		if (log->level && log->buf)
			log->truncated = true;
		return;
	}
	n = vsnprintf(log->buf + log->len, log->size - log->len, fmt, ap);
	if (n < 0)
		return;
	if ((u32)n >= log->size - log->len) {
		log->truncated = true;
		log->len = log->size - 1;
	} else {
		log->len += n;
	}
}

void verbose(struct bpf_verifier_env *env, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bpf_verifier_vlog(env->log, fmt, ap);
	va_end(ap);
}

static const char *const alu_ops[16] = {
	[BPF_ADD >> 4] = "+=",	  [BPF_SUB >> 4] = "-=",     [BPF_MUL >> 4] = "*=",
	[BPF_DIV >> 4] = "/=",	  [BPF_OR >> 4] = "|=",	     [BPF_AND >> 4] = "&=",
	[BPF_LSH >> 4] = "<<=",	  [BPF_RSH >> 4] = ">>=",    [BPF_NEG >> 4] = "neg",
	[BPF_MOD >> 4] = "%=",	  [BPF_XOR >> 4] = "^=",     [BPF_MOV >> 4] = "=",
	[BPF_ARSH >> 4] = "s>>=", [BPF_END >> 4] = "endian",
};
static const char *const jmp_ops[16] = {
	[BPF_JA >> 4] = "jmp",	  [BPF_JEQ >> 4] = "==",   [BPF_JGT >> 4] = ">",
	[BPF_JGE >> 4] = ">=",	  [BPF_JSET >> 4] = "&",   [BPF_JNE >> 4] = "!=",
	[BPF_JSGT >> 4] = "s>",	  [BPF_JSGE >> 4] = "s>=", [BPF_CALL >> 4] = "call",
	[BPF_EXIT >> 4] = "exit", [BPF_JLT >> 4] = "<",	   [BPF_JLE >> 4] = "<=",
	[BPF_JSLT >> 4] = "s<",	  [BPF_JSLE >> 4] = "s<=",
};
static const char *const size_names[4] = { "u32", "u16", "u8", "u64" };

static const char *const helper_names[__BPF_FUNC_MAX_ID] = {
	[BPF_FUNC_map_lookup_elem] = "map_lookup_elem",
	[BPF_FUNC_map_update_elem] = "map_update_elem",
	[BPF_FUNC_map_delete_elem] = "map_delete_elem",
	[BPF_FUNC_probe_read] = "probe_read",
	[BPF_FUNC_ktime_get_ns] = "ktime_get_ns",
	[BPF_FUNC_trace_printk] = "trace_printk",
	[BPF_FUNC_get_prandom_u32] = "get_prandom_u32",
	[BPF_FUNC_get_smp_processor_id] = "get_smp_processor_id",
	[BPF_FUNC_tail_call] = "tail_call",
	[BPF_FUNC_get_current_pid_tgid] = "get_current_pid_tgid",
	[BPF_FUNC_get_current_uid_gid] = "get_current_uid_gid",
	[BPF_FUNC_get_current_comm] = "get_current_comm",
	[BPF_FUNC_perf_event_output] = "perf_event_output",
	[BPF_FUNC_get_stackid] = "get_stackid",
	[BPF_FUNC_probe_read_str] = "probe_read_str",
	[BPF_FUNC_probe_read_user] = "probe_read_user",
	[BPF_FUNC_probe_read_kernel] = "probe_read_kernel",
	[BPF_FUNC_probe_read_user_str] = "probe_read_user_str",
	[BPF_FUNC_probe_read_kernel_str] = "probe_read_kernel_str",
	[BPF_FUNC_ringbuf_output] = "ringbuf_output",
	[BPF_FUNC_ringbuf_reserve] = "ringbuf_reserve",
	[BPF_FUNC_ringbuf_submit] = "ringbuf_submit",
	[BPF_FUNC_ringbuf_discard] = "ringbuf_discard",
	[BPF_FUNC_ringbuf_query] = "ringbuf_query",
	[BPF_FUNC_get_func_ip] = "get_func_ip",
};

/* "map_lookup_elem" for the ids this kernel knows, "unknown" for the rest (Linux's own table
 * knows every id; ours names the ones it has). */
const char *func_id_name(int id)
{
	if (id > 0 && id < __BPF_FUNC_MAX_ID && helper_names[id])
		return helper_names[id];
	return "unknown";
}

static void print_alu(struct bpf_verifier_env *env, const struct bpf_insn *insn)
{
	char r = BPF_CLASS(insn->code) == BPF_ALU64 ? 'r' : 'w';
	u8 op = BPF_OP(insn->code);

	if (!alu_ops[op >> 4]) {
		verbose(env, "BUG_alu%s_%02x\n", r == 'r' ? "64" : "", insn->code);
	} else if (op == BPF_END) {
		verbose(env, "r%d = %s%d r%d\n", insn->dst_reg,
			BPF_SRC(insn->code) == BPF_TO_BE ? "be" : "le", insn->imm, insn->dst_reg);
	} else if (op == BPF_NEG) {
		verbose(env, "%c%d = -%c%d\n", r, insn->dst_reg, r, insn->dst_reg);
	} else if (BPF_SRC(insn->code) == BPF_X) {
		verbose(env, "%c%d %s %c%d\n", r, insn->dst_reg, alu_ops[op >> 4], r,
			insn->src_reg);
	} else {
		verbose(env, "%c%d %s %d\n", r, insn->dst_reg, alu_ops[op >> 4], insn->imm);
	}
}

static void print_jmp(struct bpf_verifier_env *env, const struct bpf_insn *insn)
{
	char r = BPF_CLASS(insn->code) == BPF_JMP32 ? 'w' : 'r';
	u8 op = BPF_OP(insn->code);

	if (!jmp_ops[op >> 4])
		verbose(env, "BUG_jmp_%02x\n", insn->code);
	else if (op == BPF_EXIT)
		verbose(env, "exit\n");
	else if (op == BPF_CALL && insn->src_reg == BPF_PSEUDO_CALL)
		verbose(env, "call pc%+d\n", insn->imm); /* a function of the program's own */
	else if (op == BPF_CALL)
		verbose(env, "call bpf_%s#%d\n", func_id_name(insn->imm), insn->imm);
	else if (op == BPF_JA)
		verbose(env, "goto pc%+d\n", insn->off);
	else if (BPF_SRC(insn->code) == BPF_X)
		verbose(env, "if %c%d %s %c%d goto pc%+d\n", r, insn->dst_reg, jmp_ops[op >> 4], r,
			insn->src_reg, insn->off);
	else
		verbose(env, "if %c%d %s 0x%x goto pc%+d\n", r, insn->dst_reg, jmp_ops[op >> 4],
			insn->imm, insn->off);
}

static unsigned long map_addr(struct bpf_verifier_env *env, const struct bpf_insn *insn)
{
	struct bpf_map *map = env->aux[insn - env->prog->insnsi].map_ptr;

	return map ? (unsigned long)map +
			       (insn->src_reg == BPF_PSEUDO_MAP_VALUE ? (u32)insn[1].imm : 0)
		   : 0;
}

/* One instruction, as `bpftool prog dump xlated` and the verifier log write it. */
void print_bpf_insn(struct bpf_verifier_env *env, const struct bpf_insn *insn)
{
	u8 cls = BPF_CLASS(insn->code);
	const char *sz = size_names[BPF_SIZE(insn->code) >> 3];

	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		print_alu(env, insn);
		break;
	case BPF_JMP:
	case BPF_JMP32:
		print_jmp(env, insn);
		break;
	case BPF_LDX:
		verbose(env, "r%d = *(%s *)(r%d %+d)\n", insn->dst_reg, sz, insn->src_reg,
			insn->off);
		break;
	case BPF_ST:
		verbose(env, "*(%s *)(r%d %+d) = %d\n", sz, insn->dst_reg, insn->off, insn->imm);
		break;
	case BPF_STX:
		if (BPF_MODE(insn->code) == BPF_ATOMIC)
			verbose(env, "lock *(%s *)(r%d %+d) %s r%d\n", sz, insn->dst_reg, insn->off,
				insn->imm == BPF_ADD ? "+=" : "op=", insn->src_reg);
		else
			verbose(env, "*(%s *)(r%d %+d) = r%d\n", sz, insn->dst_reg, insn->off,
				insn->src_reg);
		break;
	default: { /* BPF_LD | BPF_IMM | BPF_DW: the 64-bit value from both halves */
		u64 v = (u32)insn[0].imm | ((u64)(u32)insn[1].imm << 32);
		if (insn->code != (BPF_LD | BPF_IMM | BPF_DW))
			verbose(env, "BUG_ld_%02x\n", insn->code);
		else if (insn->src_reg == BPF_PSEUDO_MAP_FD ||
			 insn->src_reg == BPF_PSEUDO_MAP_VALUE)
			/* the map's address, as Linux's log shows it (0 to the unprivileged) */
			verbose(env, "r%d = 0x%lx\n", insn->dst_reg,
				env->allow_ptr_leaks ? map_addr(env, insn) : 0UL);
		else
			verbose(env, "r%d = 0x%llx\n", insn->dst_reg, v);
		break;
	}
	}
}

const char *reg_type_str(enum bpf_reg_type t)
{
	static const char *const names[] = {
		[NOT_INIT] = "?",
		[SCALAR_VALUE] = "scalar",
		[PTR_TO_CTX] = "ctx",
		[CONST_PTR_TO_MAP] = "map_ptr",
		[PTR_TO_MAP_VALUE] = "map_value",
		[PTR_TO_MAP_VALUE_OR_NULL] = "map_value_or_null",
		[PTR_TO_STACK] = "fp",
		[PTR_TO_MEM] = "alloc_mem",
		[PTR_TO_MEM_OR_NULL] = "alloc_mem_or_null",
	};
	return t < ARRAY_SIZE(names) ? names[t] : "?";
}

/* The bounds that say something, "scalar(umax=255,var_off=(0x0; 0xff))" */
static void print_scalar_bounds(struct bpf_verifier_env *env, const struct bpf_reg_state *reg)
{
	char tn[48];
	const char *sep = "";

	verbose(env, "(");
	if (reg->smin_value != (s64)(1ULL << 63) && reg->smin_value != (s64)reg->umin_value)
		verbose(env, "%ssmin=%lld", sep, reg->smin_value), sep = ",";
	if (reg->smax_value != (s64) ~(1ULL << 63) && reg->smax_value != (s64)reg->umax_value)
		verbose(env, "%ssmax=%lld", sep, reg->smax_value), sep = ",";
	if (reg->umin_value)
		verbose(env, "%sumin=%llu", sep, reg->umin_value), sep = ",";
	if (reg->umax_value != ~0ULL)
		verbose(env, "%sumax=%llu", sep, reg->umax_value), sep = ",";
	if (!tnum_is_unknown(reg->var_off)) {
		tnum_strn(tn, sizeof(tn), reg->var_off);
		verbose(env, "%svar_off=%s", sep, tn);
	}
	verbose(env, ")");
}

static void print_reg(struct bpf_verifier_env *env, const struct bpf_reg_state *reg)
{
	if (reg->type == SCALAR_VALUE) {
		if (tnum_is_const(reg->var_off))
			verbose(env, "%lld", (long long)reg->var_off.value);
		else
			verbose(env, "scalar"), print_scalar_bounds(env, reg);
		return;
	}
	if (reg->type == PTR_TO_STACK && tnum_is_const(reg->var_off) && !reg->var_off.value) {
		verbose(env, "fp%d", reg->off);
		return;
	}
	verbose(env, "%s(", reg_type_str(reg->type));
	if (reg->id)
		verbose(env, "id=%u,", reg->id);
	if (reg->ref_obj_id)
		verbose(env, "ref_obj_id=%u,", reg->ref_obj_id);
	verbose(env, "off=%d", reg->off);
	if (reg->map_ptr)
		verbose(env, ",ks=%u,vs=%u", reg->map_ptr->key_size, reg->map_ptr->value_size);
	if (reg->type == PTR_TO_MEM || reg->type == PTR_TO_MEM_OR_NULL)
		verbose(env, ",mem_size=%u", reg->mem_size);
	if (tnum_is_const(reg->var_off))
		verbose(env, ",imm=%llu)", reg->var_off.value);
	else {
		verbose(env, ",");
		print_scalar_bounds(env, reg);
		verbose(env, ")");
	}
}

void print_verifier_state(struct bpf_verifier_env *env, const struct bpf_verifier_state *st)
{
	static const char slot_chars[] = { '?', 'r', 'm', '0' };

	if (st->curframe) /* a bpf-to-bpf callee's */
		verbose(env, " frame%u:", st->curframe);
	for (int i = 0; i < MAX_BPF_REG; i++) {
		if (st->regs[i].type == NOT_INIT)
			continue;
		verbose(env, " R%d=", i);
		print_reg(env, &st->regs[i]);
	}
	for (int s = 0; s < MAX_BPF_STACK_SLOTS; s++) {
		const struct bpf_stack_state *slot = &st->stack[s];
		char types[BPF_REG_SIZE + 1];
		bool any = false;

		if (slot->slot_type[7] == STACK_SPILL) {
			verbose(env, " fp%d=", -(s + 1) * BPF_REG_SIZE);
			print_reg(env, &slot->spilled_ptr);
			continue;
		}
		for (int b = 0; b < BPF_REG_SIZE; b++) {
			types[BPF_REG_SIZE - 1 - b] = slot_chars[slot->slot_type[b]];
			any |= slot->slot_type[b] != STACK_INVALID;
		}
		types[BPF_REG_SIZE] = 0;
		if (any)
			verbose(env, " fp%d=%s", -(s + 1) * BPF_REG_SIZE, types);
	}
	verbose(env, "\n");
}
