/* An x86-64 instruction decoder: how long an instruction is and where its parts sit, which is
 * what a kprobe needs to copy one instruction elsewhere and run it there.
 *
 *   [legacy prefixes 0-4][REX][opcode 1-3][ModRM][SIB][displacement 0/1/2/4/8][immediate 0-8]
 *
 * Decoding reads at most 15 bytes (the architectural limit) and never past the buffer. Linux's
 * counterpart is arch/x86/lib/insn.c with its generated opcode map; ours is written by hand from
 * the Intel SDM's opcode tables, for 64-bit mode only.
 */
#ifndef ARCH_X86_INSN_H
#define ARCH_X86_INSN_H

#include "lib/types.h"

#define MAX_INSN_SIZE 15

struct insn {
	u8 length;	  /* total bytes, 1..15 */
	u8 nr_prefixes;	  /* legacy prefixes (66 67 f0 f2 f3 2e 36 3e 26 64 65), in order */
	u8 prefixes[4];	  /* each once, however often repeated (gas pads with 66 66 2e 0f 1f) */
	u8 rex;		  /* the REX byte (0x40..0x4f), or 0 */
	u8 opcode_offset; /* from the first byte: after every prefix byte, repeats and REX too */
	u8 opcode_len;	  /* 1, 2 (0f xx) or 3 (0f 38 xx, 0f 3a xx) */
	u8 opcode[3];
	bool has_modrm;
	u8 modrm;
	bool has_sib;
	u8 sib;
	u8 disp_offset;	   /* from the first byte; meaningful when disp_size */
	u8 disp_size;	   /* 0, 1, 2, 4 (or 8: the moffs of a0-a3) */
	s64 disp;	   /* sign-extended */
	u8 imm_offset;	   /* from the first byte; meaningful when imm_size */
	u8 imm_size;	   /* 0, 1, 2, 4 or 8 (enter's two immediates count as one of 3) */
	s64 imm;	   /* sign-extended (enter: the 16-bit size in the low bits) */
	u8 operand_size;   /* 2, 4 or 8 */
	bool rip_relative; /* mod == 0 and rm == 5: disp is relative to the next instruction */
};

/* ModRM fields. */
static inline int insn_mod(const struct insn *insn)
{
	return insn->modrm >> 6;
}
static inline int insn_reg(const struct insn *insn)
{
	return (insn->modrm >> 3) & 7;
}
static inline int insn_rm(const struct insn *insn)
{
	return insn->modrm & 7;
}

/* True if the decoded instruction carries the legacy prefix p. */
bool insn_has_prefix(const struct insn *insn, u8 p);

/*
 * Decodes the instruction at buf (len bytes readable, at most MAX_INSN_SIZE are read). Returns
 * 0, or -EINVAL if the bytes are no valid 64-bit instruction (an opcode invalid in long mode,
 * an undefined one, too many prefixes, longer than 15 bytes) or are cut short by len.
 */
int insn_decode(struct insn *insn, const void *buf, int len);

#endif
