/* The events/ tree and the files around it, with Linux's names, syntax and output:
 *
 *   available_events                      sched:sched_switch ... every event, system:name
 *   set_event                             the enabled events; `sched:sched_switch`, `sched:*`,
 *                                         `*:*`, `sched` (a whole system), `!...` to disable
 *   set_event_pid                         events only from these tasks (empty: all)
 *   error_log                             why the last bad filters were refused, with a caret
 *   events/enable                         0, 1 or X (some on, some off), for every event
 *   events/<system>/enable, filter        the same for one system; a filter for all its events
 *   events/<system>/<event>/enable        0, 1 (0* / 1*: attached for its triggers)
 *                          /format        the record's layout and print fmt
 *                          /id            the record's type number in the ring buffer
 *                          /filter        which records are kept
 *                          /trigger       traceon, traceoff, stacktrace (trace_events_trigger.c)
 */
#include "kernel/trace/trace_events.h"
#include "arch/x86/text_patch.h"
#include "kernel/mm/mm.h"
#include "kernel/panic.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/printf.h"

#define EVENT_WRITE_MAX 512 /* one write to set_event, a filter, a trigger */

/* --- error_log -------------------------------------------------------------------------------- */

#define ERR_LOG_MAX 16 /* Linux keeps as many */
static struct err_entry {
	u64 ts;
	char loc[48];
	char cmd[EVENT_WRITE_MAX];
	const char *text;
	int pos;
} err_log[ERR_LOG_MAX];
static unsigned int err_next, err_count;

void tracing_log_err(const char *loc, const char *cmd, const char *err_text, int pos)
{
	struct err_entry *e = &err_log[err_next];

	e->ts = ktime_get_ns();
	strscpy(e->loc, loc, sizeof(e->loc));
	strscpy(e->cmd, cmd, sizeof(e->cmd));
	e->text = err_text;
	e->pos = pos;
	err_next = (err_next + 1) % ERR_LOG_MAX;
	err_count = MIN(err_count + 1, (unsigned int)ERR_LOG_MAX);
}

/* Linux's layout: the time, where, what; the command; a caret under the bad token. */
static int error_log_show(struct seq_file *m, struct fnode *f)
{
	for (unsigned int i = 0; i < err_count; i++) {
		const struct err_entry *e =
			&err_log[(err_next + ERR_LOG_MAX - err_count + i) % ERR_LOG_MAX];
		seq_printf(m, "[%5llu.%06llu] %s: error: %s\n", e->ts / 1000000000ULL,
			   (e->ts / 1000) % 1000000, e->loc, e->text);
		seq_printf(m, "  Command: %s\n", e->cmd);
		seq_printf(m, "%*s^\n", 11 + e->pos, "");
	}
	return 0;
}

static int error_log_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	if (flags & FS_TRUNC)
		err_count = 0; /* `echo > error_log`, as Linux */
	return 0;
}

/* --- filters ---------------------------------------------------------------------------------- */

/* Puts a compiled filter (or none) in force on one event; frees the old one once unused. */
static void event_set_filter(struct trace_event_call *call, struct event_filter *filter)
{
	struct event_filter *old = call->filter;

	if (filter) {
		WRITE_ONCE(call->filter, filter);
		call->flags |= EVENT_FL_FILTERED;
	} else {
		call->flags &= ~EVENT_FL_FILTERED;
		WRITE_ONCE(call->filter, NULL);
	}
	if (old) {
		tracepoint_synchronize_unregister(); /* nobody still runs the old one */
		filter_free(old);
	}
}

/* "0" or nothing clears; anything else must compile, or nothing changes and error_log says why. */
static int apply_event_filter(struct trace_event_call *call, const char *text, bool log)
{
	struct filter_parse_error pe = { 0 };
	struct event_filter *filter = NULL;
	int err;

	if (!*text || !strcmp(text, "0")) {
		event_set_filter(call, NULL);
		return 0;
	}
	err = filter_compile(call->fields, call->nr_fields, text, &filter, &pe);
	if (err) {
		if (log && err == -EINVAL)
			tracing_log_err("event filter parse error", text, filter_err_text(pe.err),
					pe.pos);
		return err;
	}
	event_set_filter(call, filter);
	return 0;
}

static int filter_show(struct seq_file *m, struct fnode *f)
{
	struct trace_event_call *call = f->parent->priv;

	seq_printf(m, "%s\n", call->filter ? filter_string(call->filter) : "none");
	return 0;
}

static int filter_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_event_call *call = f->parent->priv;
	char text[EVENT_WRITE_MAX];
	int err;

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	event_mutex_lock();
	err = apply_event_filter(call, text, true);
	event_mutex_unlock();
	return err;
}

/* --- enable ----------------------------------------------------------------------------------- */

static int event_enable_show(struct seq_file *m, struct fnode *f)
{
	struct trace_event_call *call = f->parent->priv;

	seq_printf(m, "%d%s\n", !!(call->flags & EVENT_FL_ENABLED),
		   call->flags & EVENT_FL_SOFT_MODE ? "*" : "");
	return 0;
}

/* 0 or 1, as Linux takes them; anything else is EINVAL and changes nothing. */
static int parse_enable(const char *buf, size_t len, bool *on)
{
	unsigned long v;

	if (fs_write_ulong(buf, len, 0, 1, &v))
		return -EINVAL;
	*on = v;
	return 0;
}

static int event_enable_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_event_call *call = f->parent->priv;
	bool on;
	int err;

	if (parse_enable(buf, len, &on))
		return -EINVAL;
	if (text_patch_held)
		return -EBUSY; /* enabling flips a static key: patch_step holds text_mutex */
	event_mutex_lock();
	err = trace_event_enable_disable(call, on);
	event_mutex_unlock();
	return err;
}

/*
 * events/<system>/ (its priv): the name, the filter last written to its filter file, and how
 * many events it holds, so the directory goes when a dynamic system's last event does.
 */
struct event_subsystem {
	char *name;
	char *filter;
	unsigned int nr_events;
};

/* Events of a system (NULL: all). */
static bool in_system(const struct trace_event_call *call, const struct event_subsystem *system)
{
	return !system || !strcmp(call->system, system->name);
}

/* 0 none on, 1 all on, X some (Linux's subsystem and top-level enable files). */
static int system_enable_show(struct seq_file *m, struct fnode *f)
{
	struct trace_event_call *const *pp;
	bool any_on = false, any_off = false;

	for_each_event_call(pp)
	{
		if (!in_system(*pp, f->parent->priv))
			continue;
		if ((*pp)->flags & EVENT_FL_ENABLED)
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
static int apply_event_states(u8 *want)
{
	struct trace_event_call *const *pp;
	int i = 0, err = 0;

	for_each_event_call(pp)
	{
		if (want[i] && !((*pp)->flags & EVENT_FL_ENABLED)) {
			err = trace_event_enable_disable(*pp, true);
			if (err)
				goto undo;
			want[i] = WANT_TURNED_ON;
		}
		i++;
	}
	i = 0;
	for_each_event_call(pp)
	{
		if (!want[i++] && ((*pp)->flags & EVENT_FL_ENABLED))
			err = err ?: trace_event_enable_disable(*pp, false);
	}
	return err;
undo:
	i = 0;
	for_each_event_call(pp)
	{
		if (want[i++] == WANT_TURNED_ON)
			trace_event_enable_disable(*pp, false);
	}
	return err;
}

static int system_enable_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_event_call *const *pp;
	bool on;
	u8 *want;
	int err = 0, i = 0;

	if (parse_enable(buf, len, &on))
		return -EINVAL;
	if (text_patch_held)
		return -EBUSY; /* enabling flips a static key: patch_step holds text_mutex */
	event_mutex_lock();
	want = kzalloc(nr_trace_events + 1);
	if (!want) {
		err = -ENOMEM;
		goto out;
	}
	for_each_event_call(pp)
	{
		want[i] =
			in_system(*pp, f->parent->priv) ? on : !!((*pp)->flags & EVENT_FL_ENABLED);
		i++;
	}
	err = apply_event_states(want);
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
			tracing_log_err("event filter parse error", text,
					filter_err_text(FILT_ERR_BAD_SUBSYS_FILTER), 0);
		if (err)
			goto out;
		i++;
	}
	i = 0;
	for_each_event_call(pp)
	{
		if (in_system(*pp, system)) {
			event_set_filter(*pp, clear ? NULL : next[i]);
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

/* --- format and id ---------------------------------------------------------------------------- */

static void format_field(struct seq_file *m, const struct trace_event_field *fl)
{
	const char *array = strchr(fl->type, '[');

	if (array && fl->kind != FILTER_DYN_STRING) /* char prev_comm[16]: name before the [] */
		seq_printf(m, "\tfield:%.*s %s%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			   (int)(array - fl->type), fl->type, fl->name, array, fl->offset, fl->size,
			   fl->is_signed);
	else
		seq_printf(m, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n", fl->type,
			   fl->name, fl->offset, fl->size, fl->is_signed);
}

static int format_show(struct seq_file *m, struct fnode *f)
{
	struct trace_event_call *call = f->parent->priv;

	seq_printf(m, "name: %s\nID: %u\nformat:\n", call->name, call->id);
	for (int i = 0; i < call->nr_fields; i++) {
		if (i && !strncmp(call->fields[i - 1].name, "common_", 7) &&
		    strncmp(call->fields[i].name, "common_", 7))
			seq_putc(m, '\n'); /* Linux's blank line after the common fields */
		format_field(m, &call->fields[i]);
	}
	/* Not seq_printf: its 512-byte line would cut long formats (kmem's flag tables). */
	seq_puts(m, "\nprint fmt: ");
	seq_puts(m, call->print_fmt);
	seq_putc(m, '\n');
	return 0;
}

static int id_show(struct seq_file *m, struct fnode *f)
{
	struct trace_event_call *call = f->parent->priv;

	seq_printf(m, "%u\n", call->id);
	return 0;
}

/* --- trigger ---------------------------------------------------------------------------------- */

static int trigger_show(struct seq_file *m, struct fnode *f)
{
	event_trigger_show(m, f->parent->priv);
	return 0;
}

static int trigger_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	if (text_patch_held)
		return -EBUSY; /* a trigger enables its event: a static key, and patch_step holds text_mutex */
	return event_trigger_write(f->parent->priv, buf, len, flags);
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

	for_each_event_call(pp) if ((*pp)->flags & EVENT_FL_ENABLED)
		seq_printf(m, "%s:%s\n", (*pp)->system, (*pp)->name);
	return 0;
}

/*
 * One set_event token, as Linux reads it: `system:event`, `system:` or `system:*` (the whole
 * system), `*:*`, or a bare word naming an event or a system. `*` alone means any; there are no
 * other globs. Which events it names go into the mark array; none is an error.
 */
static int set_event_match(const char *tok, bool *mark)
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
		bool ok = (!sys || !strcmp(sys, c->system)) && (!ev || !strcmp(ev, c->name)) &&
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
	bool *on = NULL, *off = NULL;
	u8 *want = NULL;
	int err, i = 0;

	err = fs_write_text(text, sizeof(text), buf, len);
	if (err)
		return err;
	if (text_patch_held)
		return -EBUSY;
	event_mutex_lock();
	on = kzalloc(nr_trace_events + 1);
	off = kzalloc(nr_trace_events + 1);
	want = kzalloc(nr_trace_events + 1);
	err = on && off && want ? 0 : -ENOMEM;
	while (!err && (tok = strsep(&p, " \t\n")) != NULL)
		if (*tok)
			err = tok[0] == '!' ? set_event_match(tok + 1, off)
					    : set_event_match(tok, on);
	if (err)
		goto out;
	for_each_event_call(pp)
	{
		/* `>` starts from nothing, as Linux's O_TRUNC open */
		bool keep = !(flags & FS_TRUNC) && ((*pp)->flags & EVENT_FL_ENABLED);
		want[i] = (keep || on[i]) && !off[i];
		i++;
	}
	err = apply_event_states(want);
out:
	event_mutex_unlock();
	kfree(on);
	kfree(off);
	kfree(want);
	return err;
}

/* --- set_event_pid ---------------------------------------------------------------------------- */

static int event_pid_show(struct seq_file *m, struct fnode *f)
{
	for (int i = 0; i < nr_event_pids; i++)
		seq_printf(m, "%d\n", event_pids[i]);
	return 0;
}

static int event_pid_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	int pids[ARRAY_SIZE(event_pids)];
	int n = trace_parse_pid_list(buf, len, flags, event_pids, nr_event_pids, pids,
				     ARRAY_SIZE(pids));

	if (n < 0)
		return n;
	event_mutex_lock();
	WRITE_ONCE(nr_event_pids, 0); /* writers see no list while it changes */
	memcpy(event_pids, pids, n * sizeof(int));
	__atomic_store_n(&nr_event_pids, n, __ATOMIC_RELEASE);
	event_mutex_unlock();
	return 0;
}

static const struct file_ops error_log_fops = { .show = error_log_show, .write = error_log_write };
static const struct file_ops filter_fops = { .show = filter_show, .write = filter_write };
static const struct file_ops enable_fops = { .show = event_enable_show,
					     .write = event_enable_write };
static const struct file_ops system_enable_fops = { .show = system_enable_show,
						    .write = system_enable_write };
static const struct file_ops system_filter_fops = { .show = system_filter_show,
						    .write = system_filter_write };
static const struct file_ops format_fops = { .show = format_show };
static const struct file_ops id_fops = { .show = id_show };
static const struct file_ops trigger_fops = { .show = trigger_show, .write = trigger_write };
static const struct file_ops available_fops = { .show = available_events_show };
static const struct file_ops set_event_fops = { .show = set_event_show, .write = set_event_write };
static const struct file_ops event_pid_fops = { .show = event_pid_show, .write = event_pid_write };

void trace_event_format_files(struct fnode *dir, struct trace_event_call *call)
{
	dir->priv = call;
	fs_create(dir, "format", &format_fops, NULL);
	fs_create(dir, "id", &id_fops, NULL);
}

static struct fnode *events_dir;

/* events/<system>/, made the first time one of its events is met; NULL when memory ran out. */
static struct fnode *system_dir(const char *name)
{
	struct fnode *dir = fs_mkdir(events_dir, name);
	struct event_subsystem *system;

	if (!dir || dir->priv)
		return dir;
	system = kzalloc(sizeof(*system));
	if (system)
		system->name = kmalloc(strlen(name) + 1);
	if (!system || !system->name || !fs_create(dir, "enable", &system_enable_fops, NULL) ||
	    !fs_create(dir, "filter", &system_filter_fops, NULL)) {
		if (system)
			kfree(system->name);
		kfree(system);
		fs_remove(dir);
		return NULL;
	}
	strcpy(system->name, name);
	dir->priv = system;
	return dir;
}

/* The files of one event; a dynamic event's directory is noted in call->dir. */
static int event_files_create(struct fnode *sysdir, struct trace_event_call *call)
{
	struct fnode *dir = fs_mkdir(sysdir, call->name);

	if (!dir)
		return -ENOMEM;
	dir->priv = call;
	if (!fs_create(dir, "enable", &enable_fops, NULL) ||
	    !fs_create(dir, "filter", &filter_fops, NULL) ||
	    !fs_create(dir, "format", &format_fops, NULL) ||
	    !fs_create(dir, "id", &id_fops, NULL) ||
	    !fs_create(dir, "trigger", &trigger_fops, NULL)) {
		fs_remove(dir);
		return -ENOMEM;
	}
	call->dir = dir;
	((struct event_subsystem *)sysdir->priv)->nr_events++;
	return 0;
}

/* A system directory with no event left goes too (Linux removes a kprobe group's the same way). */
static void system_dir_put(struct fnode *sysdir)
{
	struct event_subsystem *system = sysdir->priv;

	if (--system->nr_events)
		return;
	kfree(system->name);
	kfree(system->filter);
	kfree(system);
	fs_remove(sysdir);
}

int trace_event_files_add(struct trace_event_call *call)
{
	struct fnode *sysdir = system_dir(call->system);
	int err;

	if (!sysdir)
		return -ENOMEM;
	err = event_files_create(sysdir, call);
	if (err && !((struct event_subsystem *)sysdir->priv)->nr_events) {
		((struct event_subsystem *)sysdir->priv)->nr_events = 1;
		system_dir_put(sysdir);
	}
	return err;
}

bool trace_event_files_busy(struct trace_event_call *call)
{
	struct fnode *sysdir = call->dir->parent;

	/* The shell standing in the system directory holds it only if this is its last event. */
	return fs_busy(call->dir) ||
	       (((struct event_subsystem *)sysdir->priv)->nr_events == 1 && sysdir->pins);
}

void trace_event_files_remove(struct trace_event_call *call)
{
	struct fnode *sysdir = call->dir->parent;

	fs_remove(call->dir);
	call->dir = NULL;
	system_dir_put(sysdir);
}

void trace_events_files_init(void)
{
	struct fnode *top = fs_mkdir_p("/sys/kernel/tracing");
	struct trace_event_call *const *pp;

	events_dir = fs_mkdir(top, "events");
	fs_create(top, "available_events", &available_fops, NULL);
	fs_create(top, "set_event", &set_event_fops, NULL);
	fs_create(top, "set_event_pid", &event_pid_fops, NULL);
	fs_create(top, "error_log", &error_log_fops, NULL);
	fs_create(events_dir, "enable", &system_enable_fops, NULL);
	for_each_event_call(pp)
	{
		struct fnode *sysdir = system_dir((*pp)->system);
		if (!sysdir || event_files_create(sysdir, *pp))
			panic("trace events: no memory for the events/ tree");
		(*pp)->dir = NULL; /* built in: never removed */
	}
	ftrace_formats_files_init();
}
