/* tracing_map: a preallocated, lock-free hash table of keys to sums and variables, for hist
 * triggers. Inserted into from any context on every CPU at once; sorted only when read. Pure
 * logic (no locks, no tracefs): also built for the host (tests/unit/test_tracing_map.c). */
#ifndef KERNEL_TRACE_TRACING_MAP_H
#define KERNEL_TRACE_TRACING_MAP_H

#include "lib/hash.h"
#include "lib/types.h"

/* Linux's limits, so that the same specs are accepted and refused. */
#define TRACING_MAP_BITS_DEFAULT 11 /* 2048 entries */
#define TRACING_MAP_BITS_MAX 17
#define TRACING_MAP_BITS_MIN 7
#define TRACING_MAP_KEYS_MAX 3
#define TRACING_MAP_VALS_MAX 3 /* hitcount included */
#define TRACING_MAP_FIELDS_MAX (TRACING_MAP_KEYS_MAX + TRACING_MAP_VALS_MAX)
#define TRACING_MAP_VARS_MAX 16
#define TRACING_MAP_SORT_KEYS_MAX 2

typedef int (*tracing_map_cmp_fn_t)(const void *a, const void *b);

/*
 * One element: a key and what was added up for it. Elements are all allocated when the map is
 * created, so an insert never allocates (it may run in an NMI). vars[i] counts only while bit i
 * of var_set is 1: a variable is read once per set (Linux's tracing_map_read_var_once()).
 */
struct tracing_map_elt {
	struct tracing_map *map;
	void *key;
	u64 *sums;
	u64 *vars;
	u32 var_set;
	void *private_data; /* map->elt_private_size bytes, zeroed on insert */
};

/* A slot of the open-addressed table: key is the key's 32-bit hash (0: free), val its element
 * (NULL while the inserter that claimed the slot is still filling it in). */
struct tracing_map_entry {
	u32 key;
	struct tracing_map_elt *val;
};

/* A field the sort can order by: a sum (by index) or part of the key (by offset in it). */
struct tracing_map_field {
	tracing_map_cmp_fn_t cmp_fn;
	bool is_sum;
	unsigned int idx; /* sum index, or offset in the key */
};

struct tracing_map_sort_key {
	unsigned int field_idx;
	bool descending;
};

struct tracing_map_sort_entry {
	void *key;
	struct tracing_map_elt *elt;
};

struct tracing_map {
	unsigned int key_size;
	unsigned int map_bits; /* max_elts = 2^map_bits */
	unsigned int map_size; /* slots: twice the elements, so probes stay short */
	unsigned int max_elts;
	int next_elt; /* elements handed out; past max_elts: the map is full */
	struct tracing_map_entry *map;
	struct tracing_map_elt *elts;
	void *elt_mem; /* keys, sums, vars and private data of every element */
	unsigned int elt_private_size;
	/* Called on the inserting CPU, after the key is copied and before anyone else can find
	 * the element (the hist trigger saves the task's comm there for .execname). */
	void (*elt_init)(struct tracing_map_elt *elt, void *arg);
	u64 hits;  /* inserts and lookups that found or made an element */
	u64 drops; /* inserts refused: no element left */
	unsigned int n_fields, n_sums, n_vars;
	struct tracing_map_field fields[TRACING_MAP_FIELDS_MAX];
	/* Set for the length of one tracing_map_sort_entries() (its caller serializes reads). */
	const struct tracing_map_sort_key *sort_keys;
	unsigned int n_sort_keys;
};

/* A map of 2^map_bits elements with keys of key_size bytes; add fields, then tracing_map_init().
 * NULL: no memory or bad sizes. */
struct tracing_map *tracing_map_create(unsigned int map_bits, unsigned int key_size);
/* Field indexes count sums and keys together, in the order they were added; -ENOSPC when full. */
int tracing_map_add_sum_field(struct tracing_map *map);
int tracing_map_add_key_field(struct tracing_map *map, unsigned int offset,
			      tracing_map_cmp_fn_t cmp_fn);
int tracing_map_add_var(struct tracing_map *map);
/* Allocates every element: 0 or -ENOMEM. */
int tracing_map_init(struct tracing_map *map);
void tracing_map_destroy(struct tracing_map *map);
/* Forgets every element, hits and drops. Only while nobody inserts. */
void tracing_map_clear(struct tracing_map *map);

/* The element of key, made if new (arg goes to elt_init); NULL when the map is full (counted in
 * drops). Lock-free: safe from interrupts, NMIs and every CPU at once. */
/* The key's 32-bit hash, never 0 (0 marks a free slot); keys are whole words
 * (tracing_map_create() refuses any other size), compared a word at a time. */
static inline u32 tracing_map_hash(const void *key, unsigned int size)
{
	const u64 *w = key;
	u64 h = size;

	for (unsigned int i = 0; i < size / 8; i++) {
		h = (h ^ w[i]) * GOLDEN_RATIO_64;
		h ^= h >> 31;
	}
	return (u32)(h >> 32) ?: 1;
}

static inline bool tracing_map_keys_equal(const u64 *a, const u64 *b, unsigned int size)
{
	for (unsigned int i = 0; i < size / 8; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

struct tracing_map_elt *tracing_map_insert_slow(struct tracing_map *map, void *key, void *arg);

/* Inline on every event, the common case: the key's first slot already holds its element. Else
 * the claim, the wait and the drop of tracing_map_insert_slow() (map_insert()). */
static inline struct tracing_map_elt *tracing_map_insert(struct tracing_map *map, void *key,
							 void *arg)
{
	u32 hash = tracing_map_hash(key, map->key_size);
	struct tracing_map_entry *e =
		&map->map[(hash >> (32 - (map->map_bits + 1))) & (map->map_size - 1)];
	struct tracing_map_elt *elt;

	if (__atomic_load_n(&e->key, __ATOMIC_ACQUIRE) == hash &&
	    (elt = __atomic_load_n(&e->val, __ATOMIC_ACQUIRE)) &&
	    tracing_map_keys_equal(elt->key, key, map->key_size)) {
		__atomic_fetch_add(&map->hits, 1, __ATOMIC_RELAXED);
		return elt;
	}
	return tracing_map_insert_slow(map, key, arg);
}
/* The element of key if it exists; never makes one. */
struct tracing_map_elt *tracing_map_lookup(struct tracing_map *map, void *key);

/* Inline: a hist trigger adds to a sum on every event. */
static inline void tracing_map_update_sum(struct tracing_map_elt *elt, unsigned int i, u64 n)
{
	__atomic_fetch_add(&elt->sums[i], n, __ATOMIC_RELAXED);
}
u64 tracing_map_read_sum(struct tracing_map_elt *elt, unsigned int i);
void tracing_map_set_var(struct tracing_map_elt *elt, unsigned int i, u64 n);
bool tracing_map_var_set(struct tracing_map_elt *elt, unsigned int i);
u64 tracing_map_read_var(struct tracing_map_elt *elt, unsigned int i);
/* Reads the variable and marks it unset: a value feeds one match only. */
u64 tracing_map_read_var_once(struct tracing_map_elt *elt, unsigned int i);

/* Every element, ordered by sort_keys (ties broken by the whole key, so the order is stable):
 * the count and *entries (free with tracing_map_destroy_sort_entries()), or -ENOMEM. */
int tracing_map_sort_entries(struct tracing_map *map, const struct tracing_map_sort_key *sort_keys,
			     unsigned int n_sort_keys, struct tracing_map_sort_entry ***entries);
void tracing_map_destroy_sort_entries(struct tracing_map_sort_entry **entries, int n);

/* Comparators for key fields: integers by size and sign, NUL-terminated strings, and none (a
 * stack trace: ordered by the tie-break alone). */
tracing_map_cmp_fn_t tracing_map_cmp_num(int size, bool is_signed);
int tracing_map_cmp_string(const void *a, const void *b);
int tracing_map_cmp_none(const void *a, const void *b);

#endif
