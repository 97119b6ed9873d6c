/* ipi: inter-processor interrupts sent and handled, as Linux's include/trace/events/ipi.h names
 * and prints them (Linux raises these on arm/arm64; x86 has irq_vectors for the handlers). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ipi
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE "kernel/trace/events/ipi.h"

#if !defined(_TRACE_IPI_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_IPI_H

#include "kernel/tracepoint.h"
#include "kernel/percpu.h"

#ifndef _TRACE_IPI_HELPERS
#define _TRACE_IPI_HELPERS
/*
 * Linux records target_cpus as a __bitmask (a dynamic array of longs, "__data_loc unsigned
 * long[]") and prints it with %*pb: hex digits for nr_cpumask_bits bits, 32 bits to a
 * comma-separated group. Our macros have no __bitmask, so the mask is one unsigned long, printed
 * with NR_CPUS / 4 = 2 zero-padded hex digits: the same text %*pb gives for 8 CPUs ("0e").
 */
_Static_assert(NR_CPUS == 8, "ipi_raise prints target_mask with NR_CPUS / 4 hex digits");
#endif

/* An IPI is about to be sent to every CPU in target_cpus; reason names the kind, as arm64's
 * /proc/interrupts does ("Rescheduling interrupts", ...). reason points at a string constant. */
TRACE_EVENT(ipi_raise,
	TP_PROTO(unsigned long target_cpus, const char *reason),
	TP_ARGS(target_cpus, reason),
	TP_STRUCT__entry(
		__field(unsigned long, target_cpus)
		__field(const char *, reason)
	),
	TP_fast_assign(
		__entry->target_cpus = target_cpus;
		__entry->reason = reason;
	),
	TP_printk("target_mask=%02lx (%s)", __entry->target_cpus, __entry->reason)
);

DECLARE_EVENT_CLASS(ipi_handler,
	TP_PROTO(const char *reason),
	TP_ARGS(reason),
	TP_STRUCT__entry(
		__field(const char *, reason)
	),
	TP_fast_assign(
		__entry->reason = reason;
	),
	TP_printk("(%s)", __entry->reason)
);

/* The receiving CPU starts handling an IPI. */
DEFINE_EVENT(ipi_handler, ipi_entry,
	TP_PROTO(const char *reason),
	TP_ARGS(reason));

/* ... and is done with it. */
DEFINE_EVENT(ipi_handler, ipi_exit,
	TP_PROTO(const char *reason),
	TP_ARGS(reason));

#endif /* _TRACE_IPI_H */

#include "kernel/trace/define_trace.h"
