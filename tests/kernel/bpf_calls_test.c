/* Self-tests of bpf-to-bpf calls: verified, then run by the interpreter and by the JIT, which
 * must both give each program's known answer (arguments, R6-R9 kept, the caller's stack, a call
 * in a loop, eight frames, and two frames that fill the 512 bytes between them). */
#include "kernel/bpf/core.h"
#include "kernel/mm/mm.h"
#include "kernel/selftest.h"
#include "arch/x86/traps.h"
#include "lib/string.h"

#define INSN(c, d, s, o, i)                                                                        \
	{                                                                                          \
		.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)                \
	}
#define MOV_IMM(d, i) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV_REG(d, s) INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ALU_IMM(op, d, i) INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define ALU_REG(op, d, s) INSN(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define LDX(d, s, o) INSN(BPF_LDX | BPF_DW | BPF_MEM, d, s, o, 0)
#define STX(d, s, o) INSN(BPF_STX | BPF_DW | BPF_MEM, d, s, o, 0)
#define ST(d, o, i) INSN(BPF_ST | BPF_DW | BPF_MEM, d, 0, o, i)
#define JLT(d, i, o) INSN(BPF_JMP | BPF_JLT | BPF_K, d, 0, o, i)
#define PCALL(o) INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, o)
#define EXIT INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

struct call_prog {
	u64 want;
	u32 len;
	struct bpf_insn insns[20];
};

#define P(want, ...)                                                                               \
	{                                                                                          \
		want, sizeof((struct bpf_insn[]){ __VA_ARGS__ }) / sizeof(struct bpf_insn),        \
		{                                                                                  \
			__VA_ARGS__                                                                \
		}                                                                                  \
	}

static const struct call_prog progs[] = {
	/* r6 = 100; r0 = f(5, 7) + r6   f: r6 = 1; r0 = r1 + r2 */
	P(112, MOV_IMM(6, 100), MOV_IMM(1, 5), MOV_IMM(2, 7), PCALL(2), ALU_REG(BPF_ADD, 0, 6),
	  EXIT, MOV_IMM(6, 1), MOV_REG(0, 1), ALU_REG(BPF_ADD, 0, 2), EXIT),
	/* fp-8 = 9; r0 = f(fp-8) + fp-8   f: fp-16 = *r1 * 2; *r1 = 3; r0 = fp-16 */
	P(21, ST(10, -8, 9), MOV_REG(1, 10), ALU_IMM(BPF_ADD, 1, -8), PCALL(3), LDX(1, 10, -8),
	  ALU_REG(BPF_ADD, 0, 1), EXIT, LDX(2, 1, 0), ALU_IMM(BPF_MUL, 2, 2), STX(10, 2, -16),
	  ST(1, 0, 3), LDX(0, 10, -16), EXIT),
	/* for (r6 = 0, r7 = 0; r6 < 31; r6++) r7 += f(r6)   f: r0 = r1 * 2 */
	P(930, MOV_IMM(6, 0), MOV_IMM(7, 0), MOV_REG(1, 6), PCALL(5), ALU_REG(BPF_ADD, 7, 0),
	  ALU_IMM(BPF_ADD, 6, 1), JLT(6, 31, -5), MOV_REG(0, 7), EXIT, MOV_REG(0, 1),
	  ALU_IMM(BPF_MUL, 0, 2), EXIT),
	/* eight frames, each calling the next; the last returns 4 */
	P(4, PCALL(1), EXIT, PCALL(1), EXIT, PCALL(1), EXIT, PCALL(1), EXIT, PCALL(1), EXIT,
	  PCALL(1), EXIT, PCALL(1), EXIT, MOV_IMM(0, 4), EXIT),
	/* 256 bytes each: the callee's writes land below the caller's, never on them */
	P(1, ST(10, -256, 1), ST(10, -8, 0), PCALL(4), LDX(0, 10, -256), LDX(1, 10, -8),
	  ALU_REG(BPF_ADD, 0, 1), EXIT, ST(10, -256, 2), ST(10, -8, 2), LDX(0, 10, -256), EXIT),
};

SELFTEST(bpf_calls_interpreter_and_jit)
{
	struct bpf_verifier_log log = { .level = 1, .size = 4096 };
	struct pt_regs regs;

	memset(&regs, 0, sizeof(regs));
	log.buf = kzalloc(log.size);
	if (!log.buf)
		return;
	for (u32 n = 0; n < ARRAY_SIZE(progs); n++) {
		struct bpf_prog *prog = bpf_prog_alloc(progs[n].len);
		int err;

		if (!prog)
			break;
		memcpy(prog->insnsi, progs[n].insns, progs[n].len * sizeof(struct bpf_insn));
		prog->type = BPF_PROG_TYPE_KPROBE;
		log.len = 0;
		err = bpf_check(prog, &log, true);
		if (err) {
			ktest_fail(t, __FILE__, __LINE__, "program %u refused (%d): %s", n, err,
				   log.buf);
			bpf_prog_free(prog);
			break;
		}
		KT_EXPECT(t, __bpf_prog_run(&regs, prog->insnsi) == progs[n].want);
		bpf_int_jit_compile(prog);
		KT_EXPECT(t, prog->jited);
		if (prog->jited)
			KT_EXPECT(t, prog->bpf_func(&regs, prog->insnsi) == progs[n].want);
		bpf_prog_free(prog);
	}
	kfree(log.buf);
}
