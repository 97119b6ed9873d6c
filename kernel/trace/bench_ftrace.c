/* Benchmarks of the ftrace core: a site as NOP, as a call into one ops, two ops, full regs. */
#include "kernel/bench.h"
#include "kernel/trace/ftrace.h"
#include "kernel/printk.h"

extern u64 ftrace_init_ticks;

static volatile unsigned long bench_calls;

static void bench_callback(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			   struct pt_regs *regs)
{
	bench_calls++;
}

static struct ftrace_ops ops_a = { .func = bench_callback, .flags = FTRACE_OPS_FL_RECURSION };
static struct ftrace_ops ops_b = { .func = bench_callback, .flags = FTRACE_OPS_FL_RECURSION };
static struct ftrace_ops ops_assist = { .func = bench_callback };
static struct ftrace_ops ops_regs = { .func = bench_callback,
				      .flags = FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_SAVE_REGS };

/* Registers the ops (filtered to bench_target), times a call, unregisters them. */
static void bench_with(const char *what, struct ftrace_ops **ops, int n, u64 baseline)
{
	int i;

	for (i = 0; i < n; i++)
		if (ftrace_set_filter(ops[i], "bench_target", true) || register_ftrace_function(ops[i]))
			goto out;
	bench_row(what, bench_per_call(bench_target), baseline);
out:
	if (i < n)
		cprintf("bench: %s: could not register the ops\n", what);
	while (i-- > 0)
		unregister_ftrace_function(ops[i]);
}

void bench_ftrace_core(u64 baseline)
{
	struct ftrace_ops *one[] = { &ops_a }, *two[] = { &ops_a, &ops_b };
	struct ftrace_ops *assist[] = { &ops_assist }, *regs[] = { &ops_regs };
	unsigned long n = ftrace_nr_records();

	bench_row("NOP site (ftrace on, nothing registered)", bench_per_call(bench_target), baseline);
	bench_with("1 ops, trivial callback called directly", one, 1, baseline);
	bench_with("1 ops via ftrace_ops_assist_func (recursion guard)", assist, 1, baseline);
	bench_with("2 ops via ftrace_ops_list_func", two, 2, baseline);
	bench_with("1 ops with SAVE_REGS (ftrace_regs_caller)", regs, 1, baseline);
	cprintf("\nboot conversion: %lu sites in %llu ticks, %llu ticks per 1000 sites\n", n,
		ftrace_init_ticks, n ? ftrace_init_ticks * 1000 / n : 0);
}
