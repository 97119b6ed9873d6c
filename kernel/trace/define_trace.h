/* define_trace.h: from one TRACE_EVENT() to everything an event is made of.
 *
 * An event header (kernel/trace/events/sched.h, ...) ends by including this file. In every file
 * but one it does nothing. In kernel/trace/trace_events_defs.c, which defines CREATE_TRACE_POINTS
 * first, it reads the event header again once per stage, each time with TRACE_EVENT() and the
 * field macros meaning something else:
 *
 *   stage 1  struct trace_event_raw_<class>      the record: common fields, then the fields
 *   stage 2  struct trace_event_data_offsets_*  where each dynamic string goes in this record
 *   stage 3  trace_event_fields_<class>[]        name, type, size, sign of each field (format file,
 *                                                filters)
 *   stage 4  trace_raw_output_<class>()          the text after "name: " in the trace
 *   stage 5  print_fmt_<class>[]                 the same format as a string, with REC-> for the
 *                                                fields: the format file's "print fmt:" line
 *   stage 6  trace_event_raw_event_<class>()     the probe: reserve, fill (TP_fast_assign), commit
 *   stage 7  __tracepoint_<name>, __traceiter_<name>(), the trace_event_call and its registration
 *
 * Linux does the same in include/trace/define_trace.h and trace_events.h (with more stages); the
 * macros here are written for this kernel. The header must guard itself with
 *   #if !defined(_TRACE_X_H) || defined(TRACE_HEADER_MULTI_READ)
 * and define TRACE_SYSTEM and TRACE_INCLUDE_FILE (its own path, in quotes).
 */
/* The stages are laid out so that each field macro reads as the column of a table: left as written. */
/* clang-format off */
#ifdef CREATE_TRACE_POINTS
#undef CREATE_TRACE_POINTS /* the re-reads below must not come back here */

#include "kernel/trace/trace_events.h"

#define TRACE_HEADER_MULTI_READ

#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef TRACE_EVENT
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)                               \
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct),               \
			    PARAMS(assign), PARAMS(print))                                    \
	DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))
#undef TP_STRUCT__entry
#define TP_STRUCT__entry(args...) args
#undef TP_fast_assign
#define TP_fast_assign(args...) args

/* --- stage 1: the record ------------------------------------------------------------------ */
#undef __field
#undef __array
#undef __string
#define __field(type, item) type item;
#define __array(type, item, len) type item[len];
#define __string(item, src) u32 __data_loc_##item;
#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(cls, proto, args, tstruct, assign, print)                        \
	struct trace_event_raw_##cls {                                                        \
		struct trace_entry ent;                                                       \
		tstruct                                                                       \
		char __data[];                                                                \
	};
#undef DEFINE_EVENT
#define DEFINE_EVENT(cls, name, proto, args)
#include TRACE_INCLUDE_FILE

/* --- stage 2: offsets of the dynamic strings ---------------------------------------------- */
#undef __field
#undef __array
#undef __string
#define __field(type, item)
#define __array(type, item, len)
#define __string(item, src) u32 item;
#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(cls, proto, args, tstruct, assign, print)                        \
	struct trace_event_data_offsets_##cls {                                               \
		tstruct                                                                       \
	};
#include TRACE_INCLUDE_FILE

/* --- stage 3: the field table --------------------------------------------------------------- */
#undef __field
#undef __array
#undef __string
#define __field(_type, _item)                                                                 \
	{ .type = #_type, .name = #_item, .size = sizeof(_type), .align = __alignof__(_type), \
	  .is_signed = is_signed_type(_type),                                                 \
	  .kind = __builtin_types_compatible_p(_type, const char *) ? FILTER_PTR_STRING :     \
									FILTER_OTHER },
#define __array(_type, _item, _len)                                                           \
	{ .type = #_type "[" __stringify(_len) "]", .name = #_item,                           \
	  .size = sizeof(_type) * (_len), .align = __alignof__(_type),                        \
	  .is_signed = is_signed_type(_type),                                                 \
	  .kind = __builtin_types_compatible_p(_type, char) ? FILTER_STATIC_STRING : FILTER_OTHER },
#define __string(_item, _src)                                                                 \
	{ .type = "__data_loc char[]", .name = #_item, .size = 4, .align = 4, .is_signed = 1, \
	  .kind = FILTER_DYN_STRING },
#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(cls, proto, args, tstruct, assign, print)                        \
	static const struct trace_event_fields trace_event_fields_##cls[] = { tstruct { 0 } };
#include TRACE_INCLUDE_FILE

/* --- stage 4: the output line ------------------------------------------------------------- */
#undef __entry
#define __entry field
#undef __get_str
#define __get_str(item) ((const char *)__entry + (__entry->__data_loc_##item & 0xffff))
#undef __print_flags
#define __print_flags(flag, delim, flag_array...)                                              \
	trace_print_flags_seq(p, delim, flag,                                                 \
			      (const struct trace_print_flags[]){ flag_array, { -1, NULL } })
#undef __print_symbolic
#define __print_symbolic(value, symbol_array...)                                              \
	trace_print_symbols_seq(p, value,                                                     \
				(const struct trace_print_flags[]){ symbol_array, { -1, NULL } })
#undef TP_printk
#define TP_printk(fmt, args...) fmt "\n", ##args
#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(cls, proto, args, tstruct, assign, print)                        \
	static void trace_raw_output_##cls(struct seq_file *m, const struct trace_entry *ent)  \
	{                                                                                     \
		const struct trace_event_raw_##cls *field = (const void *)ent;                \
		struct trace_print_tmp __tmp = { .len = 0 }, *p = &__tmp;                     \
		(void)field, (void)p;                                                         \
		trace_event_printf(m, print);                                                 \
	}
#include TRACE_INCLUDE_FILE

/* --- stage 5: the print fmt line: the same arguments, as text, with REC-> for the record ---- */
#undef __entry
#define __entry REC
#undef __get_str
#undef __print_flags
#undef __print_symbolic
#undef TP_printk
#define TP_printk(fmt, args...) "\"" fmt "\", " __stringify(args)
#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(cls, proto, args, tstruct, assign, print)                        \
	static const char print_fmt_##cls[] = print;
#include TRACE_INCLUDE_FILE

/* --- stage 6: the probe that records an event ---------------------------------------------- */
#undef __field
#undef __array
#undef __string
#define __field(type, item)
#define __array(type, item, len)
#define __string(item, src)                                                                   \
	__len = strlen((src) ? (const char *)(src) : "(null)") + 1;                           \
	__data_offsets->item = (__data_start + __data_size) | (__len << 16);                  \
	__data_size += __len;
#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(cls, proto, args, tstruct, assign, print)                        \
	static __always_inline u32 trace_event_get_offsets_##cls(                             \
		struct trace_event_data_offsets_##cls *__data_offsets, proto)                 \
	{                                                                                     \
		const u32 __data_start = offsetof(struct trace_event_raw_##cls, __data);      \
		u32 __data_size = 0, __len;                                                   \
		(void)__data_start, (void)__len, (void)__data_offsets;                        \
		tstruct                                                                       \
		return __data_size;                                                           \
	}
#include TRACE_INCLUDE_FILE

#undef __entry
#define __entry entry
#undef __get_str
#define __get_str(item) ((char *)__entry + (__entry->__data_loc_##item & 0xffff))
#undef __assign_str
#define __assign_str(dst, src) strcpy(__get_str(dst), (src) ? (const char *)(src) : "(null)")
#undef __string
#define __string(item, src) __entry->__data_loc_##item = __data_offsets.item;
#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(cls, proto, args, tstruct, assign, print)                        \
	static void trace_event_raw_event_##cls(void *__data, proto)                          \
	{                                                                                     \
		struct trace_event_data_offsets_##cls __data_offsets;                         \
		struct trace_event_buffer fbuffer;                                            \
		struct trace_event_raw_##cls *entry;                                          \
		u32 __data_size = trace_event_get_offsets_##cls(&__data_offsets, args);       \
		entry = trace_event_buffer_reserve(&fbuffer, __data,                          \
						   sizeof(*entry) + __data_size);             \
		if (!entry)                                                                   \
			return;                                                               \
		tstruct                                                                       \
		{ assign }                                                                    \
		trace_event_buffer_commit(&fbuffer);                                          \
	}
#include TRACE_INCLUDE_FILE

/* --- stage 7: the tracepoint, its iterator, the event and its registration ------------------ */
#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(cls, proto, args, tstruct, assign, print)
#undef DEFINE_EVENT
#define DEFINE_EVENT(cls, evname, proto, args)                                                \
	struct tracepoint __tracepoint_##evname = { .name = #evname };                        \
	/* what a probe is, named as Linux names it: its BTF is how tp_btf programs find   */ \
	/* the arguments (a typedef reaches DWARF, and so BTF, only through a use: __fn)   */ \
	typedef void (*btf_trace_##evname)(void *__data, proto);                              \
	void __traceiter_##evname(proto)                                                      \
	{                                                                                     \
		unsigned long __flags = local_irq_save();                                     \
		struct tracepoint_func *__f = READ_ONCE(__tracepoint_##evname.funcs);         \
		this_cpu()->tp_irq_flags = __flags;                                           \
		for (; __f && __f->func; __f++) {                                             \
			btf_trace_##evname __fn = (btf_trace_##evname)__f->func;              \
			__fn(__f->data, args);                                                \
		}                                                                             \
		local_irq_restore(__flags);                                                   \
	}                                                                                     \
	static struct trace_event_call event_##evname = {                                     \
		.name = #evname,                                                              \
		.system = __stringify(TRACE_SYSTEM),                                          \
		.tp = &__tracepoint_##evname,                                                 \
		.probe = (void *)trace_event_raw_event_##cls,                                 \
		.fields_desc = trace_event_fields_##cls,                                      \
		.size = sizeof(struct trace_event_raw_##cls),                                 \
		.print = trace_raw_output_##cls,                                              \
		.print_fmt = print_fmt_##cls,                                                 \
	};                                                                                    \
	static struct trace_event_call *const __event_ptr_##evname __used                     \
		__section("_ftrace_events") __aligned(8) = &event_##evname;
#include TRACE_INCLUDE_FILE

#undef TRACE_HEADER_MULTI_READ
#undef TRACE_INCLUDE_FILE
#undef TRACE_SYSTEM
#undef __entry
#define CREATE_TRACE_POINTS /* for the next event header trace_events_defs.c includes */
#endif /* CREATE_TRACE_POINTS */
