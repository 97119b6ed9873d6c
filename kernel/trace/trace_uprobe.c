/* uprobe_events: trace events on uprobes and uretprobes in program files, in Linux's syntax.
 *
 *   echo 'p:myup /tests/tracee:0x1170 a=%di s=+0(%si):ustring' >> uprobe_events
 *   echo 'r:uprobes/myret /tests/tracee:0x1170 ret=$retval' >> uprobe_events
 *   echo 'p:sem /tests/tracee:0x1170(0x3010)' >> uprobe_events   with a semaphore
 *   echo '-:myup' >> uprobe_events                 remove it; `>` removes them all
 *   echo 'p:u2 /tests/tracee:0x1170' >> dynamic_events   the same kind, listed in both files
 *   events/uprobes/myup/{enable,filter,format,id,trigger} as any event's
 *   uprobe_profile                                 the file, the event, its hits
 *
 * The offset is a file offset (what `objdump -F` or the ELF program headers give), as Linux's.
 * Defining the event checks the file and decodes the instruction there; enabling it registers the
 * uprobe (kernel/events/uprobes.c), which writes the int3 into every process running the file;
 * disabling it puts the byte back. A refused line changes nothing and says why in error_log.
 *
 * Linux: kernel/trace/trace_uprobe.c (__trace_uprobe_create(), uprobe_dispatcher(),
 * uretprobe_dispatcher(), print_uprobe_event(), probes_seq_show(), probes_profile_seq_show()).
 * `PATH:OFFSET(REF_CTR_OFFSET)` names a USDT semaphore, counted up in each process while the
 * probe is in it (kernel/events/uprobes.c, update_ref_ctr()); `PATH:OFFSET%return` is `r`.
 * A definition naming an existing event adds a probe to it (Linux's append_trace_uprobe()): the
 * same kind, arguments of the same names and types, not the same place and arguments again. The
 * event's first probe holds the event and lives as long as it. dynamic_events (trace_dynevent.c)
 * takes a `p` or `r` line whose place has a '/' and a digit after its last ':' as Linux's
 * trace_uprobe_create() does; uprobe_events takes every `p` and `r` line.
 */
#include "kernel/events/perf_event.h"
#include "kernel/events/uprobes.h"
#include "kernel/fs/file.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/ramfs.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "kernel/locking/mutex.h"
#include "kernel/spinlock.h"
#include "kernel/trace/trace_dynevent.h"
#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_kprobe_parse.h"
#include "lib/ctype.h"
#include "kernel/trace/trace_probe.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

#define UPROBE_WRITE_MAX 4096

struct trace_uprobe {
	struct dyn_event devent;
	struct uprobe_consumer consumer;
	const struct ramfs_inode *inode;
	char *filename;
	unsigned long offset;
	unsigned long ref_ctr_offset; /* a USDT semaphore's file offset, or 0 */
	bool is_return, registered;
	struct trace_uprobe *owner;   /* the event's first probe, whose call is the event */
	struct trace_uprobe *probes;  /* in the owner: the event's live probes, oldest first */
	struct trace_uprobe *sibling; /* the next live probe of the same event */
	unsigned long nhit;
	char event[MAX_EVENT_NAME_LEN + 1], group[MAX_EVENT_NAME_LEN + 1];
	struct trace_event_call call;
	struct trace_probe tp; /* last: its arguments follow */
};

static struct dyn_event_operations trace_uprobe_ops;

static struct trace_uprobe *to_trace_uprobe(struct dyn_event *ev)
{
	return container_of(ev, struct trace_uprobe, devent);
}

/* The uprobe events among the dynamic events, oldest first (dyn_event_lock() held). */
#define for_each_trace_uprobe(tu, ev)                                                              \
	for_each_dyn_event(ev) if (ev->ops == &trace_uprobe_ops && ((tu) = to_trace_uprobe(ev)))

/* --- at a hit (in the int3's exception, the process's registers in regs) ------------------- */

static void uprobe_trace_record(struct trace_uprobe *tu, struct pt_regs *regs, unsigned long func,
				unsigned long ret_ip)
{
	u32 head = traceprobe_head_size(tu->is_return), fixed = head + tu->tp.size, dsize;
	unsigned long flags = local_irq_save(), outer = this_cpu()->tp_irq_flags;
	struct trace_event_buffer fb;
	unsigned long *entry;

	this_cpu()->tp_irq_flags = flags;
	traceprobe_set_file_base(func - tu->offset); /* @+OFFS: the probed address is at offset */
	dsize = MIN(traceprobe_data_size(&tu->tp, regs), TRACE_EVENT_MAX_SIZE - fixed);
	perf_trace_probe_regs(regs);
	entry = trace_event_buffer_reserve(&fb, &tu->owner->call, fixed + dsize);
	if (entry) {
		entry[1] = func;
		if (tu->is_return)
			entry[2] = ret_ip;
		traceprobe_store_args(entry, head, dsize, &tu->tp, regs);
		trace_event_buffer_commit(&fb);
	}
	perf_trace_probe_regs(NULL);
	this_cpu()->tp_irq_flags = outer;
	local_irq_restore(flags);
}

static int uprobe_dispatcher(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct trace_uprobe *tu = container_of(uc, struct trace_uprobe, consumer);

	__atomic_add_fetch(&tu->nhit, 1, __ATOMIC_RELAXED);
	uprobe_trace_record(tu, regs, regs->ip, 0);
	return 0;
}

static int uretprobe_dispatcher(struct uprobe_consumer *uc, unsigned long func,
				struct pt_regs *regs)
{
	struct trace_uprobe *tu = container_of(uc, struct trace_uprobe, consumer);

	__atomic_add_fetch(&tu->nhit, 1, __ATOMIC_RELAXED);
	uprobe_trace_record(tu, regs, func, regs->ip);
	return 0;
}

/* `(0x401170) a=0xa`; a return, as Linux prints it, where it returned to first:
 * `(0x4011e4 <- 0x401170) ret=0x12` */
static void uprobe_print(struct seq_file *m, const struct trace_entry *ent)
{
	struct trace_uprobe *tu = trace_event_by_id(ent->type)->data;
	const unsigned long *head = (const void *)ent;

	if (tu->is_return)
		seq_printf(m, "(0x%lx <- 0x%lx)", head[2], head[1]);
	else
		seq_printf(m, "(0x%lx)", head[1]);
	traceprobe_print_args(m, &tu->tp, ent, traceprobe_head_size(tu->is_return),
			      TRACE_EVENT_MAX_SIZE);
	seq_putc(m, '\n');
}

static int probe_on(struct trace_uprobe *tu)
{
	int err = uprobe_register_refctr(tu->inode, tu->offset, tu->ref_ctr_offset, &tu->consumer);

	tu->registered = !err;
	return err;
}

static void probe_off(struct trace_uprobe *tu)
{
	if (tu->registered)
		uprobe_unregister(tu->inode, tu->offset, &tu->consumer);
	tu->registered = false;
}

/* The event's enable (or a trigger) registers its uprobes, all or none: the int3s go into every
 * process. */
static int trace_uprobe_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct trace_uprobe *ev = data, *tu;
	int err = 0;

	if (type == TRACE_REG_REGISTER)
		for (tu = ev->probes; tu && !err; tu = tu->sibling)
			err = probe_on(tu);
	if (type != TRACE_REG_REGISTER || err)
		for (tu = ev->probes; tu; tu = tu->sibling)
			probe_off(tu);
	return err;
}

/* --- defining -------------------------------------------------------------------------------- */

static void free_trace_uprobe(struct trace_uprobe *tu)
{
	if (!tu)
		return;
	for (int i = 0; i < tu->tp.nr_args; i++)
		traceprobe_free_probe_arg(&tu->tp.args[i]);
	kfree(tu->call.fields);
	kfree((char *)tu->call.print_fmt);
	kfree(tu->filename);
	if (tu->inode)
		ramfs_iput((struct ramfs_inode *)tu->inode);
	kfree(tu);
}

static struct trace_uprobe *find_trace_uprobe(const char *event, const char *group)
{
	struct trace_uprobe *tu;
	struct dyn_event *ev;

	for_each_trace_uprobe(tu, ev) if (!strcmp(tu->event, event) &&
					  !strcmp(tu->group, group)) return tu;
	return NULL;
}

static bool same_uprobe(const struct trace_uprobe *a, const struct trace_uprobe *b)
{
	if (a->inode != b->inode || a->offset != b->offset)
		return false;
	for (int i = 0; i < a->tp.nr_args; i++)
		if (strcmp(a->tp.args[i].comm, b->tp.args[i].comm))
			return false;
	return true;
}

/*
 * tu joins the event ev's probes (Linux's append_trace_uprobe(), its checks and errors). While
 * the event is on, the new probe goes in at once: Linux 6.1 leaves it out until the event is
 * switched off and on again, which only makes the disable take out a probe never put in.
 */
static int append_trace_uprobe(struct trace_uprobe *tu, struct trace_uprobe *ev,
			       struct probe_log *log)
{
	struct trace_uprobe **pp;
	int ret;

	ret = traceprobe_check_append(tu->is_return, &tu->tp, ev->is_return, &ev->tp, log);
	if (ret)
		return ret;
	for (struct trace_uprobe *p = ev->probes; p; p = p->sibling)
		if (same_uprobe(tu, p))
			return probe_log_err(log, 0, TP_ERR_SAME_PROBE), -EEXIST;
	tu->owner = ev;	    /* before probe_on(): its first hit may come at once, on another CPU */
	event_mutex_lock(); /* no enable or disable walks ev->probes meanwhile */
	ret = ev->call.flags & EVENT_FL_PROBED ? probe_on(tu) : 0;
	if (!ret) {
		for (pp = &ev->probes; *pp; pp = &(*pp)->sibling)
			;
		*pp = tu;
	}
	event_mutex_unlock();
	return ret;
}

/* Another event on the same place with another semaphore: one uprobe cannot count in two. */
static bool ref_ctr_mismatch(const struct trace_uprobe *tu)
{
	struct trace_uprobe *t;
	struct dyn_event *ev;

	for_each_trace_uprobe(t, ev) if (t->inode == tu->inode && t->offset == tu->offset &&
					 t->ref_ctr_offset != tu->ref_ctr_offset) return true;
	return false;
}

static int trace_uprobe_init_call(struct trace_uprobe *tu)
{
	struct trace_event_call *call = &tu->call;

	call->name = tu->event;
	call->system = tu->group;
	call->fields = traceprobe_fields(&tu->tp, tu->is_return, &call->nr_fields);
	call->print_fmt = traceprobe_print_fmt(&tu->tp, tu->is_return);
	call->size = traceprobe_head_size(tu->is_return) + tu->tp.size;
	call->print = uprobe_print;
	call->reg = trace_uprobe_reg;
	call->is_ukprobe = true;
	call->data = tu;
	return call->fields && call->print_fmt ? 0 : -ENOMEM;
}

/* The `(REF_CTR_OFFSET)` after OFFSET (Linux's order of checks and carets), cut off the word. */
static int parse_ref_ctr(char *word, char *offs, struct trace_uprobe *tu, struct probe_log *log)
{
	char *open = strchr(offs, '('), *close;

	if (!open)
		return 0;
	close = strchr(open, ')');
	if (!close)
		return probe_log_err(log, open + strlen(open) - word, TP_ERR_REFCNT_OPEN_BRACE),
		       -EINVAL;
	if (close[1])
		return probe_log_err(log, close + 1 - word, TP_ERR_BAD_REFCNT_SUFFIX), -EINVAL;
	*open++ = '\0';
	*close = '\0';
	if (kstrtoul(open, 0, &tu->ref_ctr_offset))
		return probe_log_err(log, open - word, TP_ERR_BAD_REFCNT), -EINVAL;
	return 0;
}

/* PATH:OFFSET[(REF_CTR_OFFSET)][%return] (argv[1], cut at its last ':'): the file's inode, the
 * offsets and the kind, or the error. */
static int parse_place(char *word, struct trace_uprobe *tu, struct probe_log *log)
{
	char *colon = strrchr(word, ':'), *suffix;
	struct fnode *n;
	int ret;

	log->index = 1;
	*colon = '\0';
	if (kern_path(current->cwd, word, false, &n))
		return probe_log_err(log, 0, TP_ERR_FILE_NOT_FOUND), -ENOENT;
	if (n->is_dir || !ramfs_inode(n) || (fs_mode(n) & S_IFMT) != S_IFREG)
		return probe_log_err(log, 0, TP_ERR_NO_REGULAR_FILE), -EINVAL;
	ret = parse_ref_ctr(word, colon + 1, tu, log);
	if (ret)
		return ret;
	suffix = strchr(colon + 1, '%');
	if (suffix && strcmp(suffix, "%return"))
		return probe_log_err(log, suffix - word, TP_ERR_BAD_ADDR_SUFFIX), -EINVAL;
	if (suffix) {
		*suffix = '\0';
		tu->is_return = true;
	}
	if (kstrtoul(colon + 1, 0, &tu->offset))
		return probe_log_err(log, colon + 1 - word, TP_ERR_BAD_UPROBE_OFFS), -EINVAL;
	tu->inode = ramfs_inode(n);
	ramfs_ihold(ramfs_inode(n)); /* the file may be unlinked; the probe keeps its inode */
	tu->filename = probe_strndup(word, 256);
	return tu->filename ? 0 : -ENOMEM;
}

/* p[:[GRP/]EVENT] PATH:OFFSET [FETCHARGS], or r... */
static int __trace_uprobe_create(int argc, const char **argv, struct probe_log *log)
{
	const char *event = NULL, *group = "uprobes", *base;
	char gbuf[MAX_EVENT_NAME_LEN], name[MAX_EVENT_NAME_LEN], place[256];
	bool is_return = argv[0][0] == 'r';
	struct trace_uprobe *tu, *old;
	int ret = 0;

	if ((argv[0][0] != 'p' && !is_return) || argc < 2 || !strrchr(argv[1], ':'))
		return -EINVAL; /* Linux's -ECANCELED: not a uprobe command, nothing logged */
	if (argv[0][1] == ':') {
		event = argv[0] + 2;
		ret = traceprobe_parse_event_name(&event, &group, gbuf, 2, log);
		if (ret)
			return ret;
	} else if (argv[0][1]) {
		return -EINVAL;
	}
	if (argc - 2 > MAX_TRACE_ARGS) {
		log->index = MAX_TRACE_ARGS + 2;
		return probe_log_err(log, 0, TP_ERR_TOO_MANY_ARGS), -EINVAL;
	}
	tu = kzalloc(sizeof(*tu) + (argc - 2) * sizeof(tu->tp.args[0]));
	if (!tu)
		return -ENOMEM;
	tu->is_return = is_return;
	strscpy(place, argv[1], sizeof(place));
	ret = parse_place(place, tu, log);
	is_return = tu->is_return; /* or %return made it one */
	if (!ret && !event) {	   /* Linux's default: p_<name up to . - _>_0x<offset> */
		base = strrchr(tu->filename, '/') ? strrchr(tu->filename, '/') + 1 : tu->filename;
		snprintf(name, sizeof(name), "p_%.*s_0x%lx", (int)strcspn(base, ".-_"), base,
			 tu->offset);
		event = name;
	}
	if (!ret) {
		strscpy(tu->group, group, sizeof(tu->group));
		strscpy(tu->event, event, sizeof(tu->event));
		tu->consumer.handler = is_return ? NULL : uprobe_dispatcher;
		tu->consumer.ret_handler = is_return ? uretprobe_dispatcher : NULL;
	}
	for (int i = 0; !ret && i < argc - 2; i++) {
		log->index = i + 2;
		ret = traceprobe_parse_probe_arg(&tu->tp, i, argv[i + 2],
						 is_return ? TPARG_FL_RETURN : 0, log);
	}
	if (!ret && ref_ctr_mismatch(tu))
		ret = -EINVAL; /* Linux's validate_ref_ctr_offset(): no error_log entry */
	if (!ret && (old = find_trace_uprobe(tu->event, tu->group))) {
		ret = append_trace_uprobe(tu, old->owner, log);
		if (ret)
			goto fail;
		dyn_event_add(&tu->devent, &trace_uprobe_ops);
		return 0;
	}
	tu->owner = tu->probes = tu;
	if (!ret)
		ret = trace_uprobe_init_call(tu);
	if (!ret)
		ret = trace_add_event_call(&tu->call);
	if (ret)
		goto fail;
	dyn_event_add(&tu->devent, &trace_uprobe_ops);
	return 0;
fail:
	free_trace_uprobe(tu);
	return ret;
}

/* A line of uprobe_events (every p or r line is ours) or of dynamic_events (only one whose place
 * names a path and an offset: a kprobe's symbol never holds a '/'). */
static int uprobe_create(int argc, const char **argv, bool any)
{
	struct probe_log log = { .argc = MIN(argc, DYN_EVENT_MAX_WORDS),
				 .argv = argv,
				 .err = TP_ERR_NONE };
	const char *colon = argc >= 2 ? strrchr(argv[1], ':') : NULL;
	int ret;

	if (!any && ((argv[0][0] != 'p' && argv[0][0] != 'r') || argc < 2 ||
		     !strchr(argv[1], '/') || !colon || !isdigit(colon[1])))
		return -ECANCELED;
	ret = __trace_uprobe_create(argc, argv, &log);
	if (ret)
		dyn_event_log_err("trace_uprobe", &log);
	return ret;
}

static int trace_uprobe_create(int argc, const char **argv)
{
	return uprobe_create(argc, argv, false);
}

/* One probe away; the event goes with its last (-EBUSY, nothing changed, while the event is
 * enabled, triggered, or the shell stands in its directory). */
static int trace_uprobe_release(struct dyn_event *ev)
{
	struct trace_uprobe *tu = to_trace_uprobe(ev), *owner = tu->owner, **pp;
	bool last = owner->probes == tu && !tu->sibling;
	int ret;

	if (owner->call.flags & EVENT_FL_IN_USE)
		return -EBUSY;
	if (last) {
		ret = trace_remove_event_call(&owner->call);
		if (ret)
			return ret;
	}
	for (pp = &owner->probes; *pp != tu; pp = &(*pp)->sibling)
		;
	*pp = tu->sibling;
	dyn_event_remove(ev);
	if (tu != owner)
		free_trace_uprobe(tu);
	if (last)
		free_trace_uprobe(owner);
	return 0;
}

static bool trace_uprobe_is_busy(struct dyn_event *ev)
{
	struct trace_uprobe *owner = to_trace_uprobe(ev)->owner;

	return (owner->call.flags & EVENT_FL_IN_USE) || trace_event_files_busy(&owner->call);
}

/* `-:[GRP/]EVENT [PATH:OFFSET [ARGS]]`, as Linux's trace_uprobe_match(). */
static bool trace_uprobe_match(const char *system, const char *event, int argc, const char **argv,
			       struct dyn_event *ev)
{
	struct trace_uprobe *tu = to_trace_uprobe(ev);
	char place[300];
	int n;

	if ((system && strcmp(tu->group, system)) || (event[0] && strcmp(tu->event, event)))
		return false;
	if (argc < 1)
		return true;
	n = snprintf(place, sizeof(place), "%s:0x%lx", tu->filename, tu->offset);
	if (tu->ref_ctr_offset)
		snprintf(place + n, sizeof(place) - n, "(0x%lx)", tu->ref_ctr_offset);
	if (strcmp(place, argv[0])) {
		n = snprintf(place, sizeof(place), "%s:0x%016lx", tu->filename, tu->offset);
		if (tu->ref_ctr_offset)
			snprintf(place + n, sizeof(place) - n, "(0x%lx)", tu->ref_ctr_offset);
		if (strcmp(place, argv[0]))
			return false;
	}
	return traceprobe_match_command_args(&tu->tp, argc - 1, argv + 1);
}

/* p:uprobes/myup /tests/tracee:0x0000000000001170 a=%di, as Linux's trace_uprobe_show() */
static int trace_uprobe_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_uprobe *tu = to_trace_uprobe(ev);

	seq_printf(m, "%c:%s/%s %s:0x%016lx", tu->is_return ? 'r' : 'p', tu->group, tu->event,
		   tu->filename, tu->offset);
	if (tu->ref_ctr_offset)
		seq_printf(m, "(0x%lx)", tu->ref_ctr_offset);
	for (int i = 0; i < tu->tp.nr_args; i++)
		seq_printf(m, " %s=%s", tu->tp.args[i].name, tu->tp.args[i].comm);
	seq_putc(m, '\n');
	return 0;
}

static struct dyn_event_operations trace_uprobe_ops = {
	.create = trace_uprobe_create,
	.show = trace_uprobe_show,
	.is_busy = trace_uprobe_is_busy,
	.free = trace_uprobe_release,
	.match = trace_uprobe_match,
};

/* A line of uprobe_events: a removal among the uprobe events, or a definition. */
static int create_or_delete_trace_uprobe(int argc, const char **argv)
{
	if (argv[0][0] == '-')
		return dyn_event_release(argc, argv, &trace_uprobe_ops);
	return uprobe_create(argc, argv, true);
}

static int uprobe_events_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	return dyn_event_write(buf, len, flags, &trace_uprobe_ops, create_or_delete_trace_uprobe);
}

/* The uprobe events of dynamic_events, as it shows them. */
static int uprobe_events_show(struct seq_file *m, struct fnode *f)
{
	struct trace_uprobe *tu;
	struct dyn_event *ev;

	dyn_event_lock();
	for_each_trace_uprobe(tu, ev) trace_uprobe_show(m, ev);
	dyn_event_unlock();
	return 0;
}

static int uprobe_profile_show(struct seq_file *m, struct fnode *f)
{
	struct trace_uprobe *tu;
	struct dyn_event *ev;

	dyn_event_lock();
	for_each_trace_uprobe(tu, ev)
		seq_printf(m, "  %s %-44s %15lu\n", tu->filename, tu->event, READ_ONCE(tu->nhit));
	dyn_event_unlock();
	return 0;
}

/*
 * perf's uprobe PMU (Linux's create_local_trace_uprobe()): PATH at OFFS as a uprobe of perf's
 * own, in no dynamic_events, uprobe_events or events/ directory, with the USDT semaphore at file
 * offset ref_ctr (0: none). The perf event arms it; a semaphore other than the one the uprobe at
 * that place already counts is refused then, with EINVAL, as Linux's uprobe_register_refctr().
 */
int create_local_trace_uprobe(const char *path, unsigned long offs, unsigned long ref_ctr,
			      bool is_return, struct trace_event_call **callp)
{
	struct trace_uprobe *tu = kzalloc(sizeof(*tu));
	struct fnode *n;
	int ret = 0;

	if (!tu)
		return -ENOMEM;
	if (kern_path(current->cwd, path, false, &n))
		ret = -ENOENT;
	else if (n->is_dir || !ramfs_inode(n) || (fs_mode(n) & S_IFMT) != S_IFREG)
		ret = -EINVAL; /* Linux's d_is_reg() check */
	if (!ret) {
		tu->inode = ramfs_inode(n);
		ramfs_ihold(ramfs_inode(n));
		tu->filename = probe_strndup(path, 256);
		tu->offset = offs;
		tu->ref_ctr_offset = ref_ctr;
		tu->is_return = is_return;
		strscpy(tu->group, "uprobes", sizeof(tu->group));
		snprintf(tu->event, sizeof(tu->event), "p_0x%lx", offs);
		tu->consumer.handler = is_return ? NULL : uprobe_dispatcher;
		tu->consumer.ret_handler = is_return ? uretprobe_dispatcher : NULL;
		tu->owner = tu->probes = tu;
		ret = tu->filename ? trace_uprobe_init_call(tu) : -ENOMEM;
	}
	if (ret) {
		free_trace_uprobe(tu);
		return ret;
	}
	*callp = &tu->call;
	return 0;
}

/* The perf event is gone (its detach unregistered the uprobe). */
void destroy_local_trace_uprobe(struct trace_event_call *call)
{
	free_trace_uprobe(call->data);
}

static const struct file_ops uprobe_events_fops = { .show = uprobe_events_show,
						    .write = uprobe_events_write };
static const struct file_ops uprobe_profile_fops = { .show = uprobe_profile_show };

void init_uprobe_trace(void)
{
	struct fnode *top = fs_mkdir_p("/sys/kernel/tracing");

	fs_create(top, "uprobe_events", &uprobe_events_fops, NULL);
	fs_create(top, "uprobe_profile", &uprobe_profile_fops, NULL);
	dyn_event_register(&trace_uprobe_ops);
}
