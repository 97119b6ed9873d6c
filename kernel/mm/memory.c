/*
 * User page tables: the lower half of a process's PML4, filled on demand (Linux: mm/memory.c).
 *
 *   mm->pgd [0..255]  user: PDPT -> PD -> PT -> 4 KiB pages, every level P|W|U, the leaf decides
 *           [256..511] the kernel's entries, copied at mm_alloc(), never changed per process
 *
 * Frames behind user pages are counted as PAGE_USER_OTHER, their tables as PAGE_USER_PAGETABLE:
 * /proc/meminfo comes back to where it was once a process is gone.
 *
 * Copy-on-write: fork maps the parent's frames into the child too, read-only in both, and counts
 * the extra mapping (page_ref_inc()). The first write to such a page faults; do_wp_page() gives
 * the writer a copy, or, when nobody else maps the frame any more, its write permission back.
 * A frame is freed by its last mapper (zap_one()).
 */
#include "kernel/mm/mm_types.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "kernel/fs/ramfs.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "lib/errno.h"
#include "lib/string.h"

#define PF_PROT 0x1	     /* the page was present: a protection fault */
#define PF_WRITE 0x2	     /* a write */
#define PF_INSTR 0x10	     /* an instruction fetch */
#define USER_PGD_ENTRIES 256 /* the lower half */

static inline int pt_index(unsigned long va, int level)
{
	return (va >> (PAGE_SHIFT + 9 * (level - 1))) & 511;
}

/* The PTE of addr in mm, making missing tables when create (NULL if absent or out of memory). */
static u64 *user_pte(struct mm_struct *mm, unsigned long addr, bool create)
{
	u64 *table = mm->pgd;

	for (int level = 4; level > 1; level--) {
		u64 *e = &table[pt_index(addr, level)];
		if (!(*e & PTE_P)) {
			u64 *next;
			if (!create || !(next = alloc_page_zeroed(PAGE_USER_PAGETABLE)))
				return NULL;
			*e = __pa(next) | PTE_P | PTE_W | PTE_U;
		}
		table = __va(*e & PTE_ADDR);
	}
	return &table[pt_index(addr, 1)];
}

static u64 pte_flags(unsigned long vm_flags)
{
	u64 f = PTE_P | PTE_U;

	if (vm_flags & VM_WRITE)
		f |= PTE_W;
	if (!(vm_flags & VM_EXEC))
		f |= PTE_NX;
	return f;
}

/* A TLB entry of the running mm must go; another mm's is gone at its next CR3 load. Tasks stay
 * on their CPU and a process has one thread, so no other CPU holds this mm's entries. */
static void flush_page(struct mm_struct *mm, unsigned long addr)
{
	if ((read_cr3() & PTE_ADDR) == __pa(mm->pgd))
		invlpg(addr);
}

struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = kzalloc(sizeof(*mm));

	if (!mm)
		return NULL;
	mm->pgd = pgd_alloc();
	if (!mm->pgd) {
		kfree(mm);
		return NULL;
	}
	mm->users = 1;
	return mm;
}

/*
 * A write to a copy-on-write page at addr whose area allows it (Linux's do_wp_page()): a copy of
 * its own for mm while others map the frame, else the frame itself made writable. The copy is made
 * before the count drops, so a frame is never written while another mapper still reads it. 0 or
 * -ENOMEM.
 */
static int do_wp_page(struct mm_struct *mm, unsigned long addr, u64 *pte)
{
	unsigned long old = *pte & PTE_ADDR;
	void *copy;

	if (page_shared(old)) {
		copy = alloc_page_zeroed(PAGE_USER_OTHER);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, __va(old), PAGE_SIZE);
		if (page_ref_dec_if_shared(old))
			old = 0; /* theirs now */
		*pte = __pa(copy) | (*pte & ~PTE_ADDR);
		if (old) /* they let go meanwhile: the frame was ours alone */
			free_pages_for(old, 1, PAGE_USER_OTHER);
	}
	*pte |= PTE_W;
	flush_page(mm, addr);
	return 0;
}

unsigned long mm_populate_page(struct mm_struct *mm, unsigned long addr, unsigned long vm_flags)
{
	u64 *pte = user_pte(mm, addr, true);
	void *page;

	if (!pte)
		return 0;
	/* The caller writes through the direct map (exec, copy_to_mm(), a uprobe's int3): never into
	 * a frame another process maps. */
	if ((*pte & PTE_P) && !(*pte & PTE_SPECIAL) && page_shared(*pte & PTE_ADDR)) {
		u64 w = *pte & PTE_W;
		if (do_wp_page(mm, addr, pte))
			return 0;
		*pte = (*pte & ~PTE_W) | w;
		flush_page(mm, addr);
	}
	if (*pte & PTE_P) {
		/* Two segments sharing a page: it gets the union of their permissions. */
		*pte |= pte_flags(vm_flags) & (PTE_W);
		if (vm_flags & VM_EXEC)
			*pte &= ~PTE_NX;
		flush_page(mm, addr);
		return *pte & PTE_ADDR;
	}
	page = alloc_page_zeroed(PAGE_USER_OTHER);
	if (!page)
		return 0;
	*pte = __pa(page) | pte_flags(vm_flags);
	mm->rss++;
	return __pa(page);
}

int copy_to_mm(struct mm_struct *mm, unsigned long uaddr, const void *src, size_t len)
{
	const char *p = src;

	while (len) {
		unsigned long off = uaddr & (PAGE_SIZE - 1), n = MIN(len, PAGE_SIZE - off), pa;
		struct vm_area_struct *vma = find_vma(mm, uaddr);
		if (!vma || vma->vm_start > uaddr)
			return -EFAULT;
		if (!(pa = mm_populate_page(mm, uaddr - off, vma->vm_flags)))
			return -ENOMEM;
		memcpy((char *)__va(pa) + off, p, n);
		uaddr += n;
		p += n;
		len -= n;
	}
	return 0;
}

/* A page of a shared anonymous area: the object's frame, mapped as the kernel's own. */
static int map_shared_page(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr)
{
	unsigned long pa = shmem_fault(vma, addr);
	u64 *pte = pa ? user_pte(mm, addr, true) : NULL;

	if (!pte)
		return -ENOMEM;
	*pte = pa | pte_flags(vma->vm_flags) | PTE_SPECIAL;
	flush_page(mm, addr);
	return 0;
}

static int __handle_mm_fault(struct mm_struct *mm, unsigned long addr, unsigned long error_code)
{
	struct vm_area_struct *vma = find_vma(mm, addr);

	if (!vma || addr < vma->vm_start)
		return -EFAULT;
	if ((error_code & PF_WRITE) && !(vma->vm_flags & VM_WRITE))
		return -EFAULT;
	if ((error_code & PF_INSTR) && !(vma->vm_flags & VM_EXEC))
		return -EFAULT;
	if (!(vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return -EFAULT; /* PROT_NONE */
	/* Present and allowed by the area yet faulting: a write to a copy-on-write page. Anything
	 * else means the page's bits disagree with its area: refuse rather than loop. */
	if (error_code & PF_PROT) {
		u64 *pte = user_pte(mm, addr, false);
		if (!(error_code & PF_WRITE) || !pte || !(*pte & PTE_P) || (*pte & PTE_W) ||
		    (*pte & PTE_SPECIAL))
			return -EFAULT;
		return do_wp_page(mm, addr & ~(PAGE_SIZE - 1), pte);
	}
	if (vma->vm_ops == &shmem_vm_ops)
		return map_shared_page(mm, vma, addr & ~(PAGE_SIZE - 1));
	return mm_populate_page(mm, addr & ~(PAGE_SIZE - 1), vma->vm_flags) ? 0 : -ENOMEM;
}

/* Preemption off: another thread of mm (on this CPU, as every one is) cannot change the areas
 * or the page meanwhile (kernel/mm/mmap.c). */
int handle_mm_fault(struct mm_struct *mm, unsigned long addr, unsigned long error_code)
{
	int ret;

	preempt_disable();
	ret = __handle_mm_fault(mm, addr, error_code);
	preempt_enable_no_resched();
	return ret;
}

/* Calls fn on every present user PTE in [start, end), skipping absent tables whole. */
static void walk_range(struct mm_struct *mm, unsigned long start, unsigned long end,
		       void (*fn)(struct mm_struct *mm, unsigned long addr, u64 *pte, void *arg),
		       void *arg)
{
	unsigned long addr = start;

	while (addr < end) {
		u64 *table = mm->pgd;
		int level;

		for (level = 4; level > 1; level--) {
			u64 e = table[pt_index(addr, level)];
			if (!(e & PTE_P))
				break;
			table = __va(e & PTE_ADDR);
		}
		if (level > 1) { /* no table here: skip what it would have covered */
			unsigned long span = 1UL << (PAGE_SHIFT + 9 * (level - 1));
			addr = (addr & ~(span - 1)) + span;
			continue;
		}
		if (table[pt_index(addr, 1)] & PTE_P)
			fn(mm, addr, &table[pt_index(addr, 1)], arg);
		addr += PAGE_SIZE;
	}
}

static void zap_one(struct mm_struct *mm, unsigned long addr, u64 *pte, void *arg)
{
	if (!(*pte & PTE_SPECIAL)) {
		if (!page_ref_dec_if_shared(*pte & PTE_ADDR))
			free_pages_for(*pte & PTE_ADDR, 1, PAGE_USER_OTHER);
		mm->rss--;
	}
	*pte = 0;
	flush_page(mm, addr);
}

void zap_page_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	walk_range(mm, start, end, zap_one, NULL);
}

static void protect_one(struct mm_struct *mm, unsigned long addr, u64 *pte, void *arg)
{
	*pte = (*pte & (PTE_ADDR | PTE_SPECIAL)) | pte_flags(*(unsigned long *)arg);
	/* A shared frame stays read-only: the first write still has to copy it. */
	if (!(*pte & PTE_SPECIAL) && page_shared(*pte & PTE_ADDR))
		*pte &= ~PTE_W;
	flush_page(mm, addr);
}

void change_protection(struct mm_struct *mm, unsigned long start, unsigned long end,
		       unsigned long vm_flags)
{
	walk_range(mm, start, end, protect_one, &vm_flags);
}

/* One present page of the parent into the child: the same frame, read-only in both from now on. */
static void copy_one(struct mm_struct *src, unsigned long addr, u64 *pte, void *arg)
{
	struct mm_struct *dst = arg;
	u64 *dpte;

	if (*pte & PTE_SPECIAL) /* a VM_DONTCOPY area's: the child has no such area */
		return;
	dpte = user_pte(dst, addr, true);
	if (!dpte) {
		dst->rss = ~0UL; /* tells dup_mm() it failed */
		return;
	}
	page_ref_inc(*pte & PTE_ADDR);
	*pte &= ~PTE_W; /* the parent's TLB is flushed once, by dup_mm() */
	*dpte = *pte;
	if (dst->rss != ~0UL)
		dst->rss++;
}

struct mm_struct *dup_mm(struct mm_struct *old)
{
	struct mm_struct *mm = mm_alloc();
	u64 *pgd;

	if (!mm)
		return NULL;
	pgd = mm->pgd;
	*mm = *old;
	mm->pgd = pgd;
	mm->users = 1;
	if (mm->exe_inode)
		ramfs_ihold(mm->exe_inode);
	mm->mmap = NULL;
	mm->rss = 0;
	mm->total_vm = 0; /* counted again as each area is copied */
	for (struct vm_area_struct *v = old->mmap; v; v = v->vm_next) {
		struct vm_area_struct *n;

		if (v->vm_flags & VM_DONTCOPY)
			continue;
		if (insert_vm_area(mm, v->vm_start, v->vm_end, v->vm_flags, v->vm_file))
			goto fail;
		n = find_vma(mm, v->vm_start);
		n->vm_inode = v->vm_inode;
		n->vm_file_off = v->vm_file_off;
		/* A shared anonymous area: the child holds the same object (kernel/mm/shmem.c). */
		n->vm_ops = v->vm_ops;
		n->vm_private_data = v->vm_private_data;
		if (n->vm_ops && n->vm_ops->open)
			n->vm_ops->open(n);
	}
	walk_range(old, 0, TASK_SIZE_MAX, copy_one, mm);
	if ((read_cr3() & PTE_ADDR) == __pa(old->pgd))
		write_cr3(read_cr3()); /* the parent's writable entries it may have cached */
	if (mm->rss == ~0UL)
		goto fail;
	return mm;
fail:
	mmput(mm);
	return NULL;
}

/* Frees the tables below a user PML4 entry, level by level (the pages are already gone). */
static void free_table(u64 *table, int level)
{
	for (int i = 0; level > 1 && i < 512; i++)
		if (table[i] & PTE_P)
			free_table(__va(table[i] & PTE_ADDR), level - 1);
	free_pages_for(__pa(table), 1, PAGE_USER_PAGETABLE);
}

void mmget(struct mm_struct *mm)
{
	__atomic_add_fetch(&mm->users, 1, __ATOMIC_RELAXED);
}

void mmput(struct mm_struct *mm)
{
	if (__atomic_sub_fetch(&mm->users, 1, __ATOMIC_ACQ_REL))
		return;
	if (mm->rss == ~0UL) /* a failed dup_mm(): count the pages again as they go */
		mm->rss = 0;
	zap_page_range(mm, 0, TASK_SIZE_MAX);
	for (int i = 0; i < USER_PGD_ENTRIES; i++)
		if (mm->pgd[i] & PTE_P)
			free_table(__va(mm->pgd[i] & PTE_ADDR), 3);
	free_pages_for(__pa(mm->pgd), 1, PAGE_USER_PAGETABLE);
	while (mm->mmap) {
		struct vm_area_struct *v = mm->mmap;
		mm->mmap = v->vm_next;
		if (v->vm_ops && v->vm_ops->close)
			v->vm_ops->close(v);
		kfree(v);
	}
	if (mm->exe_inode)
		ramfs_iput(mm->exe_inode);
	kfree(mm);
}

int remap_pfn_range(struct mm_struct *mm, unsigned long addr, unsigned long pa, unsigned long len,
		    unsigned long vm_flags)
{
	for (unsigned long off = 0; off < len; off += PAGE_SIZE) {
		u64 *pte = user_pte(mm, addr + off, true);
		if (!pte)
			return -ENOMEM; /* the caller unmaps the area: what was set goes with it */
		*pte = (pa + off) | pte_flags(vm_flags) | PTE_SPECIAL;
		flush_page(mm, addr + off);
	}
	return 0;
}

void switch_mm(struct mm_struct *mm)
{
	unsigned long pa = mm ? __pa(mm->pgd) : kernel_pgd_pa();

	if ((read_cr3() & PTE_ADDR) != pa)
		write_cr3(pa);
}
