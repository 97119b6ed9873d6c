/* Benchmarks of kprobes on bench_target, the function the tracer rows above time: a probe on
 * its fentry site (ftrace calls the handler), on its `push %rbp` (int3, emulated), on its
 * `mov %rsp,%rbp` (int3, stepped out of line, #DB), and a kretprobe. Handlers do nothing. */
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

static void bench_one_kprobe(const char *what, int n, u64 baseline)
{
	struct kprobe kp = { .symbol_name = "bench_target",
			     .offset = n < 0 ? 0 : nth_insn(bench_target, n),
			     .pre_handler = bench_kprobe_pre };

	if (register_kprobe(&kp))
		return;
	bench_row(what, bench_per_call(bench_target), baseline);
	unregister_kprobe(&kp);
}

void bench_kprobes(u64 baseline)
{
	struct kretprobe rp = { .kp.symbol_name = "bench_target",
				.handler = bench_kretprobe_handler };

	bench_one_kprobe("kprobe on ftrace (offset 0), empty handler", -1, baseline);
	bench_one_kprobe("kprobe int3, emulated (push %rbp)", 0, baseline);
	bench_one_kprobe("kprobe int3 + single-step (mov %rsp,%rbp)", 1, baseline);
	if (!register_kretprobe(&rp)) {
		bench_row("kretprobe (entry on ftrace, return trampoline)",
			  bench_per_call(bench_target), baseline);
		unregister_kretprobe(&rp);
	}
}
