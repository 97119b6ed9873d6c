/* Benchmarks of the latency tracers' hooks and of the max buffer's swap (docs/21).
 *
 * Built with the hooks (not in NOTRACE_SRCS), so its local_irq_*() and preempt_*() are what every
 * traced file gets; each measured function is notrace, so only the hooks differ from its raw twin.
 */
#include "kernel/bench/bench.h"
#include "kernel/irqflags.h"
#include "kernel/percpu.h"
#include "kernel/printk/printk.h"
#include "kernel/mm/mm.h"
#include "kernel/smp.h"
#include "kernel/trace/trace_snapshot.h"
#include "lib/printf.h"
#include "lib/sort.h"

/* The pairs, with the hooks (each a NOP while no tracer listens) and without (the raw twins). */
notrace noinline int bench_irq_pair(int x)
{
	SAME_FRAME();
	local_irq_disable();
	local_irq_enable();
	return x + 1;
}

notrace noinline int bench_irq_pair_raw(int x)
{
	SAME_FRAME();
	raw_local_irq_disable();
	raw_local_irq_enable();
	return x + 1;
}

notrace noinline int bench_preempt_pair(int x)
{
	SAME_FRAME();
	preempt_disable();
	preempt_enable_no_resched();
	return x + 1;
}

notrace noinline int bench_preempt_pair_raw(int x)
{
	SAME_FRAME();
	this_cpu()->preempt_count++;
	barrier();
	barrier();
	this_cpu()->preempt_count--;
	return x + 1;
}

static void pair_rows(const char *what, int (*fn)(int), const char *tracer, u64 raw)
{
	char row[64];
	int err;

	snprintf(row, sizeof(row), "%s, no tracer", what);
	bench_row(row, bench_per_call(fn), raw);
	err = tracing_set_tracer(tracer);
	snprintf(row, sizeof(row), "%s, %s", what, tracer);
	if (!err)
		bench_row(row, bench_per_call(fn), raw);
	else
		cprintf("| %-52s | %8s | %8s | %8s |\n", row, "error", "", "");
	tracing_set_tracer("nop");
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;
	return x < y ? -1 : x > y;
}

/* update_max_tr()'s swap between two buffers of kb KiB per CPU: the median of BENCH_RUNS. */
static u64 swap_ticks(unsigned long kb)
{
	struct trace_buffer *a = kzalloc(sizeof(*a)), *b = kzalloc(sizeof(*b));
	u64 runs[BENCH_RUNS], ticks = 0;

	if (!a || !b || ring_buffer_alloc(a, kb))
		goto out_free;
	if (ring_buffer_alloc(b, kb))
		goto out_a;
	for (int r = 0; r < BENCH_RUNS; r++) {
		unsigned long flags = raw_local_irq_save();
		u64 t0 = rdtsc();
		ring_buffer_swap(a, b, -1);
		runs[r] = rdtsc() - t0;
		raw_local_irq_restore(flags);
	}
	sort(runs, BENCH_RUNS, sizeof(runs[0]), cmp_u64, NULL);
	ticks = runs[BENCH_RUNS / 2];
	ring_buffer_free(b);
out_a:
	ring_buffer_free(a);
out_free:
	kfree(a);
	kfree(b);
	return ticks;
}

void bench_latency(u64 baseline)
{
	static const unsigned long sizes[] = { 8, 64, 1024, 4096 };
	u64 raw;

	cprintf("\n| %-52s | %8s | %8s | %8s |\n", "latency hooks (per call, one pair in it)",
		"ticks", "+raw", "ns");
	cprintf("|------------------------------------------------------|---------:|---------:|"
		"---------:|\n");
	raw = bench_per_call(bench_irq_pair_raw);
	bench_row("raw_local_irq_disable/enable pair (no hooks)", raw, raw);
	pair_rows("local_irq_disable/enable pair", bench_irq_pair, "irqsoff", raw);
	raw = bench_per_call(bench_preempt_pair_raw);
	bench_row("preempt count ++/-- (no hooks)", raw, raw);
	pair_rows("preempt_disable/enable pair", bench_preempt_pair, "preemptoff", raw);

	cprintf("\n| %-40s | %4s | %10s |\n", "update_max_tr()'s swap, every CPU's part", "CPUs",
		"ticks");
	cprintf("|------------------------------------------|-----:|-----------:|\n");
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		char row[48];

		snprintf(row, sizeof(row), "swap, %lu KiB per CPU", sizes[i]);
		cprintf("| %-40s | %4d | %10llu |\n", row, num_online_cpus(), swap_ticks(sizes[i]));
	}
}
