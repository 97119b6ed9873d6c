/* The files that switch many events at once, with Linux's syntax and output: events/enable and
 * events/<system>/enable (0, 1 or X), a system's filter, set_event, available_events and
 * set_event_pid. Each write changes every event it names or, refused, none. */
#include "kernel/trace/trace_events_files.h"
#include "arch/x86/text_patch.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "lib/errno.h"

/* Events of a system (NULL: all). */
static bool in_system(const struct trace_event_call *call, const struct event_subsystem *system)
{
	return !system || !strcmp(call->system, system->name);
}

/* The events tr has: every one in the top directory, the built-in ones in an instance. */
static bool in_tr(const struct trace_event_call *call, const struct trace_array *tr)
{
	return tr == &global_trace || trace_event_in_instances(call);
}

/* 0 none on, 1 all on, X some (Linux's subsystem and top-level enable files). */
static int system_enable_show(struct seq_file *m, struct fnode *f)
{
	struct trace_event_call *const *pp;
	struct trace_array *tr = trace_array_of(f);
	bool any_on = false, any_off = false;

	for_each_event_call(pp)
	{
		if (!in_system(*pp, f->parent->priv) || !in_tr(*pp, tr))
			continue;
		if (trace_event_enabled_in(*pp, tr))
			any_on = true;
		else
			any_off = true;
	}
	seq_puts(m, any_on && any_off ? "X\n" : any_on ? "1\n" : "0\n");
	return 0;
}

/* want[] values: off, on, and "switched on by this write" (what a failed write turns back). */
enum { WANT_OFF, WANT_ON, WANT_TURNED_ON };

/*
 * Turns each event on or off as want[] says (indexed like for_each_event_call), all or nothing:
 * the enables first, and if one fails, those made before it are turned back off; then the
 * disables, which cannot fail for memory (a tracepoint unregister never does). Under event_mutex.
 */
static int apply_event_states(struct trace_array *tr, u8 *want)
{
	struct trace_event_call *const *pp;
	int i = 0, err = 0;

	for_each_event_call(pp)
	{
		if (want[i] && !trace_event_enabled_in(*pp, tr)) {
			err = trace_event_enable_tr(*pp, tr, true);
			if (err)
				goto undo;
			want[i] = WANT_TURNED_ON;
		}
		i++;
	}
	i = 0;
	for_each_event_call(pp)
	{
		if (!want[i++] && trace_event_enabled_in(*pp, tr))
			err = err ?: trace_event_enable_tr(*pp, tr, false);
	}
	return err;
undo:
	i = 0;
	for_each_event_call(pp)
	{
		/* Cannot fail (see above); if it ever did, the event would stay on unasked. */
		if (want[i++] == WANT_TURNED_ON && trace_event_enable_tr(*pp, tr, false))
			pr_err("trace events: %s:%s left on after a failed write\n", (*pp)->system,
			       (*pp)->name);
	}
	return err;
}

static int system_enable_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_event_call *const *pp;
	struct trace_array *tr = trace_array_of(f);
	bool on;
	u8 *want;
	int err = 0, i = 0;

	if (event_parse_enable(buf, len, &on))
		return -EINVAL;
	if (text_patch_busy())
		return -EBUSY; /* enabling flips a static key: patch_step holds text_mutex */
	event_mutex_lock();
	want = kzalloc(nr_trace_events + 1);
	if (!want) {
		err = -ENOMEM;
		goto out;
	}
	for_each_event_call(pp)
	{
		want[i] = in_system(*pp, f->parent->priv) && in_tr(*pp, tr)
				  ? on
				  : trace_event_enabled_in(*pp, tr);
		i++;
	}
	err = apply_event_states(tr, want);
out:
	event_mutex_unlock();
	kfree(want);
	return err;
}

/* A subsystem filter: set on every event of the system that has the fields it names; refused
 * (nothing changed) if one of them cannot take it, as Linux's BAD_SUBSYS_FILTER. */
static int system_filter_show(struct seq_file *m, struct fnode *f)
{
	const struct event_subsystem *system = f->parent->priv;

	seq_printf(m, "%s\n", system->filter ? system->filter : "none");
	return 0;
}

/*
 * All or nothing: the filter is compiled for every event of the system, and the text copied,
 * before any event changes; setting them then cannot fail.
 */
static int system_filter_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_event_call *const *pp;
	struct event_subsystem *system = f->parent->priv;
	struct event_filter **next = NULL;
	char text[EVENT_WRITE_MAX], *copy = NULL;
	unsigned int i = 0;
	bool clear;
	int err = 0;

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	clear = !*text || !strcmp(text, "0");
	event_mutex_lock();
	if (!clear) {
		next = kzalloc((nr_trace_events + 1) * sizeof(*next));
		copy = kmalloc(strlen(text) + 1);
		if (!next || !copy) {
			err = -ENOMEM;
			goto out;
		}
		strcpy(copy, text);
	}
	for_each_event_call(pp)
	{
		struct filter_parse_error pe = { 0 };

		if (!clear && in_system(*pp, system))
			err = filter_compile((*pp)->fields, (*pp)->nr_fields, text, &next[i], &pe);
		if (err == -EINVAL)
			tracing_log_err(trace_array_of(f), "event filter parse error", text,
					filter_err_text(FILT_ERR_BAD_SUBSYS_FILTER), 0);
		if (err)
			goto out;
		i++;
	}
	i = 0;
	for_each_event_call(pp)
	{
		if (in_system(*pp, system)) {
			event_set_filter(&(*pp)->file, clear ? NULL : next[i]);
			if (next)
				next[i] = NULL;
		}
		i++;
	}
	kfree(system->filter);
	system->filter = copy;
	copy = NULL;
out:
	for (i = 0; next && i < nr_trace_events; i++)
		filter_free(next[i]);
	kfree(next);
	kfree(copy);
	event_mutex_unlock();
	return err;
}

/* --- available_events, set_event -------------------------------------------------------------- */

static int available_events_show(struct seq_file *m, struct fnode *f)
{
	struct trace_event_call *const *pp;

	for_each_event_call(pp) seq_printf(m, "%s:%s\n", (*pp)->system, (*pp)->name);
	return 0;
}

static int set_event_show(struct seq_file *m, struct fnode *f)
{
	struct trace_event_call *const *pp;
	struct trace_array *tr = trace_array_of(f);

	for_each_event_call(pp) if (trace_event_enabled_in(*pp, tr))
		seq_printf(m, "%s:%s\n", (*pp)->system, (*pp)->name);
	return 0;
}

/*
 * One set_event token, as Linux reads it: `system:event`, `system:` or `system:*` (the whole
 * system), `*:*`, or a bare word naming an event or a system. `*` alone means any; there are no
 * other globs. Which events it names go into the mark array; none is an error.
 */
static int set_event_match(struct trace_array *tr, const char *tok, bool *mark)
{
	struct trace_event_call *const *pp;
	char word[EVENT_WRITE_MAX], *sys = NULL, *ev = NULL, *any = NULL, *colon;
	int i = 0, n = 0;

	strscpy(word, tok, sizeof(word));
	colon = strchr(word, ':');
	if (colon) {
		*colon = 0;
		sys = *word && strcmp(word, "*") ? word : NULL;
		ev = colon[1] && strcmp(colon + 1, "*") ? colon + 1 : NULL;
	} else {
		any = strcmp(word, "*") ? word : NULL;
	}
	for_each_event_call(pp)
	{
		const struct trace_event_call *c = *pp;
		bool ok = in_tr(c, tr) && (!sys || !strcmp(sys, c->system)) &&
			  (!ev || !strcmp(ev, c->name)) &&
			  (!any || !strcmp(any, c->name) || !strcmp(any, c->system));
		if (ok) {
			mark[i] = true;
			n++;
		}
		i++;
	}
	return n ? 0 : -EINVAL;
}

/*
 * All tokens are checked before anything changes, so a bad one leaves every event as it was.
 * The whole write holds event_mutex: the list (and so the marks' indices) cannot change under it.
 */
static int set_event_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char text[EVENT_WRITE_MAX], *p = text, *tok;
	struct trace_event_call *const *pp;
	struct trace_array *tr = trace_array_of(f);
	bool *on = NULL, *off = NULL;
	u8 *want = NULL;
	int err, i = 0;

	err = fs_write_text(text, sizeof(text), buf, len);
	if (err)
		return err;
	if (text_patch_busy())
		return -EBUSY;
	event_mutex_lock();
	on = kzalloc(nr_trace_events + 1);
	off = kzalloc(nr_trace_events + 1);
	want = kzalloc(nr_trace_events + 1);
	err = on && off && want ? 0 : -ENOMEM;
	while (!err && (tok = strsep(&p, " \t\n")) != NULL)
		if (*tok)
			err = tok[0] == '!' ? set_event_match(tr, tok + 1, off)
					    : set_event_match(tr, tok, on);
	if (err)
		goto out;
	for_each_event_call(pp)
	{
		/* `>` starts from nothing, as Linux's O_TRUNC open */
		bool keep = !(flags & FS_TRUNC) && trace_event_enabled_in(*pp, tr);
		want[i] = (keep || on[i]) && !off[i];
		i++;
	}
	err = apply_event_states(tr, want);
out:
	event_mutex_unlock();
	kfree(on);
	kfree(off);
	kfree(want);
	return err;
}

/* --- set_event_pid ---------------------------------------------------------------------------- */

/* The list of the file's trace array: the global one's event_pids, or an instance's own; the
 * notrace list for set_event_notrace_pid. */
static int *event_pid_list(struct fnode *f, int **nr)
{
	struct trace_array *tr = trace_array_of(f);
	bool global = tr == &global_trace;

	if (!strcmp(f->name, "set_event_notrace_pid")) {
		*nr = global ? &nr_event_notrace_pids : &tr->nr_event_notrace_pids;
		return global ? event_notrace_pids : tr->event_notrace_pids;
	}
	*nr = global ? &nr_event_pids : &tr->nr_event_pids;
	return global ? event_pids : tr->event_pids;
}

static int event_pid_show(struct seq_file *m, struct fnode *f)
{
	int *nr, *list = event_pid_list(f, &nr);

	for (int i = 0; i < *nr; i++)
		seq_printf(m, "%d\n", list[i]);
	return 0;
}

static int event_pid_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	int pids[ARRAY_SIZE(event_pids)];
	int *nr, *list = event_pid_list(f, &nr);
	int n = trace_parse_pid_list(buf, len, flags, list, *nr, pids, ARRAY_SIZE(pids));

	if (n < 0)
		return n;
	event_mutex_lock();
	WRITE_ONCE(*nr, 0); /* writers see no list while it changes */
	memcpy(list, pids, n * sizeof(int));
	__atomic_store_n(nr, n, __ATOMIC_RELEASE);
	event_mutex_unlock();
	return 0;
}

const struct tracefs_file event_system_files[2] = {
	TRACEFS_FILE("enable", system_enable_show, system_enable_write),
	TRACEFS_FILE("filter", system_filter_show, system_filter_write),
};

const struct tracefs_file event_set_files[4] = {
	TRACEFS_FILE("available_events", available_events_show, NULL),
	TRACEFS_FILE("set_event", set_event_show, set_event_write),
	TRACEFS_FILE("set_event_pid", event_pid_show, event_pid_write),
	TRACEFS_FILE("set_event_notrace_pid", event_pid_show, event_pid_write),
};
