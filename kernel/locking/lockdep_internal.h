/* The validator's own structures, shared by its graph (lockdep.c) and its reports (lockdep_report.c). */
#ifndef KERNEL_LOCKING_LOCKDEP_INTERNAL_H
#define KERNEL_LOCKING_LOCKDEP_INTERNAL_H

#include "kernel/locking/lockdep.h"

#define MAX_LOCKDEP_KEYS 512	 /* lock classes */
#define MAX_LOCKDEP_ENTRIES 4096 /* dependencies: "B was taken while holding A" */
#define MAX_LOCKDEP_CHAINS 4096	 /* sequences of held classes already validated */
#define LOCKDEP_TRACE_DEPTH 8

/* Where something happened: return addresses, innermost first. */
struct lockdep_trace {
	unsigned int nr;
	unsigned long entries[LOCKDEP_TRACE_DEPTH];
};

/* Linux's usage bits, hard interrupts only (we have no softirqs). */
enum lock_usage_bit {
	LOCK_USED_IN_HARDIRQ, /* taken in a hard interrupt handler: {IN-HARDIRQ-W} */
	LOCK_ENABLED_HARDIRQ, /* taken with interrupts on: {HARDIRQ-ON-W} */
	LOCK_USAGE_STATES
};

struct lock_list;
struct task;

/* Every lock with the same key (and subclass) is this one class. */
struct lock_class {
	const void *key; /* the lock_class_key, or a static lock's own address */
	unsigned int subclass;
	const char *name; /* NULL: the symbol at key */
	u8 wait_type;
	bool in_use;
	bool recursion_reported;
	struct lock_class *hash_next;
	struct lock_list *after; /* the dependencies from this class: classes taken while held */
	unsigned int usage_mask; /* 1 << enum lock_usage_bit */
	struct lockdep_trace usage_traces[LOCK_USAGE_STATES];
	/* Breadth-first search state, under the graph lock. */
	unsigned int bfs_gen;
	struct lock_list *bfs_parent; /* the dependency the search came in by */
};

/* One dependency: `to` was taken while `from` was held, first at `trace`. */
struct lock_list {
	struct lock_list *next; /* from->after's list */
	struct lock_class *from, *to;
	struct lockdep_trace trace;
};

void lockdep_save_trace(struct lockdep_trace *t);
/* The i-th class ever made (NULL past the last); a zapped one has in_use false. Never moves. */
struct lock_class *lockdep_class(unsigned int i);
unsigned int lockdep_class_index(const struct lock_class *c);
/* "name" or the symbol at the key, "/N" for a subclass; buf holds LOCKDEP_NAME_LEN bytes. */
#define LOCKDEP_NAME_LEN 160
const char *lockdep_class_name(const struct lock_class *class, char *buf);

/* The reports; each is printed whole, the graph lock dropped, this CPU's validator off. */
void lockdep_print_task_locks(struct task *t);
void lockdep_print_trace(const struct lockdep_trace *t, int indent);
void report_circular(const struct held_lock *prev, const struct held_lock *next,
		     struct lock_list **path, int len);
void report_inconsistent(const struct lock_class *class, enum lock_usage_bit was,
			 enum lock_usage_bit now, const struct lockdep_trace *now_trace,
			 unsigned long ip);
void report_recursive(const struct held_lock *prev, const struct held_lock *next);
void report_bad_unlock(const struct lockdep_map *map, unsigned long ip);
void report_non_static_key(const struct lockdep_map *map);
void report_table_full(const char *what);

#endif
