/* The trace clocks: what a buffer's time stamps count (Linux's trace_clock file). */
#ifndef KERNEL_TRACE_TRACE_CLOCK_H
#define KERNEL_TRACE_TRACE_CLOCK_H

#include "lib/types.h"

struct trace_clock {
	const char *name;
	/* NULL: the raw TSC, which the fast paths read themselves (rdtsc); any other clock is read
	 * by the ring buffer's slow path only. */
	u64 (*read)(void);
	bool in_ns;  /* stamps print as seconds.microseconds, else as a raw count */
	bool tsc_ns; /* raw TSC stamps that mean nanoseconds since boot (local): tsc_to_ktime() */
};

enum { TRACE_CLOCK_LOCAL, TRACE_CLOCK_X86_TSC = 9, TRACE_CLOCK_NR };
extern const struct trace_clock trace_clocks[TRACE_CLOCK_NR];

/* A stamp of that clock as the trace prints it: ns for in_ns clocks, else the count itself. */
u64 trace_clock_display(const struct trace_clock *c, u64 ts);
/* The clock named name (trailing whitespace allowed), or NULL. */
const struct trace_clock *trace_clock_find(const char *name);

#endif
