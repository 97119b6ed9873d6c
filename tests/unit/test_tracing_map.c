/* Unit tests for kernel/trace/tracing_map.c: inserts, sums, variables, sorting, a full map, and
 * threads inserting the same keys at once (under ASan, with the host's pthreads). */
#include "kernel/trace/tracing_map.h"
#include "kernel/mm/mm.h"
#include "lib/compiler.h"
#include "lib/string.h"
#include "tests/unit/ktest_host.h"

/* glibc's, declared here: the test files include no libc headers (host_prefix.h). */
typedef unsigned long pthread_t;
int pthread_create(pthread_t *t, const void *attr, void *(*fn)(void *), void *arg);
int pthread_join(pthread_t t, void **ret);

struct key2 {
	u64 a, b;
};

static struct tracing_map *make_map(unsigned int bits, unsigned int key_size, int n_keys)
{
	struct tracing_map *map = tracing_map_create(bits, key_size);

	if (!map)
		return NULL;
	tracing_map_add_sum_field(map); /* field 0: hitcount */
	tracing_map_add_sum_field(map); /* field 1: a value */
	for (int i = 0; i < n_keys; i++)
		tracing_map_add_key_field(map, 8 * i, tracing_map_cmp_num(8, false));
	tracing_map_add_var(map);
	if (tracing_map_init(map)) {
		tracing_map_destroy(map);
		return NULL;
	}
	return map;
}

KTEST(tracing_map_insert_and_sort)
{
	struct tracing_map *map = make_map(TRACING_MAP_BITS_MIN, 16, 2);
	struct tracing_map_sort_key by_hits[] = { { 0, true }, { 2, false } };
	struct tracing_map_sort_entry **e;
	int n;

	if (!EXPECT_TRUE(map))
		return;
	/* key (k % 5, 7): hit k % 5 + 1 times, value k each time */
	for (u64 k = 0; k < 5; k++)
		for (u64 i = 0; i <= k; i++) {
			struct key2 key = { k, 7 };
			struct tracing_map_elt *elt = tracing_map_insert(map, &key, NULL);
			if (!EXPECT_TRUE(elt))
				return;
			tracing_map_update_sum(elt, 0, 1);
			tracing_map_update_sum(elt, 1, k);
		}
	EXPECT_EQ(map->hits, 15);
	EXPECT_EQ(map->drops, 0);
	struct key2 missing = { 9, 7 }, there = { 3, 7 };
	EXPECT_TRUE(!tracing_map_lookup(map, &missing));
	EXPECT_EQ(tracing_map_read_sum(tracing_map_lookup(map, &there), 1), 12);
	EXPECT_EQ(map->hits, 15); /* lookups count nothing */

	n = tracing_map_sort_entries(map, by_hits, 1, &e);
	if (!EXPECT_EQ(n, 5))
		return;
	for (int i = 0; i < n; i++)
		EXPECT_EQ(((struct key2 *)e[i]->key)->a, 4 - i);
	tracing_map_destroy_sort_entries(e, n);

	/* ascending by the first key field */
	n = tracing_map_sort_entries(map, &by_hits[1], 1, &e);
	for (int i = 0; i < n; i++)
		EXPECT_EQ(((struct key2 *)e[i]->key)->a, i);
	tracing_map_destroy_sort_entries(e, n);

	tracing_map_clear(map);
	EXPECT_EQ(map->hits, 0);
	n = tracing_map_sort_entries(map, by_hits, 1, &e);
	EXPECT_EQ(n, 0);
	tracing_map_destroy_sort_entries(e, n);
	tracing_map_destroy(map);
}

KTEST(tracing_map_vars_read_once)
{
	struct tracing_map *map = make_map(TRACING_MAP_BITS_MIN, 8, 1);
	u64 key = 1;
	struct tracing_map_elt *elt;

	if (!EXPECT_TRUE(map))
		return;
	elt = tracing_map_insert(map, &key, NULL);
	EXPECT_FALSE(tracing_map_var_set(elt, 0));
	tracing_map_set_var(elt, 0, 1234);
	EXPECT_TRUE(tracing_map_var_set(elt, 0));
	EXPECT_EQ(tracing_map_read_var_once(elt, 0), 1234);
	EXPECT_FALSE(tracing_map_var_set(elt, 0));
	tracing_map_destroy(map);
}

KTEST(tracing_map_refuses_bad_sizes)
{
	EXPECT_TRUE(!tracing_map_create(TRACING_MAP_BITS_MIN - 1, 8));
	EXPECT_TRUE(!tracing_map_create(TRACING_MAP_BITS_MAX + 1, 8));
	EXPECT_TRUE(!tracing_map_create(TRACING_MAP_BITS_MIN, 12)); /* not whole u64 words */
}

KTEST(tracing_map_full_drops)
{
	struct tracing_map *map = make_map(TRACING_MAP_BITS_MIN, 8, 1);
	unsigned int max = 1U << TRACING_MAP_BITS_MIN;
	struct tracing_map_sort_entry **e;
	int n;

	if (!EXPECT_TRUE(map))
		return;
	for (u64 k = 0; k < max + 50; k++)
		tracing_map_insert(map, &k, NULL);
	EXPECT_EQ(map->hits, max);
	EXPECT_EQ(map->drops, 50);
	/* a key already in stays reachable once the map is full */
	u64 first = 0;
	EXPECT_TRUE(tracing_map_insert(map, &first, NULL));
	EXPECT_EQ(map->hits, max + 1);
	n = tracing_map_sort_entries(map, NULL, 0, &e);
	EXPECT_EQ(n, max);
	tracing_map_destroy_sort_entries(e, n);
	tracing_map_destroy(map);
}

/* --- threads inserting at once ---------------------------------------------------------------- */

#define NR_THREADS 4
#define INSERTS 40000

struct worker {
	struct tracing_map *map;
	unsigned int nr_keys;
	u64 seed;
	u64 inserted, dropped;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;

	for (unsigned int i = 0; i < INSERTS; i++) {
		w->seed = w->seed * 6364136223846793005ULL + 1442695040888963407ULL;
		struct key2 key = { (w->seed >> 33) % w->nr_keys, 0xabc };
		struct tracing_map_elt *elt = tracing_map_insert(w->map, &key, NULL);
		if (!elt) {
			w->dropped++;
			continue;
		}
		tracing_map_update_sum(elt, 0, 1);
		tracing_map_update_sum(elt, 1, key.a);
		w->inserted++;
	}
	return NULL;
}

/* Every key once, sums adding up to what the threads did. */
static void run_threads(unsigned int bits, unsigned int nr_keys)
{
	struct tracing_map *map = make_map(bits, 16, 2);
	struct worker w[NR_THREADS];
	pthread_t t[NR_THREADS];
	struct tracing_map_sort_key by_key = { 2, false };
	struct tracing_map_sort_entry **e;
	u64 inserted = 0, dropped = 0, hits = 0;
	int n;

	if (!EXPECT_TRUE(map))
		return;
	for (int i = 0; i < NR_THREADS; i++) {
		w[i] = (struct worker){ .map = map, .nr_keys = nr_keys, .seed = i + 1 };
		pthread_create(&t[i], NULL, worker_fn, &w[i]);
	}
	for (int i = 0; i < NR_THREADS; i++) {
		pthread_join(t[i], NULL);
		inserted += w[i].inserted;
		dropped += w[i].dropped;
	}
	EXPECT_EQ(map->hits, inserted);
	EXPECT_EQ(map->drops, dropped);
	EXPECT_EQ(inserted + dropped, NR_THREADS * INSERTS);
	n = tracing_map_sort_entries(map, &by_key, 1, &e);
	EXPECT_EQ(n, MIN(nr_keys, 1U << bits));
	for (int i = 0; i < n; i++) {
		struct key2 *k = e[i]->key;
		if (i)
			EXPECT_TRUE(k->a > ((struct key2 *)e[i - 1]->key)->a); /* no key twice */
		EXPECT_EQ(k->b, 0xabc);
		EXPECT_EQ(tracing_map_read_sum(e[i]->elt, 1), tracing_map_read_sum(e[i]->elt, 0) * k->a);
		hits += tracing_map_read_sum(e[i]->elt, 0);
	}
	EXPECT_EQ(hits, inserted);
	tracing_map_destroy_sort_entries(e, n);
	tracing_map_destroy(map);
}

KTEST(tracing_map_threads_insert_at_once)
{
	run_threads(TRACING_MAP_BITS_DEFAULT, 1500);
}

KTEST(tracing_map_threads_fill_past_size)
{
	run_threads(TRACING_MAP_BITS_MIN, 600);
}
