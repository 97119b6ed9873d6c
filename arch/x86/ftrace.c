/* The x86 side of ftrace: what the instructions at a call site look like, and the one door that
 * changes them (ftrace_modify_code), which always checks the bytes it replaces first.
 *
 * The changes themselves go through the shared patcher (arch/x86/text_patch.c): queued into
 * ftrace_patch_batch between text_patch_begin() and text_patch_commit(), or, outside a batch
 * (boot conversion), written at once.
 */
#include "arch/x86/ftrace.h"
#include "lib/string.h"

/* The 5-byte NOP gcc's -mnop-mcount would have used: nopl 0x0(%rax,%rax,1). */
const u8 ftrace_nop5[MCOUNT_INSN_SIZE] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

struct text_patch_batch ftrace_patch_batch = { .client = "ftrace" };

/* `call addr` as placed at ip: e8 followed by the 32-bit displacement from the next instruction. */
void ftrace_call_replace(u8 insn[MCOUNT_INSN_SIZE], unsigned long ip, unsigned long addr)
{
	s32 rel = (s32)(addr - (ip + MCOUNT_INSN_SIZE));

	insn[0] = 0xe8;
	__builtin_memcpy(insn + 1, &rel, 4); /* inline: boot builds one per site */
}

unsigned long ftrace_call_target(unsigned long ip)
{
	const u8 *p = (const u8 *)ip;
	s32 rel;

	if (p[0] != 0xe8)
		return 0;
	memcpy(&rel, p + 1, 4);
	return ip + MCOUNT_INSN_SIZE + rel;
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
