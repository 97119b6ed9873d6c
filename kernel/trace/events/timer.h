/* timer: the kernel's sleep timers, recorded with Linux's hrtimer events (include/trace/events/
 * timer.h) and their print formats. We have no struct hrtimer: a sleeping task's timer is its
 * wake_at field, so "hrtimer" is that field's address, and "function" the code that runs when it
 * expires (kernel/sched/core.c: msleep_wakeup, where Linux's sleepers have hrtimer_wakeup). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM timer
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE "kernel/trace/events/timer.h"

#if !defined(_TRACE_TIMER_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TIMER_H

#include "kernel/tracepoint.h"

#ifndef _TRACE_TIMER_HELPERS
#define _TRACE_TIMER_HELPERS
/* Linux's modes: a bit each for relative, pinned to a CPU, soft (softirq) and hard expiry. */
enum hrtimer_mode {
	HRTIMER_MODE_ABS = 0x00,
	HRTIMER_MODE_REL = 0x01,
	HRTIMER_MODE_PINNED = 0x02,
	HRTIMER_MODE_SOFT = 0x04,
	HRTIMER_MODE_HARD = 0x08,
	HRTIMER_MODE_ABS_PINNED = HRTIMER_MODE_ABS | HRTIMER_MODE_PINNED,
	HRTIMER_MODE_REL_PINNED = HRTIMER_MODE_REL | HRTIMER_MODE_PINNED,
	HRTIMER_MODE_ABS_SOFT = HRTIMER_MODE_ABS | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_REL_SOFT = HRTIMER_MODE_REL | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_ABS_PINNED_SOFT = HRTIMER_MODE_ABS_PINNED | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_REL_PINNED_SOFT = HRTIMER_MODE_REL_PINNED | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_ABS_HARD = HRTIMER_MODE_ABS | HRTIMER_MODE_HARD,
	HRTIMER_MODE_REL_HARD = HRTIMER_MODE_REL | HRTIMER_MODE_HARD,
	HRTIMER_MODE_ABS_PINNED_HARD = HRTIMER_MODE_ABS_PINNED | HRTIMER_MODE_HARD,
	HRTIMER_MODE_REL_PINNED_HARD = HRTIMER_MODE_REL_PINNED | HRTIMER_MODE_HARD,
};

/*
 * Linux's decode_hrtimer_mode() table, by the enum's names: Linux 6.1's format file shows these
 * names (no TRACE_DEFINE_ENUM turns them into numbers there), so a tool reading the file finds
 * the same text on both kernels.
 */
#define decode_hrtimer_mode(mode)                                                              \
	__print_symbolic(mode, { HRTIMER_MODE_ABS, "ABS" }, { HRTIMER_MODE_REL, "REL" },       \
			 { HRTIMER_MODE_ABS_PINNED, "ABS|PINNED" },                            \
			 { HRTIMER_MODE_REL_PINNED, "REL|PINNED" },                            \
			 { HRTIMER_MODE_ABS_SOFT, "ABS|SOFT" },                                \
			 { HRTIMER_MODE_REL_SOFT, "REL|SOFT" },                                \
			 { HRTIMER_MODE_ABS_PINNED_SOFT, "ABS|PINNED|SOFT" },                  \
			 { HRTIMER_MODE_REL_PINNED_SOFT, "REL|PINNED|SOFT" },                  \
			 { HRTIMER_MODE_ABS_HARD, "ABS|HARD" },                                \
			 { HRTIMER_MODE_REL_HARD, "REL|HARD" },                                \
			 { HRTIMER_MODE_ABS_PINNED_HARD, "ABS|PINNED|HARD" },                  \
			 { HRTIMER_MODE_REL_PINNED_HARD, "REL|PINNED|HARD" })
#endif

/* A timer is armed: it will run function at expires (ns since boot; we have no slack, so
 * softexpires is the same); was_armed: it was already armed, and this moved it. Linux's takes the
 * hrtimer and reads the rest from it. The casts are written with a space after them, as Linux's
 * are, since the format file prints this text. */
TRACE_EVENT(hrtimer_start,
	TP_PROTO(void *hrtimer, void *function, s64 expires, enum hrtimer_mode mode, bool was_armed),
	TP_ARGS(hrtimer, function, expires, mode, was_armed),
	TP_STRUCT__entry(
		__field(void *, hrtimer)
		__field(void *, function)
		__field(s64, expires)
		__field(s64, softexpires)
		__field(enum hrtimer_mode, mode)
		__field(bool, was_armed)
	),
	TP_fast_assign(
		__entry->hrtimer = hrtimer;
		__entry->function = function;
		__entry->expires = expires;
		__entry->softexpires = expires;
		__entry->mode = mode;
		__entry->was_armed = was_armed;
	),
	TP_printk("hrtimer=%p function=%ps expires=%llu softexpires=%llu mode=%s was_armed=%d",
		  __entry->hrtimer, __entry->function, (unsigned long long) __entry->expires,
		  (unsigned long long) __entry->softexpires, decode_hrtimer_mode(__entry->mode),
		  __entry->was_armed)
);

/* The timer expired and its function is about to run; now is the time of the tick that saw it. */
TRACE_EVENT(hrtimer_expire_entry,
	TP_PROTO(void *hrtimer, s64 now, void *function),
	TP_ARGS(hrtimer, now, function),
	TP_STRUCT__entry(
		__field(void *, hrtimer)
		__field(s64, now)
		__field(void *, function)
	),
	TP_fast_assign(
		__entry->hrtimer = hrtimer;
		__entry->now = now;
		__entry->function = function;
	),
	TP_printk("hrtimer=%p function=%ps now=%llu", __entry->hrtimer, __entry->function,
		  (unsigned long long) __entry->now)
);

DECLARE_EVENT_CLASS(hrtimer_class,
	TP_PROTO(void *hrtimer),
	TP_ARGS(hrtimer),
	TP_STRUCT__entry(
		__field(void *, hrtimer)
	),
	TP_fast_assign(
		__entry->hrtimer = hrtimer;
	),
	TP_printk("hrtimer=%p", __entry->hrtimer)
);

/* The expired timer's function returned. */
DEFINE_EVENT(hrtimer_class, hrtimer_expire_exit,
	TP_PROTO(void *hrtimer),
	TP_ARGS(hrtimer));

/* An armed timer was disarmed before it expired (a sleeper woken early). */
DEFINE_EVENT(hrtimer_class, hrtimer_cancel,
	TP_PROTO(void *hrtimer),
	TP_ARGS(hrtimer));

#endif /* _TRACE_TIMER_H */

#include "kernel/trace/define_trace.h"
