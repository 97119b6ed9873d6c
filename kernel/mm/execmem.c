/* Executable memory made at run time (ftrace trampolines), within a call's reach of kernel text.
 *
 *   0xffffffff80200000  kernel .text            a site's `call rel32` reaches +-2 GiB, so the
 *        ...                                     trampolines sit 512 MiB above the image
 *   EXECMEM_BASE        page 0 | page 1 | ...    one page per allocation, mapped RX (never W)
 *
 * Pages are only ever written through text_poke's alias. A freed page is filled with int3 and
 * stays mapped: a CPU that still jumps into it traps loudly instead of running stale code. The
 * search for a free page starts after the last one handed out (next fit), so a page just freed
 * is the last to be reused and stays poisoned as long as possible.
 */
#include "kernel/mm.h"
#include "kernel/fault_inject.h"
#include "arch/x86/paging.h"
#include "arch/x86/text_poke.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"

static unsigned long used[EXECMEM_PAGES / 64];   /* handed out */
static unsigned long mapped[EXECMEM_PAGES / 64]; /* has a frame behind it (mapped once, for good) */
static unsigned int next_page;
static size_t in_use;
static DEFINE_SPINLOCK(execmem_lock);

static bool test_bit(const unsigned long *map, unsigned int i)
{
	return map[i / 64] & (1UL << (i % 64));
}

static void set_bit(unsigned long *map, unsigned int i, bool on)
{
	if (on)
		map[i / 64] |= 1UL << (i % 64);
	else
		map[i / 64] &= ~(1UL << (i % 64));
}

/* Claims a free page index (next fit), or -1. */
static int claim_page(void)
{
	unsigned long flags = spin_lock_irqsave(&execmem_lock);
	int found = -1;

	for (unsigned int n = 0; n < EXECMEM_PAGES && found < 0; n++) {
		unsigned int i = (next_page + n) % EXECMEM_PAGES;
		if (!test_bit(used, i)) {
			set_bit(used, i, true);
			next_page = i + 1;
			in_use++;
			found = (int)i;
		}
	}
	spin_unlock_irqrestore(&execmem_lock, flags);
	return found;
}

static void release_page(unsigned int i)
{
	unsigned long flags = spin_lock_irqsave(&execmem_lock);

	set_bit(used, i, false);
	in_use--;
	spin_unlock_irqrestore(&execmem_lock, flags);
}

void *execmem_alloc(size_t size)
{
	int i;
	unsigned long va;

	if (!size || size > PAGE_SIZE ||
	    should_fail(&fail_execmem, size, (unsigned long)__builtin_return_address(0)) ||
	    (i = claim_page()) < 0)
		return NULL;
	va = EXECMEM_BASE + (unsigned long)i * PAGE_SIZE;
	if (!test_bit(mapped, i)) {
		unsigned long pa = alloc_pages(1);
		/* Leaf flags 0: present, read-only, executable. */
		if (!pa || map_page(va, pa, 0)) {
			if (pa)
				free_pages(pa, 1);
			release_page(i);
			return NULL;
		}
		set_bit(mapped, i, true);
		text_poke_set((void *)va, INT3_INSN_OPCODE, PAGE_SIZE);
	}
	return (void *)va;
}

void execmem_free(void *p)
{
	unsigned long va = (unsigned long)p;

	if (!p)
		return;
	BUG_ON(!is_execmem(va) || (va & (PAGE_SIZE - 1)) ||
	       !test_bit(used, (va - EXECMEM_BASE) / PAGE_SIZE));
	text_poke_set(p, INT3_INSN_OPCODE, PAGE_SIZE);
	release_page((va - EXECMEM_BASE) / PAGE_SIZE);
}

size_t execmem_pages_in_use(void)
{
	return in_use;
}
