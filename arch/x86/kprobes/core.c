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

struct prev_kprobe {
	struct kprobe_site *site;
	unsigned long status, old_flags;
};

struct kprobe_ctlblk {
	struct kprobe_site *site; /* Linux's current_kprobe: whose handlers or step is running */
	unsigned long status;
	unsigned long old_flags;  /* TF and IF as the probed code had them */
	struct prev_kprobe prev;
};

static struct kprobe_ctlblk kcbs[NR_CPUS];

static struct kprobe_ctlblk *get_kprobe_ctlblk(void)
{
	return &kcbs[smp_processor_id()];
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

static void setup_singlestep(struct kprobe_site *s, struct pt_regs *regs,
			     struct kprobe_ctlblk *kcb, bool reenter)
{
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

static bool kprobe_int3_handler(struct pt_regs *regs)
{
	kprobe_opcode_t *addr = (kprobe_opcode_t *)(regs->ip - 1);
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe_site *s = kprobe_site_lookup(addr);

	if (!s) {
		/* The probe was removed after this CPU trapped (or, under QEMU's TCG, it ran an old
		 * translation of the page): the text holds the instruction again. Run it. */
		if (READ_ONCE(*addr) != INT3_INSN_OPCODE) {
			regs->ip = (unsigned long)addr;
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

/* Linux's resume_execution(): the step ran at the slot; make it look as if it ran at addr. */
static void resume_execution(struct kprobe_site *s, struct pt_regs *regs,
			     struct kprobe_ctlblk *kcb)
{
	unsigned long delta = (unsigned long)s->addr - (unsigned long)s->ainsn.slot;

	regs->flags = (regs->flags & ~FL_TF) | kcb->old_flags;
	switch (s->ainsn.replay) {
	case KP_STEP_CALL_INDIRECT:
		*(unsigned long *)regs->sp += delta; /* the return address it pushed */
		return;                              /* ip: the absolute target */
	case KP_STEP_ABS:
		return;
	}
	regs->ip += delta;
}

static bool kprobe_debug_handler(struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe_site *s = kcb->site;

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
	}
}

void arch_kprobes_init(void)
{
	kprobe_int3_hook = kprobe_int3_handler;
	kprobe_debug_hook = kprobe_debug_handler;
	kprobe_fault_hook = kprobe_fault_handler;
}
