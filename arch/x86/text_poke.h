/* Writing to kernel text, which is mapped read-only: always through a short-lived writable alias. */
#ifndef ARCH_X86_TEXT_POKE_H
#define ARCH_X86_TEXT_POKE_H

#include "lib/types.h"

#define INT3_INSN_OPCODE 0xcc

/* Prepares the alias slots (page tables) so later pokes never allocate. */
void text_poke_init(void);

/*
 * Copies len bytes (len <= 16) to addr through an alias mapping, then serializes this CPU.
 * Callers make sure no other CPU runs these bytes meanwhile (stop_machine), or that every
 * intermediate state is valid (text_poke_bp).
 */
void text_poke(void *addr, const void *opcode, size_t len);

/* The same, for boot: one CPU, interrupts off, nothing else running. */
void text_poke_early(void *addr, const void *opcode, size_t len);

/* Pokes done so far (a self-test checks that patching goes through here). */
extern unsigned long text_poke_count;

#endif
