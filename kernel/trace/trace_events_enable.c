/* enable_event, disable_event, enable_hist and disable_hist: triggers that switch another event
 * (or its histograms) when this one fires, `enable_event:sched:sched_wakeup[:count]`.
 *
 * Linux's soft mode: while an enable_event or disable_event trigger aims at an event, that
 * event's probe stays attached (enable reads 0* or 1*), so that the trigger, firing in any
 * context, only flips EVENT_FL_ENABLED and never has to attach a probe (which patches code and
 * takes a mutex). When the last such trigger goes, the event keeps the state it was left in.
 * As in Linux, the target is the event in the trigger's own array: an instance's enable_event
 * switches the event there, and soft mode is that array's (its file's sm_ref).
 */
#include "kernel/trace/trace_events_trigger.h"
#include "kernel/trace/trace_events_hist.h"
#include "kernel/trace/trace_trigger_count.h"
#include "lib/errno.h"

/* `system:event[:count]` after the command's colon. */
int event_enable_parse(struct trace_event_file *file, enum trigger_type type, char *arg,
		       bool remove, struct event_trigger_data *d)
{
	char *system = arg, *event, *count;
	struct trace_event_call *target;
	struct trace_event_file *tfile;

	if (!arg)
		return -EINVAL;
	event = strchr(system, ':');
	if (!event)
		return -EINVAL;
	*event++ = 0;
	count = strchr(event, ':');
	if (count)
		*count++ = 0;
	target = trace_event_find(system, event);
	tfile = target ? trace_event_file_of(target, file->tr) : NULL;
	if (!tfile)
		return -EINVAL; /* Linux: no such event, and no error_log line */
	if (count && !remove && (kstrtol(count, 0, &d->count) || d->count < 0))
		return -EINVAL;
	d->private_data = tfile;
	return 0;
}

bool event_enable_same(const struct event_trigger_data *a, const struct event_trigger_data *b)
{
	return a->private_data == b->private_data;
}

/* Under event_mutex: the target enters soft mode (its probe attached) for d. */
int event_enable_register(struct event_trigger_data *d)
{
	struct trace_event_file *target = d->private_data;
	int err;

	if (d->type == ETT_HIST_ENABLE || d->type == ETT_HIST_DISABLE)
		return 0; /* the target's histograms are found when it fires */
	target->sm_ref++;
	err = event_trigger_update_mode(target);
	if (err)
		target->sm_ref--;
	return err;
}

/* Under event_mutex, d unlinked: the target leaves soft mode if d was the last. */
void event_enable_unregister(struct event_trigger_data *d)
{
	struct trace_event_file *target = d->private_data;

	if (d->type == ETT_HIST_ENABLE || d->type == ETT_HIST_DISABLE)
		return;
	target->sm_ref--;
	event_trigger_update_mode(target); /* detaching a probe does not fail */
}

/* The tracing path: Linux's rule for counts, a use spent only when the state changes. Also the
 * enable_event/disable_event function commands' (ftrace_probe.c). */
void event_enable_switch(struct trace_event_call *target, long *count, bool on)
{
	unsigned int flags = READ_ONCE(target->flags);

	if (!!(flags & EVENT_FL_ENABLED) == on || !trigger_count_take(count))
		return;
	if (on)
		event_flags_set(target, EVENT_FL_ENABLED | EVENT_FL_WAS_ENABLED);
	else
		event_flags_clear(target, EVENT_FL_ENABLED);
}

/* The same for an instance's enable_event/disable_event function commands: tr's bit. */
void event_enable_switch_tr(struct trace_event_call *target, struct trace_array *tr, long *count,
			    bool on)
{
	u64 bit = 1ULL << tr->id;

	if (tr == &global_trace) {
		event_enable_switch(target, count, on);
		return;
	}
	if (!!(READ_ONCE(target->tr_mask) & bit) == on || !trigger_count_take(count))
		return;
	if (on)
		__atomic_fetch_or(&target->tr_mask, bit, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&target->tr_mask, ~bit, __ATOMIC_RELAXED);
}

/* enable_hist/disable_hist: every histogram on the target resumes or pauses. */
static void switch_hists(struct event_trigger_data *d, bool on)
{
	struct trace_event_file *target = d->private_data;

	if (!trigger_count_take(&d->count))
		return;
	for (struct event_trigger_data *t = READ_ONCE(target->triggers); t; t = READ_ONCE(t->next))
		if (t->type == ETT_EVENT_HIST)
			WRITE_ONCE(((struct hist_trigger_data *)t->private_data)->paused, !on);
}

void event_enable_run(struct event_trigger_data *d)
{
	struct trace_event_file *target = d->private_data;

	if (d->type == ETT_EVENT_ENABLE || d->type == ETT_EVENT_DISABLE)
		event_enable_switch_tr(target->event_call, target->tr, &d->count,
				       d->type == ETT_EVENT_ENABLE);
	else
		switch_hists(d, d->type == ETT_HIST_ENABLE);
}

/* Linux's listing: `enable_event:sched:sched_wakeup:count=2`; the caller adds count and filter. */
void event_enable_print(struct seq_file *m, struct event_trigger_data *d, const char *name)
{
	struct trace_event_call *target = ((struct trace_event_file *)d->private_data)->event_call;

	seq_printf(m, "%s:%s:%s", name, target->system, target->name);
}
