/* A kprobe hit on x86: the int3, the handlers, the probed instruction replayed, the trap after
 * it, and the fixups that make the step out of line look like it ran in place.
 *
 *   text: ... int3 ...                  a CPU reaches the probe
 *     #BP -> kprobe_int3_handler        pre handlers; then either
 *              emulate, post handlers   (jumps, calls, ret, push, IF): done, back to the text
 *              ip = slot, TF on, IF off (everything else): iret runs one instruction there
 *     #DB -> kprobe_debug_handler       resume_execution: ip (and a pushed return address)
 *                                       moved from the slot back to the text; post handlers
 *
 * Each CPU keeps its state in a kprobe_ctlblk. A probe hit while a handler runs (a probed
 * function called from a handler) runs no handler: it counts as missed, and its instruction is
 * stepped with the outer probe's state set aside, as Linux's reenter_kprobe() does.
 */
#include "kernel/kprobes_internal.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"

#define FL_TF (1UL << 8)
#define FL_IF (1UL << 9)

static struct kprobe_ctlblk *get_kprobe_ctlblk(void)
{
	return &this_cpu()->kprobe_ctlblk;
}

bool kprobe_running(void)
{
	return get_kprobe_ctlblk()->site != NULL;
}

void kprobe_set_current(struct kprobe_site *s, enum kprobe_status status)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

	kcb->site = s;
	kcb->status = status;
}

/* Linux's setup_detour_execution(): a site on its way to or from a jmp (kernel/kprobes_opt.c)
 * runs its whole range from the detour buffer, which comes back after it. Stepping the first
 * instruction alone would return inside the range, whose bytes may be changing. */
static bool setup_detour_execution(struct kprobe_site *s, struct pt_regs *regs,
				   struct kprobe_ctlblk *kcb, bool reenter)
{
	if (__atomic_load_n(&s->opt_state, __ATOMIC_ACQUIRE) == KPROBE_OPT_NONE)
		return false;
	regs->ip = arch_optimized_copy(s);
	if (reenter) {
		kcb->site = kcb->prev.site;
		kcb->status = kcb->prev.status;
		kcb->old_flags = kcb->prev.old_flags;
	} else {
		kcb->site = NULL;
	}
	return true;
}

static void setup_singlestep(struct kprobe_site *s, struct pt_regs *regs, struct kprobe_ctlblk *kcb,
			     bool reenter)
{
	if (setup_detour_execution(s, regs, kcb, reenter))
		return;
	if (s->ainsn.replay > KP_STEP_ABS) {
		kprobe_emulate(s, regs);
		if (reenter) {
			kcb->site = kcb->prev.site;
			kcb->status = kcb->prev.status;
			kcb->old_flags = kcb->prev.old_flags;
			return;
		}
		kcb->status = KPROBE_HIT_SSDONE;
		kprobe_run_post_handlers(s, regs);
		kcb->site = NULL;
		return;
	}
	kcb->status = reenter ? KPROBE_REENTER : KPROBE_HIT_SS;
	kcb->old_flags = regs->flags & (FL_TF | FL_IF);
	/* One instruction, then #DB; no interrupt may come between (it would find TF set). */
	regs->flags = (regs->flags | FL_TF) & ~FL_IF;
	regs->ip = (unsigned long)s->ainsn.slot;
}

static bool reenter_kprobe(struct kprobe_site *s, struct pt_regs *regs, struct kprobe_ctlblk *kcb)
{
	if (kcb->status != KPROBE_HIT_ACTIVE && kcb->status != KPROBE_HIT_SSDONE)
		panic("kprobes: unrecoverable hit at %pS while stepping %pS", s->addr,
		      kcb->site->addr);
	kprobe_site_missed(s);
	kcb->prev = (struct prev_kprobe){ kcb->site, kcb->status, kcb->old_flags };
	kcb->site = s;
	setup_singlestep(s, regs, kcb, true);
	return true;
}

/*
 * An int3 with no probe behind it and no int3 in memory: the probe was removed after this CPU
 * trapped, or (under QEMU's TCG) the CPU ran a translation of the page made while the int3 was
 * there, and such a translation can outlive the write that removed it. Returning to addr would
 * run that translation again, for ever. So we run the instruction that is in memory now, in
 * place, with the trap flag set: TF is part of what QEMU keys its translations on, so this one
 * is translated afresh, and on a real CPU it is simply the instruction. The IF instructions,
 * which would see or change TF and IF, are emulated instead.
 */
static void step_in_place(struct pt_regs *regs, kprobe_opcode_t *addr, struct kprobe_ctlblk *kcb)
{
	u8 op = READ_ONCE(*addr);

	regs->ip = (unsigned long)addr;
	if (op == 0xfa || op == 0xfb || op == 0x9c || op == 0x9d) {
		kprobe_emulate_if(regs, op);
		regs->ip++;
		return;
	}
	/* Possibly inside a hit (a handler's callee, or the slot itself): set that hit aside. */
	kcb->stale = (struct prev_kprobe){ kcb->site, kcb->status, kcb->old_flags };
	kcb->site = NULL;
	kcb->status = KPROBE_STALE_SS;
	kcb->old_flags = regs->flags & (FL_TF | FL_IF);
	regs->flags = (regs->flags | FL_TF) & ~FL_IF;
}

static void end_step_in_place(struct pt_regs *regs, struct kprobe_ctlblk *kcb)
{
	regs->flags = (regs->flags & ~FL_TF) | kcb->old_flags;
	kcb->site = kcb->stale.site;
	kcb->status = kcb->stale.status;
	kcb->old_flags = kcb->stale.old_flags;
}

static bool kprobe_int3_handler(struct pt_regs *regs)
{
	kprobe_opcode_t *addr = (kprobe_opcode_t *)(regs->ip - 1);
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe_site *s = kprobe_site_lookup(addr);

	if (kcb->status == KPROBE_STALE_SS) {
		/* The step in place met an int3 (a translation of the page with this probe armed,
		 * or the probe itself, back): it never ran. Take TF away again before anything. */
		end_step_in_place(regs, kcb);
	}
	if (!s) {
		if (READ_ONCE(*addr) != INT3_INSN_OPCODE) {
			step_in_place(regs, addr, kcb);
			return true;
		}
		/* An int3 is there: maybe one a new probe just wrote. Its site went into the table
		 * before the byte went into the text, so a second look finds it. */
		s = kprobe_site_lookup(addr);
		if (!s)
			return false; /* not ours: die() reports it */
	}
	if (s->ftrace)
		return false; /* ftrace sites never hold our int3 */
	if (kcb->site)
		return reenter_kprobe(s, regs, kcb);
	kcb->site = s;
	kcb->status = KPROBE_HIT_ACTIVE;
	/* Handlers see ip just past the int3, as on Linux. Nonzero: a handler moved ip itself. */
	if (kprobe_run_pre_handlers(s, regs)) {
		kcb->site = NULL;
		return true;
	}
	setup_singlestep(s, regs, kcb, false);
	return true;
}

/*
 * Linux's optimized_callback(), ours the detour's slow path. The buffer's template
 * (arch/x86/kprobes/opt_template.asm) does a hit itself: the nesting check and the site's mark
 * through gs, the site's `only` probe called with the regs it pushed, interrupts off as under
 * the int3 gate (so kprobes_synchronize() waits for it too). It calls here only when this CPU is
 * inside a kprobe already; the whole hit is done here, so any caller gets it right. Nonzero: a
 * handler moved ip, and the buffer resumes there.
 */
int optimized_callback(struct kprobe_site *s, struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p = READ_ONCE(s->only);
	int moved;

	if (kcb->site) {
		kprobe_site_missed(s);
		return 0;
	}
	kcb->site = s;
	moved = p->pre_handler(p, regs);
	kcb->site = NULL;
	return moved;
}

/* Linux's resume_execution(): the step ran at the slot; make it look as if it ran at addr. */
static void resume_execution(struct kprobe_site *s, struct pt_regs *regs, struct kprobe_ctlblk *kcb)
{
	unsigned long delta = (unsigned long)s->addr - (unsigned long)s->ainsn.slot;

	regs->flags = (regs->flags & ~FL_TF) | kcb->old_flags;
	switch (s->ainsn.replay) {
	case KP_STEP_CALL_INDIRECT:
		*(unsigned long *)regs->sp += delta; /* the return address it pushed */
		return;				     /* ip: the absolute target */
	case KP_STEP_ABS:
		return;
	}
	regs->ip += delta;
}

static bool kprobe_debug_handler(struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe_site *s = kcb->site;

	if (kcb->status == KPROBE_STALE_SS) {
		end_step_in_place(regs, kcb);
		s = kcb->site;
		/* Unless that step was a slot's own instruction, the trap was only ours. */
		if (kcb->status != KPROBE_HIT_SS && kcb->status != KPROBE_REENTER) {
			write_dr6(0);
			return true;
		}
	}
	if (!s || (kcb->status != KPROBE_HIT_SS && kcb->status != KPROBE_REENTER))
		return false;
	write_dr6(0);
	resume_execution(s, regs, kcb);
	if (kcb->status == KPROBE_REENTER) {
		kcb->site = kcb->prev.site;
		kcb->status = kcb->prev.status;
		kcb->old_flags = kcb->prev.old_flags;
		return true;
	}
	kcb->status = KPROBE_HIT_SSDONE;
	kprobe_run_post_handlers(s, regs);
	kcb->site = NULL;
	return true;
}

/* A fault in the slot (the stepped instruction read a bad address): report it at the probed
 * address, where the reader's code is, not in execmem. */
static void kprobe_fault_handler(struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe_site *s = kcb->site;

	if (s && (kcb->status == KPROBE_HIT_SS || kcb->status == KPROBE_REENTER) &&
	    regs->ip == (unsigned long)s->ainsn.slot) {
		regs->ip = (unsigned long)s->addr;
		regs->flags = (regs->flags & ~FL_TF) | kcb->old_flags;
		kcb->site = NULL;
		kcb->status = KPROBE_HIT_SSDONE;
	}
}

void arch_kprobes_init(void)
{
	for (int c = 0; c < NR_CPUS; c++)
		percpu_area[c].kprobe_ctlblk.status = KPROBE_HIT_SSDONE;
	kprobe_int3_hook = kprobe_int3_handler;
	kprobe_debug_hook = kprobe_debug_handler;
	kprobe_fault_hook = kprobe_fault_handler;
}
