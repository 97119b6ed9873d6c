/* The x86 instructions code patching writes, spelled once (Linux: asm/text-patching.h, asm/nops.h).
 *
 *   e8 rel32            call   (an ftrace site that calls; a kprobe's emulation)    5 bytes
 *   e9 rel32            jmp    (a long jump-label site switched on)                 5 bytes
 *   eb rel8             jmp    (a short jump-label site switched on)                2 bytes
 *   0f 1f 44 00 00      nopl 0x0(%rax,%rax,1): gcc's -mnop-mcount NOP, every site  5 bytes
 *   66 90               xchg %ax,%ax: the 2-byte NOP of a short site               2 bytes
 *   cc                  int3   (the int3 protocol's first byte, a kprobe)           1 byte
 *   3e 66 67 40 fa      cli padded with four prefixes it ignores: an irqflags site  5 bytes
 *   3e 66 67 40 fb      sti, the same way                                           5 bytes
 *
 * rel is counted from the end of the instruction: target = addr + size + rel.
 */
#ifndef ARCH_X86_TEXT_INSN_H
#define ARCH_X86_TEXT_INSN_H

#include "lib/types.h"
#include "lib/compiler.h"

#define INT3_INSN_SIZE 1
#define INT3_INSN_OPCODE 0xcc
#define CALL_INSN_SIZE 5
#define CALL_INSN_OPCODE 0xe8
#define JMP32_INSN_SIZE 5
#define JMP32_INSN_OPCODE 0xe9
#define JMP8_INSN_SIZE 2
#define JMP8_INSN_OPCODE 0xeb

/* `call __fentry__` and the NOP that replaces it (Linux's name, from the days of mcount). */
#define MCOUNT_INSN_SIZE CALL_INSN_SIZE

/* The NOPs, as bytes for C initializers and as text for inline assembly (jump_label.h). */
#define BYTES_NOP2 0x66, 0x90
#define BYTES_NOP5 0x0f, 0x1f, 0x44, 0x00, 0x00
#define ASM_NOP5 ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00"

/*
 * An irqflags site (kernel/irqflags.h) is the cli or sti itself, made 5 bytes long so that it can
 * become `call thunk`: one prefix from each group that means nothing to it, the DS segment override
 * (no memory operand; in 64-bit mode DS is ignored anyway), operand size (no operand), address size
 * (no address), and an empty REX (the SDM: a REX prefix with no meaning is ignored). Never two from
 * one group: the AMD manual leaves that undefined. LOCK would fault, and REP/REPNE are reserved
 * outside string instructions (and F3 before 0f 1e fa is endbr64), so group 1 stays empty.
 */
#define BYTES_IRQ_PREFIXES 0x3e, 0x66, 0x67, 0x40
#define CLI_INSN_OPCODE 0xfa
#define STI_INSN_OPCODE 0xfb
#define IRQ_SITE_INSN_SIZE 5
#define ASM_CLI5 ".byte 0x3e, 0x66, 0x67, 0x40, 0xfa"
#define ASM_STI5 ".byte 0x3e, 0x66, 0x67, 0x40, 0xfb"

/* CLI_INSN_OPCODE or STI_INSN_OPCODE if p holds that padded 5-byte form, else 0. Inline, and out
 * at the first byte for anything else: the int3 handler asks it of every NOP it emulates. */
static __always_inline u8 text_insn_irq_site(const u8 *p)
{
	static const u8 pre[] = { BYTES_IRQ_PREFIXES };

	if (p[0] != pre[0] || p[1] != pre[1] || p[2] != pre[2] || p[3] != pre[3])
		return 0;
	return p[4] == CLI_INSN_OPCODE || p[4] == STI_INSN_OPCODE ? p[4] : 0;
}

/* x86_nops[len]: the NOP of len bytes we write (2 and 5; others NULL). Linux's x86_nops. */
extern const u8 *const x86_nops[6];

/* Linux's text_gen_insn(): the 5-byte call or jmp at addr to dest, or the 2-byte jmp; the jmp8
 * is the caller's to check for range (text_jmp8_fits()). Inline: boot builds one per ftrace site. */
static __always_inline void text_gen_insn(u8 *insn, u8 opcode, unsigned long addr,
					  unsigned long dest)
{
	int size = opcode == JMP8_INSN_OPCODE ? JMP8_INSN_SIZE : CALL_INSN_SIZE;
	s32 rel = (s32)(dest - (addr + size));

	insn[0] = opcode;
	if (size == JMP8_INSN_SIZE)
		insn[1] = (u8)(s8)rel;
	else
		__builtin_memcpy(insn + 1, &rel, 4);
}

bool text_jmp8_fits(unsigned long addr, unsigned long dest);

/* Where the call or jmp (rel32 or rel8) at p, placed at addr, goes; 0 if p holds neither. */
unsigned long text_insn_target(unsigned long addr, const u8 *p);

/* The length of p if it is an instruction a patch writes as a site's new form (call, jmp rel32
 * or rel8, a 5- or 2-byte NOP, an irqflags site's cli or sti), else 0: what the int3 protocol is
 * willing to emulate. */
int text_insn_poke_len(const u8 *p);

#endif
