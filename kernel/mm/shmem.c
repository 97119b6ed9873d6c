/*
 * Shared anonymous memory (Linux: mm/shmem.c, shmem_zero_setup()): mmap(MAP_SHARED |
 * MAP_ANONYMOUS) gives the area an object that owns its frames, one slot per page, filled on first
 * touch by whichever process touches it. fork copies the area and its reference to the object, so
 * parent and child map the very same frames, made before or after the fork:
 *
 *   parent [7ffff7ff0000-7ffff7ff4000 rw-s] \
 *                                            > shmem_object { refs 2, frames[4] = { pa, 0, pa, 0 } }
 *   child  [7ffff7ff0000-7ffff7ff4000 rw-s] /
 *
 * The frames are mapped as the kernel's (PTE_SPECIAL): copy-on-write, zap and fork leave them
 * alone, and the object frees them when the last area holding it goes (vm_ops close).
 */
#include "kernel/mm/mm_types.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"

struct shmem_object {
	int refs; /* areas holding it, in every process */
	unsigned long nr_pages;
	unsigned long frames[]; /* the frame of each page, 0 until first touched */
};

static void shmem_vm_open(struct vm_area_struct *vma)
{
	struct shmem_object *o = vma->vm_private_data;

	__atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);
}

static void shmem_vm_close(struct vm_area_struct *vma)
{
	struct shmem_object *o = vma->vm_private_data;

	if (__atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL))
		return;
	for (unsigned long i = 0; i < o->nr_pages; i++)
		if (o->frames[i])
			free_pages_for(o->frames[i], 1, PAGE_USER_OTHER);
	kfree(o);
}

const struct vm_operations_struct shmem_vm_ops = {
	.open = shmem_vm_open,
	.close = shmem_vm_close,
};

int shmem_zero_setup(struct vm_area_struct *vma)
{
	unsigned long n = (vma->vm_end - vma->vm_start) / PAGE_SIZE;
	struct shmem_object *o = kzalloc(sizeof(*o) + n * sizeof(o->frames[0]));

	if (!o)
		return -ENOMEM;
	o->refs = 1;
	o->nr_pages = n;
	vma->vm_ops = &shmem_vm_ops;
	vma->vm_private_data = o;
	vma->vm_file_off = 0; /* byte offset into the object of vm_start: split_vma() moves it */
	return 0;
}

unsigned long shmem_fault(struct vm_area_struct *vma, unsigned long addr)
{
	struct shmem_object *o = vma->vm_private_data;
	unsigned long i = (vma->vm_file_off + (addr - vma->vm_start)) / PAGE_SIZE;
	void *page;

	if (i >= o->nr_pages)
		return 0;
	if (o->frames[i])
		return o->frames[i];
	/* Another CPU's process may fill the slot meanwhile: the first one in keeps it. */
	if (!(page = alloc_page_zeroed(PAGE_USER_OTHER)))
		return 0;
	if (!__atomic_compare_exchange_n(&o->frames[i], &(unsigned long){ 0 }, __pa(page), false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		free_pages_for(__pa(page), 1, PAGE_USER_OTHER);
	return o->frames[i];
}
