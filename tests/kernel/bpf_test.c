/* Self-tests of eBPF: the JIT computes what the interpreter computes, on random straight-line and
 * branching programs over every ALU, memory and atomic operation, and the verifier accepts them. */
#include "kernel/bpf/core.h"
#include "kernel/fs/file.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "arch/x86/traps.h"
#include "lib/string.h"
#include "kernel/printk/printk.h"

#define INSN(c, d, s, o, i)                                                                        \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

static u64 rnd_state;

static u32 rnd(void)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return rnd_state >> 33;
}

static const u8 alu_ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR,  BPF_AND,  BPF_LSH,
			      BPF_RSH, BPF_NEG, BPF_MOD, BPF_XOR, BPF_MOV, BPF_ARSH, BPF_END };
static const u8 jmp_ops[] = { BPF_JEQ,	BPF_JGT, BPF_JGE, BPF_JSET, BPF_JNE, BPF_JSGT,
			      BPF_JSGE, BPF_JLT, BPF_JLE, BPF_JSLT, BPF_JSLE };
static const s32 interesting[] = {
	0, 1, -1, 2, 7, 31, 32, 63, 0x7fffffff, -0x80000000, 0xff, 0x1234
};

static s32 rnd_imm(void)
{
	return rnd() % 2 ? interesting[rnd() % ARRAY_SIZE(interesting)] : (s32)rnd();
}

static struct bpf_insn rnd_alu(void)
{
	u8 cls = rnd() % 2 ? BPF_ALU64 : BPF_ALU, op = alu_ops[rnd() % ARRAY_SIZE(alu_ops)];
	u8 dst = rnd() % 10, src = rnd() % 10;
	bool k = rnd() % 2;
	s32 imm = rnd_imm();

	if (op == BPF_END) {
		static const int w[] = { 16, 32, 64 };
		return INSN(BPF_ALU | op | (rnd() % 2 ? BPF_TO_BE : BPF_TO_LE), dst, 0, 0,
			    w[rnd() % 3]);
	}
	if (op == BPF_NEG)
		return INSN(cls | op, dst, 0, 0, 0);
	if (k && (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH))
		imm = (u32)imm % (cls == BPF_ALU64 ? 64 : 32);
	if (k && (op == BPF_DIV || op == BPF_MOD) && !imm)
		imm = 3;
	return k ? INSN(cls | op | BPF_K, dst, 0, 0, imm) : INSN(cls | op | BPF_X, dst, src, 0, 0);
}

/* A store and a load of a random size at a random aligned place of a 64-byte stack area. */
static int rnd_mem(struct bpf_insn *p)
{
	static const u8 sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };
	static const int bytes[] = { 1, 2, 4, 8 };
	int s = rnd() % 4, off = -64 + (rnd() % (64 / bytes[s])) * bytes[s];
	u8 r = rnd() % 10;

	switch (rnd() % 4) {
	case 0:
		p[0] = INSN(BPF_STX | sizes[s] | BPF_MEM, 10, r, off, 0);
		break;
	case 1:
		p[0] = INSN(BPF_ST | sizes[s] | BPF_MEM, 10, 0, off, rnd_imm());
		break;
	case 2: { /* an atomic on an aligned 4 or 8 byte slot, maybe fetching */
		static const s32 aops[] = { BPF_ADD, BPF_AND, BPF_OR, BPF_XOR };
		s32 op = rnd() % 3 ? aops[rnd() % 4] | (rnd() % 2 ? BPF_FETCH : 0)
				   : (rnd() % 2 ? BPF_XCHG : BPF_CMPXCHG);
		s = 2 + rnd() % 2;
		off = -64 + (rnd() % (64 / bytes[s])) * bytes[s];
		p[0] = INSN(BPF_STX | sizes[s] | BPF_ATOMIC, 10, r, off, op);
		break;
	}
	default:
		p[0] = INSN(BPF_LDX | sizes[s] | BPF_MEM, r, 10, off, 0);
		break;
	}
	return 1;
}

/* r0..r9 from ld_imm64, the stack area zeroed, then n random operations and forward jumps, then
 * r0 = the xor of everything. */
static u32 rnd_prog(struct bpf_insn *p, int n)
{
	u32 len = 0;

	for (int r = 0; r < 10; r++) {
		u64 v = ((u64)rnd() << 32) | rnd();
		p[len++] = INSN(BPF_LD | BPF_DW | BPF_IMM, r, 0, 0, (s32)v);
		p[len++] = INSN(0, 0, 0, 0, (s32)(v >> 32));
	}
	for (int off = -64; off < 0; off += 8)
		p[len++] = INSN(BPF_ST | BPF_DW | BPF_MEM, 10, 0, off, 0);
	for (int i = 0; i < n; i++) {
		u32 kind = rnd() % 8;
		if (kind < 5) {
			p[len++] = rnd_alu();
		} else if (kind < 7) {
			len += rnd_mem(&p[len]);
		} else if (i + 3 < n) { /* skip the next one to three operations, or not */
			u8 op = jmp_ops[rnd() % ARRAY_SIZE(jmp_ops)];
			u8 cls = rnd() % 2 ? BPF_JMP : BPF_JMP32;
			s16 off = 1 + rnd() % 3;
			p[len++] = rnd() % 2
					   ? INSN(cls | op | BPF_K, rnd() % 10, 0, off, rnd_imm())
					   : INSN(cls | op | BPF_X, rnd() % 10, rnd() % 10, off, 0);
			for (int j = 0; j < off; j++, i++)
				p[len++] = rnd_alu();
		}
	}
	for (int r = 1; r < 10; r++)
		p[len++] = INSN(BPF_ALU64 | BPF_XOR | BPF_X, 0, r, 0, 0);
	p[len++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return len;
}

static struct bpf_prog *verified(const struct bpf_insn *insns, u32 len, struct ktest *t)
{
	struct bpf_verifier_log log = { .level = 1, .size = 4096 };
	struct bpf_prog *prog = bpf_prog_alloc(len);
	int err;

	if (!prog)
		return NULL;
	memcpy(prog->insnsi, insns, len * sizeof(*insns));
	prog->type = BPF_PROG_TYPE_KPROBE;
	log.buf = kzalloc(log.size);
	err = log.buf ? bpf_check(prog, &log, true) : -ENOMEM;
	if (err) {
		ktest_fail(t, __FILE__, __LINE__, "refused (%d): %s", err,
			   log.buf ? log.buf + (log.len > 300 ? log.len - 300 : 0) : "");
		bpf_prog_free(prog);
		prog = NULL;
	}
	kfree(log.buf);
	return prog;
}

SELFTEST(bpf_jit_matches_interpreter)
{
	static struct bpf_insn insns[400];
	struct pt_regs regs;
	int jited = 0;

	memset(&regs, 0, sizeof(regs));
	rnd_state = 23;
	for (int n = 0; n < 1000; n++) {
		u32 len = rnd_prog(insns, 60);
		struct bpf_prog *prog = verified(insns, len, t);
		u64 interp, jit;

		if (!prog)
			return;
		interp = __bpf_prog_run(&regs, prog->insnsi);
		bpf_int_jit_compile(prog);
		jited += prog->jited;
		jit = prog->jited ? prog->bpf_func(&regs, prog->insnsi) : interp;
		if (interp != jit) {
			for (u32 i = 0; i < len; i++)
				printk("DUMP %02x %d %d %d %d\n", insns[i].code, insns[i].dst_reg,
				       insns[i].src_reg, insns[i].off, insns[i].imm);
			ktest_fail(t, __FILE__, __LINE__, "program %d: interpreter %llx, JIT %llx",
				   n, interp, jit);
			bpf_prog_free(prog);
			return;
		}
		bpf_prog_free(prog);
	}
	KT_EXPECT(t, jited == 1000);
}

/* A helper call and a context read, JITed: the value comes back through rax. */
SELFTEST(bpf_jit_helper_and_ctx)
{
	struct bpf_insn p[] = {
		INSN(BPF_LDX | BPF_DW | BPF_MEM, 6, 1, offsetof(struct pt_regs, di), 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_smp_processor_id),
		INSN(BPF_ALU64 | BPF_ADD | BPF_X, 0, 6, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	struct bpf_prog *prog = verified(p, ARRAY_SIZE(p), t);
	struct pt_regs regs = { .di = 1000 };

	if (!prog)
		return;
	KT_EXPECT(t, __bpf_prog_run(&regs, prog->insnsi) == 1000 + (u64)smp_processor_id());
	bpf_int_jit_compile(prog);
	KT_EXPECT(t, prog->jited);
	KT_EXPECT(t, prog->bpf_func(&regs, prog->insnsi) == 1000 + (u64)smp_processor_id());
	bpf_prog_free(prog);
}

/* The log of a program refused as the privileged (priv) or an unprivileged caller; "" if loaded. */
static const char *refusal(const struct bpf_insn *insns, u32 len, bool priv, int map_fd)
{
	static char buf[4096];
	struct bpf_verifier_log log = { .buf = buf, .size = sizeof(buf), .level = 1 };
	struct bpf_prog *prog = bpf_prog_alloc(len);

	buf[0] = 0;
	if (!prog)
		return "no memory";
	memcpy(prog->insnsi, insns, len * sizeof(*insns));
	for (u32 i = 0; i < len; i++)
		if (prog->insnsi[i].imm == 0x7ff0)
			prog->insnsi[i].imm = map_fd;
	prog->type = BPF_PROG_TYPE_KPROBE;
	if (!bpf_check(prog, &log, priv))
		buf[0] = 0;
	bpf_prog_free(prog);
	return buf;
}

#define KT_REFUSED(t, insns, priv, fd, line)                                                       \
	KT_EXPECT(t, strstr(refusal(insns, ARRAY_SIZE(insns), priv, fd), line) != NULL)

/* What only a caller without privilege is refused: Linux's allow_ptr_leaks and bpf_capable. */
SELFTEST(bpf_verifier_unprivileged)
{
	struct files_struct *saved = current->files;
	union bpf_attr attr = {
		.map_type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1
	};
	struct bpf_insn loop[] = { INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
				   INSN(BPF_ALU64 | BPF_ADD | BPF_K, 0, 0, 0, 1),
				   INSN(BPF_JMP | BPF_JLT | BPF_K, 0, 0, -2, 4),
				   INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0) };
	struct bpf_insn ret_fp[] = { INSN(BPF_ALU64 | BPF_MOV | BPF_X, 0, 10, 0, 0),
				     INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0) };
	struct bpf_insn cmp_ptr[] = { INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
				      INSN(BPF_JMP | BPF_JEQ | BPF_X, 1, 10, 0, 0),
				      INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0) };
	struct bpf_insn leak[] = {
		INSN(BPF_ST | BPF_W | BPF_MEM, 10, 0, -4, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
		INSN(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, 0x7ff0),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1, 0),
		INSN(BPF_STX | BPF_DW | BPF_MEM, 0, 10, 0, 0), /* fp into the map value */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	int fd;

	if (!saved && !(current->files = console_files()))
		return;
	fd = bpf_map_create_kernel(&attr);
	KT_EXPECT(t, fd >= 0);
	KT_REFUSED(t, loop, false, fd, "back-edge from insn 2 to 1");
	KT_EXPECT(t, !*refusal(loop, ARRAY_SIZE(loop), true, fd)); /* bounded: walked to its end */
	KT_REFUSED(t, ret_fp, false, fd, "R0 leaks addr as return value");
	KT_EXPECT(t, !*refusal(ret_fp, ARRAY_SIZE(ret_fp), true, fd));
	KT_REFUSED(t, cmp_ptr, false, fd, "R1 pointer comparison prohibited");
	KT_REFUSED(t, leak, false, fd, "R0 leaks addr into map");
	KT_EXPECT(t, !*refusal(leak, ARRAY_SIZE(leak), true, fd));
	close_fd(current->files, fd);
	if (!saved) {
		put_files_struct(current->files);
		current->files = NULL;
	}
}

/* A loop whose bound the verifier cannot see is walked until the limit, as Linux's is. */
SELFTEST(bpf_verifier_complexity_limit)
{
	struct bpf_insn forever[] = { INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
				      INSN(BPF_ALU64 | BPF_ADD | BPF_K, 0, 0, 0, 1),
				      INSN(BPF_JMP | BPF_JNE | BPF_K, 0, 0, -2, 0),
				      INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0) };

	struct bpf_verifier_log log = { 0 }; /* a listing of a million lines would not fit a log */
	struct bpf_prog *prog = bpf_prog_alloc(ARRAY_SIZE(forever));

	if (!prog)
		return;
	memcpy(prog->insnsi, forever, sizeof(forever));
	prog->type = BPF_PROG_TYPE_KPROBE;
	KT_EXPECT(t, bpf_check(prog, &log, true) == -E2BIG);
	KT_EXPECT(t, prog->verified_insns == BPF_COMPLEXITY_LIMIT_INSNS + 1);
	bpf_prog_free(prog);
}
