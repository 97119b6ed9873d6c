/* What the event files share: trace_events_files.c makes the tree and each event's files,
 * trace_events_set.c the files that switch many events at once (set_event, a system's enable). */
#ifndef KERNEL_TRACE_TRACE_EVENTS_FILES_H
#define KERNEL_TRACE_TRACE_EVENTS_FILES_H

#include "kernel/fs/tracefs.h"
#include "kernel/trace/trace_events.h"
#include "lib/errno.h"

#define EVENT_WRITE_MAX 512 /* one write to set_event, a filter, a trigger */

/*
 * events/<system>/ (its priv): the name, the filter last written to its filter file, and how
 * many events it holds, so the directory goes when a dynamic system's last event does.
 */
struct event_subsystem {
	char *name;
	char *filter;
	unsigned int nr_events;
};

/* 0 or 1, as Linux takes them; anything else is EINVAL and changes nothing. */
static inline int event_parse_enable(const char *buf, size_t len, bool *on)
{
	unsigned long v;

	if (fs_write_ulong(buf, len, 0, 1, &v))
		return -EINVAL;
	*on = v;
	return 0;
}

/* Puts a compiled filter (or none) in force on one event of one array; frees the old one once
 * unused. */
void event_set_filter(struct trace_event_file *file, struct event_filter *filter);

/* "0" or nothing clears; anything else must compile, or nothing changes and (with log)
 * error_log says why. Under event_mutex. */
int apply_event_filter(struct trace_event_file *file, const char *text, bool log);

/* events/<system>/enable and filter, in that order (events/enable is the first alone, for
 * every event); and the top level's available_events, set_event, set_event_pid. */
extern const struct tracefs_file event_system_files[2];
extern const struct tracefs_file event_set_files[4];

#endif
