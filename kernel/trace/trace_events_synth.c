/* Synthetic events: events with no tracepoint, defined by a line written to synthetic_events
 * and fired by hist trigger actions (onmatch().trace(), onmax()...), so that values gathered
 * across several events become one event of their own, with a format, an id, filters, triggers
 * and histograms like any other:
 *
 *   echo 'wakeup_latency u64 lat; pid_t pid; int prio' >> synthetic_events
 *   -> events/synthetic/wakeup_latency/{enable,filter,format,hist,id,trigger}
 *
 * A record is the common fields, then a u64 slot per numeric field (whatever its type's size,
 * as Linux lays it out) and 256 bytes per char[N] string. Linux: kernel/trace/trace_events_synth.c.
 * Not here: dynamic strings (char[]), stacktrace fields, and listing in dynamic_events.
 */
#include "kernel/trace/trace_events_hist.h"
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

	tracing_log_err("synthetic_events", cmd, synth_err_text(err),
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
		if (f->is_string)
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
		len += 2 * strlen(se->fields[i].name) + 16;
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
						  .kind = sf->is_string ? FILTER_STATIC_STRING
									: FILTER_OTHER };
		snprintf(fmt + strlen(fmt), len - strlen(fmt), "%s=%s%s", sf->name,
			 synth_field_fmt(sf), i == se->n_fields - 1 ? "\"" : ", ");
	}
	for (unsigned int i = 0; i < se->n_fields; i++)
		snprintf(fmt + strlen(fmt), len - strlen(fmt), ", REC->%s", se->fields[i].name);
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

/* Fired by an action, on the tracing path: vals[i] is field i's value (a string's address). */
void synth_event_trace(struct synth_event *se, const u64 *vals)
{
	struct trace_event_call *call = &se->call;
	int cpu = smp_processor_id(), nest;
	unsigned long flags;
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
			if (f->is_string) {
				memset(rec + f->offset, 0, STR_VAR_LEN_MAX);
				strscpy((char *)rec + f->offset,
					(const char *)(unsigned long)vals[i], f->size);
			} else {
				*(u64 *)(rec + f->offset) = vals[i];
			}
		}
		trace_event_keep_record(call, rec, se->rec_size);
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

/* --- synthetic_events: defining and removing ------------------------------------------------- */

/* In definition order, as Linux lists them. */
static void synth_list_add(struct synth_event *se)
{
	struct synth_event **pp;

	event_mutex_lock();
	for (pp = &synth_events; *pp; pp = &(*pp)->next)
		;
	se->next = NULL;
	*pp = se;
	event_mutex_unlock();
}

static int synth_create(const char *cmd, char *name, char *rest)
{
	struct synth_field fields[SYNTH_FIELDS_MAX];
	struct synth_parse_err e = { 0 };
	unsigned int n, size;
	struct synth_event *se;
	int err;

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
		synth_list_add(se);
		return err;
	}
	kfree(se->call.fields);
	kfree(se->call.print_fmt);
	kfree(se);
	return 0;
}

static int synthetic_events_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char text[512];

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	return synth_events_cmd(text, flags & FS_TRUNC);
}

int synth_events_cmd(char *text, bool trunc)
{
	char cmd[512], *name, *rest;
	int err = 0;

	if (trunc) /* `>`: every unused synthetic event goes first, as Linux */
		for (struct synth_event *se = synth_events, *next; se; se = next) {
			next = se->next;
			err = synth_remove(se);
			if (err)
				return err;
		}
	name = strim(text);
	if (!*name)
		return 0;
	strscpy(cmd, name, sizeof(cmd));
	rest = name;
	while (*rest && *rest != ' ' && *rest != '\t')
		rest++;
	if (*rest)
		*rest++ = 0;
	if (*name == '!') {
		struct synth_event *se;
		event_mutex_lock();
		se = hist_find_synth(name + 1);
		event_mutex_unlock();
		return se ? synth_remove(se) : -ENOENT;
	}
	return synth_create(cmd, name, rest);
}

/* Linux's listing: `wakeup_latency\tu64 lat; pid_t pid; int prio`. */
static int synthetic_events_show(struct seq_file *m, struct fnode *f)
{
	event_mutex_lock();
	for (struct synth_event *se = synth_events; se; se = se->next) {
		seq_printf(m, "%s\t", se->name);
		for (unsigned int i = 0; i < se->n_fields; i++)
			seq_printf(m, "%s %s%s", se->fields[i].type, se->fields[i].name,
				   i == se->n_fields - 1 ? "" : "; ");
		seq_putc(m, '\n');
	}
	event_mutex_unlock();
	return 0;
}

static const struct tracefs_file synth_files[] = {
	TRACEFS_FILE("/sys/kernel/tracing/synthetic_events", synthetic_events_show,
		     synthetic_events_write),
};

void init_synth_events(void)
{
	tracefs_create_files(NULL, synth_files, ARRAY_SIZE(synth_files));
}

void synth_event_ref(struct synth_event *se, int delta)
{
	se->ref += delta;
}
