/* Tracepoints: a named hook in kernel code that costs one NOP until someone attaches a probe.
 *
 *   kernel code:      trace_sched_switch(preempt, prev, next);
 *   expands to:       if (static_branch_unlikely(&__tracepoint_sched_switch.key))   <- a NOP site
 *                             __traceiter_sched_switch(preempt, prev, next);
 *   __traceiter_*:    calls every probe attached to the tracepoint (the trace event's recorder is
 *                     one such probe; a self-test may attach another)
 *
 * The first probe attached switches the static key on (every site becomes a jmp to the call), the
 * last one detached switches it off. An event header (kernel/trace/events/sched.h ...) declares
 * tracepoints with TRACE_EVENT(); kernel/trace/define_trace.h turns the same lines into the event's
 * record layout, format file, output and registration, in one .c file (CREATE_TRACE_POINTS).
 */
#ifndef KERNEL_TRACEPOINT_H
#define KERNEL_TRACEPOINT_H

#include "lib/types.h"
#include "lib/compiler.h"
#include "kernel/jump_label.h"

/* One attached probe: fn is called as fn(data, the tracepoint's arguments...). */
struct tracepoint_func {
	void *func;
	void *data;
};

struct tracepoint {
	const char *name;
	struct static_key_false key;
	/*
	 * The attached probes, ended by a NULL func. Replaced whole on every change and read with
	 * interrupts off, so the old array is freed only after every CPU has taken an interrupt
	 * (tracepoint_synchronize_unregister).
	 */
	struct tracepoint_func *funcs;
	/* Linux's: called before the first probe attaches (0 or -errno: then none does) and after
	 * the last detaches; the preemptirq events switch their hooks on with these. */
	int (*regfunc)(void);
	void (*unregfunc)(void);
};

/* 0, or -EEXIST (that probe and data already attached), -ENOENT (not attached), -ENOMEM (register
 * only: unregister never fails for memory), -EBUSY (the first or last probe, while the patcher
 * refuses: nothing changed). May sleep: the first and last probe patch every site of the key. */
int tracepoint_probe_register(struct tracepoint *tp, void *probe, void *data);
int tracepoint_probe_unregister(struct tracepoint *tp, void *probe, void *data);
/* Returns once no CPU can still be running a probe that was detached before the call. */
void tracepoint_synchronize_unregister(void);

/*
 * A string an event records by address (a `const char *` field, ipi's reason), listed with its
 * address in printk_formats so a reader of raw pages can print it: declare the pointers to such
 * strings with this (Linux's tracepoint_string() puts them in the same kind of section).
 */
#define __tracepoint_string __used __section("__tracepoint_str") __aligned(8)
extern const char *const __start___tracepoint_str[], *const __stop___tracepoint_str[];
/* trace_printk()'s constant formats (kernel/trace/trace_printk.h), NULL for a variable one. */
extern const char *const __start___trace_printk_fmt[], *const __stop___trace_printk_fmt[];

#define PARAMS(args...) args
#define TP_PROTO(args...) args
#define TP_ARGS(args...) args
#define TP_CONDITION(args...) args

/*
 * The declaration every user of a tracepoint sees. trace_<name>() is inline so the static branch
 * lands in the caller's own code: that NOP is the whole cost of a tracepoint nobody listens to.
 */
#define DECLARE_TRACE(name, proto, args)                                                           \
	extern struct tracepoint __tracepoint_##name;                                              \
	void __traceiter_##name(proto);                                                            \
	static __always_inline void trace_##name(proto)                                            \
	{                                                                                          \
		if (static_branch_unlikely(&__tracepoint_##name.key))                              \
			__traceiter_##name(args);                                                  \
	}                                                                                          \
	static inline bool trace_##name##_enabled(void)                                            \
	{                                                                                          \
		return static_key_enabled(&__tracepoint_##name.key.key);                           \
	}

#endif /* KERNEL_TRACEPOINT_H */

/*
 * Outside the include guard: an event header is read again for each stage of define_trace.h,
 * which redefines these. In plain mode they only declare the tracepoints.
 */
#ifndef TRACE_HEADER_MULTI_READ
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef TRACE_EVENT
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(template, name, proto, args) DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)                                     \
	DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
#endif
