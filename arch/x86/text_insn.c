/* Building and recognising the few instructions code patching writes (arch/x86/text_insn.h). */
#include "arch/x86/text_insn.h"
#include "lib/string.h"

static const u8 nop2[] = { BYTES_NOP2 };
static const u8 nop5[] = { BYTES_NOP5 };
const u8 *const x86_nops[6] = { [2] = nop2, [5] = nop5 };

bool text_jmp8_fits(unsigned long addr, unsigned long dest)
{
	long rel = (long)dest - (long)(addr + JMP8_INSN_SIZE);

	return rel >= -128 && rel <= 127;
}

unsigned long text_insn_target(unsigned long addr, const u8 *p)
{
	s32 rel;

	if (p[0] == JMP8_INSN_OPCODE)
		return addr + JMP8_INSN_SIZE + (s8)p[1];
	if (p[0] != CALL_INSN_OPCODE && p[0] != JMP32_INSN_OPCODE)
		return 0;
	memcpy(&rel, p + 1, 4);
	return addr + CALL_INSN_SIZE + rel;
}

int text_insn_poke_len(const u8 *p)
{
	if (p[0] == CALL_INSN_OPCODE || p[0] == JMP32_INSN_OPCODE || !memcmp(p, nop5, 5) ||
	    text_insn_irq_site(p))
		return 5;
	if (p[0] == JMP8_INSN_OPCODE || !memcmp(p, nop2, 2))
		return 2;
	return 0;
}
