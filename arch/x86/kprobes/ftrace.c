/* A kprobe on a function's first byte rides on ftrace: the `call __fentry__` site already stops
 * there, so instead of an int3 (and a step of the 5-byte NOP) the site calls ftrace_regs_caller,
 * which hands us a pt_regs. Linux's arch/x86/kernel/kprobes/ftrace.c does the same.
 *
 * We make the registers look as an int3 would have left them: ip one past the probed byte for
 * the pre handlers, then past the 5-byte site for the post handlers (the "step" of a NOP).
 */
#include "kernel/kprobes_internal.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/trace/ftrace.h"

void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *ops,
			   struct pt_regs *regs)
{
	struct kprobe_site *s;
	unsigned long flags, orig_ip;

	/* Off, as in an int3 handler: the per-CPU state is ours, and kprobes_synchronize()'s IPI
	 * round cannot pass while we are here. */
	flags = local_irq_save();
	s = kprobe_site_lookup((void *)ip);
	if (!s || !regs)
		goto out;
	if (kprobe_running()) {
		kprobe_site_missed(s);
		goto out;
	}
	orig_ip = regs->ip;
	regs->ip = ip + 1;
	kprobe_set_current(s, KPROBE_HIT_ACTIVE);
	if (!kprobe_run_pre_handlers(s, regs)) {
		regs->ip = ip + MCOUNT_INSN_SIZE;
		kprobe_set_current(s, KPROBE_HIT_SSDONE);
		kprobe_run_post_handlers(s, regs);
		regs->ip = orig_ip;
	}
	/* else a handler moved ip: ftrace_regs_caller returns wherever it points */
	kprobe_set_current(NULL, KPROBE_HIT_SSDONE);
out:
	local_irq_restore(flags);
}
