/* tracing_map: the lock-free table behind hist triggers (see tracing_map.h).
 *
 *   map[] (2 * max_elts slots)                 elts[] (max_elts, preallocated)
 *   +----------+------+                        +-----+------+------+------+
 *   | hash 0   | NULL |  free                  | key | sums | vars | priv |  elts[0]
 *   | hash h1  |  *---+----------------------->+-----+------+------+------+
 *   | hash h2  | NULL |  claimed, being filled | key | sums | vars | priv |  elts[1]
 *   | ...      |      |                        +-----+------+------+------+
 *
 * An insert hashes the key and probes linearly from the slot the hash's top bits name. A free
 * slot is claimed by a compare-and-swap of its hash word from 0, so two CPUs never both own
 * one; the winner takes the next element by an atomic increment, copies the key in, and
 * publishes the element with a release store. A CPU that meets a slot of its own hash still
 * being filled waits for the element rather than claiming a second slot, so a key has one
 * element however many CPUs insert it at once. Nothing is ever removed, so a probe sequence
 * never has a hole punched into it; only clearing the whole map (with inserts stopped) resets.
 */
#include "kernel/trace/tracing_map.h"
#include "kernel/mm/mm.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/hash.h"
#include "lib/sort.h"
#include "lib/string.h"

/* Keys are whole u64 words (hist triggers pad every key field to 8 bytes): mix word by word. */
struct tracing_map *tracing_map_create(unsigned int map_bits, unsigned int key_size)
{
	struct tracing_map *map;

	if (map_bits < TRACING_MAP_BITS_MIN || map_bits > TRACING_MAP_BITS_MAX || !key_size ||
	    key_size % 8)
		return NULL;
	map = kzalloc(sizeof(*map));
	if (!map)
		return NULL;
	map->map_bits = map_bits;
	map->max_elts = 1U << map_bits;
	map->map_size = 2U << map_bits;
	map->key_size = key_size;
	return map;
}

static int add_field(struct tracing_map *map, bool is_sum, unsigned int idx,
		     tracing_map_cmp_fn_t cmp_fn)
{
	struct tracing_map_field *f;

	if (map->n_fields == TRACING_MAP_FIELDS_MAX || map->elts)
		return -ENOSPC;
	f = &map->fields[map->n_fields];
	f->is_sum = is_sum;
	f->idx = idx;
	f->cmp_fn = cmp_fn;
	return map->n_fields++;
}

int tracing_map_add_sum_field(struct tracing_map *map)
{
	int ret = add_field(map, true, map->n_sums, NULL);

	if (ret >= 0)
		map->n_sums++;
	return ret;
}

int tracing_map_add_key_field(struct tracing_map *map, unsigned int offset,
			      tracing_map_cmp_fn_t cmp_fn)
{
	if (offset >= map->key_size)
		return -EINVAL;
	return add_field(map, false, offset, cmp_fn);
}

int tracing_map_add_var(struct tracing_map *map)
{
	if (map->n_vars == TRACING_MAP_VARS_MAX || map->elts)
		return -ENOSPC;
	return map->n_vars++;
}

static size_t elt_bytes(const struct tracing_map *map)
{
	return map->key_size + 8 * (map->n_sums + map->n_vars) + ALIGN(map->elt_private_size, 8);
}

/* Points every element at its slice of elt_mem and zeroes it. */
static void elts_reset(struct tracing_map *map)
{
	size_t sz = elt_bytes(map);
	u8 *p = map->elt_mem;

	memset(map->elt_mem, 0, sz * map->max_elts);
	for (unsigned int i = 0; i < map->max_elts; i++, p += sz) {
		struct tracing_map_elt *elt = &map->elts[i];
		elt->map = map;
		elt->key = p;
		elt->sums = (u64 *)(p + map->key_size);
		elt->vars = elt->sums + map->n_sums;
		elt->var_set = 0;
		elt->private_data = map->elt_private_size ? elt->vars + map->n_vars : NULL;
	}
}

int tracing_map_init(struct tracing_map *map)
{
	map->map = kzalloc(sizeof(*map->map) * map->map_size);
	map->elts = kzalloc(sizeof(*map->elts) * map->max_elts);
	map->elt_mem = kmalloc(elt_bytes(map) * map->max_elts);
	if (!map->map || !map->elts || !map->elt_mem)
		goto fail;
	elts_reset(map);
	return 0;
fail:
	kfree(map->map);
	kfree(map->elts);
	kfree(map->elt_mem);
	map->map = NULL;
	map->elts = NULL;
	map->elt_mem = NULL;
	return -ENOMEM;
}

void tracing_map_destroy(struct tracing_map *map)
{
	if (!map)
		return;
	kfree(map->map);
	kfree(map->elts);
	kfree(map->elt_mem);
	kfree(map);
}

void tracing_map_clear(struct tracing_map *map)
{
	memset(map->map, 0, sizeof(*map->map) * map->map_size);
	elts_reset(map);
	map->next_elt = 0;
	map->hits = 0;
	map->drops = 0;
}

/* The next unused element, or NULL once all are taken (they stay taken: next_elt only grows). */
static struct tracing_map_elt *get_free_elt(struct tracing_map *map)
{
	int idx = __atomic_fetch_add(&map->next_elt, 1, __ATOMIC_RELAXED);

	return idx < (int)map->max_elts ? &map->elts[idx] : NULL;
}

static struct tracing_map_elt *map_insert(struct tracing_map *map, void *key, void *arg,
					  bool lookup_only)
{
	u32 hash = tracing_map_hash(key, map->key_size), idx = hash >> (32 - (map->map_bits + 1));
	unsigned int waited = 0, probed = 0;
	struct tracing_map_elt *elt;

	for (;;) {
		struct tracing_map_entry *entry = &map->map[idx & (map->map_size - 1)];
		u32 test = __atomic_load_n(&entry->key, __ATOMIC_ACQUIRE);

		if (test == hash) {
			elt = __atomic_load_n(&entry->val, __ATOMIC_ACQUIRE);
			if (elt && tracing_map_keys_equal(elt->key, key, map->key_size))
				goto found;
			/* Claimed for this hash, element not published yet: it may be our key.
			 * Wait for it (bounded: the claimer may be the NMI we interrupted). */
			if (!elt) {
				if (++waited < map->map_size)
					continue;
				break; /* counted as dropped, as Linux does */
			}
		} else if (!test) {
			if (lookup_only)
				return NULL;
			if (__atomic_compare_exchange_n(&entry->key, &test, hash, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				elt = get_free_elt(map);
				if (!elt) {
					/* Give the slot back: the map is full for good. */
					__atomic_store_n(&entry->key, 0, __ATOMIC_RELEASE);
					break;
				}
				memcpy(elt->key, key, map->key_size);
				if (map->elt_init)
					map->elt_init(elt, arg);
				__atomic_store_n(&entry->val, elt, __ATOMIC_RELEASE);
				goto found;
			}
			continue; /* another CPU took it: look at what it put there */
		}
		idx++;
		if (++probed > map->map_size)
			break; /* cannot happen while slots outnumber elements; never spin */
	}
	if (!lookup_only)
		__atomic_fetch_add(&map->drops, 1, __ATOMIC_RELAXED);
	return NULL;
found:
	if (!lookup_only)
		__atomic_fetch_add(&map->hits, 1, __ATOMIC_RELAXED);
	return elt;
}

struct tracing_map_elt *tracing_map_insert_slow(struct tracing_map *map, void *key, void *arg)
{
	return map_insert(map, key, arg, false);
}

struct tracing_map_elt *tracing_map_lookup(struct tracing_map *map, void *key)
{
	return map_insert(map, key, NULL, true);
}

u64 tracing_map_read_sum(struct tracing_map_elt *elt, unsigned int i)
{
	return __atomic_load_n(&elt->sums[i], __ATOMIC_RELAXED);
}

void tracing_map_set_var(struct tracing_map_elt *elt, unsigned int i, u64 n)
{
	__atomic_store_n(&elt->vars[i], n, __ATOMIC_RELAXED);
	__atomic_fetch_or(&elt->var_set, 1U << i, __ATOMIC_RELEASE);
}

bool tracing_map_var_set(struct tracing_map_elt *elt, unsigned int i)
{
	return __atomic_load_n(&elt->var_set, __ATOMIC_ACQUIRE) & (1U << i);
}

u64 tracing_map_read_var(struct tracing_map_elt *elt, unsigned int i)
{
	return __atomic_load_n(&elt->vars[i], __ATOMIC_RELAXED);
}

u64 tracing_map_read_var_once(struct tracing_map_elt *elt, unsigned int i)
{
	__atomic_fetch_and(&elt->var_set, ~(1U << i), __ATOMIC_ACQ_REL);
	return __atomic_load_n(&elt->vars[i], __ATOMIC_RELAXED);
}

/* --- sorting, when the hist file is read ---------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static int cmp_s32(const void *a, const void *b)
{
	s32 x = *(const s32 *)a, y = *(const s32 *)b;

	return x < y ? -1 : x > y;
}

int tracing_map_cmp_string(const void *a, const void *b)
{
	return strcmp(a, b);
}

int tracing_map_cmp_none(const void *a __unused, const void *b __unused)
{
	return 0;
}

/* Hist triggers keep integer keys as u64 (sign-extended): sizes 1 to 8 compare as 8. */
tracing_map_cmp_fn_t tracing_map_cmp_num(int size, bool is_signed)
{
	if (size == 4)
		return is_signed ? cmp_s32 : cmp_u32;
	return is_signed ? cmp_s64 : cmp_u64;
}

static int cmp_field(const struct tracing_map *map, const struct tracing_map_sort_key *sk,
		     struct tracing_map_elt *a, struct tracing_map_elt *b)
{
	const struct tracing_map_field *f = &map->fields[sk->field_idx];
	int r;

	if (f->is_sum) {
		u64 x = tracing_map_read_sum(a, f->idx), y = tracing_map_read_sum(b, f->idx);
		r = x < y ? -1 : x > y;
	} else {
		r = f->cmp_fn((u8 *)a->key + f->idx, (u8 *)b->key + f->idx);
	}
	return sk->descending ? -r : r;
}

static int cmp_entries(const void *pa, const void *pb)
{
	struct tracing_map_sort_entry *a = *(struct tracing_map_sort_entry *const *)pa;
	struct tracing_map_sort_entry *b = *(struct tracing_map_sort_entry *const *)pb;
	const struct tracing_map *map = a->elt->map;
	int r;

	for (unsigned int i = 0; i < map->n_sort_keys; i++) {
		r = cmp_field(map, &map->sort_keys[i], a->elt, b->elt);
		if (r)
			return r;
	}
	return memcmp(a->key, b->key, map->key_size);
}

static void swap_ptr(void *a, void *b, int size __unused)
{
	void *t = *(void **)a;

	*(void **)a = *(void **)b;
	*(void **)b = t;
}

int tracing_map_sort_entries(struct tracing_map *map, const struct tracing_map_sort_key *sort_keys,
			     unsigned int n_sort_keys, struct tracing_map_sort_entry ***entries)
{
	struct tracing_map_sort_entry **v, *e;
	unsigned int n = 0;

	/* The pointers and what they point at, in one allocation. */
	v = kmalloc((sizeof(*v) + sizeof(*e)) * map->max_elts);
	if (!v)
		return -ENOMEM;
	e = (struct tracing_map_sort_entry *)(v + map->max_elts);
	/* Only published elements: one whose slot is still being filled is not there yet. */
	for (unsigned int i = 0; i < map->map_size && n < map->max_elts; i++) {
		struct tracing_map_elt *elt = __atomic_load_n(&map->map[i].val, __ATOMIC_ACQUIRE);
		if (!elt)
			continue;
		e[n].key = elt->key;
		e[n].elt = elt;
		v[n] = &e[n];
		n++;
	}
	map->sort_keys = sort_keys;
	map->n_sort_keys = n_sort_keys;
	sort(v, n, sizeof(*v), cmp_entries, swap_ptr);
	map->sort_keys = NULL;
	map->n_sort_keys = 0;
	*entries = v;
	return n;
}

void tracing_map_destroy_sort_entries(struct tracing_map_sort_entry **entries, int n __unused)
{
	kfree(entries);
}
