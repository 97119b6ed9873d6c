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
#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_entry.h"
#include "kernel/fs/tracefs.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "lib/errno.h"
#include "lib/printf.h"

#define STR_VAR_LEN_MAX 256
#define SYNTH_NEST_MAX 4 /* a synthetic event's own actions may fire another, this deep */

struct synth_field {
	char type[24], name[32];
	unsigned int size, offset; /* offset in the record */
	bool is_signed, is_string;
};

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

static const char *const err_text[] = {
	"Illegal name",
	"Command must be of the form: <name> field[;field] ...",
	"Command must be of the form: s or -:[synthetic/]<name> field[;field] ...",
	"Event already exists",
	"Too many fields",
	"Incomplete type",
	"Invalid type",
	"Invalid field",
	"Invalid array specification",
};
enum {
	BAD_NAME,
	INVALID_CMD,
	INVALID_DYN_CMD,
	EVENT_EXISTS,
	TOO_MANY_FIELDS,
	INCOMPLETE_TYPE,
	INVALID_TYPE,
	INVALID_FIELD,
	INVALID_ARRAY_SPEC
};

static void synth_err(const char *cmd, int err, const char *at)
{
	const char *found = at ? strstr(cmd, at) : NULL;

	tracing_log_err("synthetic_events", cmd, err_text[err], found ? (int)(found - cmd) : 0);
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

/* --- types -------------------------------------------------------------------------------- */

static const struct {
	const char *type, *fmt;
	u8 size, is_signed;
} synth_types[] = {
	{ "s64", "%lld", 8, 1 }, { "u64", "%llu", 8, 0 },
	{ "s32", "%d", 4, 1 },	 { "u32", "%u", 4, 0 },
	{ "s16", "%d", 2, 1 },	 { "u16", "%u", 2, 0 },
	{ "s8", "%d", 1, 1 },	 { "u8", "%u", 1, 0 },
	{ "char", "%d", 1, 1 },	 { "unsigned char", "%u", 1, 0 },
	{ "int", "%d", 4, 1 },	 { "unsigned int", "%u", 4, 0 },
	{ "long", "%ld", 8, 1 }, { "unsigned long", "%lu", 8, 0 },
	{ "bool", "%d", 1, 0 },	 { "pid_t", "%d", 4, 1 },
	{ "gfp_t", "%x", 4, 0 },
};

static int type_index(const char *type)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(synth_types); i++)
		if (!strcmp(type, synth_types[i].type))
			return i;
	return -1;
}

/* char[N], 0 < N <= 256: its N; 0 for char[] (not offered); -1 for anything else. */
static int string_size(const char *type)
{
	unsigned long n;
	char num[8];
	size_t len;

	if (strncmp(type, "char[", 5))
		return -1;
	len = strlen(type + 5);
	if (!len || type[5 + len - 1] != ']' || len - 1 > 3)
		return -1;
	memcpy(num, type + 5, len - 1);
	num[len - 1] = 0;
	if (!num[0])
		return 0;
	if (kstrtoul(num, 0, &n) || !n || n > STR_VAR_LEN_MAX)
		return -1;
	return n;
}

static bool good_name(const char *s)
{
	if (!*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* --- the event's record, format and output ---------------------------------------------------- */

static const char *field_fmt(const struct synth_field *f)
{
	int i = type_index(f->type);

	return f->is_string ? "%s" : i >= 0 ? synth_types[i].fmt : "%llu";
}

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
		snprintf(fmt, sizeof(fmt), "%%s=%s%%s", field_fmt(f));
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
		snprintf(fmt + strlen(fmt), len - strlen(fmt), "%s=%s%s", sf->name, field_fmt(sf),
			 i == se->n_fields - 1 ? "\"" : ", ");
	}
	for (unsigned int i = 0; i < se->n_fields; i++)
		snprintf(fmt + strlen(fmt), len - strlen(fmt), ", REC->%s", se->fields[i].name);
	call->name = se->name;
	call->system = "synthetic";
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

/* `type name` or `unsigned type name` from the words at *w; the field filled, or an error logged. */
static int parse_field(const char *cmd, char **w, int nw, int *used, struct synth_field *f)
{
	const char *type = w[0], *name;
	char *bracket;
	int ti, n;

	if (!strcmp(type, "unsigned")) {
		if (nw < 3) {
			synth_err(cmd, INCOMPLETE_TYPE, type);
			return -EINVAL;
		}
		snprintf(f->type, sizeof(f->type), "unsigned %s", w[1]);
		name = w[2];
		*used = 3;
	} else {
		if (nw < 2) {
			synth_err(cmd, INVALID_FIELD, type);
			return -EINVAL;
		}
		strscpy(f->type, type, sizeof(f->type));
		name = w[1];
		*used = 2;
	}
	strscpy(f->name, name, sizeof(f->name));
	bracket = strchr(f->name, '[');
	if (bracket) { /* `char name[16]`: the array belongs to the type, as Linux reads it */
		strscpy(f->type + strlen(f->type), bracket, sizeof(f->type) - strlen(f->type));
		*bracket = 0;
	}
	if (!good_name(f->name) || strlen(name) >= sizeof(f->name)) {
		synth_err(cmd, BAD_NAME, name);
		return -EINVAL;
	}
	ti = type_index(f->type);
	n = ti < 0 ? string_size(f->type) : 0;
	if (ti < 0 && n <= 0) {
		synth_err(cmd, bracket ? INVALID_ARRAY_SPEC : INVALID_TYPE, bracket ? name : type);
		return -EINVAL;
	}
	f->is_string = ti < 0;
	f->size = ti < 0 ? (unsigned int)n : synth_types[ti].size;
	f->is_signed = ti >= 0 && synth_types[ti].is_signed;
	return 0;
}

/* Splits s at blanks in place: up to max words. */
static int split_words(char *s, char **w, int max)
{
	int n = 0;

	while (*s && n < max) {
		while (*s == ' ' || *s == '\t')
			*s++ = 0;
		if (!*s)
			break;
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
	}
	return n;
}

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
	unsigned int n = 0, off = sizeof(struct trace_entry);
	struct synth_event *se;
	char *part, *w[8];
	int err;

	if (!good_name(name) || strlen(name) >= sizeof(se->name)) {
		synth_err(cmd, BAD_NAME, name);
		return -EINVAL;
	}
	event_mutex_lock();
	se = hist_find_synth(name);
	event_mutex_unlock();
	if (se || trace_event_find("synthetic", name)) {
		synth_err(cmd, EVENT_EXISTS, name);
		return -EEXIST;
	}
	while ((part = hist_strsep(&rest, ";"))) {
		int nw = split_words(part, w, ARRAY_SIZE(w)), used = 0;
		for (int i = 0; i < nw; i += used) {
			if (n == SYNTH_FIELDS_MAX) {
				synth_err(cmd, TOO_MANY_FIELDS, NULL);
				return -EINVAL;
			}
			memset(&fields[n], 0, sizeof(fields[n]));
			err = parse_field(cmd, w + i, nw - i, &used, &fields[n]);
			if (err)
				return err;
			fields[n].offset = off;
			off += fields[n].is_string ? STR_VAR_LEN_MAX : 8;
			n++;
		}
	}
	if (!n || off > TRACE_EVENT_MAX_SIZE) {
		synth_err(cmd, n ? TOO_MANY_FIELDS : INVALID_CMD, NULL);
		return -EINVAL;
	}
	se = kzalloc(sizeof(*se) + n * sizeof(fields[0]));
	if (!se)
		return -ENOMEM;
	strscpy(se->name, name, sizeof(se->name));
	se->n_fields = n;
	se->rec_size = off;
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
	char text[512], cmd[512], *name, *rest;
	int err = 0;

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	if (flags & FS_TRUNC) /* `>`: every unused synthetic event goes first, as Linux */
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
