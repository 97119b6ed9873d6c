/* text_patch: the code patcher at work (ours: Linux has no such event). One pair per batch of live
 * changes: which client built it, how it is applied, how many sites, on how many CPUs. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM text_patch
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE "arch/x86/trace/text_patch.h"

#if !defined(_TRACE_TEXT_PATCH_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TEXT_PATCH_H

#include "kernel/tracepoint.h"

DECLARE_EVENT_CLASS(text_patch_batch_class,
	TP_PROTO(const char *client, const char *method, int sites, int cpus),
	TP_ARGS(client, method, sites, cpus),
	TP_STRUCT__entry(
		__string(client, client)
		__string(method, method)
		__field(int, sites)
		__field(int, cpus)
	),
	TP_fast_assign(
		__assign_str(client, client);
		__assign_str(method, method);
		__entry->sites = sites;
		__entry->cpus = cpus;
	),
	TP_printk("client=%s method=%s sites=%d cpus=%d", __get_str(client), __get_str(method),
		  __entry->sites, __entry->cpus)
);

/* Before the first byte of the batch is written. */
DEFINE_EVENT(text_patch_batch_class, text_patch_begin,
	TP_PROTO(const char *client, const char *method, int sites, int cpus),
	TP_ARGS(client, method, sites, cpus));

/* After the last sync: every CPU runs the new bytes. */
DEFINE_EVENT(text_patch_batch_class, text_patch_end,
	TP_PROTO(const char *client, const char *method, int sites, int cpus),
	TP_ARGS(client, method, sites, cpus));

#endif /* _TRACE_TEXT_PATCH_H */

#include "kernel/trace/define_trace.h"
