/* Writing to kernel text, which is mapped read-only: always through a short-lived writable alias. */
#ifndef ARCH_X86_TEXT_POKE_H
#define ARCH_X86_TEXT_POKE_H

#include "lib/types.h"
#include "arch/x86/text_insn.h"

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
struct text_poke_loc;
/* nr of them at once, through one alias mapping per text page (text_poke.c). */
void text_poke_early_batch(const struct text_poke_loc *tp, int nr);

/*
 * Copies src (or sets len bytes to byte) at addr, any length, through the alias. Only for code no
 * CPU is running: a trampoline before any site calls it, or after none can be inside it.
 */
void text_poke_copy(void *addr, const void *src, size_t len);
void text_poke_set(void *addr, int byte, size_t len);

/*
 * One site of a batch: at addr, old (len bytes) becomes new; the first byte is what traps during
 * the int3 protocol. cookie is the client's (its record), handed back with a mismatch.
 */
#define TEXT_POKE_MAX_LEN 15
struct text_poke_loc {
	void *addr;
	void *cookie;
	u8 len;
	u8 old[TEXT_POKE_MAX_LEN];
	u8 new[TEXT_POKE_MAX_LEN];
};

/*
 * Changes live code with the int3 protocol (see text_poke_bp.c). The batch is sorted in place.
 * Call with interrupts on: each step ends by syncing every CPU with an IPI.
 */
void text_poke_bp_batch(struct text_poke_loc *tp, int nr);
void text_poke_bp(void *addr, const void *opcode, size_t len);
extern unsigned long text_poke_bp_hits;	 /* int3s emulated so far */
extern unsigned long text_poke_bp_stale; /* int3s met after their batch was done (see handler) */
/* From the observer's bp_step (text_patch.h), after step 0..2: steer the batch back to its old
 * bytes. */
int text_poke_bp_revert(int done);

/* Pokes done so far (a self-test checks that patching goes through here). */
extern unsigned long text_poke_count;

#endif
