/* kprobe_events and kprobe_profile, and the kprobe events' part of dynamic_events: listing,
 * matching and removal (the definitions themselves are trace_kprobe.c's). */
#include "kernel/trace/trace_kprobe.h"
#include "kernel/trace/trace_kprobe_internal.h"
#include "kernel/fs/tracefs.h"
#include "kernel/kallsyms.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

static bool trace_kprobe_is_busy(struct dyn_event *ev)
{
	struct trace_kprobe *tk = container_of(ev, struct trace_kprobe, devent);

	return tk->tpe->call.flags & EVENT_FL_IN_USE || trace_event_files_busy(&tk->tpe->call);
}

/* The place as kprobe_events shows it: vfs_read, vfs_read+5, 0xffffffff80101234. */
static void place_string(const struct trace_kprobe *tk, char *buf, size_t size)
{
	if (!tk->symbol)
		snprintf(buf, size, "0x%lx", (unsigned long)tk->rp.kp.addr);
	else if (tk->rp.kp.offset)
		snprintf(buf, size, "%s+%u", tk->symbol, tk->rp.kp.offset);
	else
		snprintf(buf, size, "%s", tk->symbol);
}

/* `-:[GRP/]EVENT [PLACE [NAME=ARG ...]]`: what Linux's trace_kprobe_match() compares. */
static bool trace_kprobe_match(const char *system, const char *event, int argc, const char **argv,
			       struct dyn_event *ev)
{
	struct trace_kprobe *tk = container_of(ev, struct trace_kprobe, devent);
	char place[KSYM_NAME_LEN + 16];

	if ((event[0] && strcmp(tk->tpe->event, event)) ||
	    (system && strcmp(tk->tpe->group, system)))
		return false;
	if (!argc)
		return true;
	place_string(tk, place, sizeof(place));
	return !strcmp(place, argv[0]) &&
	       traceprobe_match_command_args(&tk->tp, argc - 1, argv + 1);
}

/* p:kprobes/p_vfs_read_0 vfs_read arg1=%di   r4:grp/ev 0xffffffff80101234 ret=$retval:s32 */
static int trace_kprobe_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_kprobe *tk = container_of(ev, struct trace_kprobe, devent);
	char place[KSYM_NAME_LEN + 16];

	seq_putc(m, tk->is_return ? 'r' : 'p');
	if (tk->is_return && tk->rp.maxactive)
		seq_printf(m, "%d", tk->rp.maxactive);
	place_string(tk, place, sizeof(place));
	seq_printf(m, ":%s/%s %s", tk->tpe->group, tk->tpe->event, place);
	for (int i = 0; i < tk->tp.nr_args; i++)
		seq_printf(m, " %s=%s", tk->tp.args[i].name, tk->tp.args[i].comm);
	seq_putc(m, '\n');
	return 0;
}

struct dyn_event_operations trace_kprobe_ops = {
	.create = trace_kprobe_create,
	.show = trace_kprobe_show,
	.is_busy = trace_kprobe_is_busy,
	.free = trace_kprobe_free,
	.match = trace_kprobe_match,
};

/* One line of kprobe_events: a removal of kprobe events, or a definition (Linux's
 * create_or_delete_trace_kprobe(); the `!` form is dynamic_events' only). */
static int create_or_delete_trace_kprobe(int argc, const char **argv)
{
	int ret;

	if (argv[0][0] == '-')
		return dyn_event_release(argc, argv, &trace_kprobe_ops);
	ret = trace_kprobe_create(argc, argv);
	return ret == -ECANCELED ? -EINVAL : ret;
}

static int kprobe_events_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	return dyn_event_write(buf, len, flags, &trace_kprobe_ops, create_or_delete_trace_kprobe);
}

/* The kprobe events of dynamic_events, as it shows them. */
static int kprobe_events_show(struct seq_file *m, struct fnode *f)
{
	struct dyn_event *ev;

	dyn_event_lock();
	for_each_dyn_event(ev) if (ev->ops == &trace_kprobe_ops) trace_kprobe_show(m, ev);
	dyn_event_unlock();
	return 0;
}

/* Linux's kprobe_profile: per probe, its event, its hits, and the hits it had to drop. */
static int kprobe_profile_show(struct seq_file *m, struct fnode *f)
{
	struct dyn_event *ev;

	dyn_event_lock();
	for_each_dyn_event(ev)
	{
		struct trace_kprobe *tk = container_of(ev, struct trace_kprobe, devent);

		if (ev->ops != &trace_kprobe_ops)
			continue;
		seq_printf(m, "  %-44s %15lu %15lu\n", tk->tpe->event, READ_ONCE(tk->nhit),
			   READ_ONCE(tk->rp.kp.nmissed) +
				   (tk->is_return ? READ_ONCE(tk->rp.nmissed) : 0));
	}
	dyn_event_unlock();
	return 0;
}

static const struct tracefs_file kprobe_files[] = {
	TRACEFS_FILE("/sys/kernel/tracing/kprobe_events", kprobe_events_show, kprobe_events_write),
	TRACEFS_FILE("/sys/kernel/tracing/kprobe_profile", kprobe_profile_show, NULL),
};

/* kprobe_events and kprobe_profile, beside the other tracefs files; `p` and `r` in
 * dynamic_events. */
void init_kprobe_trace(void)
{
	dyn_event_register(&trace_kprobe_ops);
	tracefs_create_files(NULL, kprobe_files, ARRAY_SIZE(kprobe_files));
}
