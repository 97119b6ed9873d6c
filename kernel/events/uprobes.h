/* uprobes: breakpoints in a program file's text, hit by every process that runs the file. */
#ifndef KERNEL_EVENTS_UPROBES_H
#define KERNEL_EVENTS_UPROBES_H

#include "arch/x86/traps.h"
#include "lib/types.h"

/* Linux's kernel-internal "operation not supported" (include/linux/errno.h), for a refused insn. */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

struct ramfs_inode;
struct mm_struct;
struct task;

/* What a hit calls (Linux's struct uprobe_consumer): handler at the probed instruction, ret_handler
 * when the function that began there returns (func: the probed address). */
struct uprobe_consumer {
	int (*handler)(struct uprobe_consumer *self, struct pt_regs *regs);
	int (*ret_handler)(struct uprobe_consumer *self, unsigned long func, struct pt_regs *regs);
	struct uprobe_consumer *next;
};

/* How the probed instruction is run once its int3 was hit (arch/x86/uprobes.c decides). */
enum uprobe_insn_kind {
	UPROBE_XOL,	 /* copied to the process's XOL slot and single-stepped there */
	UPROBE_EMU_PUSH, /* push %reg: emulated */
	UPROBE_EMU_CALL, /* call rel32: emulated */
	UPROBE_EMU_JMP,	 /* jmp rel8 / rel32: emulated */
	UPROBE_EMU_RET,	 /* ret: emulated */
	UPROBE_EMU_NOP,	 /* nop of any length: emulated (nothing to do but move on) */
};

struct arch_uprobe {
	u8 insn[16]; /* the original bytes, from the file */
	u8 len;
	u8 kind; /* enum uprobe_insn_kind */
	u8 reg;	 /* push: the register's offset in pt_regs / 8 */
	s32 rel; /* call / jmp: the displacement */
};

/*
 * Probe the instruction at file offset offset of inode: 0, -EINVAL (the bytes there do not
 * decode, or the offset is past the file), -ENOTSUPP (an instruction this kernel can neither
 * step out of line nor emulate: rip-relative, a conditional branch, a system call...), -ENOMEM.
 * Every process mapping the file now gets the int3, and every exec of it later.
 */
int uprobe_register(const struct ramfs_inode *inode, unsigned long offset,
		    struct uprobe_consumer *uc);
/* The same with a USDT semaphore at file offset ref_ctr_offset (0: none), a short in the file's
 * writable data that each process mapping the file sees incremented while the probe is installed
 * in it. -EINVAL if the uprobe at offset already has another one. */
int uprobe_register_refctr(const struct ramfs_inode *inode, unsigned long offset,
			   unsigned long ref_ctr_offset, struct uprobe_consumer *uc);
/* Takes uc away; the original byte is back in every process once the last consumer goes. Returns
 * once no CPU can still be running uc. */
void uprobe_unregister(const struct ramfs_inode *inode, unsigned long offset,
		       struct uprobe_consumer *uc);

/* exec: the new image of current maps files; probes on them are installed (kernel/fs/exec.c). */
void uprobe_mmap_exec(struct mm_struct *mm);
/* fork: the child inherits the parent's pending uretprobe returns (its stack holds the trampoline). */
int uprobe_copy_process(struct task *child);
void uprobe_free_utask(struct task *t);

/* The int3 or #DB of a user task was ours: handled (arch/x86/uprobes.c). */
bool uprobe_exception_notify(struct pt_regs *regs, int trapnr);

/* --- between kernel/events/uprobes.c and arch/x86/uprobes.c ---------------------------------- */

/* Per task: the step in progress and the returns a uretprobe waits for. */
#define UPROBE_MAX_DEPTH 64
struct return_instance {
	struct uprobe *uprobe;
	unsigned long func, orig_ret;
};
struct uprobe_task {
	bool stepping;
	bool tf_was_set;
	struct uprobe *active;
	unsigned long vaddr; /* the probed address being stepped */
	int depth;
	struct return_instance ret[UPROBE_MAX_DEPTH];
};

/* The XOL area: one user page, read and execute only, written by the kernel through the direct map.
 *   +0   int3           the uretprobe trampoline: a probed function returns here
 *   +64  slot           the instruction being stepped (one task per address space here) */
#define UPROBE_XOL_TRAMP 0
#define UPROBE_XOL_SLOT 64

int arch_uprobe_analyze_insn(struct arch_uprobe *au, const u8 *bytes, size_t avail);
/* After the handlers: run the probed instruction (emulate it, or set up the step). */
int arch_uprobe_run_insn(struct uprobe *u, const struct arch_uprobe *au, struct pt_regs *regs,
			 unsigned long vaddr);
/* The XOL page of current's mm (made at first need): its user address, 0 when none. */
unsigned long xol_get_area(struct mm_struct *mm);
/* Writes len bytes at user address uaddr of mm through the kernel's alias of the page. */
int uprobe_poke(struct mm_struct *mm, unsigned long uaddr, const void *src, size_t len);
struct uprobe_task *current_utask(void);

#endif
