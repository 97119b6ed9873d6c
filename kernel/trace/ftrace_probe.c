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
 * They have an ftrace_ops of their own (probe_ops) whose filter is the set of functions with a
 * command, so they live apart from the function filter: a `>` of plain functions leaves them.
 */
#include "kernel/trace/ftrace.h"
#include "kernel/trace/ftrace_filter_parse.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "kernel/trace/trace.h"
#include "kernel/trace/trace_events_trigger.h"
#include "kernel/trace/trace_trigger_count.h"
#include "kernel/trace/trace_snapshot.h"
#include "lib/errno.h"
#include "lib/string.h"

struct ftrace_probe {
	unsigned long ip;
	enum probe_cmd cmd;
	long count;			 /* calls still to act on, or TRIGGER_COUNT_UNLIMITED */
	struct trace_event_call *target; /* enable_event, disable_event */
};

struct probe_set {
	int nr;
	struct ftrace_hash *filter; /* probe_ops's filter for this set, until probes_replace() */
	struct ftrace_probe p[];
};

static struct probe_set *probes; /* replaced whole; read by the callback without a lock */

void trace_dump(int only_cpu);
void trace_record_stack(unsigned long ip);

static void probe_run(struct ftrace_probe *p, unsigned long ip)
{
	switch (p->cmd) {
	case PROBE_TRACEON:
	case PROBE_TRACEOFF:
		trigger_count_switch(&p->count, &global_trace.tracing_on, p->cmd == PROBE_TRACEON);
		return;
	case PROBE_ENABLE_EVENT:
	case PROBE_DISABLE_EVENT:
		event_enable_switch(p->target, &p->count, p->cmd == PROBE_ENABLE_EVENT);
		return;
	case PROBE_STACKTRACE:
		/* As Linux: with tracing off there is nowhere to record, and no count is spent. */
		if (!READ_ONCE(global_trace.tracing_on) || !trigger_count_take(&p->count))
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
		trace_record_stack(ip);
		break;
	case PROBE_DUMP:
		trace_dump(-1);
		break;
	case PROBE_CPUDUMP:
		trace_dump(smp_processor_id());
		break;
	case PROBE_SNAPSHOT:
		tracing_snapshot();
		break;
	}
}

static void probe_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		       struct pt_regs *regs)
{
	int bit = ftrace_test_recursion_trylock();
	struct probe_set *set;

	if (bit < 0)
		return;
	/* Read the set only once our bit is up: ftrace_synchronize() waits for it before a free. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	set = READ_ONCE(probes);
	for (int i = 0; set && i < set->nr; i++)
		if (set->p[i].ip == ip)
			probe_run(&set->p[i], ip);
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops probe_ops = { .func = probe_call,
				       .name = "probes",
				       .flags = FTRACE_OPS_FL_RECURSION };

/* enable_event/disable_event targets enter soft mode for a set (+1) and leave it (-1). */
static void probes_soft_mode(const struct probe_set *set, int delta)
{
	event_mutex_lock();
	for (int i = 0; set && i < set->nr; i++) {
		struct trace_event_call *t = set->p[i].target;
		if (!t)
			continue;
		t->sm_ref += delta;
		event_trigger_update_mode(t);
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
	struct probe_set *old = probes;
	int err = 0;

	if (set->nr) {
		err = ftrace_hash_move_and_update(&probe_ops, true, set->filter);
		if (!err && !(probe_ops.flags & FTRACE_OPS_FL_ENABLED))
			err = register_ftrace_function(&probe_ops);
	} else {
		/* The last command went: give back the ops's filter and the set as well, so that
		 * everything off holds what it held before the first command (found by make soak). */
		free_ftrace_hash(set->filter);
		if (probe_ops.flags & FTRACE_OPS_FL_ENABLED)
			err = unregister_ftrace_function(&probe_ops);
		if (!err)
			err = ftrace_hash_move_and_update(&probe_ops, true, NULL);
	}
	set->filter = NULL;
	/* Between the filter and this store, a function calls in with the other set: it finds no
	 * command for itself, or its old one, never a freed one. */
	WRITE_ONCE(probes, set->nr ? set : NULL);
	ftrace_synchronize();
	probes_soft_mode(old, -1);
	kfree(old);
	if (!set->nr)
		kfree(set);
	return err;
}

static struct probe_set *set_alloc(int nr)
{
	struct probe_set *s = kzalloc(sizeof(*s) + nr * sizeof(s->p[0]));
	return s;
}

void ftrace_probe_discard(struct probe_set *set)
{
	if (set)
		free_ftrace_hash(set->filter);
	kfree(set);
}

/* Splits "[!]func:cmd[:count]" (in place, ftrace_filter_parse.c) and finds the functions it
 * names; 0, -EINVAL, or -ENOMEM when hits could not hold them all. */
static int probe_parse(char *tok, bool *remove, int *cmd_out, long *count, struct ftrace_hash *hits,
		       struct trace_event_call **target)
{
	struct probe_spec spec;
	int err;

	if (ftrace_probe_parse(tok, &spec))
		return -EINVAL;
	*remove = spec.remove;
	*count = spec.count;
	*cmd_out = spec.cmd;
	*target = spec.system ? trace_event_find(spec.system, spec.event) : NULL;
	if (spec.system && !*target)
		return -EINVAL; /* no such event */
	err = ftrace_match_glob(hits, spec.func);
	return err < 0 ? err : 0;
}

/* A removal must find something to remove, as Linux's unregister of a probe that is not there
 * fails with EINVAL. */
static bool probe_present(const struct probe_set *set, int cmd, const struct ftrace_hash *hits,
			  const struct trace_event_call *target)
{
	for (int i = 0; set && i < set->nr; i++)
		if (set->p[i].cmd == (enum probe_cmd)cmd && set->p[i].target == target &&
		    ftrace_lookup_hash(hits, set->p[i].ip))
			return true;
	return false;
}

int ftrace_probe_check(const char *tok)
{
	char copy[128];
	struct ftrace_hash *hits = alloc_ftrace_hash(0);
	struct trace_event_call *target;
	bool remove;
	long count;
	int c, err = -EINVAL;

	if (hits && strscpy(copy, tok, sizeof(copy)) >= 0)
		err = probe_parse(copy, &remove, &c, &count, hits, &target);
	if (!err && remove && !probe_present(probes, c, hits, target))
		err = -EINVAL;
	free_ftrace_hash(hits);
	return hits ? err : -ENOMEM;
}

/* The set base would become with one command applied (base itself is left alone). */
static struct probe_set *probe_apply(const struct probe_set *base, char *tok, int *err)
{
	struct ftrace_hash *hits = alloc_ftrace_hash(0);
	struct probe_set *set = NULL;
	struct trace_event_call *target;
	int c, n = base ? base->nr : 0;
	bool remove;
	long count;

	*err = -ENOMEM;
	if (!hits)
		return NULL;
	*err = probe_parse(tok, &remove, &c, &count, hits, &target);
	if (!*err && remove && !probe_present(base, c, hits, target))
		*err = -EINVAL;
	/* Linux's snapshot command allocates the max buffer when it is registered. */
	if (!*err && !remove && c == PROBE_SNAPSHOT)
		*err = tracing_snapshot_cmd_prepare();
	if (*err)
		goto out;
	set = set_alloc(n + (remove ? 0 : (int)hits->count));
	*err = -ENOMEM;
	if (!set)
		goto out;
	*err = 0;
	/* Keep the others (and, for a new command, drop the one it replaces on that function). */
	for (int i = 0; i < n; i++)
		if (base->p[i].cmd != (enum probe_cmd)c || base->p[i].target != target ||
		    !ftrace_lookup_hash(hits, base->p[i].ip))
			set->p[set->nr++] = base->p[i];
	if (!remove) {
		for (unsigned long b = 0; b < (1UL << hits->size_bits); b++)
			for (struct ftrace_func_entry *e = hits->buckets[b]; e; e = e->next)
				set->p[set->nr++] =
					(struct ftrace_probe){ e->ip, c, count, target };
	}
out:
	free_ftrace_hash(hits);
	return set;
}

struct probe_set *ftrace_probe_prepare(char **cmds, int ncmd, int *err)
{
	struct probe_set *set = NULL, *next;

	*err = 0;
	for (int i = 0; i < ncmd; i++) {
		next = probe_apply(i ? set : probes, cmds[i], err);
		ftrace_probe_discard(set);
		set = next;
		if (!set)
			return NULL;
	}
	if (!set)
		return NULL;
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

/* The lines set_ftrace_filter shows for commands, Linux's way. */
void ftrace_probes_show(struct seq_file *m)
{
	struct probe_set *set = probes;

	for (int i = 0; set && i < set->nr; i++) {
		const struct ftrace_probe *p = &set->p[i];
		if (p->target) { /* Linux's event_enable_probe_print() */
			seq_printf(m, "%ps:%s:%s:%s", (void *)p->ip, ftrace_probe_names[p->cmd],
				   p->target->system, p->target->name);
			if (p->count < 0)
				seq_puts(m, ":unlimited\n");
			else
				seq_printf(m, ":count=%ld\n", p->count);
			continue;
		}
		if (p->count < 0)
			seq_printf(m, "%ps:%s:unlimited\n", (void *)p->ip,
				   ftrace_probe_names[p->cmd]);
		else
			seq_printf(m, "%ps:%s:count=%ld\n", (void *)p->ip,
				   ftrace_probe_names[p->cmd], p->count);
	}
}
