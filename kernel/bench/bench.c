/* The `bench` command: a fixed loop, timed with rdtsc, around a traced function and its twin.
 *
 * Under `qemu -icount shift=0` the TSC advances one tick per guest instruction, so a tick count is
 * an exact, repeatable instruction count: `make bench` runs this there. Without icount the same
 * numbers are TSC ticks of a TCG guest (noisy; read them as nothing more).
 */
#include "kernel/bench/bench.h"
#include "arch/x86/cpu.h"
#include "kernel/printk/printk.h"
#include "kernel/shell/shell.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "arch/x86/text_patch.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/trace/ftrace.h"
#include "lib/sort.h"

/* Written so the loop cannot be optimised away. */
static volatile int bench_sink;

noinline int bench_target(int x)
{
	SAME_FRAME();
	return x + 1;
}

notrace noinline int bench_target_notrace(int x)
{
	SAME_FRAME();
	return x + 1;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;
	return x < y ? -1 : x > y;
}

notrace u64 bench_per_call(int (*fn)(int))
{
	int (*volatile call)(int) = fn; /* an indirect call the compiler cannot inline or hoist */
	u64 runs[BENCH_RUNS];

	for (int r = 0; r < BENCH_RUNS; r++) {
		/* Interrupts off: a timer tick inside the window would be counted as tracing cost. */
		unsigned long flags = local_irq_save();
		u64 t0 = rdtsc();
		for (int i = 0; i < BENCH_LOOPS; i++)
			bench_sink = call(i);
		u64 t1 = rdtsc();
		local_irq_restore(flags);
		runs[r] = (t1 - t0 + BENCH_LOOPS / 2) / BENCH_LOOPS;
	}
	sort(runs, BENCH_RUNS, sizeof(runs[0]), cmp_u64, NULL);
	return runs[BENCH_RUNS / 2];
}

void bench_row(const char *what, u64 ticks, u64 baseline)
{
	cprintf("| %-52s | %8llu | %8lld | %8llu |\n", what, ticks, (long long)(ticks - baseline),
		tsc_to_ns(ticks));
}

void bench_sites_header(const char *title)
{
	cprintf("\n| %-40s | %4s | %6s | %12s | %10s | %10s |\n", title, "CPUs", "sites", "ticks",
		"ticks/site", "us");
	cprintf("|------------------------------------------|-----:|-------:|-------------:|-------"
		"----:|-----------:|\n");
}

void bench_sites_row(const char *what, u64 ticks, unsigned long sites)
{
	cprintf("| %-40s | %4d | %6lu | %12llu | %10llu | %10llu |\n", what, num_online_cpus(),
		sites, ticks, sites ? ticks / sites : 0, tsc_to_ns(ticks) / 1000);
}

void bench_flip_rows(const char *on, const char *off, enum patch_method m, const u64 t[3],
		     unsigned long sites)
{
	char what[64];

	snprintf(what, sizeof(what), "%s, %s", on, patch_method_names[m]);
	bench_sites_row(what, t[1] - t[0], sites);
	snprintf(what, sizeof(what), "%s, %s", off, patch_method_names[m]);
	bench_sites_row(what, t[2] - t[1], sites);
}

static int cmd_bench(int argc, char **argv)
{
	u64 baseline;

	if (argc == 2 && !strcmp(argv[1], "bpf")) {
		bench_bpf();
		return 0;
	}
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "sites") && strcmp(argv[1], "locks") &&
			 strcmp(argv[1], "hist"))) {
		cprintf("usage: bench [sites|locks|hist|bpf]\n");
		return 2;
	}
	if (text_patch_busy()) { /* it patches code: patch_step holds the locks until `next` */
		cprintf("bench: patch_step holds a patch: finish or abort it first\n");
		return 1;
	}
	if (argc == 2 && FTRACE_STATIC && !strcmp(argv[1], "sites")) {
		cprintf("bench: sites: the static build patches no site\n");
		return 1;
	}
	if (argc == 2 && !strcmp(argv[1], "sites")) {
		bench_scale();
		return 0;
	}
	baseline = bench_per_call(bench_target_notrace);

	cprintf("| %-52s | %8s | %8s | %8s |\n", "configuration (per call)", "ticks", "+base",
		"ns");
	cprintf("|%s|---------:|---------:|---------:|\n",
		"------------------------------------------------------");
	bench_row("baseline: notrace twin, no call site", baseline, baseline);
	if (argc == 2 && !strcmp(argv[1], "hist")) { /* the hist rows alone (docs/22) */
		bench_hist(baseline);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "locks")) {
		bench_locking(baseline);
		return 0;
	}
	if (FTRACE_STATIC) { /* nothing is patched: only the per-call costs mean anything */
		bench_ftrace_static(baseline);
		bench_tracers(baseline);
		return 0;
	}
	bench_ftrace_core(baseline);
	bench_tracers(baseline);
	bench_events(baseline);
	bench_hist(baseline);
	bench_kprobes(baseline);
	bench_probes(baseline);
	bench_patching(baseline);
	bench_jump_label(baseline);
	bench_latency(baseline);
	bench_hist_read();
	bench_locking(baseline);
	bench_bpf();
	return 0;
}
SHELL_CMD(
	bench, cmd_bench,
	"bench [sites|locks|hist|bpf]: time traced calls, what grows with the number of sites, the "
	"locks alone, or BPF runs (exact instruction counts under qemu -icount)");
