/* The hist trigger: `echo 'hist:keys=call_site.sym:vals=bytes_req' > events/kmem/kmalloc/trigger`
 * aggregates every kmalloc event into a tracing_map keyed on call_site, in the event's own
 * context, and events/kmem/kmalloc/hist prints it (trace_events_hist_print.c).
 *
 *   event fires -> hist_trigger_run(): key from the record -> tracing_map_insert() -> sums,
 *                  variables -> actions (onmatch, onmax, onchange: trace_events_hist_vars.c;
 *                  snapshot(): trace_events_hist_snapshot.c)
 *
 * Writing the trigger parses the spec under event_mutex (it may name other events' variables),
 * with Linux's errors in error_log under `hist:<system>:<event>`.
 */
#include "kernel/trace/trace_events_trigger.h"
#include "kernel/trace/trace_events_hist.h"
#include "kernel/trace/trace_trigger_count.h"
#include "kernel/spinlock.h"
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/printf.h"

/* What a written `hist:` command waits with until it is parsed under event_mutex. */
struct hist_pending {
	char *cond; /* the `if` filter, or NULL */
	char cmd[]; /* "hist:" + spec + " if " + cond: what error_log shows */
};

int hist_trigger_parse_cmd(struct trace_event_file *file, char *spec, char *cond, bool remove,
			   struct event_trigger_data **out)
{
	size_t n = strlen(spec) + (cond ? strlen(cond) + 4 : 0) + 6;
	struct event_trigger_data *d = kzalloc(sizeof(*d));
	struct hist_pending *p = kmalloc(sizeof(*p) + n + (cond ? strlen(cond) + 1 : 0));

	if (!d || !p) {
		kfree(d);
		kfree(p);
		return -ENOMEM;
	}
	strim(spec);
	if (!*spec) {
		kfree(d);
		kfree(p);
		return -EINVAL;
	}
	snprintf(p->cmd, n, "hist:%s%s%s", spec, cond ? " if " : "", cond ? cond : "");
	p->cond = NULL;
	if (cond) {
		p->cond = p->cmd + n;
		strcpy(p->cond, cond);
	}
	d->type = ETT_EVENT_HIST;
	d->count = TRIGGER_COUNT_UNLIMITED;
	d->pending = p;
	*out = d;
	return 0;
}

static void hist_log_err(struct trace_event_file *file, const char *cmd, enum hist_err err, int pos)
{
	struct trace_event_call *call = file->event_call;
	char loc[48];

	snprintf(loc, sizeof(loc), "hist:%s:%s", call->system, call->name);
	tracing_log_err(file->tr, loc, cmd, hist_err_text(err), pos);
}

/* --- values at event time -------------------------------------------------------------------- */

static u64 read_int(const struct ftrace_event_field *f, const void *rec)
{
	const u8 *p = (const u8 *)rec + f->offset;

	switch (f->size) {
	case 1:
		return f->is_signed ? (u64)(s64) * (const s8 *)p : *p;
	case 2:
		return f->is_signed ? (u64)(s64) * (const s16 *)p : *(const u16 *)p;
	case 4:
		return f->is_signed ? (u64)(s64) * (const s32 *)p : *(const u32 *)p;
	case 8:
		return *(const u64 *)p;
	}
	return 0;
}

/* Linux's hist_field_log2(): the power of two at or above val. */
static u64 log2_up(u64 val)
{
	u64 n = 0;

	while (n < 64 && (1ULL << n) < val)
		n++;
	return n;
}

u64 hist_field_value(const struct hist_field *hf, const void *rec, u64 ts, const u64 *refs)
{
	u64 v;

	if (hf->flags & HIST_FIELD_FL_CONST)
		return hf->constant;
	if (hf->flags & HIST_FIELD_FL_VAR_REF)
		return refs[hf->ref_slot];
	if (hf->flags & HIST_FIELD_FL_EXPR) {
		u64 a = hist_field_value(hf->operands[0], rec, ts, refs);
		u64 b = hf->operands[1] ? hist_field_value(hf->operands[1], rec, ts, refs) : 0;
		return hist_expr_op(hf->op, a, b);
	}
	if (hf->flags & HIST_FIELD_FL_HITCOUNT)
		return 1;
	if (hf->flags & HIST_FIELD_FL_TIMESTAMP)
		v = hf->flags & HIST_FIELD_FL_TIMESTAMP_USECS ? ts / 1000 : ts;
	else if (hf->flags & HIST_FIELD_FL_CPU)
		v = smp_processor_id();
	else if (hf->field && hf->field->kind == FILTER_OTHER)
		v = read_int(hf->field, rec);
	else
		v = 0;
	if (hf->flags & HIST_FIELD_FL_LOG2)
		v = log2_up(v);
	else if (hf->flags & HIST_FIELD_FL_BUCKET)
		v = v / hf->buckets * hf->buckets;
	return v;
}

static void elt_save_comm(struct tracing_map_elt *elt, void *arg)
{
	struct task *t = current;

	if (!t || !t->pid)
		strcpy(elt->private_data, "<idle>");
	else
		memcpy(elt->private_data, t->comm, TASK_COMM_LEN);
}

/* Variables of other histograms this one reads, looked up with the same key: an expression's
 * operand is consumed (read once), and the event counts only if all are set (Linux's
 * resolve_var_refs()). */
static bool resolve_var_refs(struct hist_trigger_data *hd, void *key, u64 *vals, bool self)
{
	for (unsigned int i = 0; i < hd->n_var_refs; i++) {
		struct hist_field *ref = hd->var_refs[i];
		struct hist_trigger_data *vh = ref->ref_hist;
		struct tracing_map_elt *elt;
		if ((vh == hd) != self)
			continue;
		if (vh->key_size != hd->key_size)
			return false;
		elt = tracing_map_lookup(vh->named ? vh->named->map : vh->map, key);
		if (!elt || !tracing_map_var_set(elt, ref->ref_var_idx))
			return false;
		vals[i] = self || !ref->read_once
				  ? tracing_map_read_var(elt, ref->ref_var_idx)
				  : tracing_map_read_var_once(elt, ref->ref_var_idx);
	}
	return true;
}

void hist_trigger_run(struct event_trigger_data *d, const void *rec, u32 len)
{
	struct hist_trigger_data *hd = d->private_data, *owner = hd->named ?: hd;
	u64 key[HIST_KEY_SIZE_MAX / 8], refs[HIST_VAR_REFS_MAX];
	u64 ts = hd->enable_timestamps ? ktime_get_ns() : 0;
	struct tracing_map_elt *elt;
	unsigned int i, sum = 0;

	if (READ_ONCE(owner->paused))
		return;
	if (!hd->int_keys)
		memset(key, 0, hd->key_size);
	for_each_hist_key_field(i, hd)
	{
		struct hist_field *hf = hd->fields[i];
		u8 *slot = (u8 *)key + hf->offset;
		if (hf->plain)
			*(u64 *)slot = read_int(hf->field, rec);
		else if (hf->flags & HIST_FIELD_FL_STACKTRACE)
			hist_stack_to_key((unsigned long *)slot);
		else if (hf->flags & HIST_FIELD_FL_STRING)
			hist_string_to_key(hf, rec, len, (char *)slot);
		else
			*(u64 *)slot = hist_field_value(hf, rec, ts, refs);
	}
	if (hd->n_var_refs && !resolve_var_refs(hd, key, refs, false))
		return;
	elt = tracing_map_insert(owner->map, key, NULL);
	if (!elt)
		return;
	for_each_hist_val_field(i, hd)
	{
		struct hist_field *hf = hd->fields[i];
		u64 v = hf->flags & HIST_FIELD_FL_HITCOUNT ? 1
			: hf->plain			   ? read_int(hf->field, rec)
			: hf->flags & HIST_FIELD_FL_STRING ? hist_string_var(hd, hf, elt, rec, len)
							   : hist_field_value(hf, rec, ts, refs);
		if (hf->flags & HIST_FIELD_FL_VAR)
			tracing_map_set_var(elt, hf->var_idx, v);
		else
			tracing_map_update_sum(elt, sum++, v);
	}
	if (hd->n_actions && resolve_var_refs(hd, key, refs, true))
		hist_actions_run(hd, elt, rec, len, key, refs, ts);
}

/* --- registration, under event_mutex ---------------------------------------------------------- */

/* The same trigger: spec, filter and name (Linux's hist_trigger_match()). */
static struct event_trigger_data *find_same(struct trace_event_file *file,
					    struct event_trigger_data *d)
{
	struct hist_trigger_data *hd = d->private_data;
	const char *f = d->filter ? filter_string(d->filter) : "";

	for (struct event_trigger_data *t = file->triggers; t; t = t->next) {
		struct hist_trigger_data *th = t->private_data;
		if (t->type != ETT_EVENT_HIST || !hist_trigger_match(th, hd) ||
		    strcmp(t->filter ? filter_string(t->filter) : "", f) ||
		    strcmp(th->attrs->name ?: "", hd->attrs->name ?: ""))
			continue;
		return t;
	}
	return NULL;
}

/* Pause, continue or clear an existing trigger. */
static void hist_update(struct hist_trigger_data *th, const struct hist_trigger_attrs *a)
{
	struct hist_trigger_data *owner = th->named ?: th;

	if (a->pause)
		WRITE_ONCE(owner->paused, true);
	else if (a->cont)
		WRITE_ONCE(owner->paused, false);
	else if (a->clear) {
		bool was = owner->paused;
		WRITE_ONCE(owner->paused, true);
		tracepoint_synchronize_unregister(); /* no CPU inserts any more */
		tracing_map_clear(owner->map);
		WRITE_ONCE(owner->paused, was);
	}
}

static void put_var_refs(struct hist_trigger_data *hd)
{
	for (unsigned int i = 0; i < hd->n_var_refs; i++)
		if (hd->var_refs[i]->ref_hist != hd)
			hd->var_refs[i]->ref_hist->refcount--;
}

void hist_trigger_unlinked(struct trace_event_file *file, struct event_trigger_data *t)
{
	struct hist_trigger_data *th = t->private_data;

	if (!th)
		return;
	put_var_refs(th);
	hist_snapshot_disable(th);
	if (th->named)
		th->named->named_users--;
	hist_synth_ref(file->event_call, -1);
	hist_actions_ref(th, -1);
}

static int hist_remove(struct trace_event_file *file, struct event_trigger_data *t,
		       struct event_trigger_data **gone)
{
	if (hist_trigger_busy(t, NULL))
		return -EBUSY;
	for (struct event_trigger_data **pp = &file->triggers; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			WRITE_ONCE(*pp, t->next);
			break;
		}
	hist_trigger_unlinked(file, t);
	*gone = t;
	return 1;
}

/* What hist_trigger_run() may do inline: integer fields read as they are (no modifier changes
 * the value), and keys that are whole words only (no string or stack to zero around). */
static void set_fast_paths(struct hist_trigger_data *hd)
{
	const unsigned long computed = HIST_FIELD_FL_CONST | HIST_FIELD_FL_VAR_REF |
				       HIST_FIELD_FL_EXPR | HIST_FIELD_FL_HITCOUNT |
				       HIST_FIELD_FL_TIMESTAMP | HIST_FIELD_FL_CPU |
				       HIST_FIELD_FL_LOG2 | HIST_FIELD_FL_BUCKET |
				       HIST_FIELD_FL_STRING | HIST_FIELD_FL_STACKTRACE;

	hd->int_keys = true;
	for (unsigned int i = 0; i < hd->n_fields; i++) {
		struct hist_field *hf = hd->fields[i];
		hf->plain = hf->field && hf->field->kind == FILTER_OTHER && !(hf->flags & computed);
		if (i >= hd->n_vals &&
		    (hf->flags & (HIST_FIELD_FL_STRING | HIST_FIELD_FL_STACKTRACE)))
			hd->int_keys = false;
	}
}

/* The new histogram's map: its own, or the one a same-named histogram already has. */
static int hist_attach_map(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd)
{
	struct hist_trigger_data *owner = hd->attrs->name ? hist_find_named(hd->attrs->name) : NULL;
	bool execname = false;
	unsigned int i;

	set_fast_paths(hd);
	if (owner) {
		if (!hist_trigger_match(owner, hd)) {
			hist_err(ctx, HIST_ERR_NAMED_MISMATCH, hd->attrs->name);
			return -EINVAL;
		}
		hd->named = owner;
		owner->named_users++;
		return 0;
	}
	for_each_hist_key_field(i, hd) execname |=
		!!(hd->fields[i]->flags & HIST_FIELD_FL_EXECNAME);
	if (execname)
		hd->map->elt_init = elt_save_comm;
	for_each_hist_val_field(i, hd) if (hd->fields[i]->flags & HIST_FIELD_FL_STRING)
		hd->fields[i]
			->str_slot = hd->n_str_vars++;
	hd->map->elt_private_size = HIST_ELT_PRIVATE_SIZE(hd);
	return tracing_map_init(hd->map);
}

int hist_trigger_register(struct trace_event_file *file, struct event_trigger_data *d, bool remove,
			  struct event_trigger_data **gone)
{
	struct trace_event_call *call = file->event_call;
	struct hist_pending *p = d->pending;
	struct hist_parse_ctx ctx = { .fields = call->fields,
				      .nr_fields = call->nr_fields,
				      .system = call->system,
				      .event = call->name,
				      .find_var = hist_find_var,
				      .find_synth = hist_find_synth,
				      .event_exists = hist_event_exists,
				      .field_var = hist_field_var,
				      .field_vars_undo = hist_field_var_hists_drop_locked,
				      .tr = file->tr,
				      .removing = remove,
				      .cmd = p->cmd };
	struct filter_parse_error pe = { 0 };
	struct hist_trigger_data *hd = NULL;
	struct event_trigger_data *t;
	char spec[512];
	int err;

	strscpy(spec, p->cmd + 5, sizeof(spec));
	if (p->cond)
		spec[strlen(spec) - strlen(p->cond) - 4] = 0;
	err = hist_trigger_parse(&ctx, spec, &hd);
	if (err)
		goto log;
	hd->file = file;
	d->private_data = hd; /* from here on the trigger owns it */
	if (p->cond) {
		err = filter_compile(call->fields, call->nr_fields, p->cond, &d->filter, &pe);
		if (err == -EINVAL)
			tracing_log_err(file->tr, "event filter parse error", p->cond,
					filter_err_text(pe.err), pe.pos);
		if (err)
			goto out;
	}
	t = find_same(file, d);
	if (remove) {
		err = t ? hist_remove(file, t, gone) : 1; /* Linux: nothing to remove is no error */
		goto out;
	}
	if (t && (hd->attrs->pause || hd->attrs->cont || hd->attrs->clear)) {
		hist_update(t->private_data, hd->attrs);
		err = 1;
		goto out;
	}
	if (t) {
		ctx.err = HIST_ERR_TRIGGER_EEXIST;
		err = -EEXIST;
		goto log;
	}
	if (hd->attrs->cont || hd->attrs->clear) {
		ctx.err = HIST_ERR_TRIGGER_ENOENT_CLEAR;
		err = -ENOENT;
		goto log;
	}
	err = hist_snapshot_enable(hd);
	if (err)
		goto out;
	err = hist_attach_map(&ctx, hd);
	if (err) {
		hist_snapshot_disable(hd);
		goto log;
	}
	hd->paused = hd->attrs->pause;
	for (unsigned int i = 0; i < hd->n_var_refs; i++)
		if (hd->var_refs[i]->ref_hist != hd)
			hd->var_refs[i]->ref_hist->refcount++;
	hist_synth_ref(call, 1);
	hist_actions_ref(hd, 1);
	goto out;
log:
	if (ctx.err)
		hist_log_err(file, p->cmd, ctx.err, ctx.err_pos);
out:
	kfree(p);
	d->pending = NULL;
	return err;
}

void hist_trigger_free(struct event_trigger_data *d)
{
	hist_field_var_hists_drop(d->private_data);
	kfree(d->pending);
	hist_trigger_data_free(d->private_data);
}
