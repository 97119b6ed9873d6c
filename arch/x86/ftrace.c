/* The x86 side of ftrace: what the instructions at a call site look like, and the one door that
 * changes them (ftrace_modify_code), which always checks the bytes it replaces first. */
#include "kernel/trace/ftrace.h"
#include "arch/x86/text_poke.h"
#include "lib/errno.h"
#include "lib/string.h"

/* The 5-byte NOP gcc's -mnop-mcount would have used: nopl 0x0(%rax,%rax,1). */
const u8 ftrace_nop5[MCOUNT_INSN_SIZE] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

/* `call addr` as placed at ip: e8 followed by the 32-bit displacement from the next instruction. */
void ftrace_call_replace(u8 insn[MCOUNT_INSN_SIZE], unsigned long ip, unsigned long addr)
{
	s32 rel = (s32)(addr - (ip + MCOUNT_INSN_SIZE));

	insn[0] = 0xe8;
	memcpy(insn + 1, &rel, 4);
}

/* Where the call at ip goes, or 0 if the bytes there are not a call. */
unsigned long ftrace_call_target(unsigned long ip)
{
	const u8 *p = (const u8 *)ip;
	s32 rel;

	if (p[0] != 0xe8)
		return 0;
	memcpy(&rel, p + 1, 4);
	return ip + MCOUNT_INSN_SIZE + rel;
}

/* Boot conversion uses text_poke_early; once ftrace_init is done, every change is a live one. */
bool ftrace_poke_late;

/*
 * Replaces the 5 bytes at ip: old must be what is there now, or nothing is written and the caller
 * gets -EINVAL (ftrace_bug). Every code change ftrace makes goes through here.
 */
int ftrace_modify_code(unsigned long ip, const u8 *old, const u8 *new)
{
	if (memcmp((const void *)ip, old, MCOUNT_INSN_SIZE))
		return -EINVAL;
	if (!memcmp(old, new, MCOUNT_INSN_SIZE))
		return 0;
	if (ftrace_poke_late)
		text_poke((void *)ip, new, MCOUNT_INSN_SIZE);
	else
		text_poke_early((void *)ip, new, MCOUNT_INSN_SIZE);
	return 0;
}
