/*
 * Field variables of another event: an onmatch() action's parameter naming a field of the
 * matched event rather than of its own, as `sched.sched_waking.prio` in
 *
 *   onmatch(sched.sched_waking).wakeup_latency($lat,next_pid,sched.sched_waking.prio)
 *
 * on sched_switch. Actions read variables, and a hist can only add variables to itself, so (as
 * Linux's create_field_var_hist() does) a second hist is made on the matched event: the keys of
 * a hist already there whose keys fit this one's, a variable `synthetic_prio=prio`, and that
 * hist's filter. The parameter becomes a reference to the variable; the made hist stays listed
 * on its event (`synthetic_prio=prio` in its trigger line) until the hist that made it goes.
 */
#include "kernel/trace/trace_events_hist.h"
#include "kernel/trace/trace_events_trigger.h"
#include "kernel/trace/trace_events.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

/* Same number of keys, each of the same size and signedness (Linux's compatible_keys()). */
static bool keys_fit(const struct hist_trigger_data *a, const struct hist_trigger_data *b)
{
	unsigned int i;

	if (a->n_keys != b->n_keys)
		return false;
	for_each_hist_key_field(i, a)
	{
		const struct hist_field *x = a->fields[i],
					*y = b->fields[b->n_vals + i - a->n_vals];
		if (x->size != y->size || x->is_signed != y->is_signed)
			return false;
	}
	return true;
}

/* The first hist on call whose keys fit hd's (Linux's find_compatible_hist()). */
static struct event_trigger_data *find_fitting(struct trace_event_file *file,
					       const struct hist_trigger_data *hd)
{
	for (struct event_trigger_data *d = file->triggers; d; d = d->next)
		if (d->type == ETT_EVENT_HIST && d->private_data && keys_fit(d->private_data, hd))
			return d;
	return NULL;
}

/* `hist:keys=comm:synthetic_prio=prio if comm=="ping"`: what the made hist is written as. */
static int field_var_cmd(char *buf, size_t size, const struct event_trigger_data *like,
			 const char *field)
{
	const struct hist_trigger_data *lh = like->private_data;
	size_t n = snprintf(buf, size, "hist:keys=");
	unsigned int i;

	for_each_hist_key_field(i, lh)
	{
		const struct hist_field *k = lh->fields[i];
		n += snprintf(buf + n, n < size ? size - n : 0, "%s%s", i == lh->n_vals ? "" : ",",
			      k->field ? k->field->name : hist_field_name(k));
	}
	n += snprintf(buf + n, n < size ? size - n : 0, ":synthetic_%s=%s", field, field);
	if (like->filter)
		n += snprintf(buf + n, n < size ? size - n : 0, " if %s",
			      filter_string(like->filter));
	return n < size ? 0 : -E2BIG;
}

struct hist_field *hist_field_var(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd,
				  const char *system, const char *event, char *field)
{
	struct trace_event_call *call = trace_event_find(system, event);
	struct trace_event_file *file = call ? trace_event_file_of(call, ctx->tr) : NULL;
	struct event_trigger_data *like, *made;
	char cmd[512], ref[160];
	int idx;

	if (!file) {
		hist_err(ctx, HIST_ERR_EVENT_FILE_NOT_FOUND, field);
		return NULL;
	}
	like = find_fitting(file, hd);
	if (!like) {
		hist_err(ctx, HIST_ERR_HIST_NOT_FOUND, field);
		return NULL;
	}
	if (snprintf(ref, sizeof(ref), "%s.%s.$synthetic_%s", system, event, field) >=
	    (int)sizeof(ref))
		return NULL;
	if (!ctx->find_var(ctx, system, event, ref + strlen(system) + strlen(event) + 3, &idx,
			   hd)) {
		if (ctx->removing) { /* a removal names the hist: it makes nothing */
			hist_err(ctx, HIST_ERR_HIST_NOT_FOUND, field);
			return NULL;
		}
		if (hd->n_field_var_hists == HIST_FIELD_VAR_HISTS_MAX) {
			hist_err(ctx, HIST_ERR_TOO_MANY_FIELD_VARS, field);
			return NULL;
		}
		if (field_var_cmd(cmd, sizeof(cmd), like, field))
			return NULL;
		made = event_trigger_add_locked(file, cmd);
		if (!made) {
			hist_err(ctx, HIST_ERR_HIST_CREATE_FAIL, field);
			return NULL;
		}
		hd->field_var_hists[hd->n_field_var_hists].file = file;
		hd->field_var_hists[hd->n_field_var_hists++].trigger = made;
	}
	return hist_parse_param(ctx, hd, ref);
}

void hist_field_var_hists_drop_locked(struct hist_trigger_data *hd)
{
	for (unsigned int i = 0; i < hd->n_field_var_hists; i++)
		event_trigger_drop_locked(hd->field_var_hists[i].file,
					  hd->field_var_hists[i].trigger);
	hd->n_field_var_hists = 0;
}

void hist_field_var_hists_drop(struct hist_trigger_data *hd)
{
	if (!hd || !hd->n_field_var_hists)
		return;
	event_mutex_lock();
	hist_field_var_hists_drop_locked(hd);
	event_mutex_unlock();
}
