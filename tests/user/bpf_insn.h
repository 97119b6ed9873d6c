/* bpf_insn.h: eBPF instructions written by hand for the test programs, and the bpf(2) call, on
 * Debian's <linux/bpf.h> (so the ABI is checked against Linux's own headers, not ours). */
#ifndef TESTS_USER_BPF_INSN_H
#define TESTS_USER_BPF_INSN_H

#include <linux/bpf.h>
#include "ulib.h"

#define NR_bpf 321

#define INSN(c, d, s, o, i)                                                                        \
	{                                                                                          \
		.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)                \
	}
#define MOV64_IMM(d, i) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV64_REG(d, s) INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV32_IMM(d, i) INSN(BPF_ALU | BPF_MOV | BPF_K, d, 0, 0, i)
#define ALU64_IMM(op, d, i) INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define ALU64_REG(op, d, s) INSN(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define ALU32_REG(op, d, s) INSN(BPF_ALU | (op) | BPF_X, d, s, 0, 0)
#define LDX(sz, d, s, o) INSN(BPF_LDX | (sz) | BPF_MEM, d, s, o, 0)
#define STX(sz, d, s, o) INSN(BPF_STX | (sz) | BPF_MEM, d, s, o, 0)
#define ST(sz, d, o, i) INSN(BPF_ST | (sz) | BPF_MEM, d, 0, o, i)
#define JMP_IMM(op, d, i, o) INSN(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define JMP_REG(op, d, s, o) INSN(BPF_JMP | (op) | BPF_X, d, s, o, 0)
#define JA(o) INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define CALL(f) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define ATOMIC_ADD64(d, s, o) INSN(BPF_STX | BPF_DW | BPF_ATOMIC, d, s, o, BPF_ADD)
/* A map's fd in two slots; MAPFD is patched to the test's map by load(). */
#define MAPFD 0x7ff0
#define LD_MAP(d)                                                                                  \
	INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, MAPFD), INSN(0, 0, 0, 0, 0)
/* r0 = the address of slot k of the map (an array's u32 key on the stack at fp-4), or NULL. */
#define LOOKUP_SLOT(k)                                                                             \
	ST(BPF_W, 10, -4, k), MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -4), LD_MAP(1),              \
		CALL(BPF_FUNC_map_lookup_elem)

static inline long sys_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return sys3(NR_bpf, cmd, attr, size);
}

#endif
