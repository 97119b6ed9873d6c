/* A process's address space: its page tables and the areas (VMAs) that say what may be mapped where. */
#ifndef KERNEL_MM_TYPES_H
#define KERNEL_MM_TYPES_H

#include "lib/types.h"

struct ramfs_inode;

/* vm_flags, Linux's values. */
#define VM_READ 0x1
#define VM_WRITE 0x2
#define VM_EXEC 0x4
#define VM_SHARED 0x8
#define VM_GROWSDOWN 0x100
#define VM_PFNMAP 0x400	    /* frames the kernel owns (a perf ring): never freed or copied here */
#define VM_DONTCOPY 0x20000 /* fork leaves the area out of the child */

struct vm_area_struct;
/* What a driver's area does as it is split and removed (Linux's vm_operations_struct, trimmed):
 * open for each new area that comes to hold the mapping (a split), close for each that goes. */
struct vm_operations_struct {
	void (*open)(struct vm_area_struct *vma);
	void (*close)(struct vm_area_struct *vma);
};

/*
 * One area [vm_start, vm_end), page aligned, with one protection. Pages inside it are made on
 * first touch (handle_mm_fault()), except an ELF's, which exec fills at once.
 *
 *   mm->mmap -> [400000-401000 r--] -> [401000-585000 r-x] -> ... -> [brk] -> ... -> [stack rw-]
 */
struct vm_area_struct {
	unsigned long vm_start, vm_end;
	unsigned long vm_flags;
	bool vm_file; /* a segment of the executable: the segfault report names the file */
	/* The file a segment maps, and the file offset of vm_start: where uprobes find a file's
	 * instruction in each process (Linux's vm_file and vm_pgoff). NULL for anonymous memory. */
	const struct ramfs_inode *vm_inode;
	unsigned long vm_file_off;
	const struct vm_operations_struct *vm_ops; /* a file's mmap() set them, else NULL */
	void *vm_private_data;
	struct vm_area_struct *vm_next; /* sorted by address */
};

struct mm_struct {
	u64 *pgd;  /* direct-map address of the PML4 */
	int users; /* tasks that run in it (Linux's mm_users): threads share one */
	struct vm_area_struct *mmap;
	unsigned long start_code, end_code, start_data, end_data; /* as Linux's exec sets them */
	unsigned long start_brk, brk, start_stack, mmap_base;
	unsigned long arg_start, arg_end, env_start, env_end;
	unsigned long rss;	   /* user pages present, for /proc and the leak checks */
	unsigned long total_vm;	   /* pages of all its areas (Linux's), for /proc/<pid>/stat */
	char exe[64];		   /* the executable's basename, for the segfault report */
	char exe_path[128];	   /* the file exe_inode is, absolute: sym-userobj prints it */
	unsigned long uprobes_xol; /* the uprobes XOL page (kernel/events/uprobes.h), or 0 */
	/* The executable's inode, held (Linux's exe_file) so that no other file's inode can take
	 * its address while the areas' vm_inode still name it. */
	struct ramfs_inode *exe_inode;
};

/* kernel/mm/memory.c */
struct mm_struct *mm_alloc(void);
/* Drops a user; the last one frees every user page, page table and VMA, then the mm, which
 * must not be anyone's CR3 by then. */
void mmput(struct mm_struct *mm);
/* One more user: a thread (CLONE_VM). */
void mmget(struct mm_struct *mm);
/* A copy of mm for fork: same areas, every present page shared copy-on-write (memory.c). */
struct mm_struct *dup_mm(struct mm_struct *mm);
/* A fault at addr with the CPU's error code: 0 when a page now backs it, -EFAULT when no area
 * allows the access. */
int handle_mm_fault(struct mm_struct *mm, unsigned long addr, unsigned long error_code);
/* The frame behind a user page, made if absent (exec fills segments through it); 0 if no memory. */
unsigned long mm_populate_page(struct mm_struct *mm, unsigned long addr, unsigned long vm_flags);
/* Writes len bytes at uaddr in mm (not necessarily the running one), making pages as needed:
 * how exec builds a new stack and fork sets a tid. 0, or -ENOMEM/-EFAULT. */
int copy_to_mm(struct mm_struct *mm, unsigned long uaddr, const void *src, size_t len);
/* Unmaps and frees the pages of [start, end); the areas are the caller's business. */
void zap_page_range(struct mm_struct *mm, unsigned long start, unsigned long end);
/* Rewrites the page permissions of [start, end) to vm_flags. */
void change_protection(struct mm_struct *mm, unsigned long start, unsigned long end,
		       unsigned long vm_flags);
/* Loads mm's page tables on this CPU (NULL: the kernel's). */
void switch_mm(struct mm_struct *mm);

/* Maps the frames [pa, pa + len) at addr in mm, kernel-owned (zap and fork leave them alone): a
 * file's mmap() gives its own pages to user space. 0 or -ENOMEM. */
int remap_pfn_range(struct mm_struct *mm, unsigned long addr, unsigned long pa, unsigned long len,
		    unsigned long vm_flags);

/* kernel/mm/shmem.c: a MAP_SHARED | MAP_ANONYMOUS area gets its object (0 or -ENOMEM); a fault
 * in such an area finds the frame of its page there, made if absent (0 if no memory). */
extern const struct vm_operations_struct shmem_vm_ops;
int shmem_zero_setup(struct vm_area_struct *vma);
unsigned long shmem_fault(struct vm_area_struct *vma, unsigned long addr);

/* kernel/mm/mmap.c */
/* A private read-write area of the current process for the kernel's own use of user memory
 * (sendfile's bounce buffer): its address or -errno; and its end. */
long vm_mmap_anon(unsigned long len);
void vm_munmap_anon(unsigned long addr, unsigned long len);
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);
/* Adds [start, end) with vm_flags; -ENOMEM if it overlaps an area or memory ran out. */
int insert_vm_area(struct mm_struct *mm, unsigned long start, unsigned long end,
		   unsigned long vm_flags, bool file);

#endif
