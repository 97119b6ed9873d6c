/* Event triggers: commands run when an event fires, written to events/<system>/<event>/trigger:
 *
 *   echo traceoff > trigger                    stop tracing the first time the event fires
 *   echo 'traceoff:3 if prev_pid == 1' > ...   the next 3 times it fires with prev_pid 1
 *   echo stacktrace >> trigger                 record where the event was hit, every time
 *   echo 'enable_event:sched:sched_wakeup:2'   switch another event on (soft mode, twice)
 *   echo 'hist:keys=next_pid' >> trigger        a histogram (trace_events_hist.c)
 *   echo '!traceoff' >> trigger                remove it
 *
 * Commands: traceon, traceoff, snapshot (swap in the max buffer: trace_snapshot.c), stacktrace,
 * enable_event, disable_event, enable_hist, disable_hist, hist. A trigger attaches the event's probe even
 * while the event itself is off (enable then reads 0*), as in Linux; its condition is its own
 * filter, independent of the event's filter.
 */
#include "kernel/trace/trace_events_trigger.h"
#include "kernel/trace/trace_trigger_count.h"
#include "kernel/trace/trace_snapshot.h"
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"

static const char *const trigger_names[NR_ETT] = {
	"traceon",	 "traceoff",	"snapshot",	"stacktrace", "enable_event",
	"disable_event", "enable_hist", "disable_hist", "hist",
};

/* The first frame shown is the one that hit the tracepoint (its return lands in the iterator). */
bool trace_frame_in_traceiter(unsigned long ret, unsigned long unused)
{
	const char *name = kallsyms_lookup(ret - 1, NULL, NULL);

	return name && !strncmp(name, "__traceiter_", 12);
}

/* Runs on the tracing path, interrupts off, after the event was kept or not. */
void event_triggers_call(struct trace_event_file *file, const void *rec, u32 len)
{
	/* every command acts on the array it was set in, file->tr */
	for (struct event_trigger_data *d = READ_ONCE(file->triggers); d; d = READ_ONCE(d->next)) {
		if (d->filter && !filter_match(d->filter, rec, len))
			continue;
		switch (d->type) {
		case ETT_TRACE_ONOFF_ON:
		case ETT_TRACE_ONOFF_OFF:
			trigger_count_switch(&d->count, &file->tr->tracing_on,
					     d->type == ETT_TRACE_ONOFF_ON);
			break;
		case ETT_SNAPSHOT:
			if (trigger_count_take(&d->count))
				tracing_snapshot_instance(file->tr);
			break;
		case ETT_STACKTRACE:
			if (trigger_count_take(&d->count))
				trace_array_record_stack_from(file->tr, trace_frame_in_traceiter,
							      0);
			break;
		case ETT_EVENT_ENABLE:
		case ETT_EVENT_DISABLE:
		case ETT_HIST_ENABLE:
		case ETT_HIST_DISABLE:
			event_enable_run(d);
			break;
		case ETT_EVENT_HIST:
			hist_trigger_run(d, rec, len);
			break;
		case ETT_EVENT_EPROBE:
			d->probe(d->probe_data, rec, len);
			continue;
		default:
			break;
		}
	}
}

/* Linux's listing: `traceoff:count=2 if prev_pid == 1`, `stacktrace:unlimited`. */
void event_trigger_show(struct seq_file *m, struct trace_event_file *file)
{
	if (!file->triggers) {
		seq_puts(m, "# Available triggers:\n# traceon traceoff snapshot stacktrace "
			    "enable_event "
			    "disable_event enable_hist disable_hist hist\n");
		return;
	}
	for (struct event_trigger_data *d = file->triggers; d; d = d->next) {
		if (d->type == ETT_EVENT_EPROBE)
			continue; /* Linux's eprobe_trigger_print() prints nothing */
		if (d->type == ETT_EVENT_HIST) {
			hist_trigger_print(m, d);
			continue;
		}
		if (d->type >= ETT_EVENT_ENABLE)
			event_enable_print(m, d, trigger_names[d->type]);
		else
			seq_puts(m, trigger_names[d->type]);
		if (d->count < 0)
			seq_puts(m, ":unlimited");
		else
			seq_printf(m, ":count=%ld", d->count);
		if (d->filter)
			seq_printf(m, " if %s", filter_string(d->filter));
		seq_putc(m, '\n');
	}
}

static bool is_enable_cmd(enum trigger_type type)
{
	return type >= ETT_EVENT_ENABLE && type <= ETT_HIST_DISABLE;
}

/* Frees a trigger nobody can be running any more (the caller waited). */
static void trigger_free(struct event_trigger_data *d)
{
	if (d->type == ETT_EVENT_HIST)
		hist_trigger_free(d);
	if (d->filter)
		filter_free(d->filter);
	kfree(d);
}

/* What `!cmd` removes and what cannot be added twice: one of each simple command per event,
 * one enable command per command and target (hist triggers match by spec, in their file). */
static bool trigger_same(const struct event_trigger_data *a, const struct event_trigger_data *b)
{
	return a->type == b->type && (!is_enable_cmd(a->type) || event_enable_same(a, b));
}

/* Takes the trigger like d off the list; the caller frees it once nobody runs it. */
static struct event_trigger_data *trigger_unlink(struct trace_event_file *file,
						 const struct event_trigger_data *like)
{
	for (struct event_trigger_data **pp = &file->triggers; *pp; pp = &(*pp)->next) {
		struct event_trigger_data *d = *pp;
		if (trigger_same(d, like)) {
			WRITE_ONCE(*pp, d->next);
			return d;
		}
	}
	return NULL;
}

/* The first eprobe hook: hooks are added at the tail, commands at the head, so the commands a
 * `>` drops are exactly those before it (Linux's eprobe command has no unreg_all). */
static struct event_trigger_data *first_probe(struct trace_event_file *file)
{
	struct event_trigger_data *d = file->triggers;

	while (d && d->type != ETT_EVENT_EPROBE)
		d = d->next;
	return d;
}

/* Attach or detach the probe for the triggers' sake (soft mode), after the list changed: also
 * while other events' enable_event triggers aim at this one. The global array's soft mode is a
 * flag of the event, an instance's a bit in sm_mask. */
static int trigger_update_mode(struct trace_event_file *file)
{
	struct trace_event_call *call = file->event_call;
	bool soft = file->triggers || file->sm_ref;
	u64 bit = 1ULL << file->tr->id;

	if (file->tr != &global_trace)
		event_sm_mask_set(call, soft ? call->sm_mask | bit : call->sm_mask & ~bit);
	else if (soft)
		event_flags_set(call, EVENT_FL_SOFT_MODE);
	else
		event_flags_clear(call, EVENT_FL_SOFT_MODE);
	return trace_event_update_probe(call);
}

int event_trigger_update_mode(struct trace_event_file *file)
{
	return trigger_update_mode(file);
}

/* `cmd[:arg] [if filter]`: into *out (also for a removal: it says what to remove), or -errno
 * with nothing allocated. */
static int trigger_parse(struct trace_event_file *file, char *text, struct event_trigger_data **out,
			 bool *remove)
{
	struct trace_event_call *call = file->event_call;
	char *cond = strstr(text, " if "), *colon, *word = text;
	struct event_trigger_data *d;
	struct filter_parse_error pe = { 0 };
	int err = 0, i;

	*remove = *word == '!';
	if (*remove)
		word++;
	if (cond) {
		*cond = 0;
		cond += 4;
		while (*cond == ' ')
			cond++;
	}
	strim(word);
	colon = strchr(word, ':');
	if (colon)
		*colon++ = 0;
	for (i = 0; i < NR_ETT && strcmp(word, trigger_names[i]); i++)
		;
	if (i == NR_ETT)
		return -EINVAL;
	if (i == ETT_EVENT_HIST)
		return hist_trigger_parse_cmd(file, colon ? colon : "", cond, *remove, out);
	d = kzalloc(sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->type = i;
	d->count = TRIGGER_COUNT_UNLIMITED;
	/* A removal names the command only: its count is not read (`!traceoff:unlimited`, as
	 * the listing prints it, removes traceoff), as in Linux. */
	if (is_enable_cmd(i))
		err = event_enable_parse(file, i, colon, *remove, d);
	else if (colon && !*remove && (kstrtol(colon, 0, &d->count) || d->count < 0))
		err = -EINVAL;
	if (!err && cond && !*remove) { /* Linux removes by command: a condition is ignored */
		err = filter_compile(call->fields, call->nr_fields, cond, &d->filter, &pe);
		if (err == -EINVAL)
			tracing_log_err(file->tr, "event filter parse error", cond,
					filter_err_text(pe.err), pe.pos);
	}
	if (err) {
		kfree(d);
		return err;
	}
	*out = d;
	return 0;
}

/*
 * The probe could not be attached (or detached) for the new list: the list goes back to what it
 * was, and with it the soft mode, which then matches the probe again and needs no change.
 */
static void trigger_list_restore(struct trace_event_file *file, struct event_trigger_data *added,
				 struct event_trigger_data **gone,
				 struct event_trigger_data **old_list)
{
	for (struct event_trigger_data **pp = &file->triggers; added && *pp; pp = &(*pp)->next)
		if (*pp == added) {
			WRITE_ONCE(*pp, added->next);
			break;
		}
	if (*gone) {
		(*gone)->next = file->triggers;
		__atomic_store_n(&file->triggers, *gone, __ATOMIC_RELEASE);
		*gone = NULL;
	}
	if (*old_list) {
		__atomic_store_n(&file->triggers, *old_list, __ATOMIC_RELEASE);
		*old_list = NULL;
	}
	trigger_update_mode(file);
}

/* An unlinked enable command lets its target go, a hist what it held (under event_mutex). */
static void trigger_unlinked(struct event_trigger_data *d)
{
	if (d && is_enable_cmd(d->type))
		event_enable_unregister(d);
}

/* Adds d (new, parsed) or removes what it names: 0 or -errno, the list as before then. */
static int trigger_apply(struct trace_event_file *file, struct event_trigger_data *d, bool remove,
			 struct event_trigger_data **gone, bool *listed)
{
	struct event_trigger_data *p = file->triggers;
	int err;

	if (d->type == ETT_EVENT_HIST) {
		err = hist_trigger_register(file, d, remove, gone);
		if (err)
			return err < 0 ? err : 0;
	} else if (remove) {
		*gone = trigger_unlink(file, d);
		return *gone ? 0 : -ENOENT;
	} else {
		while (p && !trigger_same(p, d))
			p = p->next;
		if (p)
			return -EEXIST;
		/* Linux's register_snapshot_trigger(): the buffer first, or no trigger */
		if (d->type == ETT_SNAPSHOT && (err = tracing_alloc_snapshot_instance(file->tr)))
			return err;
		if (is_enable_cmd(d->type) && (err = event_enable_register(d)))
			return err;
	}
	*listed = true;
	if (d->type == ETT_EVENT_HIST) {
		/* At the tail (before eprobe hooks), as Linux's hist_register_trigger() does with
		 * list_add_tail_rcu(): hists run and are listed oldest first. */
		struct event_trigger_data **pp = &file->triggers;
		while (*pp && (*pp)->type != ETT_EVENT_EPROBE)
			pp = &(*pp)->next;
		d->next = *pp;
		__atomic_store_n(pp, d, __ATOMIC_RELEASE);
		return 0;
	}
	/* At the head, as Linux's list_add_rcu(): the newest runs (and is listed) first, so
	 * `stacktrace` added after `traceoff` still records before tracing stops. */
	d->next = file->triggers;
	__atomic_store_n(&file->triggers, d, __ATOMIC_RELEASE);
	return 0;
}

int event_trigger_write(struct trace_event_file *file, const char *buf, size_t len,
			unsigned int flags)
{
	char text[512];
	struct event_trigger_data *d = NULL, *gone = NULL, *old_list = NULL;
	bool remove = false, listed = false;
	int err = 0;

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	if (*text && (err = trigger_parse(file, text, &d, &remove)))
		return err; /* an empty write (`echo > trigger`) only clears */
	event_mutex_lock();
	if (flags & FS_TRUNC) { /* `>` opens with O_TRUNC: Linux drops every command first */
		for (struct event_trigger_data *p = file->triggers; p; p = p->next)
			if (p->type == ETT_EVENT_HIST && hist_trigger_busy(p, file->triggers)) {
				event_mutex_unlock();
				if (d)
					trigger_free(d);
				return -EBUSY; /* another hist still reads it: nothing changes */
			}
		old_list = file->triggers;
		WRITE_ONCE(file->triggers, first_probe(file));
		if (old_list == file->triggers)
			old_list = NULL;
	}
	if (d)
		err = trigger_apply(file, d, remove, &gone, &listed);
	if (err == -ENOENT && old_list)
		err = 0; /* `echo '!cmd' > trigger` already dropped it */
	if (!err) {
		err = trigger_update_mode(file);
		if (err) {
			if (listed && is_enable_cmd(d->type))
				event_enable_unregister(d);
			if (listed && d->type == ETT_EVENT_HIST)
				hist_trigger_unlinked(file, d);
			trigger_list_restore(file, listed ? d : NULL, &gone, &old_list);
			listed = false;
		}
	} else if (old_list) {
		trigger_list_restore(file, NULL, &gone, &old_list);
	}
	trigger_unlinked(gone);
	for (struct event_trigger_data *p = old_list; p && p->type != ETT_EVENT_EPROBE;
	     p = p->next) {
		trigger_unlinked(p);
		if (p->type == ETT_EVENT_HIST)
			hist_trigger_unlinked(file, p); /* a single removal did this already */
	}
	event_mutex_unlock();
	if (d && !listed) {
		tracepoint_synchronize_unregister(); /* it may have been published a moment */
		trigger_free(d);
	}
	if (gone || old_list) {
		tracepoint_synchronize_unregister(); /* nobody still walks what we unlinked */
		if (gone)
			trigger_free(gone);
		while (old_list && old_list->type != ETT_EVENT_EPROBE) {
			struct event_trigger_data *next = old_list->next;
			trigger_free(old_list);
			old_list = next;
		}
	}
	return err;
}

int event_trigger_probe_add(struct trace_event_call *call, struct event_filter *cond,
			    void (*probe)(void *data, const void *rec, u32 len), void *data)
{
	struct event_trigger_data *d = kzalloc(sizeof(*d)), **pp;
	int err;

	if (!d)
		return -ENOMEM;
	d->type = ETT_EVENT_EPROBE;
	d->count = -1;
	d->filter = cond;
	d->probe = probe;
	d->probe_data = data;
	for (pp = &call->file.triggers; *pp; pp = &(*pp)->next)
		;
	__atomic_store_n(pp, d, __ATOMIC_RELEASE); /* at the tail, as Linux's list_add_tail_rcu() */
	err = trigger_update_mode(&call->file);
	if (err)
		WRITE_ONCE(*pp, NULL);
	if (err) {
		tracepoint_synchronize_unregister();
		d->filter = NULL; /* the caller's still */
		kfree(d);
	}
	return err;
}

void event_trigger_probe_remove(struct trace_event_call *call, void *data)
{
	struct event_trigger_data **pp, *d = NULL;

	for (pp = &call->file.triggers; *pp; pp = &(*pp)->next)
		if ((*pp)->type == ETT_EVENT_EPROBE && (*pp)->probe_data == data) {
			d = *pp;
			WRITE_ONCE(*pp, d->next);
			break;
		}
	trigger_update_mode(&call->file); /* detaching a tracepoint probe does not fail */
	if (d) {
		tracepoint_synchronize_unregister(); /* nobody still runs it */
		trigger_free(d);
	}
}

struct event_trigger_data *event_trigger_add_locked(struct trace_event_file *file, char *text)
{
	struct event_trigger_data *d = NULL, *gone = NULL, *old_list = NULL;
	bool remove, listed = false;

	if (trigger_parse(file, text, &d, &remove))
		return NULL;
	if (!trigger_apply(file, d, false, &gone, &listed) && listed) {
		if (!trigger_update_mode(file))
			return d;
		hist_trigger_unlinked(file, d);
		trigger_list_restore(file, d, &gone, &old_list);
		tracepoint_synchronize_unregister(); /* it may have been published a moment */
	}
	trigger_free(d);
	return NULL;
}

void event_trigger_drop_locked(struct trace_event_file *file, struct event_trigger_data *d)
{
	for (struct event_trigger_data **pp = &file->triggers; *pp; pp = &(*pp)->next)
		if (*pp == d) {
			WRITE_ONCE(*pp, d->next);
			hist_trigger_unlinked(file, d);
			break;
		}
	trigger_update_mode(file);
	tracepoint_synchronize_unregister(); /* nobody still runs it */
	trigger_free(d);
}

/* Every file tr has (its event_files: trace_event_file_slots() of them). */
#define for_each_tr_file(file, tr)                                                                 \
	for (file = (tr)->event_files;                                                             \
	     file && file < (tr)->event_files + trace_event_file_slots(); file++)

/*
 * rmdir: Linux's clear_event_triggers(). Every command of every event of tr goes at once, so a
 * hist whose variables another hist of tr reads, or one made for another's field variable
 * (always in the same array), goes with its readers; only a map another array shares under its
 * name (name=) holds the instance.
 */
int event_triggers_clear_tr(struct trace_array *tr)
{
	struct event_trigger_data *gone = NULL, *d, *next;
	struct trace_event_file *file;

	for_each_tr_file(file, tr)
	{
		for (d = file->triggers; d; d = d->next)
			if (d->type == ETT_EVENT_HIST && hist_trigger_busy_tr(d, tr))
				return -EBUSY;
	}
	for_each_tr_file(file, tr)
	{
		struct event_trigger_data *list = file->triggers;

		if (!list)
			continue;
		WRITE_ONCE(file->triggers, NULL);
		for (d = list; d; d = next) {
			next = d->next;
			trigger_unlinked(d);
			if (d->type == ETT_EVENT_HIST)
				hist_trigger_unlinked(file, d);
			d->next = gone;
			gone = d;
		}
	}
	/* Soft mode after every list changed: an enable_event of one file aims at another. */
	for_each_tr_file(file, tr)
	{
		trigger_update_mode(file);
	}
	if (!gone)
		return 0;
	tracepoint_synchronize_unregister(); /* nobody still walks what we unlinked */
	for (d = gone; d; d = d->next)
		if (d->type == ETT_EVENT_HIST)
			hist_trigger_forget_made(d); /* they are on this list too */
	for (d = gone; d; d = next) {
		next = d->next;
		trigger_free(d);
	}
	return 0;
}
