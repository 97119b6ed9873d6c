/* Benchmarks of kprobes on bench_target, the function the tracer rows above time: a probe on
 * its fentry site (ftrace calls the handler), on its `push %rbp` (int3, emulated; then the same
 * site optimized: a jmp to a detour buffer), on its `mov %rsp,%rbp` (int3, stepped out of line,
 * #DB), and a kretprobe. Handlers do nothing. The int3 rows keep optimization off, or the
 * optimizer would turn their site into a jmp part-way through. */
#include "kernel/bench/bench.h"
#include "arch/x86/insn.h"
#include "kernel/kprobes.h"

static int bench_kprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static int bench_kretprobe_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

/* Offset of the n-th instruction after the 5-byte fentry site. */
static unsigned int nth_insn(void *fn, int n)
{
	unsigned int off = 5;
	struct insn in;

	while (n-- > 0 && !insn_decode(&in, (u8 *)fn + off, MAX_INSN_SIZE))
		off += in.length;
	return off;
}

static void bench_one_kprobe(const char *what, int n, bool optimized, u64 baseline)
{
	struct kprobe kp = { .symbol_name = "bench_target",
			     .offset = n < 0 ? 0 : nth_insn(bench_target, n),
			     .pre_handler = bench_kprobe_pre };
	bool was = kprobes_optimization;

	kprobes_set_optimization(optimized);
	if (register_kprobe(&kp))
		goto out;
	if (optimized)
		wait_for_kprobe_optimizer();
	if (optimized == kprobe_optimized(&kp))
		bench_row(what, bench_per_call(bench_target), baseline);
	unregister_kprobe(&kp);
out:
	kprobes_set_optimization(was);
}

void bench_kprobes(u64 baseline)
{
	struct kretprobe rp = { .kp.symbol_name = "bench_target",
				.handler = bench_kretprobe_handler };

	bench_one_kprobe("kprobe on ftrace (offset 0), empty handler", -1, false, baseline);
	bench_one_kprobe("kprobe int3, emulated (push %rbp)", 0, false, baseline);
	bench_one_kprobe("kprobe optimized (push %rbp), jmp to a detour", 0, true, baseline);
	bench_one_kprobe("kprobe int3 + single-step (mov %rsp,%rbp)", 1, false, baseline);
	if (!register_kretprobe(&rp)) {
		bench_row("kretprobe (entry on ftrace, return trampoline)",
			  bench_per_call(bench_target), baseline);
		unregister_kretprobe(&rp);
	}
}
