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
 *
 * A third kind of site is ours (kernel/irqflags.h): an irqflags site, where the NOP's place is
 * taken by the instruction itself. Off, the site is the cli (or sti) padded to 5 bytes; on, it is
 * `call thunk`, and the thunk does the cli and the hook (the hook and the sti). Its table entry is
 * a static branch's with the thunk as target; boot tells the kinds apart by the bytes.
 */
#ifndef ARCH_X86_JUMP_LABEL_H
#define ARCH_X86_JUMP_LABEL_H

#include "lib/types.h"
#include "lib/compiler.h"
#include "arch/x86/text_insn.h"

#define JUMP_LABEL_NOP_SIZE 5

/*
 * A site's shape, as boot found it (kernel/jump_label.c keeps it per site, beside JUMP_SITE_BAD):
 * its length, and for an irqflags site which instruction its off form is.
 */
#define JUMP_SITE_LEN 0x0f /* 2 or 5, as the assembler chose it */
#define JUMP_SITE_CLI 0x10 /* off: the padded cli; on: call target */
#define JUMP_SITE_STI 0x20 /* off: the padded sti; on: call target */
#define JUMP_SITE_SHAPE (JUMP_SITE_LEN | JUMP_SITE_CLI | JUMP_SITE_STI)

struct static_key;
struct jump_entry;

/* The site of this shape in its taken form (`jmp target`, 2 or 5 bytes; an irqflags site's `call
 * target`) or its other one (the NOP; the padded cli or sti); -ERANGE if rel8 cannot reach
 * (arch/x86/jump_label.c). */
int jump_site_insn(const struct jump_entry *e, u8 shape, bool taken, u8 *insn);

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

/*
 * An irqflags site on key (off at boot): `insn` (ASM_CLI5 or ASM_STI5) that becomes `call thunk`.
 * No asm goto: nothing branches, so the compiler lays the code out as for the bare instruction.
 */
#define arch_static_insn(key, insn, thunk)                                                         \
	__asm__ volatile("1: " insn "\n\t"                                                         \
			 ".pushsection __jump_table, \"aw\"\n\t"                                   \
			 ".balign 8\n\t"                                                           \
			 ".long 1b - .\n\t"                                                        \
			 ".long " #thunk " - .\n\t"                                                \
			 ".quad %c0 - .\n\t"                                                       \
			 ".popsection\n\t"                                                         \
			 :                                                                         \
			 : "i"(key)                                                                \
			 : "memory", "cc")

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
