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
 *                                         (an instance's: the same files, its own filter and
 *                                         triggers, its own system-level enable only)
 *                          /format        the record's layout and print fmt
 *                          /id            the record's type number in the ring buffer
 *                          /filter        which records are kept
 *                          /hist          its histograms (trace_events_hist_print.c)
 *                          /trigger       traceon, traceoff, stacktrace, enable_event, hist...
 *                                         (trace_events_trigger.c)
 */
#include "kernel/trace/trace_events_files.h"
#include "kernel/trace/trace_events_hist.h"
#include "kernel/trace/trace_events_trigger.h"
#include "arch/x86/text_patch.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "lib/errno.h"
#include "lib/printf.h"

/* --- filters ---------------------------------------------------------------------------------- */

/* Puts a compiled filter (or none) in force on one event; frees the old one once unused. */
void event_set_filter(struct trace_event_file *file, struct event_filter *filter)
{
	struct event_filter *old = file->filter;
	/* The global array's filter also sets a flag, so its fast path tests one word. */
	struct trace_event_call *call = file->tr == &global_trace ? file->event_call : NULL;

	kfree(file->filter_error);
	file->filter_error = NULL;
	if (filter) {
		WRITE_ONCE(file->filter, filter);
		if (call)
			event_flags_set(call, EVENT_FL_FILTERED);
	} else {
		if (call)
			event_flags_clear(call, EVENT_FL_FILTERED);
		WRITE_ONCE(file->filter, NULL);
	}
	if (old) {
		tracepoint_synchronize_unregister(); /* nobody still runs the old one */
		filter_free(old);
	}
}

/*
 * As Linux 6.1: a refused filter still replaces the one in force, disabled (the event records
 * unfiltered), and the `filter` file shows what was refused, a caret under the fault (at most
 * at the end) and the message. Without memory for that text the event is still unfiltered.
 */
static void event_refuse_filter(struct trace_event_file *file, const char *text,
				const struct filter_parse_error *pe)
{
	size_t len = strlen(text), size;
	int pos;
	char *msg;

	while (len && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\n'))
		len--;
	pos = MIN((size_t)pe->pos, len);
	size = len + pos + strlen(filter_err_text(pe->err)) + 32;
	msg = kmalloc(size);
	event_set_filter(file, NULL);
	if (msg) {
		snprintf(msg, size, "%.*s\n%*s^\nparse_error: %s\n", (int)len, text, pos, "",
			 filter_err_text(pe->err));
		file->filter_error = msg;
	}
}

int apply_event_filter(struct trace_event_file *file, const char *text, bool log)
{
	struct trace_event_call *call = file->event_call;
	struct filter_parse_error pe = { 0 };
	struct event_filter *filter = NULL;
	int err;

	if (!*text || !strcmp(text, "0")) {
		event_set_filter(file, NULL);
		return 0;
	}
	err = filter_compile(call->fields, call->nr_fields, text, &filter, &pe);
	if (err) {
		if (log && err == -EINVAL) {
			tracing_log_err(file->tr, "event filter parse error", text,
					filter_err_text(pe.err), pe.pos);
			event_refuse_filter(file, text, &pe);
		}
		return err;
	}
	event_set_filter(file, filter);
	return 0;
}

/* The event (its directory's priv) in the array the file is in. */
static struct trace_event_file *file_of(struct fnode *f)
{
	return trace_event_file_of(f->parent->priv, trace_array_of(f));
}

static int filter_show(struct seq_file *m, struct fnode *f)
{
	struct trace_event_file *file = file_of(f);

	event_mutex_lock(); /* a write may free the filter or its error meanwhile */
	if (file->filter_error)
		seq_puts(m, file->filter_error);
	else
		seq_printf(m, "%s\n", file->filter ? filter_string(file->filter) : "none");
	event_mutex_unlock();
	return 0;
}

static int filter_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char text[EVENT_WRITE_MAX];
	int err;

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	event_mutex_lock();
	err = apply_event_filter(file_of(f), text, true);
	event_mutex_unlock();
	return err;
}

/* --- enable ----------------------------------------------------------------------------------- */

static int event_enable_show(struct seq_file *m, struct fnode *f)
{
	struct trace_event_call *call = f->parent->priv;
	struct trace_array *tr = trace_array_of(f);

	bool soft = tr == &global_trace ? call->flags & EVENT_FL_SOFT_MODE
					: call->sm_mask & (1ULL << tr->id);

	seq_printf(m, "%d%s\n", trace_event_enabled_in(call, tr), soft ? "*" : "");
	return 0;
}

static int event_enable_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_event_call *call = f->parent->priv;
	bool on;
	int err;

	if (event_parse_enable(buf, len, &on))
		return -EINVAL;
	if (text_patch_busy())
		return -EBUSY; /* enabling flips a static key: patch_step holds text_mutex */
	event_mutex_lock();
	err = trace_event_enable_tr(call, trace_array_of(f), on);
	event_mutex_unlock();
	return err;
}

/* --- format and id ---------------------------------------------------------------------------- */

static void format_field(struct seq_file *m, const struct ftrace_event_field *fl)
{
	const char *array = strchr(fl->type, '[');

	/* char prev_comm[16]: the name before the []; a __data_loc's [] stays with its type */
	if (array && strncmp(fl->type, "__data_loc", 10))
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
	event_trigger_show(m, file_of(f));
	return 0;
}

static int trigger_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	if (text_patch_busy())
		return -EBUSY; /* a trigger enables its event: a static key, and patch_step holds text_mutex */
	return event_trigger_write(file_of(f), buf, len, flags);
}

static int hist_show(struct seq_file *m, struct fnode *f)
{
	event_hist_show(m, file_of(f));
	return 0;
}

static const struct tracefs_file event_files[] = {
	TRACEFS_FILE("format", format_show, NULL),
	TRACEFS_FILE("id", id_show, NULL),
	TRACEFS_FILE("enable", event_enable_show, event_enable_write),
	TRACEFS_FILE("filter", filter_show, filter_write),
	TRACEFS_FILE("hist", hist_show, NULL),
	TRACEFS_FILE("trigger", trigger_show, trigger_write),
};
/* An instance's event: the same files, its own trace_event_file behind filter, hist, trigger. */
static const struct tracefs_file instance_event_files[] = {
	TRACEFS_FILE("enable", event_enable_show, event_enable_write),
	TRACEFS_FILE("filter", filter_show, filter_write),
	TRACEFS_FILE("format", format_show, NULL),
	TRACEFS_FILE("hist", hist_show, NULL),
	TRACEFS_FILE("id", id_show, NULL),
	TRACEFS_FILE("trigger", trigger_show, trigger_write),
};

/* The fixed types of events/ftrace/ have only the first two. */
int trace_event_format_files(struct fnode *dir, struct trace_event_call *call)
{
	if (!dir)
		return -ENOMEM;
	dir->priv = call;
	return tracefs_create_files(dir, event_files, 2);
}

int trace_event_trigger_files(struct fnode *dir)
{
	return tracefs_create_files(dir, event_files + 4, 2);
}

static struct fnode *events_dir;

/* events/<system>/ in events (the top one's or an instance's), made the first time one of its
 * events is met, with the files of a system (an instance's: enable only); NULL when memory ran
 * out. */
static struct fnode *system_dir_in(struct fnode *events, const char *name, size_t nfiles)
{
	struct fnode *dir = tracefs_create_dir(name, events);
	struct event_subsystem *system;

	if (!dir || dir->priv)
		return dir;
	system = kzalloc(sizeof(*system));
	if (system)
		system->name = kmalloc(strlen(name) + 1);
	if (!system || !system->name || tracefs_create_files(dir, event_system_files, nfiles)) {
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

static struct fnode *system_dir(const char *name)
{
	return system_dir_in(events_dir, name, ARRAY_SIZE(event_system_files));
}

/* The files of one event; a dynamic event's directory is noted in call->dir. */
static int event_files_create(struct fnode *sysdir, struct trace_event_call *call)
{
	struct fnode *dir = tracefs_create_dir(call->name, sysdir);

	if (!dir)
		return -ENOMEM;
	dir->priv = call;
	if (tracefs_create_files(dir, event_files, ARRAY_SIZE(event_files))) {
		fs_remove(dir);
		return -ENOMEM;
	}
	call->dir = dir;
	((struct event_subsystem *)sysdir->priv)->nr_events++;
	return 0;
}
/* The instance's trace_event_files, one per event it has (trace_event_file_of()). */
static int instance_event_files_alloc(struct trace_array *tr)
{
	struct trace_event_file *files = kzalloc(trace_event_file_slots() * sizeof(*files));
	struct trace_event_call *const *pp;

	if (!files)
		return -ENOMEM;
	files[0].event_call = trace_marker_call;
	for_each_event_call(pp) if (trace_event_in_instances(*pp) &&
				    (unsigned int)(*pp)->id - TRACE_EVENT_FIRST_ID + 1 <
					    trace_event_file_slots())
		files[(*pp)->id - TRACE_EVENT_FIRST_ID + 1]
			.event_call = *pp;
	for (unsigned int i = 0; i < trace_event_file_slots(); i++)
		files[i].tr = tr;
	tr->event_files = files;
	return 0;
}

/* An instance's events/ tree: every built-in event's files, ftrace/'s, a system's and the top's
 * enable; and set_event, set_event_pid beside. 0, or -ENOMEM with what was made left to the
 * caller's removal of the instance's directory. */
int trace_events_create_instance(struct fnode *top)
{
	struct fnode *events = tracefs_create_dir("events", top);
	struct trace_array *tr = trace_array_of(top);
	struct trace_event_call *const *pp;
	int err = 0;

	if (!events || tracefs_create_files(events, event_system_files, 1) ||
	    tracefs_create_files(top, &event_set_files[1], 3))
		return -ENOMEM;
	event_mutex_lock();
	if (instance_event_files_alloc(tr)) {
		event_mutex_unlock();
		return -ENOMEM;
	}
	for_each_event_call(pp)
	{
		struct fnode *sysdir, *dir;

		if (!trace_event_in_instances(*pp))
			continue;
		sysdir = system_dir_in(events, (*pp)->system, 1);
		dir = sysdir ? tracefs_create_dir((*pp)->name, sysdir) : NULL;
		err = -ENOMEM;
		if (!dir)
			break;
		dir->priv = *pp;
		if (tracefs_create_files(dir, instance_event_files,
					 ARRAY_SIZE(instance_event_files)))
			break;
		((struct event_subsystem *)sysdir->priv)->nr_events++;
		err = 0;
	}
	if (!err)
		err = ftrace_formats_files_init(events);
	event_mutex_unlock();
	return err;
}

/* Its systems' state, before the tree goes (the nodes themselves go with the instance's). */
static void instance_systems_free(struct fnode *events)
{
	for (struct fnode *d = events ? events->children : NULL; d; d = d->next) {
		struct event_subsystem *system = d->is_dir ? d->priv : NULL;
		if (system) {
			kfree(system->name);
			kfree(system);
			d->priv = NULL;
		}
	}
}

int trace_events_clear_instance(struct trace_array *tr)
{
	int err;

	event_mutex_lock();
	err = event_triggers_clear_tr(tr);
	event_mutex_unlock();
	return err;
}

void trace_events_remove_instance(struct trace_array *tr)
{
	struct trace_event_file *files = tr->event_files;
	struct trace_event_call *const *pp;

	event_mutex_lock();
	if (event_triggers_clear_tr(tr)) /* only if trace_events_clear_instance() was skipped */
		pr_err("trace events: a removed instance's histogram is still shared\n");
	for_each_event_call(pp)
	{
		if (trace_event_enabled_in(*pp, tr) && trace_event_enable_tr(*pp, tr, false))
			pr_err("trace events: %s:%s stays on in a removed instance\n",
			       (*pp)->system, (*pp)->name);
		/* Its files are going: no soft mode of it may outlive them into the next instance
		 * given the same id (the commands holding it went above and in ftrace_probes_clear()). */
		if ((*pp)->sm_mask & (1ULL << tr->id)) {
			event_sm_mask_set(*pp, (*pp)->sm_mask & ~(1ULL << tr->id));
			trace_event_update_probe(*pp);
		}
	}
	WRITE_ONCE(tr->event_files, NULL);
	event_mutex_unlock();
	/* No CPU still copies a record into the instance (keep_in_instances), nor reads its
	 * files' filters, after this. */
	tracepoint_synchronize_unregister();
	for (unsigned int i = 0; files && i < trace_event_file_slots(); i++) {
		if (files[i].filter)
			filter_free(files[i].filter);
		kfree(files[i].filter_error);
	}
	kfree(files);
	instance_systems_free(fs_lookup(tr->dir, "events", 6));
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

/* What trace_events_files_init() put in events/: the enable file and every directory (header_page
 * and header_event are trace_export_files.c's). */
static void events_tree_remove(void)
{
	tracefs_remove_files(events_dir, event_system_files, 1);
	while (events_dir->children && events_dir->children->is_dir)
		fs_remove(events_dir->children);
	for (struct fnode *n = events_dir->children; n && n->next;)
		if (n->next->is_dir)
			fs_remove(n->next);
		else
			n = n->next;
}

/* At boot: the whole tree, or (memory ran out) none of it, said so. */
void trace_events_files_init(void)
{
	struct fnode *top = tracefs_create_path("/sys/kernel/tracing");
	struct trace_event_call *const *pp;

	events_dir = tracefs_create_dir("events", top);
	if (!events_dir || tracefs_create_files(events_dir, event_system_files, 1))
		goto fail;
	if (tracefs_create_files(top, event_set_files, ARRAY_SIZE(event_set_files)))
		goto fail_events;
	if (trace_error_log_init(top))
		goto fail_set;
	for_each_event_call(pp)
	{
		struct fnode *sysdir = system_dir((*pp)->system);
		if (!sysdir || event_files_create(sysdir, *pp))
			goto fail_log;
		(*pp)->dir = NULL; /* built in: never removed */
	}
	if (ftrace_formats_files_init(events_dir))
		goto fail_log;
	return;
fail_log:
	trace_error_log_remove(top);
fail_set:
	tracefs_remove_files(top, event_set_files, ARRAY_SIZE(event_set_files));
fail_events:
	events_tree_remove();
fail:
	events_dir = NULL;
	pr_err("trace events: cannot create the events/ files\n");
}
