/* What the NMI entry tells the tracers that time CPUs (Linux's include/linux/ftrace_irq.h):
 * hwlat counts NMIs and the time they took, which nothing else can see. */
#ifndef KERNEL_TRACE_FTRACE_IRQ_H
#define KERNEL_TRACE_FTRACE_IRQ_H

#include "lib/types.h"
#include "lib/compiler.h"

extern bool trace_hwlat_callback_enabled; /* a CPU is sampling (trace_hwlat.c) */
void trace_hwlat_callback(bool enter);

/* From the outermost NMI's entry and exit (arch/x86/traps.c: do_irq()). */
static inline void ftrace_nmi_enter(void)
{
	if (READ_ONCE(trace_hwlat_callback_enabled))
		trace_hwlat_callback(true);
}

static inline void ftrace_nmi_exit(void)
{
	if (READ_ONCE(trace_hwlat_callback_enabled))
		trace_hwlat_callback(false);
}

#endif
