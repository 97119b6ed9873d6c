/* Replaying a probed instruction on the saved registers instead of running it: the jumps and
 * calls (whose targets are relative to where they sit, so a copy elsewhere would go astray),
 * ret, push, and the instructions that touch IF (which stepping with interrupts off would hide).
 *
 * Runs in the int3 handler. entry.asm leaves a 16-byte gap under the interrupted stack for int3,
 * so a `call` or `push` may store one word below regs->sp without landing on our own frame.
 */
#include "kernel/kprobes_internal.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"

#define FL_CF (1UL << 0)
#define FL_PF (1UL << 2)
#define FL_ZF (1UL << 6)
#define FL_SF (1UL << 7)
#define FL_TF (1UL << 8)
#define FL_IF (1UL << 9)
#define FL_OF (1UL << 11)
#define FL_RF (1UL << 16)

/* Condition cc (the low nibble of 7x / 0f 8x) on flags: pairs, the odd one the negation. */
static bool cond_holds(unsigned int cc, unsigned long fl)
{
	bool of = fl & FL_OF, sf = fl & FL_SF, zf = fl & FL_ZF, cf = fl & FL_CF, pf = fl & FL_PF;
	bool r;

	switch (cc >> 1) {
	case 0:
		r = of;
		break;
	case 1:
		r = cf;
		break;
	case 2:
		r = zf;
		break;
	case 3:
		r = cf || zf;
		break;
	case 4:
		r = sf;
		break;
	case 5:
		r = pf;
		break;
	case 6:
		r = sf != of;
		break;
	default:
		r = zf || sf != of;
		break;
	}
	return (cc & 1) ? !r : r;
}

/* pt_regs in the hardware's register numbering (rax=0 ... r15=15). */
static unsigned long *reg_slot(struct pt_regs *regs, unsigned int n)
{
	unsigned long *const map[16] = {
		&regs->ax,  &regs->cx,	&regs->dx,  &regs->bx,	&regs->sp,  &regs->bp,
		&regs->si,  &regs->di,	&regs->r8,  &regs->r9,	&regs->r10, &regs->r11,
		&regs->r12, &regs->r13, &regs->r14, &regs->r15,
	};
	return map[n & 15];
}

static void push(struct pt_regs *regs, unsigned long v)
{
	regs->sp -= 8;
	*(unsigned long *)regs->sp = v;
}

static unsigned long pop(struct pt_regs *regs)
{
	unsigned long v = *(unsigned long *)regs->sp;

	regs->sp += 8;
	return v;
}

void kprobe_emulate_if(struct pt_regs *regs, u8 op)
{
	switch (op) {
	case 0xfa:
		regs->flags &= ~FL_IF;
		break; /* cli */
	case 0xfb:
		regs->flags |= FL_IF;
		break; /* sti */
	case 0x9c:
		push(regs, regs->flags & ~(FL_TF | FL_RF));
		break; /* pushf */
	default:       /* popf */
		regs->flags = (pop(regs) & ~(FL_TF | FL_RF)) | 0x2;
	}
}

static void emulate_loop(struct pt_regs *regs, const struct arch_specific_insn *a,
			 unsigned long next)
{
	bool jump;

	if (a->opcode == 0xe3) {
		jump = regs->cx == 0; /* jrcxz: no decrement */
	} else {
		regs->cx--;
		jump = regs->cx != 0;
		if (a->opcode == 0xe0)
			jump = jump && !(regs->flags & FL_ZF);
		else if (a->opcode == 0xe1)
			jump = jump && (regs->flags & FL_ZF);
	}
	regs->ip = jump ? next + a->rel : next;
}

void kprobe_emulate(struct kprobe_site *s, struct pt_regs *regs)
{
	const struct arch_specific_insn *a = &s->ainsn;
	unsigned long next = (unsigned long)s->addr + a->len;

	regs->ip = next;
	switch (a->replay) {
	case KP_EMU_CALL:
		push(regs, next);
		regs->ip = next + a->rel;
		break;
	case KP_EMU_JMP:
		regs->ip = next + a->rel;
		break;
	case KP_EMU_JCC:
		if (cond_holds(a->reg, regs->flags))
			regs->ip = next + a->rel;
		break;
	case KP_EMU_LOOP:
		emulate_loop(regs, a, next);
		break;
	case KP_EMU_RET:
		regs->ip = pop(regs);
		regs->sp += a->rel;
		break;
	case KP_EMU_PUSH:
		/* push rsp stores the value before the decrement, as the CPU does */
		push(regs, *reg_slot(regs, a->reg));
		break;
	case KP_EMU_IF:
		kprobe_emulate_if(regs, a->opcode);
		break;
	}
}
