/* kprobe_events: trace events defined at run time on kprobes and kretprobes, in Linux's syntax.
 *
 *   echo 'p:myprobe vfs_read fd=%di' >> kprobe_events      a kprobe event, group kprobes
 *   echo 'r:grp/ret vfs_read $retval:s64' >> kprobe_events  a kretprobe event
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
 * kernel/trace/trace_dynevent.c (dyn_event_release(), the `-:` and `>` forms). Not here:
 * several probes on one event (Linux appends a probe to an event of the same name and
 * arguments), MOD:SYM, perf and BPF.
 */
#include "kernel/trace/trace_kprobe.h"
#include "kernel/fs/tracefs.h"
#include "kernel/locking/mutex.h"
#include "kernel/trace/trace_kprobe_parse.h"
#include "arch/x86/text_patch.h"
#include "kernel/kprobes.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

#define KPROBE_WRITE_MAX 4096 /* Linux's WRITE_BUFSIZE */

/* One probe event: its kprobe (or kretprobe), its event, its arguments. */
struct trace_kprobe {
	struct trace_kprobe *next; /* creation order; read by kretprobe handlers without locks */
	struct kretprobe rp;	   /* rp.kp is the kprobe of a `p` event */
	bool is_return;
	char *symbol; /* NULL for an address probe */
	unsigned long nhit;
	char event[MAX_EVENT_NAME_LEN + 1], group[MAX_EVENT_NAME_LEN + 1];
	struct trace_event_call call;
	struct trace_probe tp; /* last: its arguments follow */
};

/* Serializes definitions and removals (the list's writers). */
static DEFINE_MUTEX(probe_lock);
static struct trace_kprobe *trace_kprobes;

_Static_assert(PARAM_MAX_STACK == TASK_STACK_PAGES * PAGE_SIZE / sizeof(unsigned long),
	       "$stackN's bound is the kernel stack");

static const char *const swapper_names[NR_CPUS] = {
	"swapper/0", "swapper/1", "swapper/2", "swapper/3",
	"swapper/4", "swapper/5", "swapper/6", "swapper/7",
};

const char *trace_probe_current_comm(void)
{
	struct task *t = current;

	/* The idle task is swapper/N in records, as sched_switch names it */
	return !t || !t->pid ? swapper_names[smp_processor_id()] : t->comm;
}

/* --- at a hit ------------------------------------------------------------------------------ */

/* The record: head, arguments, strings; cut to the largest record an event may write. */
static void kprobe_trace_record(struct trace_kprobe *tk, struct pt_regs *regs, unsigned long ip,
				unsigned long ret_ip)
{
	unsigned long flags = local_irq_save(), outer = this_cpu()->tp_irq_flags;
	u32 head = traceprobe_head_size(tk->is_return), fixed = head + tk->tp.size;
	u32 dsize = traceprobe_data_size(&tk->tp, regs);
	struct trace_event_buffer fb;
	unsigned long *entry;

	dsize = MIN(dsize, TRACE_EVENT_MAX_SIZE - fixed);
	/* The irqs-off column shows the probed context; a tracepoint we interrupted keeps its own. */
	this_cpu()->tp_irq_flags = flags;
	entry = trace_event_buffer_reserve(&fb, &tk->call, fixed + dsize);
	if (entry) {
		entry[1] = ip;
		if (tk->is_return)
			entry[2] = ret_ip;
		traceprobe_store_args(entry, head, dsize, &tk->tp, regs);
		trace_event_buffer_commit(&fb);
	}
	this_cpu()->tp_irq_flags = outer;
	local_irq_restore(flags);
}

/* A `p` event's kprobe was hit: count it, record it. */
static int kprobe_dispatcher(struct kprobe *kp, struct pt_regs *regs)
{
	struct trace_kprobe *tk = container_of(kp, struct trace_kprobe, rp.kp);

	__atomic_add_fetch(&tk->nhit, 1, __ATOMIC_RELAXED);
	kprobe_trace_record(tk, regs, (unsigned long)kp->addr, 0);
	return 0;
}

/*
 * The interface hands a return handler its instance, not its kretprobe: find ours by the pool
 * the instance came from. The list only grows at its end, and an entry is freed only after
 * unregister_kretprobe() has waited out every handler, so walking it here is safe.
 */
static int kretprobe_dispatcher(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct trace_kprobe *tk;

	for (tk = READ_ONCE(trace_kprobes); tk; tk = READ_ONCE(tk->next))
		if (tk->is_return && READ_ONCE(tk->rp.rph) == ri->rph)
			break;
	if (!tk)
		return 0;
	__atomic_add_fetch(&tk->nhit, 1, __ATOMIC_RELAXED);
	kprobe_trace_record(tk, regs, (unsigned long)tk->rp.kp.addr, get_kretprobe_retaddr(ri));
	return 0;
}

/* `(vfs_read+0x0/0x60) arg1=0x3`, or for a return `(ksys_read+0x6c/0xe0 <- vfs_read) ...` */
static void kprobe_print(struct seq_file *m, const struct trace_entry *ent)
{
	struct trace_event_call *call = trace_event_by_id(ent->type);
	struct trace_kprobe *tk = call->data;
	const unsigned long *head = (const void *)ent;

	if (tk->is_return)
		seq_printf(m, "(%pS <- %ps)", (void *)head[2], (void *)head[1]);
	else
		seq_printf(m, "(%pS)", (void *)head[1]);
	traceprobe_print_args(m, &tk->tp, ent, traceprobe_head_size(tk->is_return),
			      TRACE_EVENT_MAX_SIZE);
	seq_putc(m, '\n');
}

/* The event's enable (or a trigger) arms the kprobe; the last one off disarms it. */
static int trace_kprobe_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct trace_kprobe *tk = data;

	return type == TRACE_REG_REGISTER ? enable_kprobe(&tk->rp.kp) : disable_kprobe(&tk->rp.kp);
}

/* --- defining ------------------------------------------------------------------------------- */

/* Frees tk and all it owns; its kprobe and event must be gone already (or never made). */
static void free_trace_kprobe(struct trace_kprobe *tk)
{
	if (!tk)
		return;
	for (int i = 0; i < tk->tp.nr_args; i++)
		traceprobe_free_probe_arg(&tk->tp.args[i]);
	kfree(tk->call.fields);
	kfree(tk->call.print_fmt);
	kfree(tk->symbol);
	kfree(tk);
}

/* A probe event with room for nargs arguments, its kprobe set up (disabled), nothing registered. */
static struct trace_kprobe *alloc_trace_kprobe(const char *group, const char *event,
					       unsigned long addr, const char *symbol,
					       unsigned long offset, int maxactive, int nargs,
					       bool is_return)
{
	struct trace_kprobe *tk = kzalloc(sizeof(*tk) + nargs * sizeof(tk->tp.args[0]));

	if (!tk)
		return NULL;
	if (symbol) {
		tk->symbol = probe_strndup(symbol, KSYM_NAME_LEN);
		if (!tk->symbol) {
			kfree(tk);
			return NULL;
		}
		tk->rp.kp.symbol_name = tk->symbol;
		tk->rp.kp.offset = offset;
	} else {
		tk->rp.kp.addr = (kprobe_opcode_t *)addr;
	}
	tk->is_return = is_return;
	if (is_return)
		tk->rp.handler = kretprobe_dispatcher;
	else
		tk->rp.kp.pre_handler = kprobe_dispatcher;
	tk->rp.maxactive = maxactive;
	tk->rp.kp.flags = KPROBE_FLAG_DISABLED; /* armed by the event's enable, not now */
	strscpy(tk->group, group, sizeof(tk->group));
	strscpy(tk->event, event, sizeof(tk->event));
	return tk;
}

/* The probe event GROUP/EVENT, or NULL. */
static struct trace_kprobe *find_trace_kprobe(const char *event, const char *group)
{
	for (struct trace_kprobe *tk = trace_kprobes; tk; tk = tk->next)
		if (!strcmp(tk->event, event) && !strcmp(tk->group, group))
			return tk;
	return NULL;
}

/* The event's description: fields with offsets, print fmt, how to print and switch it. */
static int trace_kprobe_init_call(struct trace_kprobe *tk)
{
	struct trace_event_call *call = &tk->call;

	call->name = tk->event;
	call->system = tk->group;
	call->fields = traceprobe_fields(&tk->tp, tk->is_return, &call->nr_fields);
	call->print_fmt = traceprobe_print_fmt(&tk->tp, tk->is_return);
	call->size = traceprobe_head_size(tk->is_return) + tk->tp.size;
	call->print = kprobe_print;
	call->reg = trace_kprobe_reg;
	call->data = tk;
	return call->fields && call->print_fmt ? 0 : -ENOMEM;
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
 * Linux's checks when the name is a probe event's already: another type, other argument types
 * or names, or the very same probe. What passes them Linux adds to the event as one more probe;
 * that is not offered here, and the name is simply taken.
 */
static int check_existing(struct trace_kprobe *tk, struct trace_kprobe *old, struct probe_log *log)
{
	int i;

	log->index = 0;
	if (tk->is_return != old->is_return)
		return probe_log_err(log, 0, TP_ERR_DIFF_PROBE_TYPE), -EEXIST;
	for (i = 0; i < tk->tp.nr_args || i < old->tp.nr_args; i++)
		if (i >= tk->tp.nr_args || i >= old->tp.nr_args ||
		    tk->tp.args[i].type != old->tp.args[i].type ||
		    strcmp(tk->tp.args[i].name, old->tp.args[i].name))
			break;
	if (i < tk->tp.nr_args || i < old->tp.nr_args) {
		log->index = i + 2; /* Linux points at the first argument that differs */
		return probe_log_err(log, 0, TP_ERR_DIFF_ARG_TYPE), -EEXIST;
	}
	if (same_probe(tk, old))
		return probe_log_err(log, 0, TP_ERR_SAME_PROBE), -EEXIST;
	return probe_log_err(log, 0, TP_ERR_EVENT_EXIST), -EEXIST;
}

/* The kprobe, disabled: every check the core makes is made now, at `echo` time. */
static int register_probe(struct trace_kprobe *tk, struct probe_log *log)
{
	int ret = 0;

	for (int i = 0; i < tk->tp.nr_args && !ret; i++)
		ret = traceprobe_update_arg(&tk->tp.args[i]);
	if (!ret)
		ret = tk->is_return ? register_kretprobe(&tk->rp) : register_kprobe(&tk->rp.kp);
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
	if (tk->is_return)
		unregister_kretprobe(&tk->rp);
	else
		unregister_kprobe(&tk->rp.kp);
}

/* Name checks, the kprobe, the event, then the list: nothing stays if a step fails. */
static int register_trace_kprobe(struct trace_kprobe *tk, struct probe_log *log)
{
	struct trace_kprobe **pp, *old = find_trace_kprobe(tk->event, tk->group);
	bool taken;
	int ret;

	if (old)
		return check_existing(tk, old, log);
	event_mutex_lock();
	taken = trace_event_find(tk->group, tk->event);
	event_mutex_unlock();
	if (taken) {
		log->index = 0;
		return probe_log_err(log, 0, TP_ERR_EVENT_EXIST), -EEXIST;
	}
	ret = trace_kprobe_init_call(tk);
	if (!ret)
		ret = register_probe(tk, log);
	if (ret)
		return ret;
	ret = trace_add_event_call(&tk->call);
	if (ret) {
		unregister_probe(tk);
		return ret;
	}
	for (pp = &trace_kprobes; *pp; pp = &(*pp)->next)
		;
	__atomic_store_n(pp, tk, __ATOMIC_RELEASE);
	return 0;
}

/* The arguments, the event and the probe of one parsed head; tk is freed if anything fails. */
static int create_trace_kprobe(const char *group, const char *event, bool is_return, int maxactive,
			       const struct probe_place *pl, int argc, const char **argv,
			       struct probe_log *log)
{
	struct trace_kprobe *tk;
	int ret = 0;

	if (argc > MAX_TRACE_ARGS) {
		log->index = MAX_TRACE_ARGS + 2;
		return probe_log_err(log, 0, TP_ERR_TOO_MANY_ARGS), -EINVAL;
	}
	tk = alloc_trace_kprobe(group, event, pl->addr, pl->symbol[0] ? pl->symbol : NULL,
				pl->offset, maxactive, argc, is_return);
	if (!tk)
		return -ENOMEM;
	for (int i = 0; i < argc && !ret; i++) {
		log->index = i + 2;
		ret = traceprobe_parse_probe_arg(&tk->tp, i, argv[i], pl->flags, log);
	}
	if (!ret)
		ret = register_trace_kprobe(tk, log);
	if (ret)
		free_trace_kprobe(tk);
	return ret;
}

/* One definition: its head parsed (trace_kprobe_parse.c), then its arguments and the probe. */
static int trace_kprobe_create(int argc, const char **argv, struct probe_log *log)
{
	struct kprobe_head h;
	int ret = kprobe_parse_head(argc, argv, &h, log);

	if (ret)
		return ret;
	return create_trace_kprobe(h.group, h.event, h.is_return, h.maxactive, &h.pl, argc - 2,
				   argv + 2, log);
}

/* Takes tk off the list and frees it; -EBUSY (nothing changed) while its event is in use. */
static int unregister_trace_kprobe(struct trace_kprobe *tk)
{
	struct trace_kprobe **pp;
	int ret = trace_remove_event_call(&tk->call);

	if (ret)
		return ret;
	for (pp = &trace_kprobes; *pp != tk; pp = &(*pp)->next)
		;
	WRITE_ONCE(*pp, tk->next);
	unregister_probe(tk); /* waits until no handler can still be looking at tk */
	free_trace_kprobe(tk);
	return 0;
}

/* -:[GRP/]EVENT, or -:GRP/ for a whole group (Linux's dyn_event_release()). */
static int trace_kprobe_release(const char *word)
{
	char buf[2 * MAX_EVENT_NAME_LEN + 2], *event = buf, *group = NULL, *slash;
	struct trace_kprobe *tk, *next;
	int ret = -ENOENT;

	if (word[1] != ':')
		return -EINVAL;
	strscpy(buf, word + 2, sizeof(buf));
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		group = buf;
		event = slash + 1;
	}
	if (!group && !*event)
		return -EINVAL;
	for (tk = trace_kprobes; tk; tk = next) {
		next = tk->next;
		if ((*event && strcmp(tk->event, event)) || (group && strcmp(tk->group, group)))
			continue;
		ret = unregister_trace_kprobe(tk);
		if (ret)
			break;
	}
	return ret;
}

/* `>`: every probe event goes, or none does if one is in use (Linux's dyn_events_release_all). */
static int release_all(void)
{
	struct trace_kprobe *tk;
	int ret = 0;

	event_mutex_lock();
	for (tk = trace_kprobes; tk; tk = tk->next)
		if ((tk->call.flags & (EVENT_FL_ENABLED | EVENT_FL_SOFT_MODE)) ||
		    trace_event_files_busy(&tk->call))
			ret = -EBUSY;
	event_mutex_unlock();
	while (!ret && trace_kprobes)
		ret = unregister_trace_kprobe(trace_kprobes);
	return ret;
}

/* One line of kprobe_events: a definition or a removal. A refused definition goes to error_log
 * as Linux words it: "trace_kprobe: error: <why>", the command, a caret under the culprit. */
static int run_command(char *line)
{
	static const char *argv[MAX_TRACE_ARGS + 3];
	int argc = kprobe_split_words(line, argv, ARRAY_SIZE(argv) - 1);
	struct probe_log log = { .argc = MIN(argc, (int)ARRAY_SIZE(argv) - 1),
				 .argv = argv,
				 .err = TP_ERR_NONE };
	char cmd[512];
	int ret;

	if (!argc)
		return 0;
	if (argv[0][0] == '-')
		return trace_kprobe_release(argv[0]);
	ret = argc >= (int)ARRAY_SIZE(argv) ? -E2BIG : trace_kprobe_create(argc, argv, &log);
	if (ret == -E2BIG) {
		log.index = MAX_TRACE_ARGS + 2;
		probe_log_err(&log, 0, TP_ERR_TOO_MANY_ARGS);
		ret = -EINVAL;
	}
	if (ret && log.err != TP_ERR_NONE) {
		probe_log_command(&log, cmd, sizeof(cmd));
		tracing_log_err("trace_kprobe", cmd, probe_err_text(log.err), probe_log_pos(&log));
	}
	return ret;
}

/* Each line in turn, '#' starting a comment; the first failure stops the write (Linux's
 * trace_parse_run_command()): the lines before it stay defined. */
static int kprobe_events_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char *text = probe_strndup(buf, MIN(len, (size_t)KPROBE_WRITE_MAX)), *p, *line;
	int ret = 0;

	if (text_patch_busy()) {
		kfree(text);
		return -EBUSY; /* patch_step holds text_mutex until the shell says `next` */
	}
	if (!text)
		return -ENOMEM;
	mutex_lock(&probe_lock);
	if (flags & FS_TRUNC)
		ret = release_all();
	for (p = text; !ret && (line = strsep(&p, "\n")) != NULL;) {
		if (strchr(line, '#'))
			*strchr(line, '#') = '\0';
		ret = run_command(line);
	}
	mutex_unlock(&probe_lock);
	kfree(text);
	return ret;
}

/* p:kprobes/p_vfs_read_0 vfs_read arg1=%di   r4:grp/ev 0xffffffff80101234 ret=$retval:s32 */
static int kprobe_events_show(struct seq_file *m, struct fnode *f)
{
	mutex_lock(&probe_lock);
	for (struct trace_kprobe *tk = trace_kprobes; tk; tk = tk->next) {
		seq_putc(m, tk->is_return ? 'r' : 'p');
		if (tk->is_return && tk->rp.maxactive)
			seq_printf(m, "%d", tk->rp.maxactive);
		seq_printf(m, ":%s/%s", tk->group, tk->event);
		if (!tk->symbol)
			seq_printf(m, " 0x%lx", (unsigned long)tk->rp.kp.addr);
		else if (tk->rp.kp.offset)
			seq_printf(m, " %s+%u", tk->symbol, tk->rp.kp.offset);
		else
			seq_printf(m, " %s", tk->symbol);
		for (int i = 0; i < tk->tp.nr_args; i++)
			seq_printf(m, " %s=%s", tk->tp.args[i].name, tk->tp.args[i].comm);
		seq_putc(m, '\n');
	}
	mutex_unlock(&probe_lock);
	return 0;
}

/* Linux's kprobe_profile: the event, its hits, and the hits its probes had to drop. */
static int kprobe_profile_show(struct seq_file *m, struct fnode *f)
{
	mutex_lock(&probe_lock);
	for (struct trace_kprobe *tk = trace_kprobes; tk; tk = tk->next)
		seq_printf(m, "  %-44s %15lu %15lu\n", tk->event, READ_ONCE(tk->nhit),
			   READ_ONCE(tk->rp.kp.nmissed) +
				   (tk->is_return ? READ_ONCE(tk->rp.nmissed) : 0));
	mutex_unlock(&probe_lock);
	return 0;
}

static const struct tracefs_file kprobe_files[] = {
	TRACEFS_FILE("/sys/kernel/tracing/kprobe_events", kprobe_events_show, kprobe_events_write),
	TRACEFS_FILE("/sys/kernel/tracing/kprobe_profile", kprobe_profile_show, NULL),
};

/* kprobe_events and kprobe_profile, beside the other tracefs files. */
void init_kprobe_trace(void)
{
	tracefs_create_files(NULL, kprobe_files, ARRAY_SIZE(kprobe_files));
}
