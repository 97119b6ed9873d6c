/* The lock validator: lock classes, the order they are taken in as a graph, and the checks that
 * find a deadlock the first time it becomes possible, not when it happens (Linux's lockdep).
 *
 *   task->lockdep.held[]  A  B          taking C now: the dependencies A -> C and B -> C
 *                                        (only B -> C if A was taken before B: A -> B -> C says it)
 *   lock_classes[]  A.after -> (A->B, trace) -> (A->C, trace)     the graph, one list per class
 *                   B.after -> (B->C, trace)
 *   chain_hashes[]  hash(A, B, C): this sequence was checked once; a second time costs a lookup
 *
 * Before a new dependency prev -> next goes in, a breadth-first search from next looks for prev:
 * finding it means another path already took them the other way round (next ... -> prev), and the
 * two orders together can deadlock, whether or not they ever ran at the same moment. Nothing here
 * is traced (the Makefile's NOTRACE_SRCS), and the validator's own lock is a bare word it does
 * not validate; a lock taken while this CPU is inside the validator (printk's, in a report) is
 * not seen at all.
 */
#include "kernel/locking/lockdep_internal.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"
#include "lib/string.h"

bool debug_locks = true;
struct lockdep_stats lockdep_stats;
const char *lockdep_last_report_names[2];

static struct lock_class lock_classes[MAX_LOCKDEP_KEYS];
static unsigned int nr_lock_classes;
#define CLASSHASH_SIZE 256
static struct lock_class *classhash[CLASSHASH_SIZE];

static struct lock_list list_entries[MAX_LOCKDEP_ENTRIES];
static unsigned int nr_list_entries;
static struct lock_list *free_list_entries; /* given back by lockdep_reset_lock() */

/* Open addressing, 0 = empty; read without the graph lock, written under it. */
static u64 chain_hashes[MAX_LOCKDEP_CHAINS];

static u32 graph_word;			/* the graph lock: never itself validated */
static unsigned int recursion[NR_CPUS]; /* > 0: this CPU is inside the validator */
static unsigned long entry_bp[NR_CPUS]; /* lock_acquire's frame: traces start there */
static struct lock_class *bfs_queue[MAX_LOCKDEP_KEYS];
static unsigned int bfs_gen;

static void graph_lock(void)
{
	while (__atomic_exchange_n(&graph_word, 1, __ATOMIC_ACQUIRE))
		while (READ_ONCE(graph_word))
			cpu_relax();
}

static void graph_unlock(void)
{
	__atomic_store_n(&graph_word, 0, __ATOMIC_RELEASE);
}

void debug_locks_off(void)
{
	WRITE_ONCE(debug_locks, false);
}

/* Only an object in the kernel image may serve as a key: heap memory is reused for other things. */
static bool static_obj(const void *p)
{
	return (unsigned long)p >= (unsigned long)_data && (unsigned long)p < (unsigned long)_end;
}

void lockdep_save_trace(struct lockdep_trace *t)
{
	unsigned long bp = entry_bp[smp_processor_id()];

	t->nr = 0;
	while (t->nr < LOCKDEP_TRACE_DEPTH && frame_ok(bp)) {
		unsigned long next = ((unsigned long *)bp)[0], ret = ((unsigned long *)bp)[1];

		if (!is_kernel_text(ret))
			break;
		t->entries[t->nr++] = ret;
		if (next <= bp)
			break;
		bp = next;
	}
}

static unsigned int class_hash(const void *key, unsigned int subclass)
{
	unsigned long k = (unsigned long)key + subclass;

	return (unsigned int)((k >> 3) ^ (k >> 11)) % CLASSHASH_SIZE;
}

static struct lock_class *find_class(const void *key, unsigned int subclass)
{
	struct lock_class *c =
		__atomic_load_n(&classhash[class_hash(key, subclass)], __ATOMIC_ACQUIRE);

	for (; c; c = c->hash_next)
		if (c->key == key && c->subclass == subclass)
			return c;
	return NULL;
}

/* The class of map at subclass, made the first time any lock of its key is taken. */
static struct lock_class *register_lock_class(struct lockdep_map *map, unsigned int subclass)
{
	const void *key = map->key ? (const void *)map->key : (const void *)map;
	struct lock_class *c = find_class(key, subclass);
	unsigned int h;

	if (c)
		goto out;
	if (!static_obj(key)) {
		debug_locks_off();
		report_non_static_key(map);
		return NULL;
	}
	graph_lock();
	c = find_class(key, subclass);
	if (c) {
		graph_unlock();
		goto out;
	}
	if (nr_lock_classes == MAX_LOCKDEP_KEYS) {
		graph_unlock();
		debug_locks_off();
		report_table_full("MAX_LOCKDEP_KEYS");
		return NULL;
	}
	c = &lock_classes[nr_lock_classes++];
	c->key = key;
	c->subclass = subclass;
	c->name = map->name;
	c->wait_type = map->wait_type;
	c->in_use = true;
	h = class_hash(key, subclass);
	c->hash_next = classhash[h];
	__atomic_store_n(&classhash[h], c, __ATOMIC_RELEASE);
	lockdep_stats.classes++;
	graph_unlock();
out:
	if (!subclass)
		map->class_cache = c;
	return c;
}

void lockdep_init_map(struct lockdep_map *map, const char *name, const struct lock_class_key *key,
		      enum lockdep_wait_type wait_type)
{
	map->key = key;
	map->name = name;
	map->class_cache = NULL;
	map->wait_type = wait_type;
}

/* Order matters: A then B is not B then A. Never 0, the empty slot. */
static u64 chain_key_next(u64 key, const struct lock_class *c)
{
	u64 x = (key ^ (u64)(c - lock_classes + 1)) * 0x9e3779b97f4a7c15ULL;

	x ^= x >> 29;
	return x ? x : 1;
}

static bool chain_cached(u64 key)
{
	for (unsigned int i = key % MAX_LOCKDEP_CHAINS, n = 0; n < MAX_LOCKDEP_CHAINS;
	     i = (i + 1) % MAX_LOCKDEP_CHAINS, n++) {
		u64 k = __atomic_load_n(&chain_hashes[i], __ATOMIC_ACQUIRE);

		if (k == key)
			return true;
		if (!k)
			return false;
	}
	return false;
}

/* Under the graph lock. Three quarters full is full: lookups stay short. */
static bool chain_add(u64 key)
{
	unsigned int i = key % MAX_LOCKDEP_CHAINS;

	if (lockdep_stats.chains >= MAX_LOCKDEP_CHAINS * 3 / 4)
		return false;
	while (chain_hashes[i] && chain_hashes[i] != key)
		i = (i + 1) % MAX_LOCKDEP_CHAINS;
	if (!chain_hashes[i]) {
		__atomic_store_n(&chain_hashes[i], key, __ATOMIC_RELEASE);
		lockdep_stats.chains++;
	}
	return true;
}

/* A path from `from` to `to` along the dependencies, breadth first (shortest); its length, 0 if none. */
static int find_path(struct lock_class *from, struct lock_class *to, struct lock_list **path,
		     int max)
{
	unsigned int head = 0, tail = 0;
	int len = 0;

	bfs_gen++;
	from->bfs_gen = bfs_gen;
	from->bfs_parent = NULL;
	bfs_queue[tail++] = from;
	while (head < tail) {
		struct lock_class *c = bfs_queue[head++];

		for (struct lock_list *e = c->after; e; e = e->next) {
			if (e->to->bfs_gen == bfs_gen)
				continue;
			e->to->bfs_gen = bfs_gen;
			e->to->bfs_parent = e;
			if (e->to == to)
				goto found;
			bfs_queue[tail++] = e->to;
		}
	}
	return 0;
found:
	for (struct lock_list *e = to->bfs_parent; e; e = e->from->bfs_parent)
		len++;
	if (len > max)
		len = max; /* the report shows the end nearest the held lock */
	int i = len;
	for (struct lock_list *e = to->bfs_parent; e && i > 0; e = e->from->bfs_parent)
		path[--i] = e;
	return len;
}

#define MAX_REPORT_PATH 16

/*
 * prev is held, next is being taken: record prev -> next, unless the graph already leads from next
 * back to prev. Under the graph lock, which it drops to report; false after a report.
 */
static bool check_prev_add(const struct held_lock *prev, const struct held_lock *next,
			   struct lockdep_trace *trace)
{
	struct lock_list *path[MAX_REPORT_PATH], *e;
	int len;

	for (e = prev->class->after; e; e = e->next)
		if (e->to == next->class)
			return true;
	len = find_path(next->class, prev->class, path, MAX_REPORT_PATH);
	if (len) {
		graph_unlock();
		report_circular(prev, next, path, len);
		graph_lock();
		return false;
	}
	e = free_list_entries;
	if (e)
		free_list_entries = e->next;
	else if (nr_list_entries < MAX_LOCKDEP_ENTRIES)
		e = &list_entries[nr_list_entries++];
	if (!e) {
		graph_unlock();
		debug_locks_off();
		report_table_full("MAX_LOCKDEP_ENTRIES");
		graph_lock();
		return false;
	}
	if (!trace->nr)
		lockdep_save_trace(trace);
	e->from = prev->class;
	e->to = next->class;
	e->trace = *trace;
	e->next = prev->class->after;
	/* Published whole: /proc/lockdep walks the lists without the graph lock. */
	__atomic_store_n(&prev->class->after, e, __ATOMIC_RELEASE);
	lockdep_stats.dependencies++;
	return true;
}

/* The first time this sequence of classes is held: no class twice, every new order acyclic. */
static void validate_chain(struct lockdep_task *lt, struct held_lock *hl)
{
	struct lockdep_trace trace = { .nr = 0 };
	int i;

	graph_lock();
	if (chain_cached(hl->chain_key))
		goto out;
	for (i = lt->depth - 1; i >= 0 && lt->held[i].irq_ctx == hl->irq_ctx; i--) {
		if (lt->held[i].class == hl->class) {
			graph_unlock();
			report_recursive(&lt->held[i], hl);
			graph_lock();
			goto done;
		}
	}
	/* Newest first; one taken by a plain lock already ordered everything older before it. */
	for (i = lt->depth - 1; i >= 0 && lt->held[i].irq_ctx == hl->irq_ctx; i--) {
		if (!check_prev_add(&lt->held[i], hl, &trace))
			break;
		if (!lt->held[i].trylock)
			break;
	}
	if (!READ_ONCE(debug_locks))
		goto out;
done:
	/* Also after a report: the same sequence again says nothing new. */
	if (!chain_add(hl->chain_key)) {
		graph_unlock();
		debug_locks_off();
		report_table_full("MAX_LOCKDEP_CHAINS");
		return;
	}
out:
	graph_unlock();
}

/* Taken in an interrupt, or with interrupts on: the first time, checked against the other. */
static void mark_usage(struct lock_class *class, enum lock_usage_bit bit, unsigned long ip)
{
	enum lock_usage_bit other =
		bit == LOCK_USED_IN_HARDIRQ ? LOCK_ENABLED_HARDIRQ : LOCK_USED_IN_HARDIRQ;
	struct lockdep_trace *t = &class->usage_traces[bit];

	if (READ_ONCE(class->usage_mask) & (1u << bit))
		return;
	graph_lock();
	if (class->usage_mask & (1u << bit)) {
		graph_unlock();
		return;
	}
	lockdep_save_trace(t);
	WRITE_ONCE(class->usage_mask, class->usage_mask | (1u << bit));
	graph_unlock();
	if (class->usage_mask & (1u << other))
		report_inconsistent(class, other, bit, t, ip);
}

static void __lock_acquire(struct percpu *c, struct lockdep_map *map, unsigned int subclass,
			   int trylock, unsigned long ip, bool irqs_were_on)
{
	struct lockdep_task *lt = &c->curr->lockdep;
	struct lock_class *class = !subclass ? map->class_cache : NULL;
	struct held_lock *hl, *prev;

	if (!class)
		class = register_lock_class(map, subclass);
	if (!class)
		return;
	lockdep_stats.acquires++;
	if (lt->depth == MAX_LOCK_DEPTH) {
		debug_locks_off();
		report_table_full("MAX_LOCK_DEPTH");
		return;
	}
	if (c->irq_depth)
		mark_usage(class, LOCK_USED_IN_HARDIRQ, ip);
	else if (irqs_were_on)
		mark_usage(class, LOCK_ENABLED_HARDIRQ, ip);

	prev = lt->depth ? &lt->held[lt->depth - 1] : NULL;
	if (prev && prev->irq_ctx != c->irq_depth)
		prev = NULL; /* an interrupt's locks start a chain of their own */
	hl = &lt->held[lt->depth];
	hl->class = class;
	hl->map = map;
	hl->ip = ip;
	hl->irq_ctx = c->irq_depth;
	hl->trylock = trylock;
	hl->chain_key = chain_key_next(prev ? prev->chain_key : 0, class);
	if (!trylock) {
		if (chain_cached(hl->chain_key))
			lockdep_stats.chain_hits++;
		else
			validate_chain(lt, hl);
	}
	lt->depth++;
	if ((unsigned long)lt->depth > lockdep_stats.max_depth)
		lockdep_stats.max_depth = lt->depth;
}

/* Whether this CPU validates now: not in an NMI, not before its first task, not from inside. */
static struct percpu *lockdep_enter(unsigned long bp)
{
	struct percpu *c = this_cpu();

	if (!READ_ONCE(debug_locks) || !c->curr || c->nmi_depth || recursion[c->cpu])
		return NULL;
	recursion[c->cpu]++;
	entry_bp[c->cpu] = bp;
	return c;
}

static void lockdep_exit(struct percpu *c)
{
	recursion[c->cpu]--;
}

noinline void lock_acquire(struct lockdep_map *map, unsigned int subclass, int trylock,
			   unsigned long ip)
{
	unsigned long flags = local_irq_save();
	struct percpu *c = lockdep_enter((unsigned long)__builtin_frame_address(0));

	if (c) {
		__lock_acquire(c, map, subclass, trylock, ip, flags & X86_EFLAGS_IF);
		lockdep_exit(c);
	}
	local_irq_restore(flags);
}

noinline void lock_release(struct lockdep_map *map, unsigned long ip)
{
	unsigned long flags = local_irq_save();
	struct percpu *c = lockdep_enter((unsigned long)__builtin_frame_address(0));
	struct lockdep_task *lt;
	int i;

	if (!c)
		goto out;
	lt = &c->curr->lockdep;
	for (i = lt->depth - 1; i >= 0 && lt->held[i].map != map; i--)
		;
	if (i < 0) {
		report_bad_unlock(map, ip);
		goto exit;
	}
	/* Out of order: the ones above move down, and their chain keys are made again. */
	lt->depth--;
	for (int j = i; j < lt->depth; j++) {
		struct held_lock *prev = j ? &lt->held[j - 1] : NULL;

		lt->held[j] = lt->held[j + 1];
		if (prev && prev->irq_ctx != lt->held[j].irq_ctx)
			prev = NULL;
		lt->held[j].chain_key =
			chain_key_next(prev ? prev->chain_key : 0, lt->held[j].class);
	}
exit:
	lockdep_exit(c);
out:
	local_irq_restore(flags);
}

struct lock_class *lockdep_class(unsigned int i)
{
	return i < READ_ONCE(nr_lock_classes) ? &lock_classes[i] : NULL;
}

unsigned int lockdep_class_index(const struct lock_class *c)
{
	return c - lock_classes;
}

const struct lockdep_map *lockdep_held_spinlock(void)
{
	struct task *t = current;

	if (!t || !READ_ONCE(debug_locks))
		return NULL;
	for (int i = t->lockdep.depth - 1; i >= 0; i--)
		if (t->lockdep.held[i].class->wait_type == LD_WAIT_SPIN)
			return t->lockdep.held[i].map;
	return NULL;
}

/* Drops every dependency into or out of class; the slots are not used again. */
static void zap_class(struct lock_class *class)
{
	struct lock_class **pp = &classhash[class_hash(class->key, class->subclass)];

	for (unsigned int i = 0; i < nr_lock_classes; i++) {
		struct lock_list **ep = &lock_classes[i].after;

		while (*ep) {
			struct lock_list *e = *ep;

			if (e->from == class || e->to == class) {
				*ep = e->next;
				e->next = free_list_entries;
				free_list_entries = e;
				lockdep_stats.dependencies--;
			} else {
				ep = &e->next;
			}
		}
	}
	for (; *pp; pp = &(*pp)->hash_next)
		if (*pp == class) {
			*pp = class->hash_next;
			break;
		}
	class->in_use = false;
	lockdep_stats.classes--;
}

void lockdep_reset_lock(struct lockdep_map *map)
{
	const void *key = map->key ? (const void *)map->key : (const void *)map;
	unsigned long flags = local_irq_save();

	graph_lock();
	for (unsigned int sub = 0; sub < 8; sub++) {
		struct lock_class *c = find_class(key, sub);

		if (c)
			zap_class(c);
	}
	/* A cached chain may name a zapped class: every chain is checked again once. */
	memset(chain_hashes, 0, sizeof(chain_hashes));
	lockdep_stats.chains = 0;
	map->class_cache = NULL;
	graph_unlock();
	local_irq_restore(flags);
}

void lockdep_print_held_locks(void)
{
	struct task *t = current;
	unsigned long flags = local_irq_save();

	if (t && READ_ONCE(debug_locks)) {
		recursion[smp_processor_id()]++;
		lockdep_print_task_locks(t);
		recursion[smp_processor_id()]--;
	}
	local_irq_restore(flags);
}
