/* What the NMI entry tells the tracers that time CPUs (Linux's include/linux/ftrace_irq.h):
 * hwlat and osnoise count NMIs and the time they took, which nothing else can see. */
#ifndef KERNEL_TRACE_FTRACE_IRQ_H
#define KERNEL_TRACE_FTRACE_IRQ_H

#include "lib/types.h"
#include "lib/compiler.h"

extern bool trace_hwlat_callback_enabled;   /* a CPU is sampling (trace_hwlat.c) */
extern bool trace_osnoise_callback_enabled; /* osnoise or timerlat runs (trace_osnoise_hooks.c) */
void trace_hwlat_callback(bool enter);
void trace_osnoise_callback(bool enter);

/* From the outermost NMI's entry and exit (arch/x86/traps.c: do_irq()). */
static inline void ftrace_nmi_enter(void)
{
	if (READ_ONCE(trace_hwlat_callback_enabled))
		trace_hwlat_callback(true);
	if (READ_ONCE(trace_osnoise_callback_enabled))
		trace_osnoise_callback(true);
}

static inline void ftrace_nmi_exit(void)
{
	if (READ_ONCE(trace_hwlat_callback_enabled))
		trace_hwlat_callback(false);
	if (READ_ONCE(trace_osnoise_callback_enabled))
		trace_osnoise_callback(false);
}

#endif
