/* The lock validator's reports: the headings and the order of Linux's lockdep, in our words. */
#include "kernel/locking/lockdep_internal.h"
#include "kernel/kallsyms.h"
#include "kernel/percpu.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "lib/printf.h"
#include "lib/string.h"

#define NAME_LEN LOCKDEP_NAME_LEN

const char *lockdep_class_name(const struct lock_class *class, char *buf)
{
	int n = class->name ? scnprintf(buf, NAME_LEN, "%s", class->name)
			    : scnprintf(buf, NAME_LEN, "%pS", class->key);

	if (class->subclass)
		scnprintf(buf + n, NAME_LEN - n, "/%u", class->subclass);
	return buf;
}

void lockdep_print_trace(const struct lockdep_trace *t, int indent)
{
	char sym[KSYM_NAME_LEN + 32];

	for (unsigned int i = 0; i < t->nr; i++) {
		sprint_backtrace(sym, sizeof(sym), t->entries[i]);
		printk(KERN_ERR "%*s%s\n", indent, "", sym);
	}
}

static void print_held(int i, const struct held_lock *hl)
{
	char n[NAME_LEN];

	printk(KERN_ERR " #%d: %016lx (%s), at: %pS\n", i, (unsigned long)hl->map,
	       lockdep_class_name(hl->class, n), (void *)hl->ip);
}

void lockdep_print_task_locks(struct task *t)
{
	int depth = t->lockdep.depth;

	if (!depth) {
		printk(KERN_ERR "no locks held by %s/%d.\n", t->comm, t->pid);
		return;
	}
	printk(KERN_ERR "%d lock%s held by %s/%d:\n", depth, depth > 1 ? "s" : "", t->comm, t->pid);
	for (int i = 0; i < depth; i++)
		print_held(i, &t->lockdep.held[i]);
}

static void print_banner(const char *title)
{
	size_t n = strlen(title);
	char rule[80];

	if (n >= sizeof(rule))
		n = sizeof(rule) - 1;
	memset(rule, '=', n);
	rule[n] = 0;
	printk(KERN_ERR "\n");
	printk(KERN_ERR "%s\n", rule);
	printk(KERN_ERR "%s\n", title);
	memset(rule, '-', n);
	printk(KERN_ERR "%s\n", rule);
}

static void print_stack_backtrace(void)
{
	struct lockdep_trace now;

	lockdep_print_task_locks(current);
	printk(KERN_ERR "\n");
	printk(KERN_ERR "stack backtrace:\n");
	lockdep_save_trace(&now);
	lockdep_print_trace(&now, 1);
}

static void note_report(enum lockdep_report_kind kind, const struct lock_class *a,
			const struct lock_class *b)
{
	lockdep_stats.reports[kind]++;
	lockdep_last_report_names[0] = a ? a->name : NULL;
	lockdep_last_report_names[1] = b ? b->name : NULL;
}

static void print_lock_line(const struct held_lock *hl)
{
	char n[NAME_LEN];

	printk(KERN_ERR "%016lx (%s), at: %pS\n", (unsigned long)hl->map,
	       lockdep_class_name(hl->class, n), (void *)hl->ip);
}

static void print_scenario_two_cpus(const struct lock_class *held, const struct lock_class *mid,
				    const struct lock_class *target)
{
	char a[NAME_LEN], b[NAME_LEN], c[NAME_LEN];

	lockdep_class_name(held, a);
	lockdep_class_name(mid, b);
	lockdep_class_name(target, c);
	printk(KERN_ERR " Possible unsafe locking scenario:\n\n");
	printk(KERN_ERR "       CPU0                    CPU1\n");
	printk(KERN_ERR "       ----                    ----\n");
	printk(KERN_ERR "  lock(%s);\n", a);
	printk(KERN_ERR "                               lock(%s);\n", b);
	printk(KERN_ERR "                               lock(%s);\n", a);
	printk(KERN_ERR "  lock(%s);\n", c);
	printk(KERN_ERR "\n");
	printk(KERN_ERR " *** DEADLOCK ***\n\n");
}

/*
 * The task holds prev and takes next; path runs next -> ... -> prev through dependencies already
 * recorded, each with the trace of its first time. Printed newest first, as Linux does: #0 is
 * the order being made now.
 */
void report_circular(const struct held_lock *prev, const struct held_lock *next,
		     struct lock_list **path, int len)
{
	struct task *t = current;

	note_report(LOCKDEP_CIRCULAR, next->class, prev->class);
	print_banner("WARNING: possible circular locking dependency detected");
	struct lockdep_trace now;
	char n[NAME_LEN];

	printk(KERN_ERR "%s/%d is trying to acquire lock:\n", t->comm, t->pid);
	print_lock_line(next);
	printk(KERN_ERR "\n");
	printk(KERN_ERR "but task is already holding lock:\n");
	print_lock_line(prev);
	printk(KERN_ERR "\n");
	printk(KERN_ERR "which lock already depends on the new lock.\n\n");
	printk(KERN_ERR "\n");
	printk(KERN_ERR "the existing dependency chain (in reverse order) is:\n");
	for (int i = len - 1; i >= 0; i--) {
		printk(KERN_ERR "\n");
		printk(KERN_ERR "-> #%d (%s):\n", i + 1, lockdep_class_name(path[i]->to, n));
		lockdep_print_trace(&path[i]->trace, 7);
	}
	printk(KERN_ERR "\n");
	printk(KERN_ERR "-> #0 (%s):\n", lockdep_class_name(next->class, n));
	lockdep_save_trace(&now);
	lockdep_print_trace(&now, 7);
	printk(KERN_ERR "\n");
	printk(KERN_ERR "other info that might help us debug this:\n\n");
	if (len > 1) {
		printk(KERN_ERR "Chain exists of:\n");
		printk(KERN_ERR "  %s", lockdep_class_name(next->class, n));
		for (int i = 0; i < len; i++)
			printk(KERN_CONT " --> %s", lockdep_class_name(path[i]->to, n));
		printk(KERN_CONT "\n\n");
	}
	print_scenario_two_cpus(prev->class, path[len - 1]->from, next->class);
	print_stack_backtrace();
}

static const char *const usage_names[LOCK_USAGE_STATES] = {
	[LOCK_USED_IN_HARDIRQ] = "IN-HARDIRQ-W",
	[LOCK_ENABLED_HARDIRQ] = "HARDIRQ-ON-W",
};

void report_inconsistent(const struct lock_class *class, enum lock_usage_bit was,
			 enum lock_usage_bit now, const struct lockdep_trace *now_trace,
			 unsigned long ip)
{
	struct percpu *c = this_cpu();
	struct task *t = current;
	char n[NAME_LEN];

	note_report(LOCKDEP_INCONSISTENT, class, class);
	print_banner("WARNING: inconsistent lock state");
	printk(KERN_ERR "inconsistent {%s} -> {%s} usage.\n", usage_names[was], usage_names[now]);
	printk(KERN_ERR "%s/%d [HC%d[%u]:HE%d] takes:\n", t->comm, t->pid, c->irq_depth > 0,
	       c->irq_depth, now == LOCK_ENABLED_HARDIRQ);
	printk(KERN_ERR "(%s), at: %pS\n", lockdep_class_name(class, n), (void *)ip);
	printk(KERN_ERR "{%s} state was registered at:\n", usage_names[was]);
	lockdep_print_trace(&class->usage_traces[was], 2);
	printk(KERN_ERR "\n");
	printk(KERN_ERR "other info that might help us debug this:\n");
	printk(KERN_ERR " Possible unsafe locking scenario:\n\n");
	printk(KERN_ERR "       CPU0\n");
	printk(KERN_ERR "       ----\n");
	printk(KERN_ERR "  lock(%s);\n", n);
	printk(KERN_ERR "  <Interrupt>\n");
	printk(KERN_ERR "    lock(%s);\n", n);
	printk(KERN_ERR "\n");
	printk(KERN_ERR " *** DEADLOCK ***\n\n");
	(void)now_trace; /* the backtrace below is where it is now */
	print_stack_backtrace();
}

void report_recursive(const struct held_lock *prev, const struct held_lock *next)
{
	struct task *t = current;

	note_report(LOCKDEP_RECURSIVE, next->class, prev->class);
	print_banner("WARNING: possible recursive locking detected");
	char n[NAME_LEN];

	printk(KERN_ERR "%s/%d is trying to acquire lock:\n", t->comm, t->pid);
	print_lock_line(next);
	printk(KERN_ERR "\n");
	printk(KERN_ERR "but task is already holding lock:\n");
	print_lock_line(prev);
	printk(KERN_ERR "\n");
	printk(KERN_ERR "other info that might help us debug this:\n");
	printk(KERN_ERR " Possible unsafe locking scenario:\n\n");
	printk(KERN_ERR "       CPU0\n");
	printk(KERN_ERR "       ----\n");
	printk(KERN_ERR "  lock(%s);\n", lockdep_class_name(prev->class, n));
	printk(KERN_ERR "  lock(%s);\n", lockdep_class_name(next->class, n));
	printk(KERN_ERR "\n");
	printk(KERN_ERR " *** DEADLOCK ***\n\n");
	printk(KERN_ERR
	       " Two locks of one class, one inside the other: if that is meant, say so\n");
	printk(KERN_ERR " by taking the inner one with spin_lock_nested(lock, 1).\n\n");
	print_stack_backtrace();
}

void report_bad_unlock(const struct lockdep_map *map, unsigned long ip)
{
	struct task *t = current;
	struct lock_class *class = map->class_cache;

	note_report(LOCKDEP_BAD_UNLOCK, class, NULL);
	print_banner("WARNING: bad unlock balance detected!");
	printk(KERN_ERR "%s/%d is trying to release lock (%s) at:\n", t->comm, t->pid,
	       class && class->name ? class->name
	       : map->name	    ? map->name
				    : "?");
	printk(KERN_ERR "%pS\n", (void *)ip);
	printk(KERN_ERR "but the task holds no lock of that name.\n\n");
	printk(KERN_ERR "other info that might help us debug this:\n");
	print_stack_backtrace();
}

void report_non_static_key(const struct lockdep_map *map)
{
	printk(KERN_ERR "INFO: trying to register non-static key.\n");
	printk(KERN_ERR "lock %016lx (%s) lives in memory allocated at run time: it needs\n",
	       (unsigned long)map, map->name ? map->name : "?");
	printk(KERN_ERR
	       "spin_lock_init() before its first use. The lock validator is off from here on.\n");
	print_stack_backtrace();
}

void report_table_full(const char *what)
{
	printk(KERN_ERR "BUG: %s too low!\n", what);
	printk(KERN_ERR "The lock validator is off from here on.\n");
	print_stack_backtrace();
}
