/* Function commands ("probes") written to set_ftrace_filter: func:cmd[:count].
 *
 *   echo 'kfree:traceoff:3' >> set_ftrace_filter     the next 3 calls of kfree stop tracing
 *   echo 'vfs_read:stacktrace' >> set_ftrace_filter  a stack trace in the buffer at each call
 *   echo '!kfree:traceoff' >> set_ftrace_filter      remove it
 *
 *   echo 'vfs_read:enable_event:kmem:kmalloc:1' >> set_ftrace_filter    switch an event on
 *
 * Commands: traceon, traceoff, stacktrace, dump (print every CPU's buffer), cpudump (this CPU's),
 * snapshot (swap the live buffer into the max buffer, trace_snapshot.c), enable_event and
 * disable_event (the event stays in soft mode while a command aims at it, as with the event
 * triggers of the same name: trace_events_enable.c).
 * They have an ftrace_ops of their own per trace array (struct ftrace_func_probes, Linux's
 * tr->func_probes) whose filter is the set of functions with a command, so they live apart from
 * the function filter: a `>` of plain functions leaves them. In an instance (instances/foo/
 * set_ftrace_filter) traceon, traceoff and stacktrace act on the instance's buffer, snapshot swaps
 * the instance's buffers, enable_event and disable_event switch the instance's copy of the event.
 *
 * A removal names functions by a glob matched against those that have the command, as Linux's
 * unregister_ftrace_function_probe_func() does: `!*:traceoff` takes every traceoff away, and a
 * removal that finds nothing is EINVAL.
 */
#include "kernel/trace/ftrace.h"
#include "kernel/trace/ftrace_filter_parse.h"
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "kernel/trace/trace.h"
#include "kernel/trace/trace_events_trigger.h"
#include "kernel/trace/trace_trigger_count.h"
#include "kernel/trace/trace_snapshot.h"
#include "lib/errno.h"
#include "lib/glob.h"
#include "lib/string.h"

struct ftrace_probe {
	unsigned long ip;
	enum probe_cmd cmd;
	long count;			 /* calls still to act on, or TRIGGER_COUNT_UNLIMITED */
	struct trace_event_call *target; /* enable_event, disable_event */
};

struct probe_set {
	int nr;
	struct ftrace_func_probes *fp; /* whose set it is */
	struct ftrace_hash *filter;    /* fp->ops's filter for this set, until probes_replace() */
	struct ftrace_probe p[];
};

/* One trace array's commands: ops.private is the array. */
struct ftrace_func_probes {
	struct ftrace_ops ops;
	struct probe_set *set; /* replaced whole; read by the callback without a lock */
};

static void probe_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		       struct pt_regs *regs);

static struct ftrace_func_probes global_probes = {
	.ops = { .func = probe_call,
		 .name = "probes",
		 .flags = FTRACE_OPS_FL_RECURSION,
		 .private = &global_trace },
};

void trace_dump(int only_cpu);

static void probe_run(struct trace_array *tr, struct ftrace_probe *p, unsigned long ip)
{
	switch (p->cmd) {
	case PROBE_TRACEON:
	case PROBE_TRACEOFF:
		trigger_count_switch(&p->count, &tr->tracing_on, p->cmd == PROBE_TRACEON);
		return;
	case PROBE_ENABLE_EVENT:
	case PROBE_DISABLE_EVENT:
		event_enable_switch_tr(p->target, tr, &p->count, p->cmd == PROBE_ENABLE_EVENT);
		return;
	case PROBE_STACKTRACE:
		/* As Linux: with tracing off there is nowhere to record, and no count is spent. */
		if (!READ_ONCE(tr->tracing_on) || !trigger_count_take(&p->count))
			return;
		break;
	default:
		if (!trigger_count_take(&p->count))
			return;
	}
	switch (p->cmd) {
	default:
		break;
	case PROBE_STACKTRACE:
		trace_array_record_stack(tr, ip);
		break;
	case PROBE_DUMP:
		trace_dump(-1);
		break;
	case PROBE_CPUDUMP:
		trace_dump(smp_processor_id());
		break;
	case PROBE_SNAPSHOT:
		tracing_snapshot_instance(tr);
		break;
	}
}

static void probe_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		       struct pt_regs *regs)
{
	int bit = ftrace_test_recursion_trylock();
	struct ftrace_func_probes *fp = container_of(op, struct ftrace_func_probes, ops);
	struct probe_set *set;

	if (bit < 0)
		return;
	/* Read the set only once our bit is up: ftrace_synchronize() waits for it before a free. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	set = READ_ONCE(fp->set);
	for (int i = 0; set && i < set->nr; i++)
		if (set->p[i].ip == ip)
			probe_run(op->private, &set->p[i], ip);
	ftrace_test_recursion_unlock(bit);
}

/*
 * enable_event/disable_event targets enter soft mode for a set (+1) and leave it (-1), counted
 * on the target's file in the set's own array (sm_ref).
 */
static void probes_soft_mode(const struct probe_set *set, int delta)
{
	struct trace_array *tr = set ? set->fp->ops.private : NULL;

	event_mutex_lock();
	for (int i = 0; set && i < set->nr; i++) {
		struct trace_event_file *file =
			set->p[i].target ? trace_event_file_of(set->p[i].target, tr) : NULL;

		if (!file)
			continue;
		file->sm_ref += delta;
		event_trigger_update_mode(file);
	}
	event_mutex_unlock();
}

/*
 * Installs a set built by ftrace_probe_prepare(): the ops's filter follows it, the old set goes
 * once no CPU can read it. Nothing here allocates, so once the set is built only a failure to
 * patch code (an ftrace_bug, which stops ftrace) can leave it half-installed.
 */
static int probes_replace(struct probe_set *set)
{
	struct ftrace_func_probes *fp = set->fp;
	struct ftrace_ops *ops = &fp->ops;
	struct probe_set *old = fp->set;
	int err = 0;

	if (set->nr) {
		err = ftrace_hash_move_and_update(ops, true, set->filter);
		if (!err && !(ops->flags & FTRACE_OPS_FL_ENABLED))
			err = register_ftrace_function(ops);
	} else {
		/* The last command went: give back the ops's filter and the set as well, so that
		 * everything off holds what it held before the first command (found by make soak). */
		free_ftrace_hash(set->filter);
		if (ops->flags & FTRACE_OPS_FL_ENABLED)
			err = unregister_ftrace_function(ops);
		if (!err)
			err = ftrace_hash_move_and_update(ops, true, NULL);
	}
	set->filter = NULL;
	/* Between the filter and this store, a function calls in with the other set: it finds no
	 * command for itself, or its old one, never a freed one. */
	WRITE_ONCE(fp->set, set->nr ? set : NULL);
	ftrace_synchronize();
	probes_soft_mode(old, -1);
	kfree(old);
	if (!set->nr)
		kfree(set);
	return err;
}

static struct probe_set *set_alloc(struct ftrace_func_probes *fp, int nr)
{
	struct probe_set *s = kzalloc(sizeof(*s) + nr * sizeof(s->p[0]));

	if (s)
		s->fp = fp;
	return s;
}

void ftrace_probe_discard(struct probe_set *set)
{
	if (set)
		free_ftrace_hash(set->filter);
	kfree(set);
}

/* The commands of tr: the top directory's are static, an instance's made on its first. */
static struct ftrace_func_probes *tr_probes(struct trace_array *tr, bool make)
{
	struct ftrace_func_probes *fp;

	if (tr == &global_trace)
		return &global_probes;
	if (tr->func_probes || !make)
		return tr->func_probes;
	fp = kzalloc(sizeof(*fp));
	if (!fp)
		return NULL;
	fp->ops = global_probes.ops;
	fp->ops.private = tr;
	tr->func_probes = fp;
	return fp;
}

/* Does the function at ip have a name the glob matches ("*" and "" match all, as Linux's). */
static bool name_matches(const char *glob, unsigned long ip)
{
	const char *name = kallsyms_lookup(ip, NULL, NULL), *needle;
	enum glob_kind kind;
	size_t len;

	if (!*glob || !strcmp(glob, "*"))
		return true;
	kind = glob_classify(glob, &needle, &len);
	return name && glob_kind_match(kind, needle, len, glob, name);
}

/* The same command (and target) at a function a removal's glob names. */
static bool probe_removed_by(const struct ftrace_probe *p, const struct probe_spec *spec, int cmd,
			     const struct trace_event_call *target)
{
	return p->cmd == (enum probe_cmd)cmd && p->target == target &&
	       name_matches(spec->func, p->ip);
}

/*
 * The set base would become with one command applied (base itself is left alone): a new
 * command on the functions its glob names (replacing the same command there), or a removal of
 * those of base its glob names, EINVAL if it names none (Linux's "Nothing found?").
 */
static struct probe_set *probe_apply(struct ftrace_func_probes *fp, const struct probe_set *base,
				     char *tok, int *err)
{
	struct trace_array *tr = fp->ops.private;
	struct ftrace_hash *hits = alloc_ftrace_hash(0);
	struct probe_set *set = NULL;
	struct trace_event_call *target = NULL;
	struct probe_spec spec;
	int n = base ? base->nr : 0, removed = 0;

	*err = -ENOMEM;
	if (!hits)
		return NULL;
	*err = ftrace_probe_parse(tok, &spec) ? -EINVAL : 0;
	if (!*err && spec.system) {
		target = trace_event_find(spec.system, spec.event);
		/* no such event, or none in this array */
		*err = target && trace_event_file_of(target, tr) ? 0 : -EINVAL;
	}
	/* Linux's snapshot command allocates the array's max buffer when it is registered, so the
	 * hit, maybe in an interrupt, never has to. */
	if (!*err && !spec.remove && spec.cmd == PROBE_SNAPSHOT)
		*err = tracing_alloc_snapshot_instance(tr);
	if (!*err && !spec.remove) {
		int found = ftrace_match_glob(hits, spec.func); /* -EINVAL: none; -ENOMEM */

		*err = found < 0 ? found : 0;
	}
	if (*err)
		goto out;
	*err = -ENOMEM;
	set = set_alloc(fp, n + (spec.remove ? 0 : (int)hits->count));
	if (!set)
		goto out;
	*err = 0;
	/* Keep the others: for a new command, drop the one it replaces on each function. */
	for (int i = 0; i < n; i++) {
		const struct ftrace_probe *p = &base->p[i];
		bool gone = spec.remove ? probe_removed_by(p, &spec, spec.cmd, target)
					: p->cmd == spec.cmd && p->target == target &&
						  ftrace_lookup_hash(hits, p->ip);
		if (gone)
			removed++;
		else
			set->p[set->nr++] = *p;
	}
	if (spec.remove && !removed) {
		*err = -EINVAL;
		kfree(set);
		set = NULL;
		goto out;
	}
	if (!spec.remove) {
		for (unsigned long b = 0; b < (1UL << hits->size_bits); b++)
			for (struct ftrace_func_entry *e = hits->buckets[b]; e; e = e->next)
				set->p[set->nr++] = (struct ftrace_probe){ e->ip, spec.cmd,
									   spec.count, target };
	}
out:
	free_ftrace_hash(hits);
	return set;
}

struct probe_set *ftrace_probe_prepare(struct trace_array *tr, char **cmds, int ncmd, int *err)
{
	struct ftrace_func_probes *fp = ncmd ? tr_probes(tr, true) : NULL;
	struct probe_set *set = NULL, *next;

	*err = ncmd && !fp ? -ENOMEM : 0;
	for (int i = 0; !*err && i < ncmd; i++) {
		next = probe_apply(fp, i ? set : fp->set, cmds[i], err);
		ftrace_probe_discard(set);
		set = next;
	}
	if (!set || *err) {
		ftrace_probe_discard(set);
		return NULL;
	}
	set->filter = alloc_ftrace_hash(0);
	*err = set->filter ? 0 : -ENOMEM;
	for (int i = 0; !*err && i < set->nr; i++)
		*err = ftrace_hash_add(set->filter, set->p[i].ip);
	if (*err) {
		ftrace_probe_discard(set);
		return NULL;
	}
	return set;
}

int ftrace_probe_commit(struct probe_set *set)
{
	probes_soft_mode(set, 1); /* before the commands can fire */
	return probes_replace(set);
}

/* rmdir of an instance: its commands go (Linux's clear_ftrace_function_probes()); the ops is
 * freed by ftrace_probes_free() once no CPU can be in its trampoline. */
int ftrace_probes_clear(struct trace_array *tr)
{
	struct ftrace_func_probes *fp = tr_probes(tr, false);
	struct probe_set *none;

	if (!fp || !fp->set)
		return 0;
	none = set_alloc(fp, 0);
	if (!none)
		return -ENOMEM;
	return probes_replace(none);
}

void ftrace_probes_free(struct trace_array *tr)
{
	if (tr != &global_trace)
		kfree(tr->func_probes);
	tr->func_probes = NULL;
}

/* The lines set_ftrace_filter shows for commands, Linux's way. */
void ftrace_probes_show(struct seq_file *m, struct trace_array *tr)
{
	struct ftrace_func_probes *fp = tr_probes(tr, false);
	struct probe_set *set = fp ? fp->set : NULL;

	for (int i = 0; set && i < set->nr; i++) {
		const struct ftrace_probe *p = &set->p[i];
		if (p->target) /* Linux's event_enable_probe_print() */
			seq_printf(m, "%ps:%s:%s:%s", (void *)p->ip, ftrace_probe_names[p->cmd],
				   p->target->system, p->target->name);
		else
			seq_printf(m, "%ps:%s", (void *)p->ip, ftrace_probe_names[p->cmd]);
		if (p->count < 0)
			seq_puts(m, ":unlimited\n");
		else
			seq_printf(m, ":count=%ld\n", p->count);
	}
}
