/* fprobe events: a trace event at the entry or the exit of a function, on an fprobe.
 *
 *   echo 'f:sq compute_square x=$arg1:u64' >> dynamic_events          fprobes/sq at the entry
 *   echo 'f compute_square%return r=$retval:u64' >> dynamic_events     fprobes/compute_square__exit
 *   echo 't:wi workload_iteration i=$arg3:u64' >> dynamic_events       tracepoints/wi
 *   sq: (compute_square+0x0/0x12) x=3          compute_square__exit: (compute_sum_squares+0x2c/0x4d <- compute_square) r=9
 *
 * The fetch arguments are kprobe events' (trace_probe.c), on the registers the fprobe's
 * ftrace_ops saved: `$argN` at the entry; `$retval`, and `$argN` as the entry had it, at the
 * exit. The fprobe is registered when the line is written, disabled (FPROBE_FL_DISABLED), so a
 * function that is no ftrace site is refused at `echo` time; the event's enable only clears the
 * flag, as Linux does.
 *
 * Linux: kernel/trace/trace_fprobe.c (6.5 and later: __trace_fprobe_create(), fentry_dispatcher(),
 * fexit_dispatcher(), print_fentry_event(), print_fexit_event(), trace_fprobe_show()), and its
 * tracepoint probes (`t`, tprobe). A definition naming an existing event adds a probe to it
 * (Linux's append_trace_fprobe()), as for kprobe and uprobe events. `$argN` at the exit is the
 * argument as the function got it: the entry keeps it (fexit_entry_handler(), in the fprobe's
 * entry data), as Linux 6.9 does. Not here: a tracepoint's arguments by BTF (Linux reads them
 * through the tracepoint's stub function; ours arrive in registers: tprobe_func()).
 */
#include "kernel/trace/fprobe.h"
#include "kernel/trace/trace_dynevent.h"
#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_kprobe_parse.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

#define FPROBE_EVENT_SYSTEM "fprobes"
#define TPROBE_EVENT_SYSTEM "tracepoints"

struct trace_fprobe {
	struct dyn_event devent;
	struct fprobe fp;
	struct tracepoint *tpoint;    /* a `t` event's: no fprobe, a probe on the tracepoint */
	struct trace_event_call call; /* the event: the owner's */
	struct trace_fprobe *owner;   /* the event's first probe, which lives as long as it */
	struct trace_fprobe *probes;  /* in the owner: the event's live probes, oldest first */
	struct trace_fprobe *sibling;
	bool is_return;
	char symbol[KSYM_NAME_LEN];
	char name[MAX_EVENT_NAME_LEN + 1], group[MAX_EVENT_NAME_LEN + 1];
	struct trace_probe tp; /* last: its arguments follow */
};

static struct dyn_event_operations trace_fprobe_ops;

/* --- at a hit ------------------------------------------------------------------------------ */

static int fentry_dispatcher(struct fprobe *fp, unsigned long entry_ip, struct pt_regs *regs,
			     void *data)
{
	struct trace_fprobe *tf = container_of(fp, struct trace_fprobe, fp);

	trace_probe_record(&tf->owner->call, &tf->tp, false, regs, entry_ip, 0, NULL);
	return 0;
}

/* A return probe's entry, when its arguments name $argN: they are kept for the exit (Linux's
 * trace_fprobe_entry_handler()). */
static int fexit_entry_handler(struct fprobe *fp, unsigned long entry_ip, struct pt_regs *regs,
			       void *data)
{
	struct trace_fprobe *tf = container_of(fp, struct trace_fprobe, fp);

	traceprobe_store_entry_args(&tf->tp, regs, data);
	return 0;
}

/* At the return: regs->ip is where the function returns to (the trampoline set it); data what
 * the entry kept, if it kept anything. */
static void fexit_dispatcher(struct fprobe *fp, unsigned long entry_ip, struct pt_regs *regs,
			     void *data)
{
	struct trace_fprobe *tf = container_of(fp, struct trace_fprobe, fp);

	trace_probe_record(&tf->owner->call, &tf->tp, true, regs, entry_ip, regs->ip, data);
}

/*
 * A `t` event's probe on its tracepoint: the tracepoint's arguments arrive as the calling
 * convention passes them (after the probe's data), so up to five of them, in the registers
 * $arg1..$arg5 read. A narrower argument (a bool) has undefined upper bits: give it its type
 * (`$arg1:u8`). Beyond five, $argN reads the stack of a made-up frame and stores 0.
 */
static void tprobe_func(void *data, unsigned long a1, unsigned long a2, unsigned long a3,
			unsigned long a4, unsigned long a5)
{
	struct trace_fprobe *tf = data;
	struct pt_regs regs = { .di = a1, .si = a2, .dx = a3, .cx = a4, .r8 = a5 };

	/* the address the record names: inside the tracepoint's __traceiter_<name> */
	trace_probe_record(&tf->owner->call, &tf->tp, false, &regs,
			   (unsigned long)__builtin_return_address(0), 0, NULL);
}

/* `(compute_square+0x0/0x12)`, or at the exit `(compute_sum_squares+0x2b/0x40 <- compute_square)` */
static void fprobe_print(struct seq_file *m, const struct trace_entry *ent)
{
	struct trace_fprobe *tf = trace_event_by_id(ent->type)->data;
	const unsigned long *head = (const void *)ent;

	if (tf->is_return)
		seq_printf(m, "(%pS <- %ps)", (void *)head[2], (void *)head[1]);
	else
		seq_printf(m, "(%pS)", (void *)head[1]);
	traceprobe_print_args(m, &tf->tp, ent, traceprobe_head_size(tf->is_return),
			      TRACE_EVENT_MAX_SIZE);
	seq_putc(m, '\n');
}

/* One probe on or off: a registered fprobe's flag, or a `t` probe on its tracepoint. */
static int fprobe_probe_switch(struct trace_fprobe *tf, bool on)
{
	if (tf->tpoint && on)
		return tracepoint_probe_register(tf->tpoint, tprobe_func, tf);
	if (tf->tpoint)
		return tracepoint_probe_unregister(tf->tpoint, tprobe_func, tf);
	if (on)
		WRITE_ONCE(tf->fp.flags, tf->fp.flags & ~FPROBE_FL_DISABLED);
	else
		WRITE_ONCE(tf->fp.flags, tf->fp.flags | FPROBE_FL_DISABLED);
	return 0;
}

/* The event's enable (or a trigger) switches all its probes, all or none. */
static int trace_fprobe_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct trace_fprobe *ev = data, *tf, *done;
	int ret = 0;

	if (type != TRACE_REG_REGISTER) {
		for (tf = ev->probes; tf; tf = tf->sibling)
			fprobe_probe_switch(tf, false);
		return 0;
	}
	for (tf = ev->probes; tf; tf = tf->sibling) {
		ret = fprobe_probe_switch(tf, true);
		if (ret)
			break;
	}
	for (done = ev->probes; ret && done != tf; done = done->sibling)
		fprobe_probe_switch(done, false);
	return ret;
}

/* --- defining ------------------------------------------------------------------------------- */

static void free_trace_fprobe(struct trace_fprobe *tf)
{
	for (int i = 0; i < tf->tp.nr_args; i++)
		traceprobe_free_probe_arg(&tf->tp.args[i]);
	kfree(tf->call.fields);
	kfree(tf->call.print_fmt);
	kfree(tf);
}

static int fprobe_init_call(struct trace_fprobe *tf)
{
	struct trace_event_call *call = &tf->call;

	call->name = tf->name;
	call->system = tf->group;
	call->fields = traceprobe_fields(&tf->tp, tf->is_return, &call->nr_fields);
	call->print_fmt = traceprobe_print_fmt(&tf->tp, tf->is_return);
	call->size = traceprobe_head_size(tf->is_return) + tf->tp.size;
	call->print = fprobe_print;
	call->reg = trace_fprobe_reg;
	call->data = tf;
	return call->fields && call->print_fmt ? 0 : -ENOMEM;
}

/* The fprobe of an `f` probe, registered disabled; a `t` probe's is attached when it is on. */
static int register_fprobe_of(struct trace_fprobe *tf, struct probe_log *log)
{
	const char *sym = tf->symbol;
	int ret;

	if (tf->tpoint)
		return 0;
	tf->fp.flags = FPROBE_FL_DISABLED;
	if (tf->is_return) {
		tf->fp.exit_handler = fexit_dispatcher;
		if (tf->tp.nr_entry_args) {
			tf->fp.entry_handler = fexit_entry_handler;
			tf->fp.entry_data_size = tf->tp.nr_entry_args * sizeof(unsigned long);
		}
	} else
		tf->fp.entry_handler = fentry_dispatcher;
	ret = register_fprobe_syms(&tf->fp, &sym, 1);
	if (ret) {
		log->index = 1;
		probe_log_err(log, 0, TP_ERR_BAD_PROBE_ADDR);
	}
	return ret;
}

static struct trace_fprobe *to_trace_fprobe(struct dyn_event *ev)
{
	return container_of(ev, struct trace_fprobe, devent);
}

/* A listed probe of the event GROUP/EVENT, or NULL (dyn_event_lock() held). */
static struct trace_fprobe *find_trace_fprobe(const char *event, const char *group)
{
	struct dyn_event *ev;

	for_each_dyn_event(
		ev) if (ev->ops == &trace_fprobe_ops && !strcmp(to_trace_fprobe(ev)->name, event) &&
			!strcmp(to_trace_fprobe(ev)->group, group)) return to_trace_fprobe(ev);
	return NULL;
}

/* The same place and the same arguments as written (Linux's trace_fprobe_has_same_fprobe()). */
static bool same_fprobe(const struct trace_fprobe *a, const struct trace_fprobe *b)
{
	if (a->tpoint != b->tpoint || strcmp(a->symbol, b->symbol))
		return false;
	for (int i = 0; i < a->tp.nr_args; i++)
		if (strcmp(a->tp.args[i].comm, b->tp.args[i].comm))
			return false;
	return true;
}

/* Linux's append_trace_fprobe(): tf joins the event ev, its checks and errors in Linux's order;
 * the new probe is on at once if the event is. */
static int append_trace_fprobe(struct trace_fprobe *tf, struct trace_fprobe *ev,
			       struct probe_log *log)
{
	struct trace_fprobe **pp;
	int ret;

	ret = traceprobe_check_append(tf->is_return, &tf->tp, ev->is_return, &ev->tp, log);
	if (ret)
		return ret;
	for (struct trace_fprobe *p = ev->probes; p; p = p->sibling)
		if (same_fprobe(p, tf))
			return probe_log_err(log, 0, TP_ERR_SAME_PROBE), -EEXIST;
	tf->owner = ev; /* before the probe is on: its first hit may come at once, on another CPU */
	ret = register_fprobe_of(tf, log);
	if (ret)
		return ret;
	event_mutex_lock(); /* no enable or disable walks ev->probes meanwhile */
	if (ev->call.flags & EVENT_FL_PROBED)
		ret = fprobe_probe_switch(tf, true);
	if (!ret) {
		for (pp = &ev->probes; *pp; pp = &(*pp)->sibling)
			;
		*pp = tf;
	}
	event_mutex_unlock();
	if (ret && !tf->tpoint)
		unregister_fprobe(&tf->fp);
	return ret;
}

/* The fprobe (disabled), then the event, or tf added to the event of its name: nothing stays if
 * a step fails. */
static int register_trace_fprobe(struct trace_fprobe *tf, struct probe_log *log)
{
	struct trace_fprobe *old;
	int ret = 0;

	for (int i = 0; i < tf->tp.nr_args && !ret; i++)
		ret = traceprobe_update_arg(&tf->tp.args[i]);
	if (ret)
		return ret;
	old = find_trace_fprobe(tf->name, tf->group);
	if (old) {
		ret = append_trace_fprobe(tf, old->owner, log);
		if (!ret)
			dyn_event_add(&tf->devent, &trace_fprobe_ops);
		return ret;
	}
	tf->owner = tf->probes = tf;
	ret = fprobe_init_call(tf);
	if (!ret)
		ret = register_fprobe_of(tf, log);
	if (ret)
		return ret;
	ret = trace_add_event_call(&tf->call);
	if (ret) {
		if (!tf->tpoint)
			unregister_fprobe(&tf->fp);
		if (ret == -EEXIST) {
			log->index = 0;
			probe_log_err(log, 0, TP_ERR_EVENT_EXIST);
		}
		return ret;
	}
	dyn_event_add(&tf->devent, &trace_fprobe_ops);
	return 0;
}

/* SYM[%return] into tf; the default name SYM__entry or SYM__exit (Linux's). */
static int parse_fprobe_place(struct trace_fprobe *tf, const char *word, struct probe_log *log)
{
	char *suffix;

	log->index = 1;
	if (strlen(word) >= sizeof(tf->symbol))
		return probe_log_err(log, 0, TP_ERR_BAD_PROBE_ADDR), -EINVAL;
	strscpy(tf->symbol, word, sizeof(tf->symbol));
	suffix = strchr(tf->symbol, '%');
	if (suffix && strcmp(suffix, "%return"))
		return probe_log_err(log, suffix - tf->symbol, TP_ERR_BAD_ADDR_SUFFIX), -EINVAL;
	if (suffix)
		*suffix = '\0';
	tf->is_return = suffix;
	if (tf->symbol[strcspn(tf->symbol, "+-")] || !kallsyms_lookup_name(tf->symbol))
		return probe_log_err(log, 0, TP_ERR_BAD_PROBE_ADDR), -EINVAL;
	return 0;
}

/* A `t` event's TRACEPOINT: a built-in event's (events and tracepoints share names here). */
static int parse_tprobe_place(struct trace_fprobe *tf, const char *word, struct probe_log *log)
{
	struct trace_event_call *call;

	log->index = 1;
	event_mutex_lock();
	call = trace_event_find(NULL, word);
	event_mutex_unlock();
	if (!call || call->reg || !call->tp)
		return probe_log_err(log, 0, TP_ERR_NO_TRACEPOINT), -EINVAL;
	tf->tpoint = call->tp;
	strscpy(tf->symbol, word, sizeof(tf->symbol));
	return 0;
}

/* f[:[GRP/]EVENT] SYM[%return] [FETCHARGS], t[:[GRP/]EVENT] TRACEPOINT [FETCHARGS] (the groups
 * fprobes and tracepoints); error_log's subsystem is "trace_fprobe", for both, as Linux's. */
static int trace_fprobe_create(int argc, const char **argv)
{
	struct probe_log log = { .argc = MIN(argc, DYN_EVENT_MAX_WORDS),
				 .argv = argv,
				 .err = TP_ERR_NONE };
	const char *event, *group = argv[0][0] == 't' ? TPROBE_EVENT_SYSTEM : FPROBE_EVENT_SYSTEM;
	struct trace_fprobe *tf;
	char gbuf[MAX_EVENT_NAME_LEN];
	int ret = 0, nargs = MIN(argc, DYN_EVENT_MAX_WORDS) - 2;

	if ((argv[0][0] != 'f' && argv[0][0] != 't') || argc < 2)
		return -ECANCELED;
	tf = kzalloc(sizeof(*tf) + nargs * sizeof(tf->tp.args[0]));
	if (!tf)
		return -ENOMEM;
	event = strchr(argv[0] + 1, ':');
	if (argc > DYN_EVENT_MAX_WORDS) {
		log.index = MAX_TRACE_ARGS + 2;
		ret = (probe_log_err(&log, 0, TP_ERR_TOO_MANY_ARGS), -EINVAL);
	}
	if (!ret)
		ret = argv[0][0] == 't' ? parse_tprobe_place(tf, argv[1], &log)
					: parse_fprobe_place(tf, argv[1], &log);
	if (!ret && event) {
		log.index = 0;
		event++;
		ret = traceprobe_parse_event_name(&event, &group, gbuf, event - argv[0], &log);
	}
	if (!ret) {
		strscpy(tf->group, group, sizeof(tf->group));
		if (event)
			strscpy(tf->name, event, sizeof(tf->name));
		else if (tf->tpoint)
			strscpy(tf->name, tf->symbol, sizeof(tf->name));
		else
			snprintf(tf->name, sizeof(tf->name), "%s__%s", tf->symbol,
				 tf->is_return ? "exit" : "entry");
	}
	for (int i = 0; i < nargs && !ret; i++) {
		log.index = i + 2;
		ret = traceprobe_parse_probe_arg(
			&tf->tp, i, argv[i + 2],
			TPARG_FL_KERNEL | (tf->is_return ? TPARG_FL_RETURN : TPARG_FL_FENTRY),
			&log);
	}
	if (!ret)
		ret = register_trace_fprobe(tf, &log);
	if (ret) {
		free_trace_fprobe(tf);
		dyn_event_log_err("trace_fprobe", &log);
	}
	return ret;
}

/* --- dynamic_events -------------------------------------------------------------------------- */

/* f:fprobes/sq compute_square x=$arg1:u64   f:fprobes/compute_square__exit compute_square%return */
static int trace_fprobe_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_fprobe *tf = to_trace_fprobe(ev);

	seq_printf(m, "%c:%s/%s %s%s", tf->tpoint ? 't' : 'f', tf->group, tf->name, tf->symbol,
		   tf->is_return ? "%return" : "");
	for (int i = 0; i < tf->tp.nr_args; i++)
		seq_printf(m, " %s=%s", tf->tp.args[i].name, tf->tp.args[i].comm);
	seq_putc(m, '\n');
	return 0;
}

static bool trace_fprobe_is_busy(struct dyn_event *ev)
{
	struct trace_fprobe *owner = to_trace_fprobe(ev)->owner;

	return (owner->call.flags & EVENT_FL_IN_USE) || trace_event_files_busy(&owner->call);
}

/* One probe away (-EBUSY while its event is in use); the event goes with its last probe, the
 * first probe's memory (the event's description) only then. */
static int trace_fprobe_free(struct dyn_event *ev)
{
	struct trace_fprobe *tf = to_trace_fprobe(ev), *owner = tf->owner, **pp;
	bool last = owner->probes == tf && !tf->sibling;
	int ret;

	if (owner->call.flags & EVENT_FL_IN_USE)
		return -EBUSY;
	if (last) {
		ret = trace_remove_event_call(&owner->call);
		if (ret)
			return ret;
	}
	for (pp = &owner->probes; *pp != tf; pp = &(*pp)->sibling)
		;
	*pp = tf->sibling;
	dyn_event_remove(ev);
	if (!tf->tpoint)
		unregister_fprobe(&tf->fp); /* waits until no handler can be running */
	if (tf != owner)
		free_trace_fprobe(tf);
	if (last)
		free_trace_fprobe(owner);
	return 0;
}

/* `-:[GRP/]EVENT [SYM[%return] [ARGS]]` */
static bool trace_fprobe_match(const char *system, const char *event, int argc, const char **argv,
			       struct dyn_event *ev)
{
	struct trace_fprobe *tf = to_trace_fprobe(ev);
	size_t len = strlen(tf->symbol);

	if ((system && strcmp(tf->group, system)) || (event[0] && strcmp(tf->name, event)))
		return false;
	if (argc < 1)
		return true;
	if (strncmp(argv[0], tf->symbol, len) ||
	    strcmp(argv[0] + len, tf->is_return ? "%return" : ""))
		return false;
	return traceprobe_match_command_args(&tf->tp, argc - 1, argv + 1);
}

static struct dyn_event_operations trace_fprobe_ops = {
	.create = trace_fprobe_create,
	.show = trace_fprobe_show,
	.is_busy = trace_fprobe_is_busy,
	.free = trace_fprobe_free,
	.match = trace_fprobe_match,
};

/* `f` and `t` in dynamic_events. */
void init_fprobe_trace(void)
{
	dyn_event_register(&trace_fprobe_ops);
}
