/* The "scale" workload (make SCALE=N only): calls every generated function once a round, so all N
 * sites are live code a tracer sees, as a big kernel's are. */
#ifdef CONFIG_SCALE
#include "kernel/work/scale.h"
#include "kernel/work/workloads.h"

static volatile int scale_sink;

void scale_iteration(struct work_stats *st)
{
	int x = 0;

	for (unsigned long i = 0; i < scale_nr_fns; i++)
		x = scale_fns[i](x);
	scale_sink = x;
}
#endif
