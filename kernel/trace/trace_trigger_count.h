/* Counted commands (`traceoff:3`, `stacktrace:1`): one count, spent by one compare-and-swap, for
 * function commands (ftrace_probe.c) and event triggers (trace_events_trigger.c) alike. */
#ifndef KERNEL_TRACE_TRACE_TRIGGER_COUNT_H
#define KERNEL_TRACE_TRACE_TRIGGER_COUNT_H

#include "lib/compiler.h"
#include "lib/types.h"

/* The count of a command given without one: it acts every time. */
#define TRIGGER_COUNT_UNLIMITED (-1L)

/*
 * Spends one use of *count: true if the caller may act. Called on the tracing path from any CPU
 * at once, so the last use goes to exactly one of them: a check and a decrement apart would let
 * two CPUs both see 1 and take 1 -> 0 -> -1, which reads as unlimited. A lost race retries with
 * the value that won, so no use is dropped either.
 */
static inline bool trigger_count_take(long *count)
{
	long c = READ_ONCE(*count);

	while (c > 0)
		if (__atomic_compare_exchange_n(count, &c, c - 1, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return true;
	return c == TRIGGER_COUNT_UNLIMITED;
}

/* Gives back a use taken by trigger_count_take() that ended up doing nothing. */
static inline void trigger_count_put(long *count)
{
	if (READ_ONCE(*count) != TRIGGER_COUNT_UNLIMITED)
		__atomic_add_fetch(count, 1, __ATOMIC_RELAXED);
}

/*
 * traceon/traceoff with a count: turns *tracing_on to on, spending one use, and only when this
 * call is the one that changes it (Linux's rule: a use counts when the state changes). True if
 * it switched.
 */
static inline bool trigger_count_switch(long *count, bool *tracing_on, bool on)
{
	bool old = !on;

	if (READ_ONCE(*tracing_on) == on || !trigger_count_take(count))
		return false;
	if (__atomic_compare_exchange_n(tracing_on, &old, on, false, __ATOMIC_RELAXED,
					__ATOMIC_RELAXED))
		return true;
	trigger_count_put(count); /* another CPU switched it first */
	return false;
}

#endif
