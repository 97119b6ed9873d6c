/* The lock validator (Linux's lockdep): what every lock carries for it, and the hooks the locks call. */
#ifndef KERNEL_LOCKING_LOCKDEP_H
#define KERNEL_LOCKING_LOCKDEP_H

#include "lib/types.h"
#include "lib/compiler.h"

#define _RET_IP_ ((unsigned long)__builtin_return_address(0))

/* What a lock may be held across (Linux's wait types): a spinlock never across a sleep. */
enum lockdep_wait_type { LD_WAIT_SPIN = 0, LD_WAIT_SLEEP = 1 };

#ifdef CONFIG_LOCKDEP

/*
 * A lock class is named by the address of a key, as Linux's lock_class_key: a lock defined
 * statically (DEFINE_SPINLOCK, DEFINE_MUTEX, a lock in a static array) is its own key; every lock
 * set up by spin_lock_init() at one place in the code shares the static key hidden there, so all
 * the pipes' locks are one class, whichever pipe. The key itself holds nothing.
 */
struct lock_class_key {
	char unused;
};

struct lock_class;

/* In every lock: how to find its class. key NULL: the lock's own address (a static lock). */
struct lockdep_map {
	const struct lock_class_key *key;
	const char *name;		/* NULL: the symbol at the lock's address */
	struct lock_class *class_cache; /* found at the first acquire */
	u8 wait_type;			/* enum lockdep_wait_type */
};

#define LOCKDEP_MAP_INIT(n, wt)                                                                    \
	{                                                                                          \
		.key = NULL, .name = (n), .class_cache = NULL, .wait_type = (wt)                   \
	}

/* One lock the task holds, in the order taken (the task's held-locks stack). */
struct held_lock {
	struct lock_class *class;
	struct lockdep_map *map;
	unsigned long ip; /* where it was taken */
	u64 chain_key;	  /* the classes held in this context up to and with this one, hashed */
	unsigned int
		irq_ctx; /* irq_depth when taken: a lock taken in an interrupt starts a chain */
	bool trylock;
};

#define MAX_LOCK_DEPTH 32

/* In struct task: the locks it holds, an interrupt's locks on top of those it interrupted. */
struct lockdep_task {
	int depth;
	struct held_lock held[MAX_LOCK_DEPTH];
};

/* Names and keys a lock set up at run time (spin_lock_init()'s work). */
void lockdep_init_map(struct lockdep_map *map, const char *name, const struct lock_class_key *key,
		      enum lockdep_wait_type wait_type);

/*
 * Called before the lock is taken (so a deadlock is told before it hangs), or after a trylock
 * that took it (trylock 1: a trylock cannot wait, so it adds no order of its own). subclass > 0
 * marks a lock nested in another of its class on purpose (Linux's spin_lock_nested()).
 */
void lock_acquire(struct lockdep_map *map, unsigned int subclass, int trylock, unsigned long ip);
void lock_release(struct lockdep_map *map, unsigned long ip);

/* Prints the locks the running task holds ("N locks held by comm/pid:"), for the sleep report. */
void lockdep_print_held_locks(void);
/* The innermost spinlock the running task holds, NULL if none: might_sleep()'s question. */
const struct lockdep_map *lockdep_held_spinlock(void);
/* /proc/lockdep and /proc/lockdep_stats (kernel/locking/lockdep_proc.c). */
void lockdep_proc_init(void);
/* Forgets every class of this lock (its dependencies, its usage): the self-tests' clean slate. */
void lockdep_reset_lock(struct lockdep_map *map);

/* What the validator has seen and said, for /proc/lockdep_stats and the self-tests. */
enum lockdep_report_kind {
	LOCKDEP_CIRCULAR,
	LOCKDEP_INCONSISTENT,
	LOCKDEP_RECURSIVE,
	LOCKDEP_BAD_UNLOCK,
	LOCKDEP_NR_REPORTS
};
struct lockdep_stats {
	unsigned long classes, dependencies, chains, chain_hits, acquires;
	unsigned long max_depth;
	unsigned long reports[LOCKDEP_NR_REPORTS];
};
extern struct lockdep_stats lockdep_stats;
extern bool debug_locks; /* false once the validator gave up (a table full, a bad key) */
/* The validator stops for good: it gave up, or the kernel is dying (an Oops or a panic breaks the
 * console's lock, which whoever held it never lets go of). */
void debug_locks_off(void);
/* The class names of the last report: the lock being taken, and the one it collided with. */
extern const char *lockdep_last_report_names[2];

#else /* !CONFIG_LOCKDEP */

struct lockdep_map {
};
#define LOCKDEP_MAP_INIT(n, wt)                                                                    \
	{                                                                                          \
	}
static __always_inline void lock_acquire(struct lockdep_map *map, unsigned int subclass,
					 int trylock, unsigned long ip)
{
}
static __always_inline void lock_release(struct lockdep_map *map, unsigned long ip)
{
}
static __always_inline void lockdep_print_held_locks(void)
{
}
static __always_inline void debug_locks_off(void)
{
}
static __always_inline const struct lockdep_map *lockdep_held_spinlock(void)
{
	return NULL;
}

#endif /* CONFIG_LOCKDEP */

#endif
