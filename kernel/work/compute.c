/* The "compute" workload: a little recursion and arithmetic, for deep function_graph nesting. */
#include "kernel/work/workloads.h"
#include "lib/compiler.h"

#define WORK noinline __attribute__((noclone))

static volatile u64 compute_sink;

WORK u64 compute_fib(int n)
{
	return n < 2 ? (u64)n : compute_fib(n - 1) + compute_fib(n - 2);
}

WORK u64 compute_square(u64 x)
{
	return x * x;
}

WORK u64 compute_sum_squares(int n)
{
	u64 sum = 0;
	for (int i = 1; i <= n; i++)
		sum += compute_square(i);
	return sum;
}

WORK void compute_iteration(struct work_stats *st)
{
	compute_sink = compute_fib(8) + compute_sum_squares(16);
}
