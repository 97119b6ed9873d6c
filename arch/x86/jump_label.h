/* The x86 half of a static branch: the instruction planted at the use site, and its record.
 *
 *   C:      if (static_branch_unlikely(&key)) rare();
 *   text:   1: nopl 0x0(%rax,%rax,1)        <- arch_static_branch: starts as a 5-byte NOP
 *              ...usual path...
 *           l_yes: call rare                   (or, arch_static_branch_jump, starts as `jmp l_yes`,
 *                                               2 or 5 bytes as the assembler sees fit)
 *   __jump_table ("aw", 16 bytes per site):
 *           .long 1b - .   .long l_yes - .   .quad &key + branch - .
 *
 * Each use starts in the form its key's initial state wants, so the branch is right from the
 * first instruction the kernel runs, before jump_label_init() has looked at it (interrupts and
 * the scheduler run before that); Linux does the same without objtool. Boot then checks every
 * site and notes its length; from then on a site flips between `jmp l_yes` and a NOP of the
 * same length (0f 1f 44 00 00 or 66 90).
 */
#ifndef ARCH_X86_JUMP_LABEL_H
#define ARCH_X86_JUMP_LABEL_H

#include "lib/types.h"
#include "lib/compiler.h"
#include "arch/x86/text_insn.h"

#define JUMP_LABEL_NOP_SIZE 5

struct static_key;
struct jump_entry;

/* The site as `jmp target` (len 2 or 5) or as the NOP of len bytes; -ERANGE if rel8 cannot reach
 * (arch/x86/jump_label.c). */
int jump_site_insn(const struct jump_entry *e, int len, bool jmp, u8 *insn);

/* The entry: code, target, key + branch, each relative to the field that holds it. */
#define JUMP_TABLE_ENTRY(key, branch)                                                              \
	".pushsection __jump_table, \"aw\"\n\t"                                                    \
	".balign 8\n\t"                                                                            \
	".long 1b - .\n\t"                                                                         \
	".long %l[l_yes] - .\n\t"                                                                  \
	".quad %c" key " + %c" branch " - .\n\t"                                                   \
	".popsection\n\t"

/* A site that starts as a NOP: returns true only once patched to `jmp l_yes`. */
static __always_inline bool arch_static_branch(struct static_key *key, bool branch)
{
	__asm__ goto("1: " ASM_NOP5 "\n\t" JUMP_TABLE_ENTRY("0", "1")
		     :
		     : "i"(key), "i"(branch)
		     :
		     : l_yes);
	return false;
l_yes:
	return true;
}

/* A site that starts as `jmp l_yes`: returns true until patched to a NOP. */
static __always_inline bool arch_static_branch_jump(struct static_key *key, bool branch)
{
	__asm__ goto("1: jmp %l[l_yes]\n\t" JUMP_TABLE_ENTRY("0", "1")
		     :
		     : "i"(key), "i"(branch)
		     :
		     : l_yes);
	return false;
l_yes:
	return true;
}

#endif
