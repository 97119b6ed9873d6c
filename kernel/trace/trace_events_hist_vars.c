/* Hist trigger actions: what happens after an event updated its entry, Linux's handlers and
 * actions:
 *
 *   onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,next_prio)
 *        the $references resolved (the matching event set them for this key): fire the
 *        synthetic event with these values (also written .trace(wakeup_latency,...))
 *   onmax($wakeup_lat).save(next_comm,prev_pid)
 *        a new maximum for this key: remember it and these values beside the entry
 *   onchange($var).save(...)   the same whenever the value differs from the last
 *
 *   onchange($var).snapshot()  (or onmax) the trace buffer swapped into the snapshot buffer,
 *        and what triggered it noted for the hist file (trace_events_hist.c)
 *
 * A parameter is a $reference (`$lat`, `sched.sched_switch.$lat`) or a field of this event (read
 * from the record when the action runs). Not here: Linux's fields of other events as parameters
 * (`sched.sched_waking.prio`, its hidden "field variable" histograms).
 */
#include "kernel/trace/trace_events_hist.h"
#include "kernel/trace/trace_synth.h"
#include "kernel/mm/mm.h"
#include "kernel/fs/fs.h"
#include "lib/errno.h"
#include "lib/string.h"

static void action_free(struct action_data *a)
{
	if (!a)
		return;
	for (unsigned int i = 0; i < a->n_params; i++) {
		kfree(a->params[i]);
		hist_field_free(a->param_fields[i]);
	}
	hist_field_free(a->track_var);
	kfree(a->action_str);
	kfree(a->match_system);
	kfree(a->match_event);
	kfree(a->track_var_str);
	kfree(a->synth_name);
	kfree(a);
}

void hist_actions_free(struct hist_trigger_data *hd)
{
	for (unsigned int i = 0; i < hd->n_actions; i++)
		action_free(hd->actions[i]);
	hd->n_actions = 0;
}

/* `a, b ,c`: the parameters, blanks around each dropped. */
static int split_params(struct hist_parse_ctx *ctx, struct action_data *a, char *params)
{
	char *p;

	while ((p = hist_strsep(&params, ","))) {
		p = strim(p);
		if (!*p)
			continue;
		if (a->n_params == SYNTH_FIELDS_MAX) {
			hist_err(ctx, HIST_ERR_TOO_MANY_PARAMS, NULL);
			return -EINVAL;
		}
		a->params[a->n_params] = hist_kstrdup(p);
		if (!a->params[a->n_params++])
			return -ENOMEM;
	}
	return 0;
}

/* The size and signedness of the value a parameter carries (Linux's hist_field size and
 * is_signed): an event field's own, a variable's definition's, 8 unsigned bytes otherwise. */
static void param_size_sign(const struct hist_field *hf, unsigned int *size, bool *is_signed)
{
	*size = 8;
	*is_signed = false;
	if (hf->flags & HIST_FIELD_FL_VAR_REF) {
		const struct hist_trigger_data *vh = hf->ref_hist;
		for (unsigned int i = 0; i < vh->n_vals; i++)
			if (vh->fields[i]->var_name && vh->fields[i]->var_idx == hf->ref_var_idx)
				param_size_sign(vh->fields[i], size, is_signed);
	} else if (hf->field) {
		*size = hf->field->size;
		*is_signed = hf->field->is_signed;
	} else if (hf->flags & HIST_FIELD_FL_EXPR) {
		param_size_sign(hf->operands[0], size, is_signed);
	} else if (hf->flags & HIST_FIELD_FL_CPU) {
		*size = 4;
	}
}

/* Linux's check_synth_field(): a string into a string field, the same type, or one of the same
 * size and signedness (`const char * filename` into `u64 filename`, `long ret` into `s64`). */
static bool param_fits(const struct synth_event *se, unsigned int f, const struct hist_field *hf)
{
	const char *want = synth_field_type(se, f);
	unsigned int size;
	bool is_signed, want_signed;
	int want_size;

	if (synth_field_is_string(se, f) && (hf->flags & HIST_FIELD_FL_STRING))
		return true;
	if (!strcmp(want, hist_field_type(hf)))
		return true;
	want_size = synth_type_size(want, &want_signed);
	param_size_sign(hf, &size, &is_signed);
	return want_size == (int)size && want_signed == is_signed &&
	       !(hf->flags & HIST_FIELD_FL_STRING);
}

/* Each parameter becomes a field; for a synthetic event, of the type its field declares. */
/* An onmatch() parameter that is a field of the matched event, not of this one: `sys.event.field`
 * naming another event, or a bare name this event lacks (Linux tries the matched event then).
 * Its system, event and field cut out of buf, or false. */
static bool foreign_field(struct hist_parse_ctx *ctx, struct action_data *a, char *buf,
			  char **system, char **event, char **field)
{
	char *dot1 = strchr(buf, '.'), *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;

	if (a->handler != HANDLER_ONMATCH || !ctx->field_var || *buf == '$')
		return false;
	if (dot2) {
		if (dot2[1] == '$' || strchr(dot2 + 1, '.'))
			return false;
		*dot1 = *dot2 = 0;
		*system = buf, *event = dot1 + 1, *field = dot2 + 1;
		if (strcmp(*system, ctx->system) || strcmp(*event, ctx->event))
			return true;
		*dot1 = *dot2 = '.';
		return false;
	}
	if (dot1 || !strcmp(buf, "common_timestamp") || !strcmp(buf, "cpu") ||
	    !strcmp(buf, "common_cpu") || !strcmp(buf, "hitcount"))
		return false;
	for (int i = 0; i < ctx->nr_fields; i++)
		if (!strcmp(ctx->fields[i].name, buf))
			return false;
	*system = a->match_system, *event = a->match_event, *field = buf;
	return true;
}

static int resolve_params(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd,
			  struct action_data *a, unsigned int first)
{
	for (unsigned int i = first; i < a->n_params; i++) {
		char buf[64], *system, *event, *field;
		struct hist_field *hf;
		strscpy(buf, a->params[i], sizeof(buf));
		if (foreign_field(ctx, a, buf, &system, &event, &field))
			hf = ctx->field_var(ctx, hd, system, event, field);
		else
			hf = hist_parse_param(ctx, hd, buf);
		if (!hf) /* not found (logged by the parser), or no memory */
			return ctx->err || ctx->malformed ? -EINVAL : -ENOMEM;
		a->param_fields[i] = hf;
		if (a->synth) {
			if (!param_fits(a->synth, i - first, hf)) {
				hist_err(ctx, HIST_ERR_SYNTH_TYPE_MISMATCH, a->params[i]);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* onmatch(system.event): the event must exist. */
static int parse_match(struct hist_parse_ctx *ctx, struct action_data *a, char *arg)
{
	char *dot = strchr(arg, '.');

	if (!dot) {
		hist_err(ctx, HIST_ERR_SUBSYS_NOT_FOUND, arg);
		return -EINVAL;
	}
	*dot = 0;
	a->match_system = hist_kstrdup(arg);
	a->match_event = hist_kstrdup(dot + 1);
	if (!a->match_system || !a->match_event)
		return -ENOMEM;
	if (ctx->event_exists && !ctx->event_exists(a->match_system, a->match_event)) {
		hist_err(ctx, HIST_ERR_INVALID_SUBSYS_EVENT, dot + 1);
		return -EINVAL;
	}
	return 0;
}

/* onmax($var) / onchange($var): a variable of this histogram. */
static int parse_track(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd,
		       struct action_data *a, char *arg)
{
	a->track_var_str = hist_kstrdup(arg);
	if (!a->track_var_str)
		return -ENOMEM;
	if (*arg != '$') {
		hist_err(ctx, HIST_ERR_ONX_NOT_VAR, arg);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < hd->n_vals; i++)
		if (hd->fields[i]->var_name && !strcmp(hd->fields[i]->var_name, arg + 1)) {
			a->track_var = hist_parse_param(ctx, hd, arg);
			if (!a->track_var)
				return ctx->err || ctx->malformed ? -EINVAL : -ENOMEM;
			a->track_idx = hd->n_vars + hd->n_action_vars++;
			return 0;
		}
	hist_err(ctx, HIST_ERR_ONX_VAR_NOT_FOUND, arg);
	return -EINVAL;
}

static int parse_action_call(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd,
			     struct action_data *a, char *name, char *params)
{
	bool track = a->handler != HANDLER_ONMATCH;
	int err = split_params(ctx, a, params);

	if (err)
		return err;
	if (!strcmp(name, "save")) {
		if (!track) {
			hist_err(ctx, HIST_ERR_ACTION_MISMATCH, name);
			return -EINVAL;
		}
		if (!a->n_params) {
			hist_err(ctx, HIST_ERR_NO_SAVE_PARAMS, NULL);
			return -EINVAL;
		}
		if (hd->n_save_vars) {
			hist_err(ctx, HIST_ERR_TOO_MANY_SAVE_ACTIONS, NULL);
			return -EINVAL;
		}
		a->action = ACTION_SAVE;
		a->save_idx = hd->n_vars + hd->n_action_vars;
		a->save_str = hd->n_save_vars;
		hd->n_action_vars += a->n_params;
		hd->n_save_vars += a->n_params;
		if (hd->n_vars + hd->n_action_vars > TRACING_MAP_VARS_MAX) {
			hist_err(ctx, HIST_ERR_TOO_MANY_VARS, NULL);
			return -EINVAL;
		}
		return resolve_params(ctx, hd, a, 0);
	}
	if (!strcmp(name, "snapshot")) {
		if (!track) {
			hist_err(ctx, HIST_ERR_ACTION_MISMATCH, name);
			return -EINVAL;
		}
		a->action = ACTION_SNAPSHOT;
		return 0;
	}
	a->action = ACTION_TRACE;
	a->use_trace_keyword = !strcmp(name, "trace");
	if (a->use_trace_keyword && !a->n_params) {
		hist_err(ctx, HIST_ERR_SYNTH_EVENT_NOT_FOUND, NULL);
		return -EINVAL;
	}
	a->synth_name = hist_kstrdup(a->use_trace_keyword ? a->params[0] : name);
	if (!a->synth_name)
		return -ENOMEM;
	a->synth = ctx->find_synth ? ctx->find_synth(a->synth_name) : NULL;
	if (!a->synth) {
		hist_err(ctx, HIST_ERR_SYNTH_EVENT_NOT_FOUND, a->synth_name);
		return -EINVAL;
	}
	if (a->n_params - a->use_trace_keyword != synth_event_n_fields(a->synth)) {
		hist_err(ctx, HIST_ERR_SYNTH_COUNT_MISMATCH, a->synth_name);
		return -EINVAL;
	}
	return resolve_params(ctx, hd, a, a->use_trace_keyword);
}

/* `handler(arg).action(params)` */
static int parse_action(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd, char *str)
{
	struct action_data *a = kzalloc(sizeof(*a));
	char *arg, *close, *name, *params, *end;
	int err = -EINVAL;

	if (!a)
		return -ENOMEM;
	hd->actions[hd->n_actions++] = a;
	a->action_str = hist_kstrdup(str);
	if (!a->action_str)
		return -ENOMEM;
	a->handler = !strncmp(str, "onmatch(", 8) ? HANDLER_ONMATCH
		     : !strncmp(str, "onmax(", 6) ? HANDLER_ONMAX
						  : HANDLER_ONCHANGE;
	arg = strchr(str, '(') + 1;
	close = strchr(arg, ')');
	if (!close) {
		hist_err(ctx, HIST_ERR_NO_CLOSING_PAREN, arg);
		return -EINVAL;
	}
	*close = 0;
	name = close + 1;
	if (*name != '.' || !(params = strchr(name, '('))) {
		hist_err(ctx, HIST_ERR_ACTION_NOT_FOUND, NULL);
		return -EINVAL;
	}
	*params++ = 0;
	name++;
	end = params + strlen(params);
	if (end == params || end[-1] != ')') {
		hist_err(ctx, HIST_ERR_NO_CLOSING_PAREN, params);
		return -EINVAL;
	}
	end[-1] = 0;
	if (a->handler == HANDLER_ONMATCH)
		err = parse_match(ctx, a, arg);
	else
		err = parse_track(ctx, hd, a, arg);
	if (!err)
		err = parse_action_call(ctx, hd, a, name, params);
	return err;
}

int hist_parse_actions(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd)
{
	for (unsigned int i = 0; i < hd->attrs->n_actions; i++) {
		char buf[512];
		int err;
		strscpy(buf, hd->attrs->action_str[i], sizeof(buf));
		err = parse_action(ctx, hd, buf);
		if (err)
			return err;
	}
	return 0;
}

/* --- at an event ---------------------------------------------------------------------------- */

/* A parameter's value; a string's is its address (in the record, or the key). */
static u64 param_value(const struct hist_field *hf, const void *rec, u32 len, u64 ts,
		       const u64 *refs)
{
	const struct ftrace_event_field *f = hf->field;

	if (f && f->kind == FILTER_STATIC_STRING)
		return (unsigned long)rec + f->offset;
	if (f && f->kind == FILTER_DYN_STRING)
		return (unsigned long)rec + (*(const u32 *)((const u8 *)rec + f->offset) & 0xffff);
	if (f && f->kind == FILTER_PTR_STRING)
		return *(const unsigned long *)((const u8 *)rec + f->offset);
	return hist_field_value(hf, rec, ts, refs);
}

static void action_fire(struct hist_trigger_data *hd, struct action_data *a,
			struct tracing_map_elt *elt, const void *rec, u32 len, u64 ts,
			const u64 *refs)
{
	u64 vals[SYNTH_FIELDS_MAX];
	unsigned int first = a->use_trace_keyword;

	for (unsigned int i = first; i < a->n_params; i++) {
		vals[i - first] = param_value(a->param_fields[i], rec, len, ts, refs);
		if (a->action != ACTION_SAVE)
			continue;
		if (a->param_fields[i]->flags & HIST_FIELD_FL_STRING)
			strscpy((char *)elt->private_data + 16 +
					HIST_SAVE_STR_LEN * (a->save_str + i),
				(const char *)(unsigned long)vals[i], HIST_SAVE_STR_LEN);
		else
			tracing_map_set_var(elt, a->save_idx + i, vals[i]);
	}
	if (a->action == ACTION_TRACE)
		synth_event_trace(a->synth, vals);
}

/* A new maximum, or a changed value, for this entry: keep it; false if it is neither. */
static bool track_update(struct action_data *a, struct tracing_map_elt *elt, u64 v)
{
	bool set = tracing_map_var_set(elt, a->track_idx);
	u64 old = tracing_map_read_var(elt, a->track_idx);

	if (set && (a->handler == HANDLER_ONMAX ? v <= old : v == old))
		return false;
	tracing_map_set_var(elt, a->track_idx, v);
	return true;
}

void hist_actions_run(struct hist_trigger_data *hd, struct tracing_map_elt *elt, const void *rec,
		      u32 len, void *key, u64 *refs, u64 ts)
{
	for (unsigned int i = 0; i < hd->n_actions; i++) {
		struct action_data *a = hd->actions[i];
		u64 v = a->track_var ? refs[a->track_var->ref_slot] : 0;
		if (a->handler != HANDLER_ONMATCH && !track_update(a, elt, v))
			continue;
		if (a->action == ACTION_SNAPSHOT)
			hist_snapshot_take(hd, a, key, elt, v);
		else
			action_fire(hd, a, elt, rec, len, ts, refs);
	}
}

/* A hist on a synthetic event, and every action that fires one, holds it (under event_mutex). */
void hist_actions_ref(struct hist_trigger_data *hd, int delta)
{
	for (unsigned int i = 0; i < hd->n_actions; i++)
		if (hd->actions[i]->synth)
			synth_event_ref(hd->actions[i]->synth, delta);
}

/* --- output --------------------------------------------------------------------------------- */

void hist_actions_print_spec(struct seq_file *m, struct hist_trigger_data *hd)
{
	for (unsigned int i = 0; i < hd->n_actions; i++) {
		struct action_data *a = hd->actions[i];
		const char *name = a->action == ACTION_SAVE	  ? "save"
				   : a->action == ACTION_SNAPSHOT ? "snapshot"
				   : a->use_trace_keyword	  ? "trace"
								  : a->synth_name;
		if (a->handler == HANDLER_ONMATCH)
			seq_printf(m, ":onmatch(%s.%s).%s(", a->match_system, a->match_event, name);
		else
			seq_printf(m, ":%s(%s).%s(",
				   a->handler == HANDLER_ONMAX ? "onmax" : "onchange",
				   a->track_var_str, name);
		for (unsigned int j = 0; j < a->n_params; j++)
			seq_printf(m, "%s%s", j ? "," : "", a->params[j]);
		seq_putc(m, ')');
	}
}

void hist_actions_print_elt(struct seq_file *m, struct hist_trigger_data *hd,
			    struct tracing_map_elt *elt)
{
	for (unsigned int i = 0; i < hd->n_actions; i++) {
		struct action_data *a = hd->actions[i];
		if (a->handler == HANDLER_ONMATCH)
			continue;
		seq_printf(m, "\n\t%s: %10llu", a->handler == HANDLER_ONMAX ? "max" : "changed",
			   (unsigned long long)tracing_map_read_var(elt, a->track_idx));
		if (a->action != ACTION_SAVE)
			continue;
		for (unsigned int j = 0; j < a->n_params; j++) {
			if (a->param_fields[j]->flags & HIST_FIELD_FL_STRING)
				seq_printf(m, "  %s: %-32s", a->params[j],
					   (const char *)elt->private_data + 16 +
						   HIST_SAVE_STR_LEN * (a->save_str + j));
			else
				seq_printf(m, "  %s: %10llu", a->params[j],
					   (unsigned long long)tracing_map_read_var(
						   elt, a->save_idx + j));
		}
	}
}
