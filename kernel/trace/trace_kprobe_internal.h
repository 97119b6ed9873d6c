/* What trace_kprobe.c (defining, hits, perf's local probes) and trace_kprobe_files.c (the
 * tracefs files and the dyn_event operations) share: not for anyone else. */
#ifndef KERNEL_TRACE_TRACE_KPROBE_INTERNAL_H
#define KERNEL_TRACE_TRACE_KPROBE_INTERNAL_H

#include "kernel/kprobes.h"
#include "kernel/trace/trace_dynevent.h"
#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_probe.h"

struct trace_kprobe;

/*
 * One probe event and the probes that write it: Linux appends a probe to an event of the same
 * name when its arguments have the same names and types. The first probe's arguments describe
 * the record for all of them, so the first probe lives as long as the event (desc), even when
 * it was removed before the others.
 */
struct trace_probe_event {
	struct trace_event_call call;
	struct trace_kprobe *probes; /* the live ones, in the order they were added */
	struct trace_kprobe *desc;
	bool is_return;
	char event[MAX_EVENT_NAME_LEN + 1], group[MAX_EVENT_NAME_LEN + 1];
};

/* One probe: its kprobe (or kretprobe) and its fetch arguments. */
struct trace_kprobe {
	struct dyn_event devent;
	struct trace_kprobe *next; /* every live probe; read by kretprobe handlers without locks */
	struct trace_kprobe *sibling; /* the next probe of the same event */
	struct trace_probe_event *tpe;
	struct kretprobe rp; /* rp.kp is the kprobe of a `p` event */
	bool is_return;
	bool waiting; /* MOD:SYM, its module not loaded: no kprobe registered */
	char *symbol; /* NULL for an address probe */
	unsigned long nhit;
	struct trace_probe tp; /* last: its arguments follow */
};

extern struct dyn_event_operations trace_kprobe_ops;

/* The dyn_event create of `p` and `r` lines, and the free of one probe (trace_kprobe.c). */
int trace_kprobe_create(int argc, const char **argv);
int trace_kprobe_free(struct dyn_event *ev);

#endif
