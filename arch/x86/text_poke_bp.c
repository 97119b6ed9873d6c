/* text_poke_bp: patch code other CPUs are running, with no CPU ever stopped, using int3.
 *
 * x86 makes no promise about what a CPU executes while bytes of an instruction change under it,
 * except for one byte: an int3 (0xcc) written over the first byte of an instruction is seen either
 * whole or not at all. So, for every site of the batch:
 *
 *   1. write 0xcc over the first byte              sync every CPU
 *        (a CPU reaching the site now traps; the handler emulates the NEW instruction)
 *   2. write bytes 1..4 of the new instruction      sync every CPU
 *        (nobody can see them: the first byte still traps)
 *   3. write the new first byte                     sync every CPU     <- the commit point
 *
 * Before step 3 a CPU runs either the old instruction or the int3; after it, only the new one.
 * A batch takes three syncs in all, however many sites it changes.
 */
#include "arch/x86/text_poke.h"
#include "arch/x86/text_patch.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/smp.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"
#include "lib/sort.h"
#include "lib/string.h"

/* The batch being patched, as the int3 handler sees it; NULL when none. */
static struct text_poke_loc *volatile bp_vec;
static volatile int bp_nr;
static volatile int bp_refs; /* int3 handlers currently reading bp_vec */
unsigned long text_poke_bp_hits;
unsigned long text_poke_bp_stale;

static int cmp_loc(const void *a, const void *b)
{
	const struct text_poke_loc *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_key(const void *key, const void *elt)
{
	const struct text_poke_loc *y = elt;
	return key < y->addr ? -1 : key > y->addr;
}

/* What the trapped CPU would have run: the new instruction, emulated on its saved registers. */
static void emulate(struct pt_regs *regs, const struct text_poke_loc *tp)
{
	unsigned long next = (unsigned long)tp->addr + tp->len;
	s32 rel;
	u8 irq;

	switch (tp->new[0]) {
	case CALL_INSN_OPCODE: /* call: push the return address into the gap entry.asm left, jump */
		memcpy(&rel, tp->new + 1, 4);
		regs->sp -= 8;
		*(unsigned long *)regs->sp = next;
		regs->ip = next + rel;
		break;
	case JMP32_INSN_OPCODE: /* jmp rel32 */
		memcpy(&rel, tp->new + 1, 4);
		regs->ip = next + rel;
		break;
	case JMP8_INSN_OPCODE: /* jmp rel8 */
		regs->ip = next + (s8)tp->new[1];
		break;
	default:
		/* A NOP of any length: skip it. An irqflags site's cli or sti: on the flags iretq
		 * restores. The emulated sti has no one-instruction interrupt shadow, which only
		 * `sti; hlt` needs: safe_halt() is not such a site (kernel/irqflags.h). */
		irq = tp->len == IRQ_SITE_INSN_SIZE ? text_insn_irq_site(tp->new) : 0;
		if (irq == CLI_INSN_OPCODE)
			regs->flags &= ~X86_EFLAGS_IF;
		else if (irq == STI_INSN_OPCODE)
			regs->flags |= X86_EFLAGS_IF;
		regs->ip = next;
	}
}

/*
 * The #BP hook: is this int3 one of ours? Runs with interrupts off, never traced.
 *
 * Under QEMU's TCG a CPU can meet an int3 after its batch has completed (and after every CPU took
 * the serializing IPI): a block translated while the int3 was there is run again. Real CPUs never
 * do this, but the handler must cope: if no batch covers ip and memory no longer holds 0xcc there,
 * memory holds the committed new instruction, so we emulate that. If memory does hold 0xcc, a new
 * batch may have begun since we looked: look again. Only an int3 that no batch ever covers is not
 * ours, and goes on to die() like any stray breakpoint.
 */
static bool poke_int3_handler(struct pt_regs *regs)
{
	void *ip = (void *)(regs->ip - 1); /* int3 has executed: rip is one past it */
	struct text_poke_loc *vec, now;	   /* filled only on the stale path: this one is hot */
	const struct text_poke_loc *tp = NULL;
	bool handled = false;

	__atomic_add_fetch(&bp_refs, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		vec = __atomic_load_n(&bp_vec, __ATOMIC_ACQUIRE);
		if (vec)
			tp = bsearch(ip, vec, bp_nr, sizeof(*vec), cmp_key);
		if (tp && (tp->len == 1 || tp->new[0] == INT3_INSN_OPCODE)) {
			/* A kprobe's int3 going in or out, or an optimized kprobe's jmp going back to
			 * its int3: only kprobes can replay what it covers. */
			tp = NULL;
			break;
		}
		if (tp) {
			__atomic_add_fetch(&text_poke_bp_hits, 1, __ATOMIC_RELAXED);
			break;
		}
		now.addr = ip;
		memcpy(now.new, ip, 5);
		if (now.new[0] != INT3_INSN_OPCODE) {
			now.len = text_insn_poke_len(now.new);
			if (now.len) {
				tp = &now;
				__atomic_add_fetch(&text_poke_bp_stale, 1, __ATOMIC_RELAXED);
			}
			break;
		}
		if (__atomic_load_n(&bp_vec, __ATOMIC_ACQUIRE) == vec)
			break; /* 0xcc that no batch covers: not ours */
	}
	if (tp) {
		emulate(regs, tp);
		handled = true;
	}
	__atomic_sub_fetch(&bp_refs, 1, __ATOMIC_RELEASE);
	return handled;
}

/* The observer (patch_step, a self-test) is told of each step; it may hold the batch there. */
static void observe(int step, const struct text_poke_loc *tp, int nr)
{
	const struct text_patch_observer *obs = READ_ONCE(text_patch_observer);

	if (obs && obs->bp_step)
		obs->bp_step(step, tp, nr);
}

static void step_done(int step, const struct text_poke_loc *tp, int nr)
{
	sync_core_all();
	observe(step, tp, nr);
}

/* Clients queue in address order (ftrace's records, a key's sites): then sorting is a check. */
static bool in_order(const struct text_poke_loc *tp, int nr)
{
	for (int i = 1; i < nr; i++)
		if (tp[i - 1].addr >= tp[i].addr)
			return false;
	return true;
}

void text_poke_bp_batch(struct text_poke_loc *tp, int nr)
{
	static const u8 int3 = INT3_INSN_OPCODE;

	if (!nr)
		return;
	/* The handler's bsearch needs the order; heapsort would shuffle even a sorted batch. */
	if (!in_order(tp, nr))
		sort(tp, nr, sizeof(*tp), cmp_loc, NULL);
	int3_hook = poke_int3_handler;
	bp_nr = nr;
	__atomic_store_n(&bp_vec, tp, __ATOMIC_RELEASE);

	observe(0, tp, nr); /* patch_step: held before anything is written */
	for (int i = 0; i < nr; i++)
		text_poke(tp[i].addr, &int3, 1);
	step_done(1, tp, nr);
	for (int i = 0; i < nr; i++)
		if (tp[i].len > 1)
			text_poke((u8 *)tp[i].addr + 1, tp[i].new + 1, tp[i].len - 1);
	step_done(2, tp, nr);
	for (int i = 0; i < nr; i++)
		text_poke(tp[i].addr, tp[i].new, 1);
	step_done(3, tp, nr);

	/* No int3 of ours is left in the text; wait out handlers that may still be reading tp. */
	/* SEQ_CST: the store must be visible before we read bp_refs (a store-load pair). */
	__atomic_store_n(&bp_vec, NULL, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&bp_refs, __ATOMIC_ACQUIRE))
		cpu_relax();
}

/* Waits until no int3 handler is reading the vector it found in bp_vec. */
static void wait_handlers(void)
{
	while (__atomic_load_n(&bp_refs, __ATOMIC_ACQUIRE))
		cpu_relax();
}

/* Does every site hold what the batch has written after step `done` (0..2)? */
static bool holds_step(const struct text_poke_loc *tp, int nr, int done)
{
	for (int i = 0; i < nr; i++) {
		const u8 *p = tp[i].addr, *tail = done >= 2 ? tp[i].new : tp[i].old;
		if (done >= 1 && p[0] != INT3_INSN_OPCODE)
			return false;
		if (!done && p[0] != tp[i].old[0])
			return false;
		if (memcmp(p + 1, tail + 1, tp[i].len - 1))
			return false;
	}
	return true;
}

/*
 * From the step hook, after step `done` (0..2) of the batch in flight: turn it back. Step 2 is
 * undone here (old tails under the int3, then a sync); the old bytes then become the batch's
 * target, so its remaining steps (each with its sync) end on the old bytes. -EINVAL, nothing
 * changed, if a site holds other bytes than step `done` left.
 *
 * The handlers read tp->new while we rewrite it: a torn read could emulate a call to nowhere. So
 * they are first moved to a copy that already says "old", and the copy is freed when none reads it.
 */
int text_poke_bp_revert(int done)
{
	struct text_poke_loc *vec = bp_vec, *back;
	int nr = bp_nr;

	if (!vec || done < 0 || done > 2 || !holds_step(vec, nr, done))
		return -EINVAL;
	back = kmalloc(nr * sizeof(*back));
	if (!back)
		return -ENOMEM;
	memcpy(back, vec, nr * sizeof(*back));
	for (int i = 0; i < nr; i++)
		memcpy(back[i].new, back[i].old, back[i].len);
	__atomic_store_n(&bp_vec, back, __ATOMIC_SEQ_CST);
	wait_handlers();
	if (done == 2) {
		for (int i = 0; i < nr; i++)
			text_poke((u8 *)vec[i].addr + 1, vec[i].old + 1, vec[i].len - 1);
		sync_core_all();
	}
	for (int i = 0; i < nr; i++)
		memcpy(vec[i].new, vec[i].old, vec[i].len);
	__atomic_store_n(&bp_vec, vec, __ATOMIC_SEQ_CST);
	wait_handlers();
	kfree(back);
	return 0;
}

void text_poke_bp(void *addr, const void *opcode, size_t len)
{
	struct text_poke_loc tp = { .addr = addr, .len = len };

	memcpy(tp.new, opcode, len);
	text_poke_bp_batch(&tp, 1);
}
