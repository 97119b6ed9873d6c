/* text_poke: change kernel text without ever making the text mapping itself writable.
 *
 *   virtual                        physical
 *   0xffffffff80201000 (RX) ----+
 *                               +--> frame 0x201000  <-- the same bytes, two mappings
 *   POKE_BASE + cpu slot (RW NX) +    (alias exists only for the few instructions of the write)
 *
 * Each CPU has its own two-page slot (a write may cross a page boundary), so pokes on different
 * CPUs never share a mapping. The slot is unmapped and its TLB entry flushed before we return.
 */
#include "arch/x86/text_poke.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "kernel/mm/mm.h"
#include "kernel/panic.h"
#include "kernel/smp.h"
#include "lib/string.h"

unsigned long text_poke_count;

static unsigned long poke_slot(void)
{
	return POKE_BASE + (unsigned long)smp_processor_id() * 2 * PAGE_SIZE;
}

void text_poke_init(void)
{
	/* Map and unmap each slot once so its page tables exist before any patching runs. */
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		unsigned long va = POKE_BASE + (unsigned long)cpu * 2 * PAGE_SIZE;
		if (map_page(va, 0, PTE_NX) || map_page(va + PAGE_SIZE, 0, PTE_NX))
			panic("text_poke: no memory for the alias page tables");
		unmap_page(va);
		unmap_page(va + PAGE_SIZE);
	}
}

/* Physical frame behind a text address, from the page tables (text may be 4 KiB or 2 MiB). */
static unsigned long text_pa(unsigned long va)
{
	int level;
	u64 *pte = lookup_pte(va, &level);
	unsigned long page = level == 2 ? (2UL << 20) : PAGE_SIZE;

	BUG_ON(!pte);
	return (*pte & PTE_ADDR & ~(page - 1)) + (va & (page - 1));
}

static void __text_poke(void *addr, const void *opcode, size_t len)
{
	unsigned long va = (unsigned long)addr, slot = poke_slot();
	unsigned long off = va & (PAGE_SIZE - 1);
	bool cross = off + len > PAGE_SIZE;

	BUG_ON(len > 16);
	map_page(slot, ALIGN_DOWN(text_pa(va), PAGE_SIZE), PTE_W | PTE_NX);
	if (cross)
		map_page(slot + PAGE_SIZE, ALIGN_DOWN(text_pa(va + len - 1), PAGE_SIZE),
			 PTE_W | PTE_NX);
	memcpy((void *)(slot + off), opcode, len);
	unmap_page(slot);
	if (cross)
		unmap_page(slot + PAGE_SIZE);
	/* The write went through another virtual address: this CPU must refetch the real one. */
	sync_core();
	text_poke_count++;
}

void text_poke(void *addr, const void *opcode, size_t len)
{
	/* Interrupts off: an interrupt handler on this CPU must not reuse the slot mid-write. */
	unsigned long flags = local_irq_save();
	__text_poke(addr, opcode, len);
	local_irq_restore(flags);
}

void text_poke_early(void *addr, const void *opcode, size_t len)
{
	BUG_ON(!irqs_disabled());
	__text_poke(addr, opcode, len);
}

/* Points one page of the slot at the text page page (a kernel text address). */
static void alias_map(unsigned long slot, unsigned long page, unsigned long *mapped)
{
	if (*mapped)
		/* invlpg: the slot's old translation must go before the new one */
		unmap_page(slot);
	map_page(slot, text_pa(page), PTE_W | PTE_NX);
	*mapped = page;
}

/*
 * Boot's bulk write: nr sites, one CPU, interrupts off, nothing else running. Each site is
 * written as text_poke_early() would, but the alias stays mapped while the sites stay on its
 * page (sorted call sites share pages by the dozen), and the CPU serializes once at the end,
 * before any of them can run.
 */
void text_poke_early_batch(const struct text_poke_loc *tp, int nr)
{
	unsigned long slot = poke_slot(), mapped[2] = { 0, 0 }; /* text pages behind the slot */

	BUG_ON(!irqs_disabled());
	for (int i = 0; i < nr; i++) {
		unsigned long va = (unsigned long)tp[i].addr, page = ALIGN_DOWN(va, PAGE_SIZE);
		unsigned long last = ALIGN_DOWN(va + tp[i].len - 1, PAGE_SIZE);

		if (page != mapped[0])
			alias_map(slot, page, &mapped[0]);
		if (last != page && last != mapped[1])
			alias_map(slot + PAGE_SIZE, last,
				  &mapped[1]); /* a site across the page end */
		if (tp[i].len == 5) /* a call site: one 4-byte and one byte store, no call */
			__builtin_memcpy((void *)(slot + (va - page)), tp[i].new, 5);
		else
			memcpy((void *)(slot + (va - page)), tp[i].new, tp[i].len);
		text_poke_count++;
	}
	if (mapped[0])
		unmap_page(slot);
	if (mapped[1])
		unmap_page(slot + PAGE_SIZE);
	sync_core();
}

/*
 * Bulk writes, for code nobody runs yet (a trampoline being built) or nobody may run any more (one
 * being poisoned): page by page through the same alias slot, any length.
 */
static void text_poke_fill(void *addr, const void *src, int byte, size_t len)
{
	unsigned long va = (unsigned long)addr, slot;
	unsigned long flags = local_irq_save();

	slot = poke_slot();
	while (len) {
		unsigned long off = va & (PAGE_SIZE - 1);
		size_t chunk = MIN(len, PAGE_SIZE - off);
		map_page(slot, ALIGN_DOWN(text_pa(va), PAGE_SIZE), PTE_W | PTE_NX);
		if (src)
			memcpy((void *)(slot + off), src, chunk);
		else
			memset((void *)(slot + off), byte, chunk);
		unmap_page(slot);
		va += chunk, len -= chunk;
		if (src)
			src = (const u8 *)src + chunk;
	}
	sync_core();
	text_poke_count++;
	local_irq_restore(flags);
}

void text_poke_copy(void *addr, const void *src, size_t len)
{
	text_poke_fill(addr, src, 0, len);
}

void text_poke_set(void *addr, int byte, size_t len)
{
	text_poke_fill(addr, NULL, byte, len);
}
