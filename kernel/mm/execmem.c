/* Executable memory made at run time (ftrace trampolines), within a call's reach of kernel text.
 *
 *   0xffffffff80200000  kernel .text            a site's `call rel32` reaches +-2 GiB, so the
 *        ...                                     trampolines sit 512 MiB above the image
 *   EXECMEM_BASE        page 0 | page 1 | ...    one page per allocation, mapped RX (never W)
 *
 * Pages are only ever written through text_poke's alias. A freed page is filled with int3 and
 * stays mapped: a CPU that still jumps into it traps loudly instead of running stale code. Mapped
 * pages are a cache (execmem_pages_mapped(), /proc/meminfo's Execmem): claim_page() reuses them
 * before it maps another.
 */
#include "kernel/mm/mm.h"
#include "kernel/fault_inject.h"
#include "arch/x86/paging.h"
#include "arch/x86/text_poke.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"

static unsigned long used[EXECMEM_PAGES / 64];	 /* handed out */
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

/*
 * Claims a free page index, or -1: next fit among the pages that already have a frame, and a new
 * page only when all of those are in use. So the frames held stay bounded by the most trampolines
 * ever alive at once (a freed page is reused last among them), instead of growing by one per
 * allocation until all EXECMEM_PAGES are mapped.
 */
static int claim_page(void)
{
	unsigned long flags = spin_lock_irqsave(&execmem_lock);
	int found = -1;

	for (int pass = 0; pass < 2 && found < 0; pass++) {
		for (unsigned int n = 0; n < EXECMEM_PAGES && found < 0; n++) {
			unsigned int i = (next_page + n) % EXECMEM_PAGES;
			if (!test_bit(used, i) && (pass || test_bit(mapped, i))) {
				set_bit(used, i, true);
				next_page = i + 1;
				in_use++;
				found = (int)i;
			}
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
		unsigned long pa = alloc_pages_for(1, PAGE_USER_EXECMEM);
		/* Leaf flags 0: present, read-only, executable. */
		if (!pa || map_page(va, pa, 0)) {
			if (pa)
				free_pages_for(pa, 1, PAGE_USER_EXECMEM);
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

size_t execmem_pages_mapped(void)
{
	size_t n = 0;

	for (unsigned int i = 0; i < EXECMEM_PAGES; i++)
		n += test_bit(mapped, i);
	return n;
}

size_t execmem_pages_in_use(void)
{
	return in_use;
}
