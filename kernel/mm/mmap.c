/*
 * The areas of an address space and the calls that change them: mmap, munmap, mprotect, brk.
 * Threads share an mm and run on one CPU: each call runs with preemption off, so no other thread
 * sees its areas half changed (Linux takes mmap_lock for writing; handle_mm_fault() does the
 * same for faults).
 */
#include "kernel/mm/mm_types.h"
#include "kernel/mm/mm.h"
#include "kernel/fs/file.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "lib/errno.h"

#define PROT_READ 0x1
#define PROT_WRITE 0x2
#define PROT_EXEC 0x4
#define MAP_SHARED 0x01
#define MAP_PRIVATE 0x02
#define MAP_TYPE 0x0f
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_FIXED_NOREPLACE 0x100000
#define MMAP_MIN_ADDR 0x10000UL /* Linux's vm.mmap_min_addr: page 0 stays unmapped */

#define PAGE_ALIGN(x) (((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))

/* The first area that ends above addr (it may start above addr too), or NULL. */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	for (struct vm_area_struct *v = mm->mmap; v; v = v->vm_next)
		if (addr < v->vm_end)
			return v;
	return NULL;
}

static bool range_free(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct vm_area_struct *v = find_vma(mm, start);
	return !v || v->vm_start >= end;
}

int insert_vm_area(struct mm_struct *mm, unsigned long start, unsigned long end,
		   unsigned long vm_flags, bool file)
{
	struct vm_area_struct **pp = &mm->mmap, *prev = NULL, *v;

	if (!range_free(mm, start, end))
		return -ENOMEM;
	while (*pp && (*pp)->vm_start < start) {
		prev = *pp;
		pp = &(*pp)->vm_next;
	}
	/* An anonymous area that continues the one before (brk growing) extends it. */
	if (prev && !file && !prev->vm_file && !prev->vm_ops && !(vm_flags & VM_SHARED) &&
	    prev->vm_end == start && prev->vm_flags == vm_flags) {
		prev->vm_end = end;
		mm->total_vm += (end - start) / PAGE_SIZE;
		return 0;
	}
	v = kzalloc(sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->vm_start = start;
	v->vm_end = end;
	v->vm_flags = vm_flags;
	v->vm_file = file;
	v->vm_next = *pp;
	*pp = v;
	mm->total_vm += (end - start) / PAGE_SIZE;
	return 0;
}

/* Makes addr an area boundary, if it falls inside one. */
static int split_vma(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *v = find_vma(mm, addr), *n;

	if (!v || v->vm_start >= addr)
		return 0;
	n = kzalloc(sizeof(*n));
	if (!n)
		return -ENOMEM;
	*n = *v;
	n->vm_start = addr;
	n->vm_file_off += addr - v->vm_start; /* the file (or object) offset moves with the start */
	v->vm_end = addr;
	v->vm_next = n;
	if (n->vm_ops && n->vm_ops->open)
		n->vm_ops->open(n);
	return 0;
}

static int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct vm_area_struct **pp = &mm->mmap;
	int err;

	if ((err = split_vma(mm, start)) || (err = split_vma(mm, end)))
		return err;
	while (*pp) {
		struct vm_area_struct *v = *pp;
		if (v->vm_start >= start && v->vm_end <= end) {
			*pp = v->vm_next;
			mm->total_vm -= (v->vm_end - v->vm_start) / PAGE_SIZE;
			if (v->vm_ops && v->vm_ops->close)
				v->vm_ops->close(v);
			kfree(v);
		} else {
			pp = &v->vm_next;
		}
	}
	zap_page_range(mm, start, end);
	return 0;
}

/* MAP_SHARED | MAP_ANONYMOUS: an area with its shmem object (kernel/mm/shmem.c), which fork
 * shares instead of copying. */
static long mmap_shared_anon(struct mm_struct *mm, unsigned long addr, unsigned long len,
			     unsigned long vm_flags)
{
	struct vm_area_struct *v;
	int err = insert_vm_area(mm, addr, addr + len, vm_flags, false);

	if (err)
		return err;
	v = find_vma(mm, addr);
	if ((err = shmem_zero_setup(v))) {
		do_munmap(mm, addr, addr + len);
		return err;
	}
	return addr;
}

/* A mapping of a file that can be mapped (a perf event's ring): an area, then the file's mmap()
 * fills it (or refuses, MAP_PRIVATE say); the area goes again if that fails. */
static long mmap_file(struct mm_struct *mm, struct file *f, unsigned long addr, unsigned long len,
		      unsigned long vm_flags, unsigned long off)
{
	struct vm_area_struct *v;
	int err = insert_vm_area(mm, addr, addr + len, vm_flags, false);

	if (err)
		return err;
	v = find_vma(mm, addr);
	err = f->f_op->mmap(f, v, off);
	if (err) {
		v->vm_ops = NULL; /* not set up: nothing to close */
		do_munmap(mm, addr, addr + len);
		return err;
	}
	return (long)addr;
}

/* Top-down from mmap_base, as Linux's default layout: the highest gap that fits. */
static unsigned long get_unmapped_area(struct mm_struct *mm, unsigned long len)
{
	unsigned long start = mm->mmap_base - len;

	while (start >= MMAP_MIN_ADDR && start < mm->mmap_base) {
		struct vm_area_struct *v = find_vma(mm, start);
		if (!v || v->vm_start >= start + len)
			return start;
		start = v->vm_start - len;
	}
	return 0;
}

static unsigned long prot_to_vm(unsigned long prot)
{
	return (prot & PROT_READ ? VM_READ : 0) | (prot & PROT_WRITE ? VM_WRITE : 0) |
	       (prot & PROT_EXEC ? VM_EXEC : 0);
}

/* Where the area goes (addr as a hint or, with MAP_FIXED*, as the place), then what fills it. */
static long map_area(struct mm_struct *mm, unsigned long addr, unsigned long len,
		     unsigned long prot, unsigned long flags, struct file *file, unsigned long off)
{
	unsigned long type = flags & MAP_TYPE;
	int err;

	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if ((addr & (PAGE_SIZE - 1)) || addr < MMAP_MIN_ADDR || addr > TASK_SIZE_MAX - len)
			return (addr & (PAGE_SIZE - 1)) ? -EINVAL : -EPERM;
		if (!range_free(mm, addr, addr + len)) {
			if (flags & MAP_FIXED_NOREPLACE)
				return -EEXIST;
			if ((err = do_munmap(mm, addr, addr + len)))
				return err;
		}
	} else {
		addr = PAGE_ALIGN(addr);
		if (addr < MMAP_MIN_ADDR || addr > TASK_SIZE_MAX - len ||
		    !range_free(mm, addr, addr + len))
			addr = get_unmapped_area(mm, len);
		if (!addr)
			return -ENOMEM;
	}
	if (file)
		return mmap_file(mm, file, addr, len,
				 prot_to_vm(prot) | (type == MAP_SHARED ? VM_SHARED : 0), off);
	if (type == MAP_SHARED)
		return mmap_shared_anon(mm, addr, len, prot_to_vm(prot) | VM_SHARED);
	err = insert_vm_area(mm, addr, addr + len, prot_to_vm(prot), false);
	return err ? err : (long)addr;
}

static long vm_mmap_pgoff(unsigned long addr, unsigned long len, unsigned long prot,
			  unsigned long flags, unsigned long fd, unsigned long off)
{
	unsigned long type = flags & MAP_TYPE;
	struct file *file;
	long ret;

	if (!len || (off & (PAGE_SIZE - 1)) || (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)))
		return -EINVAL;
	if (type != MAP_SHARED && type != MAP_PRIVATE)
		return -EINVAL;
	if (len > TASK_SIZE_MAX)
		return -ENOMEM;
	len = PAGE_ALIGN(len);
	if (flags & MAP_ANONYMOUS)
		return map_area(current->mm, addr, len, prot, flags, NULL, 0);
	/* Held until the area is set up: a thread's close() meanwhile leaves it whole. */
	if (!(file = fget(fd)))
		return -EBADF;
	/* no file of the tree can be mapped yet, only a perf ring */
	ret = file->f_op->mmap ? map_area(current->mm, addr, len, prot, flags, file, off) : -ENODEV;
	fput(file);
	return ret;
}

SYSCALL_DEFINE6(mmap, unsigned long, addr, unsigned long, len, unsigned long, prot, unsigned long,
		flags, unsigned long, fd, unsigned long, off)
{
	long ret;

	preempt_disable();
	ret = vm_mmap_pgoff(addr, len, prot, flags, fd, off);
	preempt_enable_no_resched();
	return ret;
}

static long vm_munmap(unsigned long addr, size_t len)
{
	if ((addr & (PAGE_SIZE - 1)) || !len || len > TASK_SIZE_MAX || addr > TASK_SIZE_MAX - len)
		return -EINVAL;
	return do_munmap(current->mm, addr, addr + PAGE_ALIGN(len));
}

long vm_mmap_anon(unsigned long len)
{
	long ret;

	preempt_disable();
	ret = vm_mmap_pgoff(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	preempt_enable_no_resched();
	return ret;
}

void vm_munmap_anon(unsigned long addr, unsigned long len)
{
	preempt_disable();
	vm_munmap(addr, len);
	preempt_enable_no_resched();
}

SYSCALL_DEFINE2(munmap, unsigned long, addr, size_t, len)
{
	long ret;

	preempt_disable();
	ret = vm_munmap(addr, len);
	preempt_enable_no_resched();
	return ret;
}

static long do_mprotect(unsigned long start, size_t len, unsigned long prot)
{
	struct mm_struct *mm = current->mm;
	unsigned long end, addr, vm = prot_to_vm(prot);
	int err;

	if ((start & (PAGE_SIZE - 1)) || (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)))
		return -EINVAL;
	if (len > TASK_SIZE_MAX || start > TASK_SIZE_MAX - PAGE_ALIGN(len))
		return -ENOMEM;
	end = start + PAGE_ALIGN(len);
	if (end == start)
		return 0;
	/* Every page of the range must be mapped, or nothing changes. */
	for (addr = start; addr < end;) {
		struct vm_area_struct *v = find_vma(mm, addr);
		if (!v || v->vm_start > addr)
			return -ENOMEM;
		/* a driver's read-only pages (a ring's producer side) never become writable: Linux
		 * clears VM_MAYWRITE for them */
		if ((vm & VM_WRITE) && (v->vm_flags & VM_PFNMAP) && !(v->vm_flags & VM_WRITE))
			return -EACCES;
		addr = v->vm_end;
	}
	if ((err = split_vma(mm, start)) || (err = split_vma(mm, end)))
		return err;
	for (struct vm_area_struct *v = find_vma(mm, start); v && v->vm_start < end; v = v->vm_next)
		v->vm_flags = (v->vm_flags & ~(VM_READ | VM_WRITE | VM_EXEC)) | vm;
	change_protection(mm, start, end, vm);
	return 0;
}

SYSCALL_DEFINE3(mprotect, unsigned long, start, size_t, len, unsigned long, prot)
{
	long ret;

	preempt_disable();
	ret = do_mprotect(start, len, prot);
	preempt_enable_no_resched();
	return ret;
}

/* As Linux: the break moves to brk if it can, and the answer is where the break now is. */
static long do_brk(unsigned long brk)
{
	struct mm_struct *mm = current->mm;
	unsigned long old = PAGE_ALIGN(mm->brk), new = PAGE_ALIGN(brk);

	if (brk < mm->start_brk || brk > mm->mmap_base)
		return mm->brk;
	if (new < old) {
		if (do_munmap(mm, new, old))
			return mm->brk;
	} else if (new > old) {
		if (insert_vm_area(mm, old, new, VM_READ | VM_WRITE, false))
			return mm->brk;
	}
	mm->brk = brk;
	return brk;
}

SYSCALL_DEFINE1(brk, unsigned long, brk)
{
	long ret;

	preempt_disable();
	ret = do_brk(brk);
	preempt_enable_no_resched();
	return ret;
}
