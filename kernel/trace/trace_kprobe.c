/* kprobe_events: trace events defined at run time on kprobes and kretprobes, in Linux's syntax.
 *
 *   echo 'p:myprobe vfs_read fd=%di' >> kprobe_events      a kprobe event, group kprobes
 *   echo 'r:grp/ret vfs_read $retval:s64' >> kprobe_events  a kretprobe event
 *   echo 'p:myprobe vfs_open fd=%di' >> kprobe_events       a second probe on the same event
 *   echo '-:myprobe' >> kprobe_events                       remove it; `>` removes them all
 *   events/kprobes/myprobe/{enable,filter,format,id,trigger} as any event's
 *   kprobe_profile                                          hits and misses per probe
 *
 * A definition is checked whole when it is written: the symbol, the offset (an instruction
 * boundary), the fetch arguments; the kprobe is registered there and then, disabled, so that a
 * probe that cannot be placed is refused at `echo` time. The event's enable arms it (through the
 * event's reg callback: trace_event_update_probe() treats it as it treats a tracepoint). A
 * refused line leaves nothing behind and says why in error_log, as Linux does.
 *
 * Linux: kernel/trace/trace_kprobe.c (__trace_kprobe_create(), register_trace_kprobe(),
 * kprobe_dispatcher(), print_kprobe_event(), trace_kprobe_show(), probes_profile_seq_show()),
 * append_trace_kprobe(), trace_kprobe_match(), create_local_trace_kprobe() (perf's kprobe PMU).
 * MOD:SYM is accepted and waits for a module that never loads here (register_probe()).
 */
#include "kernel/trace/trace_kprobe.h"
#include "kernel/trace/trace_kprobe_internal.h"
#include "kernel/fs/tracefs.h"
#include "kernel/trace/trace_dynevent.h"
#include "kernel/trace/trace_kprobe_parse.h"
#include "arch/x86/text_patch.h"
#include "kernel/kprobes.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

static struct trace_kprobe *trace_kprobes;

_Static_assert(PARAM_MAX_STACK == TASK_STACK_PAGES * PAGE_SIZE / sizeof(unsigned long),
	       "$stackN's bound is the kernel stack");

/* --- at a hit ------------------------------------------------------------------------------ */

/* A `p` event's kprobe was hit: count it, record it. */
static int kprobe_dispatcher(struct kprobe *kp, struct pt_regs *regs)
{
	struct trace_kprobe *tk = container_of(kp, struct trace_kprobe, rp.kp);

	__atomic_add_fetch(&tk->nhit, 1, __ATOMIC_RELAXED);
	trace_probe_record(&tk->tpe->call, &tk->tp, false, regs, (unsigned long)kp->addr, 0, NULL);
	return 0;
}

/*
 * The interface hands a return handler its instance, not its kretprobe: find ours by the pool
 * the instance came from. The list only grows at its end, and an entry is freed only after
 * unregister_kretprobe() has waited out every handler, so walking it here is safe.
 */
static struct trace_kprobe *kretprobe_owner(struct kretprobe_instance *ri)
{
	struct trace_kprobe *tk;

	for (tk = READ_ONCE(trace_kprobes); tk; tk = READ_ONCE(tk->next))
		if (tk->is_return && READ_ONCE(tk->rp.rph) == ri->rph)
			return tk;
	return NULL;
}

/* An `r` event's entry, when its arguments name $argN: they are kept in the instance for the
 * return (Linux's trace_kprobe_entry_handler(), 6.9). */
static int kretprobe_entry_dispatcher(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct trace_kprobe *tk = kretprobe_owner(ri);

	if (tk)
		traceprobe_store_entry_args(&tk->tp, regs, (unsigned long *)ri->data);
	return 0;
}

static int kretprobe_dispatcher(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct trace_kprobe *tk = kretprobe_owner(ri);

	if (!tk)
		return 0;
	__atomic_add_fetch(&tk->nhit, 1, __ATOMIC_RELAXED);
	trace_probe_record(&tk->tpe->call, &tk->tp, true, regs, (unsigned long)tk->rp.kp.addr,
			   get_kretprobe_retaddr(ri),
			   tk->tp.nr_entry_args ? (unsigned long *)ri->data : NULL);
	return 0;
}

/* `(vfs_read+0x0/0x60) arg1=0x3`, or for a return `(ksys_read+0x6c/0xe0 <- vfs_read) ...` */
static void kprobe_print(struct seq_file *m, const struct trace_entry *ent)
{
	struct trace_event_call *call = trace_event_by_id(ent->type);
	struct trace_probe_event *tpe = call->data;
	struct trace_kprobe *tk = tpe->desc;
	const unsigned long *head = (const void *)ent;

	if (tk->is_return)
		seq_printf(m, "(%pS <- %ps)", (void *)head[2], (void *)head[1]);
	else
		seq_printf(m, "(%pS)", (void *)head[1]);
	traceprobe_print_args(m, &tk->tp, ent, traceprobe_head_size(tk->is_return),
			      TRACE_EVENT_MAX_SIZE);
	seq_putc(m, '\n');
}

/* The event's enable (or a trigger) arms its kprobes; the last one off disarms them. */
static int trace_kprobe_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct trace_probe_event *tpe = data;
	struct trace_kprobe *tk, *done;
	int ret = 0;

	/* A probe waiting for its module has no kprobe: it is skipped, as Linux's
	 * __enable_trace_kprobe() skips one that is not registered. */
	if (type == TRACE_REG_UNREGISTER) {
		for (tk = tpe->probes; tk; tk = tk->sibling)
			if (!tk->waiting)
				disable_kprobe(&tk->rp.kp);
		return 0;
	}
	for (tk = tpe->probes; tk && !ret; tk = tk->sibling)
		ret = tk->waiting ? 0 : enable_kprobe(&tk->rp.kp);
	if (ret) /* all or none */
		for (done = tpe->probes; done != tk; done = done->sibling)
			if (!done->waiting)
				disable_kprobe(&done->rp.kp);
	return ret;
}

/* --- defining ------------------------------------------------------------------------------- */

/* Frees tk and all it owns; its kprobe must be gone already (or never made). */
static void free_trace_kprobe(struct trace_kprobe *tk)
{
	if (!tk)
		return;
	for (int i = 0; i < tk->tp.nr_args; i++)
		traceprobe_free_probe_arg(&tk->tp.args[i]);
	kfree(tk->symbol);
	kfree(tk);
}

/* The event, once no probe of it is left and its files are gone. */
static void free_trace_probe_event(struct trace_probe_event *tpe)
{
	kfree(tpe->call.fields);
	kfree(tpe->call.print_fmt);
	free_trace_kprobe(tpe->desc);
	kfree(tpe);
}

/* A probe with room for nargs arguments, its kprobe set up (disabled), nothing registered. */
static struct trace_kprobe *alloc_trace_kprobe(const struct probe_place *pl, int maxactive,
					       int nargs, bool is_return)
{
	struct trace_kprobe *tk = kzalloc(sizeof(*tk) + nargs * sizeof(tk->tp.args[0]));

	if (!tk)
		return NULL;
	if (pl->symbol[0]) {
		tk->symbol = probe_strndup(pl->symbol, KSYM_NAME_LEN);
		if (!tk->symbol) {
			kfree(tk);
			return NULL;
		}
		tk->rp.kp.symbol_name = tk->symbol;
		tk->rp.kp.offset = pl->offset;
	} else {
		tk->rp.kp.addr = (kprobe_opcode_t *)pl->addr;
	}
	tk->is_return = is_return;
	if (is_return)
		tk->rp.handler = kretprobe_dispatcher;
	else
		tk->rp.kp.pre_handler = kprobe_dispatcher;
	tk->rp.maxactive = maxactive;
	tk->rp.kp.flags = KPROBE_FLAG_DISABLED; /* armed by the event's enable, not now */
	return tk;
}

/* The kprobe event GROUP/EVENT, or NULL. */
static struct trace_probe_event *find_probe_event(const char *event, const char *group)
{
	for (struct trace_kprobe *tk = trace_kprobes; tk; tk = tk->next)
		if (!strcmp(tk->tpe->event, event) && !strcmp(tk->tpe->group, group))
			return tk->tpe;
	return NULL;
}

/* The event of tk's first probe: fields with offsets, print fmt, how to print and switch it. */
static struct trace_probe_event *alloc_probe_event(struct trace_kprobe *tk, const char *group,
						   const char *event)
{
	struct trace_probe_event *tpe = kzalloc(sizeof(*tpe));
	struct trace_event_call *call;

	if (!tpe)
		return NULL;
	strscpy(tpe->group, group, sizeof(tpe->group));
	strscpy(tpe->event, event, sizeof(tpe->event));
	tpe->is_return = tk->is_return;
	tpe->desc = tk;
	call = &tpe->call;
	call->name = tpe->event;
	call->system = tpe->group;
	call->fields = traceprobe_fields(&tk->tp, tk->is_return, &call->nr_fields);
	call->print_fmt = traceprobe_print_fmt(&tk->tp, tk->is_return);
	call->size = traceprobe_head_size(tk->is_return) + tk->tp.size;
	call->print = kprobe_print;
	call->reg = trace_kprobe_reg;
	call->is_ukprobe = true;
	call->data = tpe;
	if (call->fields && call->print_fmt)
		return tpe;
	tpe->desc = NULL;
	free_trace_probe_event(tpe);
	return NULL;
}

/* Same place and same arguments, as Linux's trace_kprobe_has_same_kprobe() compares them. */
static bool same_probe(const struct trace_kprobe *a, const struct trace_kprobe *b)
{
	if (!a->symbol != !b->symbol || (a->symbol && strcmp(a->symbol, b->symbol)) ||
	    a->rp.kp.offset != b->rp.kp.offset || (!a->symbol && a->rp.kp.addr != b->rp.kp.addr))
		return false;
	for (int i = 0; i < a->tp.nr_args; i++)
		if (strcmp(a->tp.args[i].comm, b->tp.args[i].comm))
			return false;
	return true;
}

/*
 * Linux's checks before a probe joins an existing event: the same type, arguments of the same
 * names and types (Linux's trace_probe_compare_arg_type()), and not the very same probe again.
 */
static int check_append(struct trace_kprobe *tk, struct trace_probe_event *tpe,
			struct probe_log *log)
{
	int ret = traceprobe_check_append(tk->is_return, &tk->tp, tpe->is_return, &tpe->desc->tp,
					  log);

	if (ret)
		return ret;
	for (struct trace_kprobe *p = tpe->probes; p; p = p->sibling)
		if (same_probe(tk, p))
			return probe_log_err(log, 0, TP_ERR_SAME_PROBE), -EEXIST;
	return 0;
}

/*
 * The kprobe, armed if its event is (an appended probe joins an enabled event armed, as in
 * Linux's __register_trace_kprobe()): every check the core makes is made now, at `echo` time.
 * A MOD:SYM that resolves to nothing may wait, as Linux lets a probe wait for a module not yet
 * loaded (register_trace_kprobe()): the event is made, the probe has no kprobe and hits
 * nothing. No module ever loads here, so it waits until it is removed.
 */
static int register_probe(struct trace_kprobe *tk, bool armed, bool may_wait, struct probe_log *log)
{
	int ret = 0;

	for (int i = 0; i < tk->tp.nr_args && !ret; i++)
		ret = traceprobe_update_arg(&tk->tp.args[i]);
	if (armed)
		tk->rp.kp.flags &= ~KPROBE_FLAG_DISABLED;
	if (tk->is_return && tk->tp.nr_entry_args) {
		tk->rp.entry_handler = kretprobe_entry_dispatcher;
		tk->rp.data_size = tk->tp.nr_entry_args * sizeof(unsigned long);
	}
	if (!ret)
		ret = tk->is_return ? register_kretprobe(&tk->rp) : register_kprobe(&tk->rp.kp);
	if (ret == -ENOENT && may_wait && tk->symbol && strchr(tk->symbol, ':')) {
		pr_warn("This probe might be able to register after target module is loaded. "
			"Continue.\n");
		tk->waiting = true;
		return 0;
	}
	if (!ret)
		return 0;
	log->index = 1;
	if (ret == -EILSEQ)
		probe_log_err(log, 0, TP_ERR_BAD_INSN_BNDRY);
	else if (ret == -ENOENT)
		probe_log_err(log, 0, TP_ERR_BAD_PROBE_ADDR);
	else if (ret != -ENOMEM && ret != -EEXIST)
		probe_log_err(log, 0, TP_ERR_FAIL_REG_PROBE);
	return ret;
}

/* Takes the kprobe (or kretprobe) away; returns once no handler can still be running. */
static void unregister_probe(struct trace_kprobe *tk)
{
	if (tk->waiting)
		return;
	if (tk->is_return)
		unregister_kretprobe(&tk->rp);
	else
		unregister_kprobe(&tk->rp.kp);
}

/* tk joins its event's probes, the probes handlers walk, and dynamic_events if listed. */
static void link_trace_kprobe(struct trace_kprobe *tk, struct trace_probe_event *tpe, bool listed)
{
	struct trace_kprobe **pp;

	tk->tpe = tpe;
	for (pp = &tpe->probes; *pp; pp = &(*pp)->sibling)
		;
	*pp = tk;
	for (pp = &trace_kprobes; *pp; pp = &(*pp)->next)
		;
	__atomic_store_n(pp, tk, __ATOMIC_RELEASE);
	if (listed)
		dyn_event_add(&tk->devent, &trace_kprobe_ops);
}

/* Off the list the handlers walk; unregister_probe() then waits out those still walking it. */
static void unlink_trace_kprobe(struct trace_kprobe *tk)
{
	struct trace_kprobe **pp;

	for (pp = &trace_kprobes; *pp != tk; pp = &(*pp)->next)
		;
	WRITE_ONCE(*pp, tk->next);
}

/* A new event for tk, or tk appended to the event of that name: nothing stays if a step fails. */
static int register_trace_kprobe(struct trace_kprobe *tk, const char *group, const char *event,
				 struct probe_log *log)
{
	struct trace_probe_event *tpe = find_probe_event(event, group);
	bool taken;
	int ret;

	if (tpe) {
		ret = check_append(tk, tpe, log);
		tk->tpe =
			tpe; /* before it is armed: its first hit may come at once, on another CPU */
		if (!ret)
			ret = register_probe(tk, tpe->call.flags & EVENT_FL_PROBED, true, log);
		if (!ret)
			link_trace_kprobe(tk, tpe, true);
		return ret;
	}
	event_mutex_lock();
	taken = trace_event_find(group, event);
	event_mutex_unlock();
	if (taken) {
		log->index = 0;
		return probe_log_err(log, 0, TP_ERR_EVENT_EXIST), -EEXIST;
	}
	tpe = alloc_probe_event(tk, group, event);
	if (!tpe)
		return -ENOMEM;
	ret = register_probe(tk, false, true, log);
	if (!ret) {
		ret = trace_add_event_call(&tpe->call);
		if (ret)
			unregister_probe(tk);
	}
	if (ret) {
		tpe->desc = NULL; /* tk is the caller's to free */
		free_trace_probe_event(tpe);
		return ret;
	}
	link_trace_kprobe(tk, tpe, true);
	return 0;
}

/* The arguments and the probe of one parsed head; tk is freed if anything fails. */
static int create_trace_kprobe(const struct kprobe_head *h, int argc, const char **argv,
			       struct probe_log *log)
{
	struct trace_kprobe *tk = alloc_trace_kprobe(&h->pl, h->maxactive, argc, h->is_return);
	int ret = 0;

	if (!tk)
		return -ENOMEM;
	for (int i = 0; i < argc && !ret; i++) {
		log->index = i + 2;
		ret = traceprobe_parse_probe_arg(&tk->tp, i, argv[i], h->pl.flags, log);
	}
	if (!ret)
		ret = register_trace_kprobe(tk, h->group, h->event, log);
	if (ret)
		free_trace_kprobe(tk);
	return ret;
}

/*
 * One definition (the dyn_event create of `p` and `r`): its head parsed
 * (trace_kprobe_parse.c), then its arguments and the probe. -ECANCELED when the line is no
 * kprobe command; a refused one goes to error_log as Linux words it: "trace_kprobe: error:
 * <why>", the command, a caret under the culprit.
 */
int trace_kprobe_create(int argc, const char **argv)
{
	struct probe_log log = { .argc = MIN(argc, DYN_EVENT_MAX_WORDS),
				 .argv = argv,
				 .err = TP_ERR_NONE };
	struct kprobe_head h;
	int ret;

	/* A path is a uprobe's place (trace_uprobe.c): no kernel symbol holds a '/'. */
	if ((argv[0][0] != 'p' && argv[0][0] != 'r') || argc < 2 || strchr(argv[1], '/'))
		return -ECANCELED;
	if (argc > DYN_EVENT_MAX_WORDS) {
		log.index = MAX_TRACE_ARGS + 2;
		probe_log_err(&log, 0, TP_ERR_TOO_MANY_ARGS);
		ret = -EINVAL;
	} else {
		ret = kprobe_parse_head(argc, argv, &h, &log);
		if (!ret)
			ret = create_trace_kprobe(&h, argc - 2, argv + 2, &log);
	}
	if (ret)
		dyn_event_log_err("trace_kprobe", &log);
	return ret;
}

/*
 * Takes one probe away (the dyn_event free): -EBUSY, nothing changed, while its event is in
 * use. The event goes with its last probe; its first probe's memory stays until then (desc).
 */
int trace_kprobe_free(struct dyn_event *ev)
{
	struct trace_kprobe *tk = container_of(ev, struct trace_kprobe, devent), **pp;
	struct trace_probe_event *tpe = tk->tpe;
	bool last = tpe->probes == tk && !tk->sibling;
	int ret;

	if (tpe->call.flags & EVENT_FL_IN_USE)
		return -EBUSY; /* Linux's trace_probe_is_enabled(): the event's, not the probe's */
	if (last) {
		ret = trace_remove_event_call(&tpe->call);
		if (ret)
			return ret;
	}
	unlink_trace_kprobe(tk);
	for (pp = &tpe->probes; *pp != tk; pp = &(*pp)->sibling)
		;
	*pp = tk->sibling;
	dyn_event_remove(ev);
	unregister_probe(tk); /* waits until no handler can still be looking at tk */
	if (tk != tpe->desc)
		free_trace_kprobe(tk);
	if (last)
		free_trace_probe_event(tpe); /* and desc with it */
	return 0;
}

/* --- perf's kprobe PMU ----------------------------------------------------------------------- */

/*
 * A probe of perf's own (perf_event_open with the kprobe PMU's type, Linux's
 * create_local_trace_kprobe()): on the list the handlers walk, in no dynamic_events, kprobe_events
 * or events/ directory; FUNC+OFFS, or ADDR when func is NULL. The perf event arms it.
 */
int create_local_trace_kprobe(const char *func, unsigned long addr, unsigned long offs,
			      bool is_return, struct trace_event_call **callp)
{
	struct probe_place pl = { .addr = addr, .offset = func ? offs : 0 };
	struct probe_log log = { .err = TP_ERR_NONE };
	struct trace_probe_event *tpe = NULL;
	struct trace_kprobe *tk;
	int ret = -ENOMEM;

	/* Linux 6.1.y: a name two functions share says neither (an address can), one nobody has
	 * is refused before any probe is made; a module's waits for nothing here. */
	if (func && !strchr(func, ':') && kallsyms_count_name(func) != 1)
		return kallsyms_count_name(func) ? -EADDRNOTAVAIL : -ENOENT;
	strscpy(pl.symbol, func ? func : "", sizeof(pl.symbol));
	tk = alloc_trace_kprobe(&pl, 0, 0, is_return);
	if (tk && (tpe = alloc_probe_event(tk, KPROBE_EVENT_SYSTEM, func ? func : "kprobe_addr")))
		ret = register_probe(tk, false, false, &log);
	if (ret) {
		if (tpe) {
			tpe->desc = NULL;
			free_trace_probe_event(tpe);
		}
		free_trace_kprobe(tk);
		return ret;
	}
	dyn_event_lock();
	link_trace_kprobe(tk, tpe, false);
	dyn_event_unlock();
	*callp = &tpe->call;
	return 0;
}

/* The perf event is gone: the probe, once no handler can be in it, and its event. */
void destroy_local_trace_kprobe(struct trace_event_call *call)
{
	struct trace_probe_event *tpe = call->data;

	dyn_event_lock();
	unlink_trace_kprobe(tpe->probes);
	dyn_event_unlock();
	unregister_probe(tpe->probes);
	free_trace_probe_event(tpe); /* its one probe is its desc */
}
