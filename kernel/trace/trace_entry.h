/* The header every record starts with, and its four fields as format files, filters and output
 * know them: written once here, for trace events, the fixed ftrace types and probe events. */
#ifndef KERNEL_TRACE_TRACE_ENTRY_H
#define KERNEL_TRACE_TRACE_ENTRY_H

#include "kernel/trace/trace_events_filter.h"
#include "lib/compiler.h"
#include "lib/types.h"

/* The fields every event starts with (Linux's struct trace_entry). */
struct trace_entry {
	u16 type;
	u8 flags;
	u8 preempt_count;
	s32 pid;
};

/* Fails the build when the type a format file names is not the member's type. */
#define TRACE_ENTRY_TYPE_CHECK(_type, m)                                                           \
	(0 * sizeof(struct {                                                                       \
		 int : (-!__builtin_types_compatible_p(typeof(((struct trace_entry *)0)->m),       \
						       _type));                                    \
	 }))

#define TRACE_COMMON_FIELD(_type, m, _name)                                                        \
	{                                                                                          \
		.type = #_type, .name = _name,                                                     \
		.offset = offsetof(struct trace_entry, m) + TRACE_ENTRY_TYPE_CHECK(_type, m),      \
		.size = sizeof(((struct trace_entry *)0)->m), .is_signed = is_signed_type(_type),  \
		.kind = FILTER_OTHER                                                               \
	}

/*
 * Linux's common fields, in its order and with its type names: the first entries of every
 * event's field table (struct ftrace_event_field initializers). Every record type begins with a
 * struct trace_entry, so these offsets hold for all of them.
 */
#define TRACE_COMMON_FIELDS                                                                        \
	TRACE_COMMON_FIELD(unsigned short, type, "common_type"),                                   \
		TRACE_COMMON_FIELD(unsigned char, flags, "common_flags"),                          \
		TRACE_COMMON_FIELD(unsigned char, preempt_count, "common_preempt_count"),          \
		TRACE_COMMON_FIELD(int, pid, "common_pid")
#define TRACE_NR_COMMON_FIELDS 4

#endif
