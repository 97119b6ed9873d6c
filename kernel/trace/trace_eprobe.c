/* Event probes: an event defined at run time that fires on another event and records some of
 * its fields, reshaped.
 *
 *   echo 'e:sw sched.sched_switch prev=$prev_pid:s32 next=$next_comm:string' >> dynamic_events
 *   echo 'e:it workload.workload_iteration c=+0($name):u8 tail=+1($name):string' >> ...
 *   echo 'e:big kmem.kmalloc size=$bytes_req:u64 if bytes_req > 1024' >> dynamic_events
 *   events/eprobes/sw/{enable,filter,format,id,trigger} as any event's
 *
 * `$FIELD` is a field of the record of the event it fires on (its system.event, or system/event),
 * read as the field's type says (a string field gives the string's address, so :string stores
 * the text, +0($FIELD) reads what a pointer field points at); casts and dereferences are those of
 * kprobe events (trace_probe.c). `if FILTER` keeps only the base records that match, in the base
 * event's filter grammar. The record is struct trace_entry, then the arguments: the line reads
 * `sw: (sched.sched_switch) prev=1 next="sh"`.
 *
 * How it hooks in: enabling the eprobe's event (or a trigger on it) hangs a hook on the base
 * event's triggers (event_trigger_probe_add()); the base event runs in soft mode meanwhile, its
 * enable reading 0*, and its own records are kept only if it is enabled itself. Disabling takes
 * the hook away. The hook builds the eprobe's record in a scratch area of its own (the events'
 * scratch area may hold the base record) and keeps it through trace_event_keep_record(), so the
 * eprobe's filter, pid list and triggers apply as to any event.
 *
 * Linux: kernel/trace/trace_eprobe.c (__trace_eprobe_create(), enable_eprobe(),
 * new_eprobe_trigger(), __eprobe_trace_func(), get_event_field(), print_eprobe_event(),
 * eprobe_dyn_event_match()). Not here: several eprobes on one event name (6.1 refuses too).
 */
#include "kernel/trace/trace_dynevent.h"
#include "kernel/trace/trace_events.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

#define EPROBE_EVENT_SYSTEM "eprobes"

struct trace_eprobe {
	struct dyn_event devent;
	struct trace_event_call call;
	struct trace_event_call *event; /* the one it fires on: built in, never freed */
	char *filter_str;		/* `if ...`, compiled anew at each enable, as Linux does */
	char name[MAX_EVENT_NAME_LEN + 1], group[MAX_EVENT_NAME_LEN + 1];
	struct trace_probe tp; /* last: its arguments follow */
};

static struct dyn_event_operations eprobe_dyn_event_ops;
/* Where a hook builds its record: the events' scratch area may hold the base record. */
static u8 eprobe_scratch[NR_CPUS][TRACE_EVENT_MAX_SIZE] __aligned(8);

/* --- at a hit ------------------------------------------------------------------------------ */

/* The base event fired (and the `if` matched): the eprobe's record, from the base one. */
static void eprobe_trace_func(void *data, const void *rec, u32 len)
{
	struct trace_eprobe *ep = data;
	struct trace_entry *entry = (void *)eprobe_scratch[smp_processor_id()];
	u32 head = traceprobe_head_size(PROBE_PRINT_EVENT), fixed = head + ep->tp.size, dsize;
	/* fetch programs take registers; an eprobe's run on the base record (Linux's rec) */
	struct pt_regs *base = (struct pt_regs *)rec;

	if (!(READ_ONCE(ep->call.flags) & EVENT_FL_ENABLED) && !READ_ONCE(ep->call.file.triggers))
		return; /* Linux's trace_trigger_soft_disabled() */
	dsize = MIN(traceprobe_data_size(&ep->tp, base), TRACE_EVENT_MAX_SIZE - fixed);
	tracing_generic_entry_update(entry, ep->call.id, this_cpu()->tp_irq_flags, 0);
	traceprobe_store_args(entry, head, dsize, &ep->tp, base);
	trace_event_keep_record(&ep->call, entry, fixed + dsize);
}

/* `(sched.sched_switch) prev=1 next="sh"` */
static void eprobe_print(struct seq_file *m, const struct trace_entry *ent)
{
	struct trace_eprobe *ep = trace_event_by_id(ent->type)->data;

	seq_printf(m, "(%s.%s)", ep->event->system, ep->event->name);
	traceprobe_print_args(m, &ep->tp, ent, traceprobe_head_size(PROBE_PRINT_EVENT),
			      TRACE_EVENT_MAX_SIZE);
	seq_putc(m, '\n');
}

/* The eprobe's enable (or a trigger on it) hangs the hook on its base event, with the `if`. */
static int eprobe_register(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct trace_eprobe *ep = data;
	struct filter_parse_error pe = { 0 };
	struct event_filter *cond = NULL;
	int err;

	if (type == TRACE_REG_UNREGISTER) {
		event_trigger_probe_remove(ep->event, ep);
		return 0;
	}
	if (ep->filter_str) {
		err = filter_compile(ep->event->fields, ep->event->nr_fields, ep->filter_str, &cond,
				     &pe);
		if (err)
			return err;
	}
	err = event_trigger_probe_add(ep->event, cond, eprobe_trace_func, ep);
	if (err && cond)
		filter_free(cond);
	return err;
}

/* --- defining ------------------------------------------------------------------------------- */

static void free_trace_eprobe(struct trace_eprobe *ep)
{
	if (!ep)
		return;
	for (int i = 0; i < ep->tp.nr_args; i++)
		traceprobe_free_probe_arg(&ep->tp.args[i]);
	kfree(ep->call.fields);
	kfree(ep->call.print_fmt);
	kfree(ep->filter_str);
	kfree(ep);
}

/* An event by system and name, as Linux's find_and_get_event() takes it: any but a kprobe's,
 * uprobe's or another eprobe's (a syscall event or a synthetic one is fine). */
static struct trace_event_call *find_base_event(const char *system, const char *name)
{
	struct trace_event_call *call;

	event_mutex_lock();
	call = trace_event_find(system, name);
	event_mutex_unlock();
	return call && !call->is_ukprobe && call->reg != eprobe_register ? call : NULL;
}

/* $FIELD of argument i: the base event's field, or the task's name for $comm when the event has
 * no field of that name (Linux's trace_eprobe_tp_arg_update()). */
static int resolve_fields(struct trace_eprobe *ep, int i, struct probe_log *log)
{
	struct fetch_insn *code = ep->tp.args[i].code;
	const struct ftrace_event_field *f;

	if (code->op != FETCH_OP_TP_ARG)
		return traceprobe_update_arg(&ep->tp.args[i]);
	f = trace_event_field_find(ep->event, code->data);
	if (f)
		code->param = (unsigned long)f;
	else if (!strcmp(code->data, "comm") || !strcmp(code->data, "COMM"))
		code->op = FETCH_OP_COMM;
	kfree(code->data);
	code->data = NULL;
	if (!f && code->op != FETCH_OP_COMM)
		return probe_log_err(log, 0, TP_ERR_BAD_ATTACH_ARG), -ENOENT;
	return traceprobe_update_arg(&ep->tp.args[i]);
}

/* `if FILTER`: the words after `if` joined again, checked against the base event's fields. */
static int parse_filter(struct trace_eprobe *ep, int argc, const char **argv, struct probe_log *log)
{
	struct filter_parse_error pe = { 0 };
	struct event_filter *f = NULL;
	size_t len = 0;
	int err;

	if (!argc)
		return probe_log_err(log, 0, TP_ERR_NO_EP_FILTER), -EINVAL;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	ep->filter_str = kzalloc(len);
	if (!ep->filter_str)
		return -ENOMEM;
	for (int i = 0, pos = 0; i < argc; i++)
		pos += snprintf(ep->filter_str + pos, len - pos, i ? " %s" : "%s", argv[i]);
	err = filter_compile(ep->event->fields, ep->event->nr_fields, ep->filter_str, &f, &pe);
	if (err == -EINVAL)
		tracing_log_err(NULL, "event filter parse error", ep->filter_str,
				filter_err_text(pe.err), pe.pos);
	if (f)
		filter_free(f);
	return err;
}

/* The event: its fields (struct trace_entry, then the arguments), print fmt, printer, switch. */
static int eprobe_init_call(struct trace_eprobe *ep)
{
	struct trace_event_call *call = &ep->call;

	call->name = ep->name;
	call->system = ep->group;
	call->fields = traceprobe_fields(&ep->tp, PROBE_PRINT_EVENT, &call->nr_fields);
	call->print_fmt = traceprobe_print_fmt(&ep->tp, PROBE_PRINT_EVENT);
	call->size = traceprobe_head_size(PROBE_PRINT_EVENT) + ep->tp.size;
	call->print = eprobe_print;
	call->reg = eprobe_register;
	call->data = ep;
	return call->fields && call->print_fmt ? 0 : -ENOMEM;
}

/* The eprobe of a checked head: its arguments, its `if`, its event; freed if anything fails. */
static int create_trace_eprobe(const char *group, const char *event, struct trace_event_call *base,
			       int argc, const char **argv, int filter_idx, struct probe_log *log)
{
	int nargs = (filter_idx ? filter_idx - 1 : argc) - 2, ret = 0;
	struct trace_eprobe *ep = kzalloc(sizeof(*ep) + nargs * sizeof(ep->tp.args[0]));

	if (!ep)
		return -ENOMEM;
	ep->event = base;
	strscpy(ep->group, group, sizeof(ep->group));
	strscpy(ep->name, event, sizeof(ep->name));
	if (filter_idx) {
		log->index = filter_idx;
		ret = parse_filter(ep, argc - filter_idx, argv + filter_idx, log);
	}
	for (int i = 0; i < nargs && !ret; i++) {
		log->index = i + 2;
		ret = traceprobe_parse_probe_arg(&ep->tp, i, argv[i + 2],
						 TPARG_FL_KERNEL | TPARG_FL_TPOINT, log);
		if (!ret)
			ret = resolve_fields(ep, i, log);
	}
	if (!ret)
		ret = eprobe_init_call(ep);
	if (!ret) {
		ret = trace_add_event_call(&ep->call);
		if (ret == -EEXIST) {
			log->index = 0;
			probe_log_err(log, 0, TP_ERR_EVENT_EXIST);
		}
	}
	if (ret) {
		free_trace_eprobe(ep);
		return ret;
	}
	dyn_event_add(&ep->devent, &eprobe_dyn_event_ops);
	return 0;
}

/* e[:[GRP/]EVENT] SYSTEM.EVENT [FETCHARGS] [if FILTER] (Linux's __trace_eprobe_create(), its
 * checks in its order; error_log's subsystem is "event_probe", as Linux's). */
static int trace_eprobe_create(int argc, const char **argv)
{
	struct probe_log log = { .argc = MIN(argc, DYN_EVENT_MAX_WORDS),
				 .argv = argv,
				 .err = TP_ERR_NONE };
	const char *event, *group = EPROBE_EVENT_SYSTEM, *sys_event = argv[1], *sys_name = NULL;
	char gbuf[MAX_EVENT_NAME_LEN], sbuf[MAX_EVENT_NAME_LEN];
	struct trace_event_call *base;
	int ret, filter_idx = 0;

	if (argc < 2 || argv[0][0] != 'e')
		return -ECANCELED;
	event = strchr(argv[0] + 1, ':');
	ret = 0;
	if (argc > DYN_EVENT_MAX_WORDS) {
		log.index = MAX_TRACE_ARGS + 2;
		ret = (probe_log_err(&log, 0, TP_ERR_TOO_MANY_ARGS), -EINVAL);
	} else if (event) {
		event++;
		ret = traceprobe_parse_event_name(&event, &group, gbuf, event - argv[0], &log);
	}
	if (!ret) {
		log.index = 1;
		if (traceprobe_parse_event_name(&sys_event, &sys_name, sbuf, 0, &log) ||
		    !sys_event || !sys_name)
			ret = (probe_log_err(&log, 0, TP_ERR_NO_EVENT_INFO), -EINVAL);
	}
	if (!ret) {
		for (int i = 2; i < argc && !filter_idx; i++)
			if (!strcmp(argv[i], "if"))
				filter_idx = i + 1;
		base = find_base_event(sys_name, sys_event);
		if (!base)
			ret = (probe_log_err(&log, 0, TP_ERR_BAD_ATTACH_EVENT), -ENODEV);
	}
	if (!ret)
		ret = create_trace_eprobe(group, event ? event : sys_event, base, argc, argv,
					  filter_idx, &log);
	if (ret)
		dyn_event_log_err("event_probe", &log);
	return ret;
}

/* --- dynamic_events -------------------------------------------------------------------------- */

static struct trace_eprobe *to_trace_eprobe(struct dyn_event *ev)
{
	return container_of(ev, struct trace_eprobe, devent);
}

/* e:eprobes/sw sched.sched_switch prev=$prev_pid:s32 (no `if`: Linux 6.1 shows none) */
static int eprobe_dyn_event_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_eprobe *ep = to_trace_eprobe(ev);

	seq_printf(m, "e:%s/%s %s.%s", ep->group, ep->name, ep->event->system, ep->event->name);
	for (int i = 0; i < ep->tp.nr_args; i++)
		seq_printf(m, " %s=%s", ep->tp.args[i].name, ep->tp.args[i].comm);
	seq_putc(m, '\n');
	return 0;
}

static bool eprobe_dyn_event_is_busy(struct dyn_event *ev)
{
	struct trace_eprobe *ep = to_trace_eprobe(ev);

	return (ep->call.flags & EVENT_FL_IN_USE) || trace_event_files_busy(&ep->call);
}

/* Gone once its event is (-EBUSY while enabled, triggered, or the shell stands in it). */
static int eprobe_dyn_event_release(struct dyn_event *ev)
{
	struct trace_eprobe *ep = to_trace_eprobe(ev);
	int ret = trace_remove_event_call(&ep->call);

	if (ret)
		return ret;
	dyn_event_remove(ev);
	free_trace_eprobe(ep);
	return 0;
}

/* `-:[GRP/]EVENT [SYSTEM.EVENT [ARGS]]`, as Linux's eprobe_dyn_event_match(). */
static bool eprobe_dyn_event_match(const char *system, const char *event, int argc,
				   const char **argv, struct dyn_event *ev)
{
	struct trace_eprobe *ep = to_trace_eprobe(ev);
	const char *dot;

	if ((system && strcmp(ep->group, system)) || (event[0] && strcmp(ep->name, event)))
		return false;
	if (argc < 1)
		return true;
	dot = strchr(argv[0], '/');
	if (!dot)
		dot = strchr(argv[0], '.');
	if (!dot || strncmp(ep->event->system, argv[0], dot - argv[0]) ||
	    ep->event->system[dot - argv[0]] || strcmp(ep->event->name, dot + 1))
		return false;
	return traceprobe_match_command_args(&ep->tp, argc - 1, argv + 1);
}

static struct dyn_event_operations eprobe_dyn_event_ops = {
	.create = trace_eprobe_create,
	.show = eprobe_dyn_event_show,
	.is_busy = eprobe_dyn_event_is_busy,
	.free = eprobe_dyn_event_release,
	.match = eprobe_dyn_event_match,
};

/* `e` in dynamic_events (Linux's trace_events_eprobe_init_early()). */
void trace_events_eprobe_init(void)
{
	dyn_event_register(&eprobe_dyn_event_ops);
}
