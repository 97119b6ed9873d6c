/* dynamic_events: every event made at run time, of every kind, defined, listed and removed
 * through one file, each kind recognised by its prefix.
 *
 *   echo 'p:myprobe vfs_read' >> dynamic_events     a kprobe event (kprobe_events lists it too)
 *   echo 'e:grp/sw sched.sched_switch' >> ...        an event probe (trace_eprobe.c)
 *   echo '-:myprobe' >> dynamic_events               removal, any kind; `-:GRP/` a whole group
 *   echo '!p:myprobe' >> dynamic_events              the same, in the `!` form
 *   echo > dynamic_events                            every dynamic event, or none if one is busy
 *
 * Each kind hands this file its operations (struct dyn_event_operations): a line goes to each
 * kind's create() in turn until one does not answer -ECANCELED ("not mine"); a listing prints
 * each event with its kind's show(), in creation order, the kinds mixed.
 *
 * Linux: kernel/trace/trace_dynevent.c (create_dyn_event(), dyn_event_release(),
 * dyn_events_release_all(), dyn_event_seq_show()), kernel/trace/trace.c
 * (trace_parse_run_command()).
 */
#include "kernel/events/perf_event.h"
#include "kernel/trace/trace_dynevent.h"
#include "arch/x86/text_patch.h"
#include "kernel/fs/fs.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"
#include "kernel/fs/tracefs.h"
#include "kernel/locking/mutex.h"
#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_kprobe_parse.h"
#include "lib/errno.h"
#include "lib/string.h"

#define DYN_EVENT_WRITE_MAX 4096 /* Linux's WRITE_BUFSIZE */

struct dyn_event *dyn_event_list;
static struct dyn_event_operations *dyn_event_ops_list;
/* Serializes definitions and removals of every kind, and the listings. */
static DEFINE_MUTEX(dyn_event_mutex);

void dyn_event_lock(void)
{
	mutex_lock(&dyn_event_mutex);
}

void dyn_event_unlock(void)
{
	mutex_unlock(&dyn_event_mutex);
}

void dyn_event_register(struct dyn_event_operations *ops)
{
	struct dyn_event_operations **pp;

	for (pp = &dyn_event_ops_list; *pp; pp = &(*pp)->next)
		;
	*pp = ops;
}

void dyn_event_add(struct dyn_event *ev, const struct dyn_event_operations *ops)
{
	struct dyn_event **pp;

	ev->ops = ops;
	ev->next = NULL;
	for (pp = &dyn_event_list; *pp; pp = &(*pp)->next)
		;
	*pp = ev;
}

void dyn_event_remove(struct dyn_event *ev)
{
	struct dyn_event **pp;

	for (pp = &dyn_event_list; *pp && *pp != ev; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = ev->next;
}

void dyn_event_log_err(const char *loc, const struct probe_log *log)
{
	char cmd[512];

	if (log->err == TP_ERR_NONE)
		return;
	probe_log_command(log, cmd, sizeof(cmd));
	tracing_log_err(NULL, loc, cmd, probe_err_text(log->err), probe_log_pos(log));
}

int dyn_event_release(int argc, const char **argv, const struct dyn_event_operations *type)
{
	char buf[2 * MAX_EVENT_NAME_LEN + 2], *event, *system = NULL, *slash;
	struct dyn_event *ev, *next;
	const char *name;
	int ret = -ENOENT;

	if (argv[0][0] == '-') {
		if (argv[0][1] != ':')
			return -EINVAL;
		name = argv[0] + 2;
	} else {
		name = strchr(argv[0], ':'); /* `!p:EVENT`: what follows the first ':' */
		if (!name)
			return -EINVAL;
		name++;
	}
	strscpy(buf, name, sizeof(buf));
	event = buf;
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		system = buf;
		event = slash + 1;
	}
	if (!system && !*event)
		return -EINVAL;
	for (ev = dyn_event_list; ev; ev = next) {
		next = ev->next;
		if ((type && ev->ops != type) ||
		    !ev->ops->match(system, event, argc - 1, argv + 1, ev))
			continue;
		ret = ev->ops->free(ev);
		if (ret)
			break;
	}
	return ret;
}

int dyn_events_release_all(const struct dyn_event_operations *type)
{
	struct dyn_event *ev;
	int ret = 0;

	for_each_dyn_event(ev) if ((!type || ev->ops == type) &&
				   ev->ops->is_busy(ev)) return -EBUSY;
	for (ev = dyn_event_list; ev && !ret;) {
		struct dyn_event *next = ev->next;

		if (!type || ev->ops == type)
			ret = ev->ops->free(ev);
		ev = next;
	}
	return ret;
}

/* One line of dynamic_events: a removal, or each kind's create() until one takes it. */
int create_dyn_event(int argc, const char **argv)
{
	struct dyn_event_operations *ops;
	int ret = -ENODEV;

	if (argv[0][0] == '-' || argv[0][0] == '!')
		return dyn_event_release(argc, argv, NULL);
	for (ops = dyn_event_ops_list; ops; ops = ops->next) {
		ret = ops->create(argc, argv);
		if (ret != -ECANCELED)
			break;
	}
	return ret == -ECANCELED ? -EINVAL : ret;
}

/* One line split into words (at most DYN_EVENT_MAX_WORDS, one more counted if there are). */
static int run_line(char *line, int (*cmd)(int argc, const char **argv))
{
	static const char *argv[DYN_EVENT_MAX_WORDS + 2];
	int argc;

	if (strchr(line, '#'))
		*strchr(line, '#') = '\0';
	argc = kprobe_split_words(line, argv, DYN_EVENT_MAX_WORDS);
	if (!argc)
		return 0;
	argv[MIN(argc, DYN_EVENT_MAX_WORDS)] = NULL;
	return cmd(argc, argv);
}

int dyn_event_write(const char *buf, size_t len, unsigned int flags,
		    const struct dyn_event_operations *type,
		    int (*cmd)(int argc, const char **argv))
{
	char *text, *p, *line;
	int ret = 0;

	if (text_patch_busy())
		return -EBUSY; /* patch_step holds text_mutex until the shell says `next` */
	text = probe_strndup(buf, MIN(len, (size_t)DYN_EVENT_WRITE_MAX));
	if (!text)
		return -ENOMEM;
	dyn_event_lock();
	if (flags & FS_TRUNC)
		ret = dyn_events_release_all(type);
	for (p = text; !ret && (line = strsep(&p, "\n")) != NULL;)
		ret = run_line(line, cmd);
	dyn_event_unlock();
	kfree(text);
	return ret;
}

static int dynamic_events_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	return dyn_event_write(buf, len, flags, NULL, create_dyn_event);
}

/* Every dynamic event as its kind writes it, in the order they were made. */
static int dynamic_events_show(struct seq_file *m, struct fnode *f)
{
	struct dyn_event *ev;

	dyn_event_lock();
	for_each_dyn_event(ev) ev->ops->show(m, ev);
	dyn_event_unlock();
	return 0;
}

static const struct tracefs_file dynamic_events_files[] = {
	TRACEFS_FILE("/sys/kernel/tracing/dynamic_events", dynamic_events_show,
		     dynamic_events_write),
};

void init_dynamic_event(void)
{
	tracefs_create_files(NULL, dynamic_events_files, ARRAY_SIZE(dynamic_events_files));
}

static const char *const swapper_names[NR_CPUS] = {
	"swapper/0", "swapper/1", "swapper/2", "swapper/3",
	"swapper/4", "swapper/5", "swapper/6", "swapper/7",
};

/* $comm: the idle task is swapper/N in records, as sched_switch names it. */
const char *trace_probe_current_comm(void)
{
	struct task *t = current;

	return !t || !t->pid ? swapper_names[smp_processor_id()] : t->comm;
}

static const unsigned long *probe_entry_data[NR_CPUS];

/* Set only around the record trace_probe_record() writes, with interrupts off. */
const unsigned long *trace_probe_entry_data(void)
{
	return probe_entry_data[smp_processor_id()];
}

/* The record: head, arguments, strings; cut to the largest record an event may write. */
void trace_probe_record(struct trace_event_call *call, const struct trace_probe *tp, bool is_return,
			struct pt_regs *regs, unsigned long ip, unsigned long ret_ip,
			const unsigned long *edata)
{
	unsigned long flags = local_irq_save(), outer = this_cpu()->tp_irq_flags;
	u32 head = traceprobe_head_size(is_return), fixed = head + tp->size, dsize;
	const unsigned long *outer_edata = NULL;
	struct trace_event_buffer fb;
	unsigned long *entry;

	/* A return probe's $argN read what its entry kept; a record written from an NMI inside
	 * this one puts back what it found. */
	if (edata) {
		outer_edata = probe_entry_data[smp_processor_id()];
		probe_entry_data[smp_processor_id()] = edata;
	}
	dsize = MIN(traceprobe_data_size(tp, regs), TRACE_EVENT_MAX_SIZE - fixed);
	/* The irqs-off column shows the probed context; a tracepoint we interrupted keeps its own. */
	this_cpu()->tp_irq_flags = flags;
	perf_trace_probe_regs(regs); /* perf's samples and BPF programs start from them */
	entry = trace_event_buffer_reserve(&fb, call, fixed + dsize);
	if (entry) {
		entry[1] = ip;
		if (is_return)
			entry[2] = ret_ip;
		traceprobe_store_args(entry, head, dsize, tp, regs);
		trace_event_buffer_commit(&fb);
	}
	perf_trace_probe_regs(NULL);
	this_cpu()->tp_irq_flags = outer;
	if (edata)
		probe_entry_data[smp_processor_id()] = outer_edata;
	local_irq_restore(flags);
}
