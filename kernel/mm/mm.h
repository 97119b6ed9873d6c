/* Memory: the virtual layout, physical page frames, and the kernel heap (kmalloc). */
#ifndef KERNEL_MM_H
#define KERNEL_MM_H

#include "lib/types.h"

/*
 * Virtual memory map. The lower half is user space, one per process (kernel/mm/memory.c):
 *
 *   0x0000000000400000  a static ELF's segments, then its brk heap
 *   0x00007ff7ffffe000  mmap's area (downwards from 8 GiB below the stack top)
 *   0x00007ffffffff000  the stack top (TASK_SIZE_MAX: a page below the canonical hole)
 *
 * The upper half, the same page tables in every process:
 *
 *   0xffff888000000000  direct map of all physical memory (RW, NX; kernel text/rodata pages RO)
 *   0xffffc90000000000  ioremap area: device registers (LAPIC, IOAPIC), uncached
 *   0xffffc94000000000  BPF ring buffers, their data mapped twice (kernel/bpf/ringbuf.c)
 *   0xffffffff80000000  the kernel image, linked here (-mcmodel=kernel needs the top 2 GiB)
 *   0xffffffffa0000000  execmem: trampolines made at run time (RX), in a call's reach of text
 *   0xffffffffff000000  text_poke slots: short-lived writable aliases of text pages
 */
#define PAGE_SIZE 4096UL
#define PAGE_SHIFT 12
#define PAGE_OFFSET 0xffff888000000000UL
#define TASK_SIZE_MAX ((1UL << 47) - PAGE_SIZE)
#define STACK_TOP TASK_SIZE_MAX
#define IOREMAP_BASE 0xffffc90000000000UL
#define KERNEL_VMA 0xffffffff80000000UL
#define POKE_BASE 0xffffffffff000000UL
#define EXECMEM_BASE 0xffffffffa0000000UL
#define EXECMEM_PAGES 512

/* Linker-script symbols bounding each part of the image. */
extern char _text[], _etext[], _rodata[], _erodata[], _data[], _end[];

/* Until paging_init() switches page tables, physical memory is reached through the boot map. */
extern unsigned long phys_map_base;

static inline void *__va(unsigned long pa)
{
	return (void *)(pa + phys_map_base);
}

/* Physical address of a direct-map or kernel-image address. */
static inline unsigned long __pa(const void *va)
{
	unsigned long v = (unsigned long)va;
	return v >= KERNEL_VMA ? v - KERNEL_VMA : v - phys_map_base;
}

static inline bool is_kernel_text(unsigned long addr)
{
	return addr >= (unsigned long)_text && addr < (unsigned long)_etext;
}

static inline bool is_execmem(unsigned long addr)
{
	return addr >= EXECMEM_BASE && addr < EXECMEM_BASE + EXECMEM_PAGES * PAGE_SIZE;
}

/* Physical page frames (kernel/mm/page_alloc.c). */
struct mem_region {
	u64 base, len;
};
void page_alloc_init(const struct mem_region *ram, int n, u64 reserved_lo, u64 reserved_hi);
void page_alloc_reserve(u64 base, u64 len);
unsigned long alloc_pages(size_t n); /* physical address, 0 when none */
void free_pages(unsigned long pa, size_t n);

/*
 * Who holds the frames in use, so that /proc/meminfo accounts for every one of them: a drop in
 * MemFree is then either a named cache growing or a leak, never a mystery. Frames taken with plain
 * alloc_pages() are PAGE_USER_OTHER.
 */
enum page_user {
	PAGE_USER_OTHER,
	PAGE_USER_RESERVED,  /* the kernel image and what the boot loader left, never freed */
	PAGE_USER_SLAB,	     /* kmalloc's slabs and large runs */
	PAGE_USER_STACK,     /* task and CPU stacks */
	PAGE_USER_PAGETABLE, /* page tables made after boot */
	PAGE_USER_EXECMEM,   /* frames behind trampoline pages */
	PAGE_USER_TRACE,     /* ring-buffer pages */
	PAGE_USER_FTRACE,    /* dyn_ftrace record pages */
	PAGE_USER_SHMEM,     /* the bytes of ramfs and tmpfs files (kernel/fs/ramfs_file.c) */
	NR_PAGE_USERS
};
unsigned long alloc_pages_for(size_t n, enum page_user user);
void free_pages_for(unsigned long pa, size_t n, enum page_user user);
void *alloc_page_zeroed(enum page_user user); /* direct-map address, zeroed; NULL when none */
size_t pages_used_by(enum page_user user);
/* Copy-on-write's count of a user frame's extra mappings (kernel/mm/memory.c uses them): made at
 * boot; one more mapper; one fewer, true if others still map it (false: the caller was the only
 * one, and now owns the frame alone); whether others map it. */
void page_refs_init(void);
void page_ref_inc(unsigned long pa);
bool page_ref_dec_if_shared(unsigned long pa);
bool page_shared(unsigned long pa);
/* Frames in use and the sum over users, read together under the allocator's lock. */
void pages_accounted(size_t *used, size_t *sum);
size_t pages_total(void);
size_t pages_free(void);
u64 phys_mem_top(void);

/* Executable memory for run-time code (kernel/mm/execmem.c): one page, RX, written only through
 * text_poke_copy; filled with int3 when fresh and again when freed. */
void *execmem_alloc(size_t size);
void execmem_free(void *p);
size_t execmem_pages_in_use(void);
size_t execmem_pages_mapped(void); /* pages with a frame: in use, or free and kept for reuse */

/* Reads of addresses nobody vouches for (kernel/mm/maccess.c), Linux's names: 0 or -EFAULT, all
 * or nothing; the string copy returns its length with the NUL, cuts at count - 1, or -EFAULT. */
long copy_from_kernel_nofault(void *dst, const void *src, size_t size);
long strncpy_from_kernel_nofault(char *dst, const void *src, long count);
/* The same for the running process's user memory (kernel/mm/maccess.c). */
long copy_from_user_nofault(void *dst, const void *src, size_t size);
long strncpy_from_user_nofault(char *dst, const void *src, long count);

/* Kernel heap (kernel/mm/kmalloc.c). */
void *kmalloc(size_t size);
void *kzalloc(size_t size);
void kfree(const void *p);
size_t ksize(const void *p);
size_t kmalloc_bytes_in_use(void);
/* Frees cached empty slabs; returns how many pages went back. */
size_t kmalloc_shrink(void);
#define KMALLOC_NR_CLASSES 8 /* kmalloc-16 ... kmalloc-2048 */
struct kmalloc_class_stats {
	unsigned long obj_size, objs_per_slab, active_objs, nr_slabs, active_slabs;
};
void kmalloc_slab_stats(int class_index, struct kmalloc_class_stats *st);
void slabinfo_init(void); /* /proc/slabinfo, /proc/sys/vm/drop_caches (kernel/mm/slabinfo.c) */

#endif
