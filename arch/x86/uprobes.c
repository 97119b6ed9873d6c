/* x86's half of uprobes: which instructions can be probed, and running one out of line or emulated.
 *
 * At registration the decoder (arch/x86/insn.c) reads the file's bytes at the offset: an instruction
 * that does not decode is refused. What the hit does after the handlers:
 *
 *   push %reg, call rel32, jmp rel, ret, nop    emulated here: the registers and the user stack are
 *                                               changed as the CPU would, the int3 never left
 *   anything else that only reads its operands  copied to the XOL slot, TF set, iretq to the slot;
 *   and changes registers or memory             the #DB after its one instruction moves rip back to
 *                                               the instruction after the probed one
 *   rip-relative operands, conditional branches,  refused (-ENOTSUPP): their meaning depends on
 *   indirect jumps and calls, syscall, int, pushf   where they run or on TF (Linux rewrites the
 *                                               rip-relative ones to use a scratch register)
 *
 * The XOL area is one user page at the process's mmap_base, mapped read and execute ("[uprobes]"
 * in Linux's maps), written only through the kernel's alias of its frame:
 *
 *   xol + 0    cc                 uretprobe trampoline: a probed function returns here
 *   xol + 64   <the instruction>  the slot a step runs in
 *
 * Linux: arch/x86/kernel/uprobes.c (arch_uprobe_analyze_insn(), branch_setup_xol_ops(),
 * push_setup_xol_ops(), arch_uprobe_pre_xol(), arch_uprobe_post_xol(), arch_uretprobe_hijack_return_addr()).
 */
#include "kernel/events/uprobes.h"
#include "arch/x86/cpu.h"
#include "arch/x86/insn.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_types.h"
#include "kernel/sched/sched.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

bool handle_swbp(struct pt_regs *regs);

/* pt_regs slots of the 16 general registers in encoding order (rax, rcx, ..., r15). */
static const u8 reg_slot[16] = {
	offsetof(struct pt_regs, ax) / 8,  offsetof(struct pt_regs, cx) / 8,
	offsetof(struct pt_regs, dx) / 8,  offsetof(struct pt_regs, bx) / 8,
	offsetof(struct pt_regs, sp) / 8,  offsetof(struct pt_regs, bp) / 8,
	offsetof(struct pt_regs, si) / 8,  offsetof(struct pt_regs, di) / 8,
	offsetof(struct pt_regs, r8) / 8,  offsetof(struct pt_regs, r9) / 8,
	offsetof(struct pt_regs, r10) / 8, offsetof(struct pt_regs, r11) / 8,
	offsetof(struct pt_regs, r12) / 8, offsetof(struct pt_regs, r13) / 8,
	offsetof(struct pt_regs, r14) / 8, offsetof(struct pt_regs, r15) / 8,
};

/* Instructions whose effect depends on where they run, on TF, or that leave user space. */
static bool insn_refused(const struct insn *in)
{
	u8 op = in->opcode[0];

	if (in->rip_relative)
		return true;
	if (in->opcode_len == 1) {
		if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3)) /* jcc, loop, jrcxz */
			return true;
		if (op == 0x9c || op == 0x9d || op == 0xcf) /* pushf, popf, iret: TF is visible */
			return true;
		if (op == 0xcc || op == 0xcd || op == 0xce || op == 0xf1 || op == 0xf4)
			return true; /* int3, int n, into, int1, hlt */
		if (op == 0xc2 || op == 0xca || op == 0xcb || op == 0x9a || op == 0xea)
			return true; /* ret imm, far ret, far call, far jmp */
		if (op == 0xff && insn_reg(in) >= 2 && insn_reg(in) <= 5)
			return true; /* indirect call and jmp */
		return false;
	}
	if (in->opcode_len == 2 && op == 0x0f) {
		u8 op2 = in->opcode[1];
		return (op2 >= 0x80 && op2 <= 0x8f) || op2 == 0x05 || op2 == 0x34 || op2 == 0x07 ||
		       op2 == 0x01 || op2 == 0x0b; /* jcc, syscall, sysenter, sysret, system, ud2 */
	}
	return false;
}

int arch_uprobe_analyze_insn(struct arch_uprobe *au, const u8 *bytes, size_t avail)
{
	struct insn in;
	u8 op;

	if (insn_decode(&in, bytes, avail < MAX_INSN_SIZE ? avail : MAX_INSN_SIZE))
		return -EINVAL;
	memcpy(au->insn, bytes, in.length);
	au->len = in.length;
	op = in.opcode[0];
	au->kind = UPROBE_XOL;
	if (in.opcode_len == 1 && op >= 0x50 && op <= 0x57 && !in.nr_prefixes) {
		au->kind = UPROBE_EMU_PUSH;
		au->reg = reg_slot[(op - 0x50) + (in.rex & 1 ? 8 : 0)];
	} else if (in.opcode_len == 1 && op == 0xe8 && !in.nr_prefixes) {
		au->kind = UPROBE_EMU_CALL;
		au->rel = in.imm;
	} else if (in.opcode_len == 1 && (op == 0xe9 || op == 0xeb) && !in.nr_prefixes) {
		au->kind = UPROBE_EMU_JMP;
		au->rel = in.imm;
	} else if (in.opcode_len == 1 && op == 0xc3) {
		au->kind = UPROBE_EMU_RET;
	} else if ((in.opcode_len == 1 && op == 0x90 && !in.rex) ||
		   (in.opcode_len == 2 && op == 0x0f && in.opcode[1] == 0x1f)) {
		au->kind = UPROBE_EMU_NOP;
	} else if (insn_refused(&in)) {
		return -ENOTSUPP;
	}
	return 0;
}

/* --- the XOL area ---------------------------------------------------------------------------- */

unsigned long xol_get_area(struct mm_struct *mm)
{
	static const u8 tramp = 0xcc;
	unsigned long addr;

	if (!mm)
		return 0;
	if (mm->uprobes_xol)
		return mm->uprobes_xol;
	addr = mm->mmap_base; /* above every mmap, below the stack's guard gap */
	if (insert_vm_area(mm, addr, addr + PAGE_SIZE, VM_READ | VM_EXEC, false) ||
	    uprobe_poke(mm, addr + UPROBE_XOL_TRAMP, &tramp, 1))
		return 0;
	mm->uprobes_xol = addr;
	return addr;
}

/* --- running the probed instruction ---------------------------------------------------------- */

static int push_user(struct pt_regs *regs, unsigned long val)
{
	if (copy_to_user((void __user *)(regs->sp - 8), &val, sizeof(val)))
		return -EFAULT;
	regs->sp -= 8;
	return 0;
}

static int emulate(const struct arch_uprobe *au, struct pt_regs *regs, unsigned long vaddr)
{
	unsigned long next = vaddr + au->len, *r = (unsigned long *)regs, val;

	switch (au->kind) {
	case UPROBE_EMU_PUSH:
		if (push_user(regs, r[au->reg]))
			return -EFAULT;
		regs->ip = next;
		return 0;
	case UPROBE_EMU_CALL:
		if (push_user(regs, next))
			return -EFAULT;
		regs->ip = next + au->rel;
		return 0;
	case UPROBE_EMU_JMP:
		regs->ip = next + au->rel;
		return 0;
	case UPROBE_EMU_RET:
		if (copy_from_user(&val, (void __user *)regs->sp, sizeof(val)))
			return -EFAULT;
		regs->sp += 8;
		regs->ip = val;
		return 0;
	case UPROBE_EMU_NOP:
		regs->ip = next;
		return 0;
	}
	return -EINVAL;
}

int arch_uprobe_run_insn(struct uprobe *u, const struct arch_uprobe *au, struct pt_regs *regs,
			 unsigned long vaddr)
{
	struct uprobe_task *ut;
	unsigned long xol;

	if (au->kind != UPROBE_XOL)
		return emulate(au, regs, vaddr);
	ut = current_utask();
	xol = xol_get_area(current->mm);
	if (!ut || !xol || uprobe_poke(current->mm, xol + UPROBE_XOL_SLOT, au->insn, au->len))
		return -ENOMEM;
	sync_core();
	ut->stepping = true;
	ut->active = u;
	ut->vaddr = vaddr;
	ut->tf_was_set = regs->flags & X86_EFLAGS_TF;
	regs->flags |= X86_EFLAGS_TF;
	regs->ip = xol + UPROBE_XOL_SLOT;
	return 0;
}

/* The #DB after the step: rip back into the program, TF as the program had it. */
static bool post_xol(struct pt_regs *regs)
{
	struct uprobe_task *ut = current->utask;
	unsigned long slot;

	if (!ut || !ut->stepping)
		return false;
	slot = current->mm->uprobes_xol + UPROBE_XOL_SLOT;
	ut->stepping = false;
	regs->ip = ut->vaddr + (regs->ip - slot);
	if (!ut->tf_was_set)
		regs->flags &= ~X86_EFLAGS_TF;
	return true;
}

bool uprobe_exception_notify(struct pt_regs *regs, int trapnr)
{
	if (trapnr == X86_TRAP_BP)
		return handle_swbp(regs);
	if (trapnr == X86_TRAP_DB)
		return post_xol(regs);
	return false;
}
