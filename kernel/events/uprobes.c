/* uprobes: an int3 in a program file's text, in every process that runs the file.
 *
 *   uprobe_register(inode, offset, uc)
 *     decode the file's bytes at offset (arch_uprobe_analyze_insn: step or emulate?)
 *     every process whose text maps inode at offset:  its page gets 0xcc at that address,
 *       written through the kernel's alias of the page after checking the byte is the file's
 *     later execs of the file:                        the same, in uprobe_mmap_exec()
 *   a process reaches the int3  ->  uprobe_exception_notify() -> handle_swbp():
 *     consumers' handlers (the trace event's record), a uretprobe's return hijacked,
 *     then the instruction run out of line in the XOL slot or emulated (arch/x86/uprobes.c)
 *   uprobe_unregister()         ->  the file's byte back in every process (checked: 0xcc first)
 *
 * Every process has its own copy of the file's pages here (exec copies them, fork copies them), as
 * a Linux process has once uprobes wrote into its text: Linux's __replace_page() puts a private
 * copy of the file's page holding the int3 into each mm, and leaves the page cache untouched. The
 * user's mapping of the page stays read and execute only; only the kernel's direct-map alias of
 * the frame is ever written.
 *
 * Linux: kernel/events/uprobes.c (uprobe_register(), register_for_each_vma(), install_breakpoint(),
 * uprobe_mmap(), handle_swbp(), prepare_uretprobe(), handle_trampoline(), xol_add_vma()). Differences:
 * the walk is over the task list, not the file's i_mmap tree; one XOL slot per address space (no
 * threads share one here); an mm is written while its task may be exiting on another CPU only
 * under that CPU's runqueue lock, which narrows but does not close that race (Linux holds a
 * reference and mmap_lock).
 */
#include "kernel/events/uprobes.h"
#include "arch/x86/cpu.h"
#include "arch/x86/insn.h"
#include "kernel/fs/ramfs.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_types.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "kernel/locking/mutex.h"
#include "kernel/spinlock.h"
#include "kernel/tracepoint.h"
#include "kernel/trace/trace.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

#define UPROBE_SWBP_INSN 0xcc

struct uprobe {
	struct uprobe *next;
	const struct ramfs_inode *inode;
	unsigned long offset;
	unsigned long ref_ctr_offset; /* the file offset of a USDT semaphore (a short), or 0 */
	struct uprobe_consumer *consumers;
	struct arch_uprobe arch;
};

/* Registrations and removals, in process context; the hit path reads the list without it. */
static DEFINE_MUTEX(uprobes_lock);
static struct uprobe *uprobes;

static struct uprobe *find_uprobe(const struct ramfs_inode *inode, unsigned long offset)
{
	for (struct uprobe *u = READ_ONCE(uprobes); u; u = READ_ONCE(u->next))
		if (u->inode == inode && u->offset == offset)
			return u;
	return NULL;
}

/* --- writing the int3 into one address space --------------------------------------------------- */

int uprobe_poke(struct mm_struct *mm, unsigned long uaddr, const void *src, size_t len)
{
	return copy_to_mm(mm, uaddr, src,
			  len); /* through __va() of the frame: never the user's map */
}

/* The user address where vma maps file offset off, or 0 when it does not map it. */
static unsigned long offset_to_vaddr(const struct vm_area_struct *vma, unsigned long off)
{
	if (!vma->vm_inode || off < vma->vm_file_off ||
	    off - vma->vm_file_off >= vma->vm_end - vma->vm_start)
		return 0;
	return vma->vm_start + (off - vma->vm_file_off);
}

/* One byte at vaddr: expect there (else -EINVAL, nothing written), then new. */
static int write_opcode(struct mm_struct *mm, unsigned long vaddr, u8 expect, u8 new)
{
	struct vm_area_struct *vma = find_vma(mm, vaddr);
	unsigned long pa;
	u8 *p;

	if (!vma || vma->vm_start > vaddr)
		return -EFAULT;
	pa = mm_populate_page(mm, vaddr & ~(PAGE_SIZE - 1), vma->vm_flags);
	if (!pa)
		return -ENOMEM;
	p = (u8 *)__va(pa) + (vaddr & (PAGE_SIZE - 1));
	if (READ_ONCE(*p) != expect)
		return -EINVAL;
	WRITE_ONCE(*p, new);
	return 0;
}

/*
 * Linux's update_ref_ctr(): adds d to the semaphore u names, in mm's writable private mapping of
 * the file (the program's data), through the kernel's alias of the page, as the int3 is written.
 * A program tests it (a USDT semaphore) to skip the work of preparing a probe's arguments
 * when nothing is attached. Never below 0: a count that would go negative is left alone.
 */
static void update_ref_ctr(struct mm_struct *mm, struct uprobe *u, short d)
{
	for (struct vm_area_struct *v = mm->mmap; v; v = v->vm_next) {
		unsigned long vaddr, pa;
		short *ctr;

		if (v->vm_inode != u->inode || (v->vm_flags & (VM_WRITE | VM_EXEC)) != VM_WRITE)
			continue;
		vaddr = offset_to_vaddr(v, u->ref_ctr_offset);
		if (!vaddr || vaddr + sizeof(*ctr) > v->vm_end ||
		    (vaddr & (PAGE_SIZE - 1)) > PAGE_SIZE - sizeof(*ctr))
			continue;
		pa = mm_populate_page(mm, vaddr & ~(PAGE_SIZE - 1), v->vm_flags);
		if (!pa)
			return;
		ctr = (short *)((u8 *)__va(pa) + (vaddr & (PAGE_SIZE - 1)));
		if (READ_ONCE(*ctr) + d >= 0)
			WRITE_ONCE(*ctr, *ctr + d);
		return;
	}
}

/* Installs (or removes) u's int3 wherever mm maps its file, and counts it in the semaphore. */
static void mm_set_swbp(struct mm_struct *mm, struct uprobe *u, bool install)
{
	bool written = false;

	for (struct vm_area_struct *v = mm->mmap; v; v = v->vm_next) {
		unsigned long vaddr;

		if (v->vm_inode != u->inode || !(v->vm_flags & VM_EXEC))
			continue;
		vaddr = offset_to_vaddr(v, u->offset);
		if (!vaddr)
			continue;
		if (install)
			written |= !write_opcode(mm, vaddr, u->arch.insn[0], UPROBE_SWBP_INSN);
		else
			written |= !write_opcode(mm, vaddr, UPROBE_SWBP_INSN, u->arch.insn[0]);
	}
	if (written && u->ref_ctr_offset)
		update_ref_ctr(mm, u, install ? 1 : -1);
}

struct walk_arg {
	struct uprobe *u;
	bool install;
};

static void task_set_swbp(struct task *t, void *arg)
{
	struct walk_arg *w = arg;
	struct mm_struct *mm = READ_ONCE(t->mm);

	if (mm)
		mm_set_swbp(mm, w->u, w->install);
}

static void sync_core_ipi(void *unused)
{
	sync_core();
}

/* Every process, then every CPU serialized: none runs a stale copy of the byte afterwards. */
static void set_swbp_everywhere(struct uprobe *u, bool install)
{
	struct walk_arg w = { u, install };

	for_each_task(task_set_swbp, &w);
	smp_call_function(sync_core_ipi, NULL, true);
	sync_core();
}

void uprobe_mmap_exec(struct mm_struct *mm)
{
	struct uprobe_task *ut = current->utask;

	if (ut)
		ut->depth = 0; /* the old program's pending returns are gone with it */
	mutex_lock(&uprobes_lock);
	for (struct uprobe *u = uprobes; u; u = u->next)
		mm_set_swbp(mm, u, true);
	mutex_unlock(&uprobes_lock);
}

/* --- registering ---------------------------------------------------------------------------- */

/* The instruction at offset, read from the file's bytes (in the archive or in pages). */
static int analyze_at(struct uprobe *u, const struct ramfs_inode *inode, unsigned long offset)
{
	u8 insn[MAX_INSN_SIZE];
	size_t len = MIN(sizeof(insn), inode->size - offset);
	int err;

	ramfs_lock();
	err = ramfs_read_kernel(inode, offset, insn, len);
	ramfs_unlock();
	return err ? err : arch_uprobe_analyze_insn(&u->arch, insn, len);
}

int uprobe_register_refctr(const struct ramfs_inode *inode, unsigned long offset,
			   unsigned long ref_ctr_offset, struct uprobe_consumer *uc)
{
	struct uprobe *u, *fresh = NULL;
	int err;

	if (offset >= inode->size)
		return -EINVAL;
	mutex_lock(&uprobes_lock);
	u = find_uprobe(inode, offset);
	err = -EINVAL; /* Linux's "Reference counter offset mismatch." */
	if (u && u->ref_ctr_offset != ref_ctr_offset)
		goto out;
	if (!u) {
		err = -ENOMEM;
		fresh = u = kzalloc(sizeof(*u));
		if (!u)
			goto out;
		u->inode = inode;
		u->offset = offset;
		u->ref_ctr_offset = ref_ctr_offset;
		err = analyze_at(u, inode, offset);
		if (err)
			goto out;
	}
	uc->next = u->consumers;
	__atomic_store_n(&u->consumers, uc, __ATOMIC_RELEASE);
	if (fresh) {
		u->next = uprobes;
		__atomic_store_n(&uprobes, u, __ATOMIC_RELEASE);
		set_swbp_everywhere(u, true);
	}
	mutex_unlock(&uprobes_lock);
	return 0;
out:
	mutex_unlock(&uprobes_lock);
	kfree(fresh);
	return err;
}

int uprobe_register(const struct ramfs_inode *inode, unsigned long offset,
		    struct uprobe_consumer *uc)
{
	return uprobe_register_refctr(inode, offset, 0, uc);
}

void uprobe_unregister(const struct ramfs_inode *inode, unsigned long offset,
		       struct uprobe_consumer *uc)
{
	struct uprobe *u, **pp;
	struct uprobe_consumer **cp;

	mutex_lock(&uprobes_lock);
	u = find_uprobe(inode, offset);
	if (!u)
		goto out;
	for (cp = &u->consumers; *cp && *cp != uc; cp = &(*cp)->next)
		;
	if (*cp)
		WRITE_ONCE(*cp, uc->next);
	if (u->consumers)
		goto out;
	set_swbp_everywhere(u, false);
	for (pp = &uprobes; *pp != u; pp = &(*pp)->next)
		;
	WRITE_ONCE(*pp, u->next);
	mutex_unlock(&uprobes_lock);
	/* Hits run with interrupts off: once every CPU took one, none is still inside u. A task
	 * between its int3 and the end of its step needs only its utask (the slot holds the copy). */
	tracepoint_synchronize_unregister();
	kfree(u);
	return;
out:
	mutex_unlock(&uprobes_lock);
	tracepoint_synchronize_unregister();
}

/* --- per task ------------------------------------------------------------------------------- */

struct uprobe_task *current_utask(void)
{
	struct task *t = current;

	if (!t->utask)
		t->utask = kzalloc(sizeof(*t->utask));
	return t->utask;
}

int uprobe_copy_process(struct task *child)
{
	struct uprobe_task *ut = current->utask;

	if (!ut || !ut->depth)
		return 0;
	child->utask = kzalloc(sizeof(*child->utask));
	if (!child->utask)
		return -ENOMEM;
	memcpy(child->utask->ret, ut->ret, ut->depth * sizeof(ut->ret[0]));
	child->utask->depth = ut->depth;
	return 0;
}

void uprobe_free_utask(struct task *t)
{
	kfree(t->utask);
	t->utask = NULL;
}

/* --- a hit ---------------------------------------------------------------------------------- */

/* The uprobe behind an int3 at vaddr in current's text, or NULL. */
static struct uprobe *find_active_uprobe(unsigned long vaddr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma = mm ? find_vma(mm, vaddr) : NULL;

	if (!vma || vma->vm_start > vaddr || !vma->vm_inode)
		return NULL;
	return find_uprobe(vma->vm_inode, vma->vm_file_off + (vaddr - vma->vm_start));
}

/* A uretprobe consumer wants the return: the return address on the stack becomes the trampoline. */
static void prepare_uretprobe(struct uprobe *u, unsigned long vaddr, struct pt_regs *regs)
{
	struct uprobe_task *ut = current_utask();
	unsigned long xol = xol_get_area(current->mm), orig, tramp = xol + UPROBE_XOL_TRAMP;

	if (!ut || !xol || ut->depth == UPROBE_MAX_DEPTH)
		return;
	if (copy_from_user(&orig, (void __user *)regs->sp, sizeof(orig)))
		return;
	if (copy_to_user((void __user *)regs->sp, &tramp, sizeof(tramp)))
		return;
	ut->ret[ut->depth++] = (struct return_instance){ u, vaddr, orig };
}

static void handler_chain(struct uprobe *u, unsigned long vaddr, struct pt_regs *regs)
{
	bool want_ret = false;

	for (struct uprobe_consumer *uc = READ_ONCE(u->consumers); uc; uc = READ_ONCE(uc->next)) {
		if (uc->handler)
			uc->handler(uc, regs);
		want_ret |= uc->ret_handler != NULL;
	}
	if (want_ret)
		prepare_uretprobe(u, vaddr, regs);
}

/* The function returned to the trampoline: the return handlers, then the real return address. */
static bool handle_trampoline(struct pt_regs *regs)
{
	struct uprobe_task *ut = current->utask;
	struct return_instance ri;

	if (!ut || !ut->depth)
		return false;
	ri = ut->ret[--ut->depth];
	regs->ip = ri.orig_ret;
	for (struct uprobe_consumer *uc = READ_ONCE(ri.uprobe->consumers); uc;
	     uc = READ_ONCE(uc->next))
		if (uc->ret_handler)
			uc->ret_handler(uc, ri.func, regs);
	return true;
}

/* An int3 in ring 3 (regs->ip is one past it): ours, or the program's own (false: SIGTRAP). */
bool handle_swbp(struct pt_regs *regs)
{
	unsigned long vaddr = regs->ip - 1, xol = current->mm ? current->mm->uprobes_xol : 0;
	struct uprobe *u;
	u8 byte;

	if (xol && vaddr == xol + UPROBE_XOL_TRAMP)
		return handle_trampoline(regs);
	u = find_active_uprobe(vaddr);
	if (!u) {
		/* Removed while this task was on its way here: run the restored byte. */
		struct vm_area_struct *vma = current->mm ? find_vma(current->mm, vaddr) : NULL;

		if (vma && vma->vm_start <= vaddr && vma->vm_inode &&
		    !copy_from_user(&byte, (void __user *)vaddr, 1) && byte != UPROBE_SWBP_INSN) {
			regs->ip = vaddr;
			return true;
		}
		return false;
	}
	regs->ip = vaddr; /* the handlers see the probed instruction's address, as Linux's do */
	handler_chain(u, vaddr, regs);
	return !arch_uprobe_run_insn(u, &u->arch, regs, vaddr);
}
