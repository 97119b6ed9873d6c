/* /proc/lockdep and /proc/lockdep_stats: the validator's classes, their dependencies, its counts. */
#include "kernel/locking/lockdep_internal.h"
#include "kernel/fs/tracefs.h"
#include "kernel/locking/mutex.h"
#include "lib/printf.h"
#include "lib/string.h"

static DEFINE_MUTEX(lockdep_proc_mutex); /* the search state below */
static unsigned int seen[MAX_LOCKDEP_KEYS], seen_gen;
static struct lock_class *queue[MAX_LOCKDEP_KEYS];

/* Marks d seen and queues it, the first time. */
static void visit(struct lock_class *d, unsigned int *tail, unsigned long *n)
{
	if (seen[lockdep_class_index(d)] == seen_gen)
		return;
	seen[lockdep_class_index(d)] = seen_gen;
	queue[(*tail)++] = d;
	(*n)++;
}

/*
 * Linux's FD and BD: how many classes can be taken after this one (forward), or before it
 * (backward), through any chain of dependencies. Read without the graph lock: dependencies are
 * only ever added, and published whole (the self-tests' lockdep_reset_lock() aside).
 */
static unsigned long count_deps(struct lock_class *from, bool forward)
{
	unsigned int head = 0, tail = 0;
	unsigned long n = 0;
	struct lock_class *o;

	seen_gen++;
	seen[lockdep_class_index(from)] = seen_gen;
	queue[tail++] = from;
	while (head < tail) {
		struct lock_class *c = queue[head++];

		if (forward) {
			for (struct lock_list *e = __atomic_load_n(&c->after, __ATOMIC_ACQUIRE); e;
			     e = e->next)
				visit(e->to, &tail, &n);
			continue;
		}
		for (unsigned int i = 0; (o = lockdep_class(i)); i++)
			for (struct lock_list *e = __atomic_load_n(&o->after, __ATOMIC_ACQUIRE); e;
			     e = e->next)
				if (e->to == c)
					visit(e->from, &tail, &n);
	}
	return n;
}

/* Linux's four usage characters: hard interrupts' then soft interrupts' (none here), write then
 * read: '.' unused, '-' taken in the interrupt, '+' taken with it enabled, '?' both. */
static void usage_chars(const struct lock_class *c, char *buf)
{
	bool in = c->usage_mask & (1u << LOCK_USED_IN_HARDIRQ);
	bool on = c->usage_mask & (1u << LOCK_ENABLED_HARDIRQ);

	buf[0] = in && on ? '?' : in ? '-' : on ? '+' : '.';
	strscpy(buf + 1, "...", 4);
}

static int lockdep_show(struct seq_file *m, struct fnode *f)
{
	struct lock_class *c;
	char name[LOCKDEP_NAME_LEN], usage[5];

	(void)f;
	mutex_lock(&lockdep_proc_mutex);
	seq_puts(m, "all lock classes:\n");
	for (unsigned int i = 0; (c = lockdep_class(i)); i++) {
		if (!c->in_use)
			continue;
		usage_chars(c, usage);
		seq_printf(m, "%016lx FD: %5lu BD: %5lu %s: %s\n", (unsigned long)c->key,
			   count_deps(c, true), count_deps(c, false), usage,
			   lockdep_class_name(c, name));
		for (struct lock_list *e = __atomic_load_n(&c->after, __ATOMIC_ACQUIRE); e;
		     e = e->next)
			seq_printf(m, " -> [%016lx] %s\n", (unsigned long)e->to->key,
				   lockdep_class_name(e->to, name));
		seq_puts(m, "\n");
	}
	mutex_unlock(&lockdep_proc_mutex);
	return 0;
}

static int lockdep_stats_show(struct seq_file *m, struct fnode *f)
{
	const struct lockdep_stats *s = &lockdep_stats;

	(void)f;
	seq_printf(m, " lock-classes:                  %11lu [max: %d]\n", s->classes,
		   MAX_LOCKDEP_KEYS);
	seq_printf(m, " direct dependencies:           %11lu [max: %d]\n", s->dependencies,
		   MAX_LOCKDEP_ENTRIES);
	seq_printf(m, " lock-chains:                   %11lu [max: %d]\n", s->chains,
		   MAX_LOCKDEP_CHAINS * 3 / 4);
	seq_printf(m, " chain lookup hits:             %11lu\n", s->chain_hits);
	seq_printf(m, " lock acquisitions:             %11lu\n", s->acquires);
	seq_printf(m, " max locking depth:             %11lu\n", s->max_depth);
	seq_printf(m, " circular dependency reports:   %11lu\n", s->reports[LOCKDEP_CIRCULAR]);
	seq_printf(m, " inconsistent state reports:    %11lu\n", s->reports[LOCKDEP_INCONSISTENT]);
	seq_printf(m, " recursive locking reports:     %11lu\n", s->reports[LOCKDEP_RECURSIVE]);
	seq_printf(m, " bad unlock reports:            %11lu\n", s->reports[LOCKDEP_BAD_UNLOCK]);
	seq_printf(m, " debug_locks:                   %11d\n", READ_ONCE(debug_locks));
	return 0;
}

static const struct tracefs_file lockdep_files[] = {
	TRACEFS_FILE("/proc/lockdep", lockdep_show, NULL),
	TRACEFS_FILE("/proc/lockdep_stats", lockdep_stats_show, NULL),
};

void lockdep_proc_init(void)
{
	tracefs_create_files(NULL, lockdep_files, ARRAY_SIZE(lockdep_files));
}
