/* The x86 encoder of jump-label sites (Linux: arch/x86/kernel/jump_label.c): what a site's bytes
 * are as `jmp target` or as a NOP, in the length the assembler gave it, or, for an irqflags site,
 * as `call target` or its padded cli or sti. kernel/jump_label.c decides which form each site
 * wants and hands the bytes to the patcher.
 *
 *   len 5:   e9 rel32   <->   0f 1f 44 00 00        (arch_static_branch, or a far jmp)
 *   len 2:   eb rel8    <->   66 90                 (a jmp the assembler could make short)
 *   cli:     e8 rel32   <->   3e 66 67 40 fa        (arch_static_insn: local_irq_disable/save)
 *   sti:     e8 rel32   <->   3e 66 67 40 fb        (arch_static_insn: local_irq_enable/restore)
 */
#include "kernel/jump_label.h"
#include "arch/x86/text_insn.h"
#include "lib/errno.h"
#include "lib/string.h"

int jump_site_insn(const struct jump_entry *e, u8 shape, bool taken, u8 *insn)
{
	static const u8 prefixes[] = { BYTES_IRQ_PREFIXES };
	unsigned long code = jump_entry_code(e), target = jump_entry_target(e);
	int len = shape & JUMP_SITE_LEN;

	if (shape & (JUMP_SITE_CLI | JUMP_SITE_STI)) {
		if (taken) {
			text_gen_insn(insn, CALL_INSN_OPCODE, code, target);
			return 0;
		}
		memcpy(insn, prefixes, sizeof(prefixes));
		insn[4] = shape & JUMP_SITE_CLI ? CLI_INSN_OPCODE : STI_INSN_OPCODE;
		return 0;
	}
	if (!taken) {
		memcpy(insn, x86_nops[len], len);
	} else if (len == JMP8_INSN_SIZE) {
		if (!text_jmp8_fits(code, target))
			return -ERANGE;
		text_gen_insn(insn, JMP8_INSN_OPCODE, code, target);
	} else {
		text_gen_insn(insn, JMP32_INSN_OPCODE, code, target);
	}
	return 0;
}
