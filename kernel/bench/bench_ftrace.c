/* Benchmarks of the ftrace core: a site as NOP, as a call into one ops, two ops, full regs. */
#include "kernel/bench/bench.h"
#include "kernel/trace/ftrace.h"
#include "kernel/printk/printk.h"

static volatile unsigned long bench_calls;

static void bench_callback(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			   struct pt_regs *regs)
{
	bench_calls++;
}

#define BENCH_OPS(name, fl)                                                                        \
	static struct ftrace_ops name = { .func = bench_callback, .flags = (fl) }
BENCH_OPS(ops_tramp, FTRACE_OPS_FL_RECURSION);
BENCH_OPS(ops_plain, FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_NO_TRAMP);
BENCH_OPS(ops_other, FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_NO_TRAMP);
BENCH_OPS(ops_assist, 0);
BENCH_OPS(ops_regs_tramp, FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_SAVE_REGS);
BENCH_OPS(ops_regs, FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_NO_TRAMP);
static struct ftrace_ops ops_direct = { .name = "bench_direct" };

struct bench_ops {
	struct ftrace_ops *ops;
	const char *filter;
};

static int bench_register(const struct bench_ops *b)
{
	if (ftrace_set_filter(b->ops, b->filter, true))
		return -1;
	if (b->ops == &ops_direct)
		return register_ftrace_direct(b->ops, (unsigned long)direct_count_tramp);
	return register_ftrace_function(b->ops);
}

static void bench_unregister(const struct bench_ops *b)
{
	if (b->ops == &ops_direct)
		unregister_ftrace_direct(b->ops, (unsigned long)direct_count_tramp);
	else
		unregister_ftrace_function(b->ops);
}

/* Registers the ops (each with its filter), times a call of bench_target, unregisters them. */
static u64 bench_with(const char *what, const struct bench_ops *b, int n, u64 baseline)
{
	u64 ticks = 0;
	int i;

	for (i = 0; i < n; i++)
		if (bench_register(&b[i]))
			break;
	if (i == n) {
		ticks = bench_per_call(bench_target);
		bench_row(what, ticks, baseline);
	} else {
		cprintf("bench: %s: could not register the ops\n", what);
	}
	while (i-- > 0)
		bench_unregister(&b[i]);
	return ticks;
}

void bench_ftrace_core(u64 baseline)
{
	/* "elsewhere": a second ops on another function keeps the list function in ftrace_call. */
	const struct bench_ops tramp[] = { { &ops_tramp, "bench_target" } },
			       plain[] = { { &ops_plain, "bench_target" } },
			       list1[] = { { &ops_plain, "bench_target" },
					   { &ops_other, "vfs_read" } },
			       list2[] = { { &ops_plain, "bench_target" },
					   { &ops_other, "bench_target" } },
			       assist[] = { { &ops_assist, "bench_target" } },
			       regs_tramp[] = { { &ops_regs_tramp, "bench_target" } },
			       regs[] = { { &ops_regs, "bench_target" } },
			       direct[] = { { &ops_direct, "bench_target" } };
	unsigned long n = ftrace_nr_records();
	u64 t_list, t_tramp;

	bench_row("NOP site (ftrace on, nothing registered)", bench_per_call(bench_target),
		  baseline);
	t_tramp = bench_with("1 ops, its own trampoline", tramp, 1, baseline);
	bench_with("1 ops, ftrace_caller calling it directly", plain, 1, baseline);
	t_list = bench_with("list function, 1 ops on the site (2 live)", list1, 2, baseline);
	bench_with("list function, 2 ops on the site", list2, 2, baseline);
	bench_with("1 ops, own trampoline -> ftrace_ops_assist_func", assist, 1, baseline);
	bench_with("1 ops SAVE_REGS, its own trampoline", regs_tramp, 1, baseline);
	bench_with("1 ops SAVE_REGS, ftrace_regs_caller", regs, 1, baseline);
	bench_with("direct call (direct_count_tramp)", direct, 1, baseline);
	if (t_list && t_tramp)
		cprintf("\nown trampoline vs list function, 1 ops on the site: %lld fewer "
			"instructions "
			"per call (%llu%% of the list path's cost above baseline)\n",
			(long long)(t_list - t_tramp),
			t_list > baseline ? (t_tramp - baseline) * 100 / (t_list - baseline) : 0);
	cprintf("\nboot conversion: %lu sites in %llu ticks, %llu ticks per 1000 sites\n", n,
		ftrace_init_ticks, n ? ftrace_init_ticks * 1000 / n : 0);
}

/* The static build: every call enters __fentry__; with an ops live, every call walks the list. */
void bench_ftrace_static(u64 baseline)
{
	const struct bench_ops plain[] = { { &ops_plain, "bench_target" } },
			       elsewhere[] = { { &ops_plain, "vfs_read" } },
			       list2[] = { { &ops_plain, "bench_target" },
					   { &ops_other, "bench_target" } };

	bench_row("static site, nothing traced (2 x cmp+jne, ret)", bench_per_call(bench_target),
		  baseline);
	bench_with("static, 1 ops on another function (list, no match)", elsewhere, 1, baseline);
	bench_with("static, 1 ops on the site (list function)", plain, 1, baseline);
	bench_with("static, 2 ops on the site (list function)", list2, 2, baseline);
}
