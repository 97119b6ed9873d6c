/* Events made and unmade at run time (kprobe events): the next id, a place in the sorted list,
 * the events/ files; and the checks that keep a removal from pulling an event out from under
 * a user.
 *
 *   trace_add_event_call(call)      name free? id left? -> files -> sorted list, id table
 *   trace_remove_event_call(call)   enabled, triggered, or the shell stands in its directory?
 *                                   -EBUSY; else out of the list and the tree, filter freed
 *
 * Linux: kernel/trace/trace_events.c, trace_add_event_call() and trace_remove_event_call()
 * (probe_remove_event_call() says busy), ids from register_trace_event() (trace_output.c).
 */
#include "kernel/trace/trace_events.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"

/*
 * Room for one more id (the sorted list never holds more events than ids were given out). The
 * old arrays are freed only once no CPU can be reading them (the output path looks ids up).
 */
static int events_grow(void)
{
	unsigned int used = trace_events_next_id - TRACE_EVENT_FIRST_ID, cap = trace_events_cap * 2;
	struct trace_event_call **sorted, **ids, **old_sorted, **old_ids;

	if (used < trace_events_cap)
		return 0;
	sorted = kmalloc(cap * sizeof(*sorted));
	ids = kzalloc(cap * sizeof(*ids));
	if (!sorted || !ids) {
		kfree(sorted);
		kfree(ids);
		return -ENOMEM;
	}
	memcpy(sorted, trace_events_sorted, nr_trace_events * sizeof(*sorted));
	memcpy(ids, trace_events_ids, used * sizeof(*ids));
	old_sorted = trace_events_sorted;
	old_ids = trace_events_ids;
	WRITE_ONCE(trace_events_sorted, sorted);
	WRITE_ONCE(trace_events_ids, ids);
	trace_events_cap = cap;
	tracepoint_synchronize_unregister();
	kfree(old_sorted);
	kfree(old_ids);
	return 0;
}

int trace_add_event_call(struct trace_event_call *call)
{
	unsigned int pos;
	int err;

	event_mutex_lock();
	err = -EEXIST;
	if (trace_event_find(call->system, call->name))
		goto out;
	err = -ENOSPC; /* ids are never reused: 65503 definitions in one boot */
	if (trace_events_next_id > TRACE_EVENT_LAST_ID)
		goto out;
	err = events_grow();
	if (err)
		goto out;
	call->id = trace_events_next_id;
	call->flags = 0;
	call->file.event_call = call;
	call->file.tr = &global_trace;
	err = trace_event_files_add(call);
	if (err)
		goto out;
	for (pos = 0; pos < nr_trace_events && cmp_event(&trace_events_sorted[pos], &call) < 0;
	     pos++)
		;
	memmove(&trace_events_sorted[pos + 1], &trace_events_sorted[pos],
		(nr_trace_events - pos) * sizeof(*trace_events_sorted));
	trace_events_sorted[pos] = call;
	nr_trace_events++;
	trace_events_ids[call->id - TRACE_EVENT_FIRST_ID] = call;
	/* Published last: a lookup by id that finds it finds it whole. */
	__atomic_store_n(&trace_events_next_id, call->id + 1, __ATOMIC_RELEASE);
out:
	event_mutex_unlock();
	return err;
}

int trace_remove_event_call(struct trace_event_call *call)
{
	struct event_filter *filter;
	unsigned int pos;
	bool was_enabled;

	event_mutex_lock();
	/* Soft mode: a trigger holds the event, as Linux's ENABLED|SOFT_DISABLED file does. */
	if ((call->flags & EVENT_FL_IN_USE) || trace_event_files_busy(call)) {
		event_mutex_unlock();
		return -EBUSY;
	}
	for (pos = 0; pos < nr_trace_events && trace_events_sorted[pos] != call; pos++)
		;
	if (pos < nr_trace_events) {
		memmove(&trace_events_sorted[pos], &trace_events_sorted[pos + 1],
			(nr_trace_events - pos - 1) * sizeof(*trace_events_sorted));
		nr_trace_events--;
	}
	WRITE_ONCE(trace_events_ids[call->id - TRACE_EVENT_FIRST_ID], NULL);
	trace_event_files_remove(call);
	filter = call->file.filter;
	WRITE_ONCE(call->file.filter, NULL);
	event_flags_clear(call, EVENT_FL_FILTERED);
	was_enabled = call->flags & EVENT_FL_WAS_ENABLED;
	event_mutex_unlock();
	tracepoint_synchronize_unregister(); /* nobody still runs its filter */
	if (filter)
		filter_free(filter);
	/* Linux's clear_trace: the buffer may hold its records, which nothing can print now. */
	if (was_enabled)
		ring_buffer_reset(&global_trace.buffer);
	return 0;
}
