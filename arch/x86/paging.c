/* The kernel's final page tables: the image mapped by section with W^X, plus a direct map of RAM.
 *
 * Permissions (P = present, W = writable, NX = not executable):
 *   .text            P        executable, never writable: patched only through text_poke aliases
 *   .rodata          P NX
 *   .data .bss       P W NX
 *   direct map       P W NX   except the frames holding .text/.rodata, which are P NX there too,
 *                             so the direct map is no back door for writing kernel text
 */
#include "arch/x86/paging.h"
#include "arch/x86/cpu.h"
#include "kernel/mm/mm.h"
#include "kernel/multiboot.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"
#include "lib/errno.h"
#include "lib/string.h"

#define LARGE_PAGE (2UL << 20)

unsigned long phys_map_base = KERNEL_VMA; /* the boot map covers physical 0..1 GiB here */
size_t page_table_pages;
static u64 *kernel_pml4;
static DEFINE_SPINLOCK(pgtable_lock);
static unsigned long ioremap_next = IOREMAP_BASE;

static u64 *alloc_table(void)
{
	u64 *t = alloc_page_zeroed(PAGE_USER_PAGETABLE);

	/* Before the switch, tables are written through the boot map, which ends at 1 GiB. */
	if (t && phys_map_base == KERNEL_VMA && __pa(t) >= (1UL << 30))
		panic("paging: page table above the boot map");
	if (t)
		page_table_pages++;
	return t;
}

static inline int pt_index(unsigned long va, int level)
{
	return (va >> (PAGE_SHIFT + 9 * (level - 1))) & 511;
}

/* Walks from the PML4 down to the table at `level`, creating missing tables when `create`. */
static u64 *walk(unsigned long va, int level, bool create)
{
	u64 *table = kernel_pml4;

	for (int l = 4; l > level; l--) {
		u64 *e = &table[pt_index(va, l)];
		if (!(*e & PTE_P)) {
			u64 *next;
			if (!create || !(next = alloc_table()))
				return NULL;
			/* Upper levels grant everything; the leaf entry decides W and NX. */
			*e = __pa(next) | PTE_P | PTE_W;
		} else if (*e & PTE_PS) {
			return NULL;
		}
		table = __va(*e & PTE_ADDR);
	}
	return table;
}

int map_page(unsigned long va, unsigned long pa, u64 flags)
{
	unsigned long irq = spin_lock_irqsave(&pgtable_lock);
	u64 *pt = walk(va, 1, true);

	if (pt)
		pt[pt_index(va, 1)] = (pa & PTE_ADDR) | flags | PTE_P;
	spin_unlock_irqrestore(&pgtable_lock, irq);
	return pt ? 0 : -ENOMEM;
}

void unmap_page(unsigned long va)
{
	unsigned long irq = spin_lock_irqsave(&pgtable_lock);
	u64 *pt = walk(va, 1, false);

	if (pt)
		pt[pt_index(va, 1)] = 0;
	spin_unlock_irqrestore(&pgtable_lock, irq);
	invlpg(va);
}

u64 *lookup_pte(unsigned long va, int *level)
{
	u64 *table = kernel_pml4;

	for (int l = 4; l >= 1; l--) {
		u64 *e = &table[pt_index(va, l)];
		if (!(*e & PTE_P))
			return NULL;
		if (l == 1 || (*e & PTE_PS)) {
			*level = l;
			return e;
		}
		table = __va(*e & PTE_ADDR);
	}
	return NULL;
}

/* Page permissions of a frame that belongs to the kernel image, wherever it is mapped. */
static u64 image_flags(unsigned long pa, bool alias)
{
	unsigned long va = pa + KERNEL_VMA;

	if (va >= (unsigned long)_text && va < (unsigned long)_rodata)
		return alias ? PTE_NX : 0;
	if (va >= (unsigned long)_rodata && va < (unsigned long)_data)
		return PTE_NX;
	return PTE_W | PTE_NX;
}

static void map_image(void)
{
	for (unsigned long va = (unsigned long)_text; va < (unsigned long)_end; va += PAGE_SIZE)
		if (map_page(va, __pa((void *)va), image_flags(__pa((void *)va), false)))
			panic("paging: out of memory mapping the kernel image");
}

static void map_direct(void)
{
	unsigned long img_lo = ALIGN_DOWN(__pa(_text), LARGE_PAGE);
	unsigned long img_hi = ALIGN(__pa(_end), LARGE_PAGE);

	unsigned long top = MAX(phys_mem_top(), (unsigned long)boot_info.map_top);

	for (unsigned long pa = 0; pa < top; pa += LARGE_PAGE) {
		unsigned long va = PAGE_OFFSET + pa;
		if (pa >= img_lo && pa < img_hi) {
			/* The image's 2 MiB chunks are split so its text can be read-only here too. */
			for (unsigned long p = pa; p < pa + LARGE_PAGE; p += PAGE_SIZE) {
				bool in_image = p >= __pa(_text) && p < __pa(_end);
				u64 f = in_image ? image_flags(p, true) : PTE_W | PTE_NX;
				if (map_page(PAGE_OFFSET + p, p, f))
					panic("paging: out of memory in the direct map");
			}
			continue;
		}
		u64 *pd = walk(va, 2, true);
		if (!pd)
			panic("paging: out of memory in the direct map");
		pd[pt_index(va, 2)] = pa | PTE_P | PTE_W | PTE_NX | PTE_PS;
	}
}

void paging_init(void)
{
	kernel_pml4 = alloc_table();
	if (!kernel_pml4 || __pa(kernel_pml4) >= (1UL << 30))
		panic("paging: no low page for the PML4");
	map_image();
	map_direct();
	/* Every upper-half PML4 entry the kernel will ever use exists before the first process
	 * copies them: the ioremap area's is the only one not made by now. */
	if (!walk(IOREMAP_BASE, 3, true))
		panic("paging: no page table for the ioremap area");
	write_cr3(__pa(kernel_pml4));
	/* From here physical memory is reached through the direct map; the identity map is gone. */
	phys_map_base = PAGE_OFFSET;
	kernel_pml4 = __va(read_cr3() & PTE_ADDR);
}

void *ioremap(unsigned long pa, size_t len)
{
	unsigned long off = pa & (PAGE_SIZE - 1);
	unsigned long va =
		__atomic_fetch_add(&ioremap_next, ALIGN(len + off, PAGE_SIZE), __ATOMIC_RELAXED);

	for (unsigned long p = 0; p < len + off; p += PAGE_SIZE)
		if (map_page(va + p, ALIGN_DOWN(pa, PAGE_SIZE) + p,
			     PTE_W | PTE_NX | PTE_PCD | PTE_PWT))
			panic("ioremap: out of memory");
	return (void *)(va + off);
}

u64 *pgd_alloc(void)
{
	u64 *pgd = alloc_page_zeroed(PAGE_USER_PAGETABLE);

	if (pgd)
		memcpy(pgd + 256, kernel_pml4 + 256, 256 * sizeof(u64));
	return pgd;
}

unsigned long kernel_pgd_pa(void)
{
	return __pa(kernel_pml4);
}
