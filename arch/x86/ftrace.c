/* The x86 side of ftrace: what the instructions at a call site look like, and the one door that
 * changes them (ftrace_modify_code), which always checks the bytes it replaces first.
 *
 * Changes are collected into a batch between ftrace_patch_begin() and ftrace_patch_commit(), which
 * applies them all with one method:
 *   boot                text_poke_early, one CPU, before anything else runs
 *   one CPU online      text_poke with interrupts off: nobody else can be running the code
 *   stop_machine        every other CPU spins in stop_machine while text_poke writes
 *   breakpoint          text_poke_bp_batch: the int3 protocol, nobody stops
 */
#include "kernel/trace/ftrace.h"
#include "arch/x86/cpu.h"
#include "arch/x86/text_poke.h"
#include "kernel/mm.h"
#include "kernel/smp.h"
#include "kernel/stop_machine.h"
#include "lib/errno.h"
#include "lib/string.h"

/* The 5-byte NOP gcc's -mnop-mcount would have used: nopl 0x0(%rax,%rax,1). */
const u8 ftrace_nop5[MCOUNT_INSN_SIZE] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

bool ftrace_poke_late;
enum patch_method ftrace_patch_method = PATCH_BREAKPOINT;
const char *const patch_method_names[] = { [PATCH_BREAKPOINT] = "breakpoint",
					   [PATCH_STOP_MACHINE] = "stop_machine" };

static struct text_poke_loc *batch;
static int batch_nr, batch_cap;
static bool batching;

/* `call addr` as placed at ip: e8 followed by the 32-bit displacement from the next instruction. */
void ftrace_call_replace(u8 insn[MCOUNT_INSN_SIZE], unsigned long ip, unsigned long addr)
{
	s32 rel = (s32)(addr - (ip + MCOUNT_INSN_SIZE));

	insn[0] = 0xe8;
	memcpy(insn + 1, &rel, 4);
}

/* Where the call at ip goes, or 0 if the bytes there are not a call. */
unsigned long ftrace_call_target(unsigned long ip)
{
	const u8 *p = (const u8 *)ip;
	s32 rel;

	if (p[0] != 0xe8)
		return 0;
	memcpy(&rel, p + 1, 4);
	return ip + MCOUNT_INSN_SIZE + rel;
}

void ftrace_patch_begin(void)
{
	/* One slot per record, plus the calls inside the trampolines. */
	int need = ftrace_nr_records() + 16;

	if (batch_cap < need) {
		kfree(batch);
		batch = kmalloc(need * sizeof(*batch));
		batch_cap = batch ? need : 0;
	}
	batch_nr = 0;
	batching = batch != NULL;
}

static int poke_batch_stopped(void *unused)
{
	for (int i = 0; i < batch_nr; i++)
		text_poke(batch[i].addr, batch[i].new, batch[i].len);
	return 0;
}

void ftrace_patch_commit(void)
{
	batching = false;
	if (!batch_nr)
		return;
	if (num_online_cpus() == 1) {
		unsigned long flags = local_irq_save();
		poke_batch_stopped(NULL);
		local_irq_restore(flags);
	} else if (ftrace_patch_method == PATCH_STOP_MACHINE) {
		stop_machine(poke_batch_stopped, NULL);
	} else {
		text_poke_bp_batch(batch, batch_nr);
	}
	batch_nr = 0;
}

/*
 * Replaces the 5 bytes at ip: old must be what is there now, or nothing is written and the caller
 * gets -EINVAL (ftrace_bug). Every code change ftrace makes goes through here. Inside a batch the
 * write is queued; the check is made now, when the caller still knows what it expects.
 */
int ftrace_modify_code(unsigned long ip, const u8 *old, const u8 *new)
{
	if (memcmp((const void *)ip, old, MCOUNT_INSN_SIZE))
		return -EINVAL;
	if (!memcmp(old, new, MCOUNT_INSN_SIZE))
		return 0;
	if (!ftrace_poke_late) {
		text_poke_early((void *)ip, new, MCOUNT_INSN_SIZE);
	} else if (batching && batch_nr < batch_cap) {
		batch[batch_nr].addr = (void *)ip;
		batch[batch_nr].len = MCOUNT_INSN_SIZE;
		memcpy(batch[batch_nr].new, new, MCOUNT_INSN_SIZE);
		batch_nr++;
	} else {
		/* Outside a batch (or out of room): a batch of one. */
		struct text_poke_loc one = { .addr = (void *)ip, .len = MCOUNT_INSN_SIZE };
		memcpy(one.new, new, MCOUNT_INSN_SIZE);
		if (num_online_cpus() == 1)
			text_poke((void *)ip, new, MCOUNT_INSN_SIZE);
		else
			text_poke_bp_batch(&one, 1);
	}
	return 0;
}
