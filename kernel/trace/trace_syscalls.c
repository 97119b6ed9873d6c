/* syscalls:sys_enter_NAME and sys_exit_NAME: one event pair per system call, from its metadata.
 *
 *   SYSCALL_DEFINE3(write, ...)  ->  struct syscall_metadata "sys_write", 3 args, types, names
 *   init_ftrace_syscalls()       ->  events/syscalls/sys_enter_write/ and sys_exit_write/
 *   enable one                   ->  its bit in enabled_enter; the first one attaches
 *                                    ftrace_syscall_enter() to the raw_syscalls:sys_enter
 *                                    tracepoint (and so flips its static key in do_syscall_64())
 *   a call                       ->  "sys_write(fd: 1, buf: 7ffd..., count: 6)", "sys_write -> 0x6"
 *
 * The records and format files are Linux 6.1's: the number as `int __syscall_nr`, each argument
 * as an unsigned long under its declared type and name, the return as `long ret`; the lines print
 * without the event's name, as Linux's print_syscall_enter() and print_syscall_exit() do.
 *
 * Linux: kernel/trace/trace_syscalls.c (init_ftrace_syscalls(), ftrace_syscall_enter(),
 * reg_event_syscall_enter(), set_syscall_print_fmt(), syscall_enter_define_fields()). Not here:
 * perf's side of the same events.
 */
#include "kernel/syscalls.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/trace/events/syscalls.h"
#include "kernel/trace/trace_entry.h"
#include "kernel/trace/trace_events.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

/* Linux's struct syscall_trace_enter and syscall_trace_exit. */
struct syscall_trace_enter {
	struct trace_entry ent;
	int nr;
	unsigned long args[];
};

struct syscall_trace_exit {
	struct trace_entry ent;
	int nr;
	long ret;
};

/* One system call's two events. */
struct syscall_event {
	const struct syscall_metadata *meta;
	int nr;
	struct trace_event_call enter, exit;
	char enter_name[40], exit_name[40];
};

static struct syscall_event *syscall_events[NR_syscalls];
/* A bit per number whose event is on; read on every traced call without a lock. */
static unsigned long enabled_enter[NR_syscalls / 64], enabled_exit[NR_syscalls / 64];
/* How many events hold each probe on its tracepoint (changed under event_mutex). */
static int sys_refcount_enter, sys_refcount_exit;

static bool nr_enabled(const unsigned long *map, long nr)
{
	return nr >= 0 && nr < NR_syscalls && (READ_ONCE(map[nr / 64]) >> (nr % 64) & 1);
}

/* --- at a call ------------------------------------------------------------------------------- */

static void ftrace_syscall_enter(void *data, struct pt_regs *regs, long id)
{
	const unsigned long regs_args[6] = { regs->di,	regs->si, regs->dx,
					     regs->r10, regs->r8, regs->r9 };
	struct syscall_trace_enter *entry;
	struct trace_event_buffer fb;
	struct syscall_event *se;
	int n;

	if (!nr_enabled(enabled_enter, id))
		return;
	se = syscall_events[id];
	n = se->meta->nb_args;
	entry = trace_event_buffer_reserve(&fb, &se->enter, sizeof(*entry) + n * sizeof(long));
	if (!entry)
		return;
	entry->nr = id;
	memcpy(entry->args, regs_args, n * sizeof(long));
	trace_event_buffer_commit(&fb);
}

static void ftrace_syscall_exit(void *data, struct pt_regs *regs, long ret)
{
	long id = (int)regs->orig_ax;
	struct syscall_trace_exit *entry;
	struct trace_event_buffer fb;
	struct syscall_event *se;

	if (!nr_enabled(enabled_exit, id))
		return;
	se = syscall_events[id];
	entry = trace_event_buffer_reserve(&fb, &se->exit, sizeof(*entry));
	if (!entry)
		return;
	entry->nr = id;
	entry->ret = ret;
	trace_event_buffer_commit(&fb);
}

/* --- output ---------------------------------------------------------------------------------- */

/* `sys_write(fd: 1, buf: 7ffd3c1e2a40, count: 6)`: values in hex without 0x, as Linux. */
static void print_syscall_enter(struct seq_file *m, const struct trace_entry *ent)
{
	const struct syscall_trace_enter *e = (const void *)ent;
	const struct syscall_event *se = trace_event_by_id(ent->type)->data;
	const struct syscall_metadata *meta = se->meta;

	seq_printf(m, "%s(", meta->name);
	for (int i = 0; i < meta->nb_args; i++)
		seq_printf(m, "%s: %lx%s", meta->args[i], e->args[i],
			   i == meta->nb_args - 1 ? "" : ", ");
	seq_puts(m, ")\n");
}

static void print_syscall_exit(struct seq_file *m, const struct trace_entry *ent)
{
	const struct syscall_trace_exit *e = (const void *)ent;
	const struct syscall_event *se = trace_event_by_id(ent->type)->data;

	seq_printf(m, "%s -> 0x%lx\n", se->meta->name, e->ret);
}

/* --- switching ------------------------------------------------------------------------------- */

static void set_nr_bit(unsigned long *map, int nr, bool on)
{
	if (on)
		__atomic_fetch_or(&map[nr / 64], 1UL << (nr % 64), __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&map[nr / 64], ~(1UL << (nr % 64)), __ATOMIC_RELAXED);
}

/* Attach probe to tp when the first event wants it, detach it after the last (under event_mutex). */
static int syscall_reg_common(struct tracepoint *tp, void *probe, int *refcount, unsigned long *map,
			      int nr, enum trace_reg type)
{
	int err = 0;

	if (type == TRACE_REG_REGISTER) {
		if (!*refcount)
			err = tracepoint_probe_register(tp, probe, NULL);
		if (err)
			return err;
		(*refcount)++;
		set_nr_bit(map, nr, true);
		return 0;
	}
	set_nr_bit(map, nr, false);
	if (!--*refcount)
		tracepoint_probe_unregister(tp, probe, NULL);
	return 0;
}

static int reg_event_syscall_enter(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct syscall_event *se = data;

	return syscall_reg_common(&__tracepoint_sys_enter, ftrace_syscall_enter,
				  &sys_refcount_enter, enabled_enter, se->nr, type);
}

static int reg_event_syscall_exit(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct syscall_event *se = data;

	return syscall_reg_common(&__tracepoint_sys_exit, ftrace_syscall_exit, &sys_refcount_exit,
				  enabled_exit, se->nr, type);
}

/* --- the events' descriptions ------------------------------------------------------------------ */

static const struct ftrace_event_field common_fields[] = {
	TRACE_COMMON_FIELDS,
	{ "int", "__syscall_nr", sizeof(struct trace_entry), 4, 1, FILTER_OTHER },
};

/* The common fields, __syscall_nr, then nr_more fields the caller fills; kmalloc'd. */
static struct ftrace_event_field *syscall_fields(int nr_more, int *nr)
{
	int nc = ARRAY_SIZE(common_fields);
	struct ftrace_event_field *f = kmalloc((nc + nr_more) * sizeof(*f));

	if (f)
		memcpy(f, common_fields, sizeof(common_fields));
	*nr = nc + nr_more;
	return f;
}

/* Linux's enter print fmt: "fd: 0x%08lx, buf: 0x%08lx", ((unsigned long)(REC->fd)), ... */
static char *enter_print_fmt(const struct syscall_metadata *meta)
{
	size_t len = 4;
	char *buf, *p;

	for (int i = 0; i < meta->nb_args; i++)
		len += 2 * strlen(meta->args[i]) + 48;
	p = buf = kmalloc(len);
	if (!buf)
		return NULL;
	p += snprintf(p, buf + len - p, "\"");
	for (int i = 0; i < meta->nb_args; i++)
		p += snprintf(p, buf + len - p, "%s: 0x%%0%zulx%s", meta->args[i],
			      sizeof(unsigned long), i == meta->nb_args - 1 ? "" : ", ");
	p += snprintf(p, buf + len - p, "\"");
	for (int i = 0; i < meta->nb_args; i++)
		p += snprintf(p, buf + len - p, ", ((unsigned long)(REC->%s))", meta->args[i]);
	return buf;
}

static int init_enter_call(struct syscall_event *se)
{
	const struct syscall_metadata *meta = se->meta;
	struct trace_event_call *call = &se->enter;

	snprintf(se->enter_name, sizeof(se->enter_name), "sys_enter_%s", meta->name + 4);
	call->name = se->enter_name;
	call->system = "syscalls";
	call->fields = syscall_fields(meta->nb_args, &call->nr_fields);
	if (!call->fields)
		return -ENOMEM;
	for (int i = 0; i < meta->nb_args; i++)
		call->fields[ARRAY_SIZE(common_fields) + i] = (struct ftrace_event_field){
			.type = meta->types[i],
			.name = meta->args[i],
			.offset = offsetof(struct syscall_trace_enter, args) + i * sizeof(long),
			.size = sizeof(long),
			.kind = FILTER_OTHER,
		};
	call->print_fmt = enter_print_fmt(meta);
	call->size = sizeof(struct syscall_trace_enter) + meta->nb_args * sizeof(long);
	call->print = print_syscall_enter;
	call->print_whole_line = true;
	call->reg = reg_event_syscall_enter;
	call->data = se;
	return call->print_fmt ? 0 : -ENOMEM;
}

static int init_exit_call(struct syscall_event *se)
{
	struct trace_event_call *call = &se->exit;

	snprintf(se->exit_name, sizeof(se->exit_name), "sys_exit_%s", se->meta->name + 4);
	call->name = se->exit_name;
	call->system = "syscalls";
	call->fields = syscall_fields(1, &call->nr_fields);
	if (!call->fields)
		return -ENOMEM;
	call->fields[ARRAY_SIZE(common_fields)] = (struct ftrace_event_field){
		"long",	      "ret", offsetof(struct syscall_trace_exit, ret),
		sizeof(long), 1,     FILTER_OTHER
	};
	call->print_fmt = "\"0x%lx\", REC->ret";
	call->size = sizeof(struct syscall_trace_exit);
	call->print = print_syscall_exit;
	call->print_whole_line = true;
	call->reg = reg_event_syscall_exit;
	call->data = se;
	return 0;
}

/* The metadata of the call the table has at nr, found by name ("sys_" + the table's name). */
static const struct syscall_metadata *find_syscall_meta(int nr)
{
	const char *name = syscall_name(nr);

	if (!name)
		return NULL;
	for (const struct syscall_metadata *m = __start___syscalls_metadata;
	     m < __stop___syscalls_metadata; m++)
		if (!strncmp(m->name, "sys_", 4) && !strcmp(m->name + 4, name))
			return m;
	return NULL;
}

/* Events for every implemented call, after the events/ tree exists. A call without metadata or
 * without memory is left out and said so; the kernel goes on. */
void init_ftrace_syscalls(void)
{
	for (int nr = 0; nr < NR_syscalls; nr++) {
		const struct syscall_metadata *meta = find_syscall_meta(nr);
		struct syscall_event *se;

		if (!meta)
			continue;
		se = kzalloc(sizeof(*se));
		if (!se)
			goto nomem;
		se->meta = meta;
		se->nr = nr;
		if (init_enter_call(se) || init_exit_call(se) || trace_add_event_call(&se->enter) ||
		    trace_add_event_call(&se->exit))
			goto nomem;
		syscall_events[nr] = se;
	}
	return;
nomem:
	pr_warn("syscalls: out of memory making the syscall events\n");
}
