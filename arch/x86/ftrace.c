/* The x86 side of ftrace: what the instructions at a call site look like, and the one door that
 * changes them (ftrace_modify_code), which always checks the bytes it replaces first.
 *
 * The changes themselves go through the shared patcher (arch/x86/text_patch.c): queued into
 * ftrace_patch_batch between text_patch_begin() and text_patch_commit(), or, outside a batch
 * (boot conversion), written at once.
 */
#include "arch/x86/ftrace.h"
#include "lib/string.h"

struct text_patch_batch ftrace_patch_batch = { .client = "ftrace" };

/* `call addr` as placed at ip: e8 followed by the 32-bit displacement from the next instruction. */
void ftrace_call_replace(u8 insn[MCOUNT_INSN_SIZE], unsigned long ip, unsigned long addr)
{
	text_gen_insn(insn, CALL_INSN_OPCODE, ip, addr);
}

unsigned long ftrace_call_target(unsigned long ip)
{
	const u8 *p = (const u8 *)ip;

	return p[0] == CALL_INSN_OPCODE ? text_insn_target(ip, p) : 0;
}

/*
 * Replaces the 5 bytes at ip: old must be what is there now, or nothing is written, the batch's
 * mismatch callback reports the site, and the caller gets -EINVAL. Every code change ftrace
 * makes goes through here; the check is made now, when the caller still knows what it expects.
 */
int ftrace_modify_code(unsigned long ip, const u8 *old, const u8 *new)
{
	return text_patch_queue(&ftrace_patch_batch, (void *)ip, old, new, MCOUNT_INSN_SIZE, NULL);
}
