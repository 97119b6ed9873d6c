/* x86-64 four-level page tables: the kernel's final mapping with W^X, and small map/unmap helpers. */
#ifndef ARCH_X86_PAGING_H
#define ARCH_X86_PAGING_H

#include "lib/types.h"

#define PTE_P (1UL << 0)
#define PTE_W (1UL << 1)
#define PTE_U (1UL << 2)
#define PTE_PWT (1UL << 3)
#define PTE_PCD (1UL << 4)
#define PTE_PS (1UL << 7)
#define PTE_G (1UL << 8)
#define PTE_SPECIAL                                                                                \
	(1UL << 9) /* software bit (Linux's _PAGE_SPECIAL): a frame the mm does not own */
#define PTE_NX (1UL << 63)
#define PTE_ADDR 0x000ffffffffff000UL

/* Builds the final page tables (image by section, direct map, no identity map) and loads them. */
void paging_init(void);

/* Maps one 4 KiB page; flags are PTE_* bits. Returns 0 or -ENOMEM. */
int map_page(unsigned long va, unsigned long pa, u64 flags);
void unmap_page(unsigned long va);
/* The leaf entry for va, or NULL; *level is 1 for a 4 KiB page, 2 for 2 MiB. */
u64 *lookup_pte(unsigned long va, int *level);

/* A process's PML4: its lower half empty, its upper half the kernel's entries, so every later kernel
 * mapping (which lands in tables those entries point to) is seen by every process. */
u64 *pgd_alloc(void);
/* The kernel's own PML4, physical: what CR3 holds while a kernel thread runs. */
unsigned long kernel_pgd_pa(void);

/* Maps device registers uncached and returns their virtual address. */
void *ioremap(unsigned long pa, size_t len);

/* Page-table pages in use, for meminfo. */
extern size_t page_table_pages;

#endif
