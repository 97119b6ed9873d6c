/* Synthetic events: events with no tracepoint, defined by a line written to synthetic_events
 * and fired by hist trigger actions (onmatch().trace(), onmax()...), so that values gathered
 * across several events become one event of their own, with a format, an id, filters, triggers
 * and histograms like any other:
 *
 *   echo 'wakeup_latency u64 lat; pid_t pid; int prio' >> synthetic_events
 *   -> events/synthetic/wakeup_latency/{enable,filter,format,hist,id,trigger}
 *
 * A record is the common fields, then a u64 slot per numeric field (whatever its type's size,
 * as Linux lays it out), 256 bytes per char[N] string, a u64 slot holding a __data_loc per char[]
 * string, and after the slots the char[] strings' bytes, each as long as it is. They are dynamic
 * events too: `s:[synthetic/]name fields` in dynamic_events. Linux:
 * kernel/trace/trace_events_synth.c. Not here: stacktrace fields.
 */
#include "kernel/trace/trace_events_hist.h"
#include "kernel/trace/trace_dynevent.h"
#include "kernel/trace/trace_synth.h"
#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_entry.h"
#include "kernel/fs/tracefs.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "lib/errno.h"
#include "lib/printf.h"

#define SYNTH_NEST_MAX 4 /* a synthetic event's own actions may fire another, this deep */

struct synth_event {
	struct trace_event_call call;
	struct dyn_event devent;
	char name[32];
	int ref; /* hists on it and actions firing it */
	unsigned int n_fields, rec_size;
	struct synth_event *next;
	struct synth_field fields[];
};

static struct synth_event *synth_events; /* changed under event_mutex */
static u8 synth_scratch[NR_CPUS][SYNTH_NEST_MAX][TRACE_EVENT_MAX_SIZE] __aligned(8);
static int synth_nest[NR_CPUS];

static void synth_err(const char *cmd, enum synth_err err, const char *at)
{
	const char *found = at ? strstr(cmd, at) : NULL;

	tracing_log_err(NULL, "synthetic_events", cmd, synth_err_text(err),
			found ? (int)(found - cmd) : 0);
}

struct synth_event *hist_find_synth(const char *name)
{
	for (struct synth_event *se = synth_events; se; se = se->next)
		if (!strcmp(se->name, name))
			return se;
	return NULL;
}

void hist_synth_ref(struct trace_event_call *call, int delta)
{
	for (struct synth_event *se = synth_events; se; se = se->next)
		if (&se->call == call)
			se->ref += delta;
}

/* --- the event's record, format and output ---------------------------------------------------- */

/* `lat=12 pid=7 prio=120`, each value cut to its type's size as Linux prints it. */
static void synth_print(struct seq_file *m, const struct trace_entry *ent)
{
	struct synth_event *se = trace_event_by_id(ent->type)->data;
	char fmt[32];

	for (unsigned int i = 0; i < se->n_fields; i++) {
		const struct synth_field *f = &se->fields[i];
		const u8 *p = (const u8 *)ent + f->offset;
		u64 v = *(const u64 *)p;
		const char *sep = i == se->n_fields - 1 ? "" : " ";
		snprintf(fmt, sizeof(fmt), "%%s=%s%%s", synth_field_fmt(f));
		if (f->is_dynamic)
			seq_printf(m, fmt, f->name, (const char *)ent + (*(const u32 *)p & 0xffff),
				   sep);
		else if (f->is_string)
			seq_printf(m, fmt, f->name, (const char *)p, sep);
		else if (f->size == 1)
			seq_printf(m, fmt, f->name, (u8)v, sep);
		else if (f->size == 2)
			seq_printf(m, fmt, f->name, (u16)v, sep);
		else if (f->size == 4)
			seq_printf(m, fmt, f->name, (u32)v, sep);
		else
			seq_printf(m, fmt, f->name, v, sep);
	}
	seq_putc(m, '\n');
}

/* No tracepoint to attach: the actions fire it whenever it is enabled or triggered. */
static int synth_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	return 0;
}

static const struct ftrace_event_field common_fields[] = { TRACE_COMMON_FIELDS };

/* The call's fields (common ones first) and print fmt: `"lat=%llu, pid=%d", REC->lat, REC->pid`. */
static int synth_call_init(struct synth_event *se)
{
	struct trace_event_call *call = &se->call;
	struct ftrace_event_field *fields;
	size_t len = 4;
	char *fmt;

	fields = kzalloc(sizeof(*fields) * (TRACE_NR_COMMON_FIELDS + se->n_fields));
	for (unsigned int i = 0; i < se->n_fields; i++)
		len += 2 * strlen(se->fields[i].name) + 24;
	fmt = kzalloc(len);
	if (!fields || !fmt) {
		kfree(fields);
		kfree(fmt);
		return -ENOMEM;
	}
	memcpy(fields, common_fields, sizeof(common_fields));
	strcpy(fmt, "\"");
	for (unsigned int i = 0; i < se->n_fields; i++) {
		struct ftrace_event_field *f = &fields[TRACE_NR_COMMON_FIELDS + i];
		const struct synth_field *sf = &se->fields[i];
		*f = (struct ftrace_event_field){ .type = sf->type,
						  .name = sf->name,
						  .offset = sf->offset,
						  .size = sf->size,
						  .is_signed = sf->is_signed,
						  .kind = sf->is_dynamic  ? FILTER_DYN_STRING
							  : sf->is_string ? FILTER_STATIC_STRING
									  : FILTER_OTHER };
		snprintf(fmt + strlen(fmt), len - strlen(fmt), "%s=%s%s", sf->name,
			 synth_field_fmt(sf), i == se->n_fields - 1 ? "\"" : ", ");
	}
	for (unsigned int i = 0; i < se->n_fields; i++)
		snprintf(fmt + strlen(fmt), len - strlen(fmt),
			 se->fields[i].is_dynamic ? ", __get_str(%s)" : ", REC->%s",
			 se->fields[i].name);
	call->name = se->name;
	call->system = SYNTH_SYSTEM;
	call->fields = fields;
	call->nr_fields = TRACE_NR_COMMON_FIELDS + se->n_fields;
	call->size = se->rec_size;
	call->print = synth_print;
	call->print_fmt = fmt;
	call->reg = synth_reg;
	call->data = se;
	return 0;
}

/* A char[] value after the fixed slots: its bytes and NUL where data is, its __data_loc in the
 * slot; the bytes it took (0 when the record is full, an empty string then). */
static u32 synth_store_dynamic(u8 *rec, const struct synth_field *f, const char *s, u32 data)
{
	u32 room = TRACE_EVENT_MAX_SIZE - data, len = 0;

	if (room) {
		len = strnlen(s ?: "", MIN(room, (u32)STR_VAR_LEN_MAX) - 1);
		memcpy(rec + data, s ?: "", len);
		rec[data + len++] = 0;
	}
	*(u64 *)(rec + f->offset) = data | len << 16;
	return len;
}

/* Fired by an action, on the tracing path: vals[i] is field i's value (a string's address). */
void synth_event_trace(struct synth_event *se, const u64 *vals)
{
	struct trace_event_call *call = &se->call;
	int cpu = smp_processor_id(), nest;
	unsigned long flags;
	u32 size = se->rec_size;
	u8 *rec;

	if (!(READ_ONCE(call->flags) & (EVENT_FL_ENABLED | EVENT_FL_SOFT_MODE)))
		return;
	flags = local_irq_save();
	nest = synth_nest[cpu]++;
	if (nest < SYNTH_NEST_MAX) {
		rec = synth_scratch[cpu][nest];
		tracing_generic_entry_update((struct trace_entry *)rec, call->id,
					     this_cpu()->tp_irq_flags, 0);
		for (unsigned int i = 0; i < se->n_fields; i++) {
			const struct synth_field *f = &se->fields[i];
			const char *str = (const char *)(unsigned long)vals[i];
			if (f->is_dynamic) {
				size += synth_store_dynamic(rec, f, str, size);
			} else if (f->is_string) {
				memset(rec + f->offset, 0, STR_VAR_LEN_MAX);
				strscpy((char *)rec + f->offset, str, f->size);
			} else {
				*(u64 *)(rec + f->offset) = vals[i];
			}
		}
		trace_event_keep_record(call, rec, size);
	}
	synth_nest[cpu]--;
	local_irq_restore(flags);
}

bool synth_field_is_string(const struct synth_event *se, unsigned int i)
{
	return se->fields[i].is_string;
}

const char *synth_field_type(const struct synth_event *se, unsigned int i)
{
	return se->fields[i].type;
}

unsigned int synth_event_n_fields(const struct synth_event *se)
{
	return se->n_fields;
}

const char *synth_event_name(const struct synth_event *se)
{
	return se->name;
}

/* --- synthetic_events and dynamic_events: defining and removing ------------------------------ */

static struct dyn_event_operations synth_dyn_ops;

/* In definition order, as Linux lists them; also on dynamic_events' list (the caller holds
 * dyn_event_lock(), taken before event_mutex as dynamic_events takes them). */
static void synth_list_add(struct synth_event *se)
{
	struct synth_event **pp;

	event_mutex_lock();
	for (pp = &synth_events; *pp; pp = &(*pp)->next)
		;
	se->next = NULL;
	*pp = se;
	event_mutex_unlock();
	dyn_event_add(&se->devent, &synth_dyn_ops);
}

static int synth_create(const char *cmd, char *name, char *rest)
{
	struct synth_field fields[SYNTH_FIELDS_MAX];
	struct synth_parse_err e = { 0 };
	unsigned int n, size;
	struct synth_event *se;
	int err;

	if (!*name) {
		synth_err(cmd, SYNTH_ERR_INVALID_CMD, NULL);
		return -EINVAL;
	}
	if (!synth_good_name(name) || strlen(name) >= sizeof(se->name)) {
		synth_err(cmd, SYNTH_ERR_BAD_NAME, name);
		return -EINVAL;
	}
	event_mutex_lock();
	se = hist_find_synth(name);
	event_mutex_unlock();
	if (se || trace_event_find(SYNTH_SYSTEM, name)) {
		synth_err(cmd, SYNTH_ERR_EVENT_EXISTS, name);
		return -EEXIST;
	}
	err = synth_parse_fields(rest, fields, SYNTH_FIELDS_MAX, &n, &size, &e);
	if (!err && size > TRACE_EVENT_MAX_SIZE)
		err = -EINVAL,
		e = (struct synth_parse_err){ SYNTH_ERR_TOO_MANY_FIELDS, NULL, true };
	if (err) {
		synth_err(cmd, e.err, e.at);
		return err;
	}
	se = kzalloc(sizeof(*se) + n * sizeof(fields[0]));
	if (!se)
		return -ENOMEM;
	strscpy(se->name, name, sizeof(se->name));
	se->n_fields = n;
	se->rec_size = size;
	memcpy(se->fields, fields, n * sizeof(fields[0]));
	err = synth_call_init(se);
	if (!err)
		err = trace_add_event_call(&se->call);
	if (err) {
		kfree(se->call.fields);
		kfree(se->call.print_fmt);
		kfree(se);
		return err;
	}
	synth_list_add(se);
	return 0;
}

/* Removes se if nothing uses it: 0 or -EBUSY, nothing changed then. */
static int synth_remove(struct synth_event *se)
{
	struct synth_event **pp;
	int err;

	event_mutex_lock();
	if (se->ref) {
		event_mutex_unlock();
		return -EBUSY;
	}
	for (pp = &synth_events; *pp != se; pp = &(*pp)->next)
		;
	*pp = se->next;
	event_mutex_unlock();
	err = trace_remove_event_call(&se->call);
	if (err) {
		event_mutex_lock();
		se->next = *pp;
		*pp = se;
		event_mutex_unlock();
		return err;
	}
	dyn_event_remove(&se->devent);
	kfree(se->call.fields);
	kfree(se->call.print_fmt);
	kfree(se);
	return 0;
}

/* Linux's check_command(): the text before the first ';' is a name and a whole field (three
 * words at least), or a removal. */
static bool synth_command_ok(const char *cmd)
{
	int words = 0;

	if (*cmd == '!')
		return true;
	for (const char *p = cmd; *p && *p != ';'; p++)
		if (*p != ' ' && *p != '\t' && (p == cmd || p[-1] == ' ' || p[-1] == '\t'))
			words++;
	return words >= 3;
}

/* One line of synthetic_events: `name fields` or `!name`; the caller holds dyn_event_lock(). */
static int synth_events_line(char *text)
{
	char cmd[512], *name, *rest;
	struct synth_event *se;

	name = strim(text);
	if (!*name)
		return 0;
	strscpy(cmd, name, sizeof(cmd));
	if (!synth_command_ok(name)) {
		synth_err(cmd, SYNTH_ERR_INVALID_CMD, NULL);
		return -EINVAL;
	}
	rest = name;
	while (*rest && *rest != ' ' && *rest != '\t')
		rest++;
	if (*rest)
		*rest++ = 0;
	if (*name != '!')
		return synth_create(cmd, name, rest);
	event_mutex_lock();
	se = hist_find_synth(name + 1);
	event_mutex_unlock();
	return se ? synth_remove(se) : -ENOENT;
}

int synth_events_cmd(char *text, bool trunc)
{
	int err = 0;

	dyn_event_lock();
	if (trunc) /* `>`: every synthetic event goes first, or none if one is in use, as Linux */
		err = dyn_events_release_all(&synth_dyn_ops);
	if (!err)
		err = synth_events_line(text);
	dyn_event_unlock();
	return err;
}

static int synthetic_events_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char text[512];

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	return synth_events_cmd(text, flags & FS_TRUNC);
}

/* Linux's listing: `wakeup_latency\tu64 lat; pid_t pid; char name[]` (no __data_loc here). */
static void synth_show_one(struct seq_file *m, const struct synth_event *se)
{
	seq_printf(m, "%s\t", se->name);
	for (unsigned int i = 0; i < se->n_fields; i++) {
		const struct synth_field *f = &se->fields[i];
		seq_printf(m, "%s %s%s", f->is_dynamic ? f->type + 11 : f->type, f->name,
			   i == se->n_fields - 1 ? "" : "; ");
	}
	seq_putc(m, '\n');
}

static int synthetic_events_show(struct seq_file *m, struct fnode *f)
{
	event_mutex_lock();
	for (struct synth_event *se = synth_events; se; se = se->next)
		synth_show_one(m, se);
	event_mutex_unlock();
	return 0;
}

/* --- as a dynamic event: `s:[synthetic/]name fields` ----------------------------------------- */

#define to_synth(ev) container_of(ev, struct synth_event, devent)

/* Linux's create_synth_event(): the words joined again, as the line was typed. */
static int synth_dyn_create(int argc, const char **argv)
{
	char text[512], *name, *rest;
	size_t off = 0;

	if (argv[0][0] != 's' || argv[0][1] != ':')
		return -ECANCELED;
	for (int i = 0; i < argc && argv[i]; i++)
		off += snprintf(text + off, off < sizeof(text) ? sizeof(text) - off : 0, "%s%s",
				i ? " " : "", argv[i]);
	if (off >= sizeof(text))
		return -E2BIG;
	name = text + 2;
	rest = strchr(name, ' ');
	if (!rest) {
		synth_err(text, SYNTH_ERR_INVALID_CMD, NULL);
		return -EINVAL;
	}
	if (strchr(name, '/') && strchr(name, '/') < rest) {
		if (strncmp(name, SYNTH_SYSTEM "/", sizeof(SYNTH_SYSTEM))) {
			synth_err(text, SYNTH_ERR_INVALID_DYN_CMD, NULL);
			return -EINVAL;
		}
		name += sizeof(SYNTH_SYSTEM);
	}
	if (!synth_command_ok(name)) {
		synth_err(text, SYNTH_ERR_INVALID_CMD, NULL);
		return -EINVAL;
	}
	*rest++ = 0;
	{
		char cmd[512];
		snprintf(cmd, sizeof(cmd), "%s %s", text, rest);
		return synth_create(cmd, name, rest);
	}
}

static int synth_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	seq_puts(m, "s:" SYNTH_SYSTEM "/");
	synth_show_one(m, to_synth(ev));
	return 0;
}

static bool synth_dyn_is_busy(struct dyn_event *ev)
{
	struct synth_event *se = to_synth(ev);

	return se->ref || (se->call.flags & EVENT_FL_IN_USE) || trace_event_files_busy(&se->call);
}

static int synth_dyn_free(struct dyn_event *ev)
{
	return synth_remove(to_synth(ev));
}

static bool synth_dyn_match(const char *system, const char *event, int argc, const char **argv,
			    struct dyn_event *ev)
{
	return !strcmp(to_synth(ev)->name, event) && (!system || !strcmp(system, SYNTH_SYSTEM));
}

static struct dyn_event_operations synth_dyn_ops = {
	.create = synth_dyn_create,
	.show = synth_dyn_show,
	.is_busy = synth_dyn_is_busy,
	.free = synth_dyn_free,
	.match = synth_dyn_match,
};

static const struct tracefs_file synth_files[] = {
	TRACEFS_FILE("/sys/kernel/tracing/synthetic_events", synthetic_events_show,
		     synthetic_events_write),
};

void init_synth_events(void)
{
	dyn_event_register(&synth_dyn_ops);
	tracefs_create_files(NULL, synth_files, ARRAY_SIZE(synth_files));
}

void synth_event_ref(struct synth_event *se, int delta)
{
	se->ref += delta;
}
