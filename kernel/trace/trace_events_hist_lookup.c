/*
 * Where a hist trigger finds other histograms, under event_mutex: the variables of its own
 * array's events (Linux's find_var_file() looks in the hist's trace_array), a name= in every
 * array (Linux's named_triggers list is global), and whose hists still read its variables or
 * share its map when it is to go.
 */
#include "kernel/trace/trace_events_trigger.h"
#include "kernel/trace/trace_events_hist.h"
#include "lib/string.h"

static struct hist_trigger_data *var_in(struct hist_trigger_data *hd, const char *var, int *idx)
{
	for (unsigned int i = 0; i < hd->n_vals; i++)
		if (hd->fields[i]->var_name && !strcmp(hd->fields[i]->var_name, var)) {
			*idx = hd->fields[i]->var_idx;
			return hd;
		}
	return NULL;
}

static struct hist_trigger_data *var_in_file(struct trace_event_file *file, const char *system,
					     const char *event, const char *var, int *idx,
					     struct hist_trigger_data *self)
{
	struct trace_event_call *call = file ? file->event_call : NULL;

	if (!call || (system && (strcmp(call->system, system) || strcmp(call->name, event))))
		return NULL;
	for (struct event_trigger_data *t = file->triggers; t; t = t->next) {
		struct hist_trigger_data *hd = t->private_data, *found;
		if (t->type != ETT_EVENT_HIST || !hd || hd == self)
			continue;
		found = var_in(hd, var, idx);
		if (found)
			return found;
	}
	return NULL;
}

/* The events with hist triggers: every listed event, and ftrace/print (trace_marker's), in the
 * array the hist is set in. */
struct hist_trigger_data *hist_find_var(struct hist_parse_ctx *ctx, const char *system,
					const char *event, const char *var, int *idx,
					struct hist_trigger_data *self)
{
	struct hist_trigger_data *found;
	struct trace_event_call **pp;

	for_each_event_call(pp)
	{
		found = var_in_file(trace_event_file_of(*pp, ctx->tr), system, event, var, idx,
				    self);
		if (found)
			return found;
	}
	return var_in_file(trace_event_file_of(trace_marker_call, ctx->tr), system, event, var, idx,
			   self);
}

bool hist_event_exists(const char *system, const char *event)
{
	return trace_event_find(system, event) || (!strcmp(system, trace_marker_call->system) &&
						   !strcmp(event, trace_marker_call->name));
}

static struct hist_trigger_data *named_in(struct trace_event_file *file, const char *name)
{
	for (struct event_trigger_data *t = file ? file->triggers : NULL; t; t = t->next) {
		struct hist_trigger_data *hd = t->private_data;
		if (t->type == ETT_EVENT_HIST && hd->attrs->name && !strcmp(hd->attrs->name, name))
			return hd->named ?: hd;
	}
	return NULL;
}

/* In every array: as Linux's named_triggers list, a name is one histogram wherever it is set. */
struct hist_trigger_data *hist_find_named(const char *name)
{
	struct hist_trigger_data *found;
	struct trace_event_call **pp;

	for (int i = 0; i < TRACE_ARRAY_MAX; i++) {
		struct trace_array *tr = trace_arrays[i];

		if (!tr)
			continue;
		for_each_event_call(pp)
		{
			found = named_in(trace_event_file_of(*pp, tr), name);
			if (found)
				return found;
		}
		found = named_in(trace_event_file_of(trace_marker_call, tr), name);
		if (found)
			return found;
	}
	return NULL;
}

/* References to th's variables from the hists on list (the ones a `>` drops with it). */
int hist_refs_from(struct hist_trigger_data *th, struct event_trigger_data *list)
{
	int n = 0;

	for (; list; list = list->next) {
		struct hist_trigger_data *hd = list->private_data;
		if (list->type != ETT_EVENT_HIST || !hd)
			continue;
		for (unsigned int i = 0; i < hd->n_var_refs; i++)
			n += hd->var_refs[i]->ref_hist == th && hd != th;
	}
	return n;
}

bool hist_trigger_busy(struct event_trigger_data *t, struct event_trigger_data *going)
{
	struct hist_trigger_data *th = t->private_data;

	/* its variables are read by a hist that stays, or its map is shared under its name */
	return th && (th->refcount > hist_refs_from(th, going) || (!th->named && th->named_users));
}

bool hist_trigger_busy_tr(struct event_trigger_data *t, struct trace_array *tr)
{
	struct hist_trigger_data *th = t->private_data;
	struct trace_event_file *file = tr->event_files;
	int refs = 0, users = 0;

	if (!th)
		return false;
	for (; file && file < tr->event_files + trace_event_file_slots(); file++) {
		refs += hist_refs_from(th, file->triggers);
		for (struct event_trigger_data *d = file->triggers; d; d = d->next) {
			struct hist_trigger_data *hd = d->private_data;
			users += d->type == ETT_EVENT_HIST && hd && hd->named == th;
		}
	}
	return th->refcount > refs || (!th->named && th->named_users > users);
}

void hist_trigger_forget_made(struct event_trigger_data *t)
{
	struct hist_trigger_data *th = t->private_data;

	if (th)
		th->n_field_var_hists = 0;
}
