/* BPF_MAP_TYPE_HASH and PERCPU_HASH: preallocated elements in buckets (kernel/bpf/hashtab.c). */
#include "kernel/bpf/maps.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"
#include "lib/string.h"

/*
 * Every element is allocated at map creation (Linux's default, without BPF_F_NO_PREALLOC), so an
 * update from a program in any context never allocates: it takes one from the free list.
 *
 *   buckets[hash & (n_buckets - 1)] -> elem -> elem -> NULL
 *   elem: | next | hash | key (rounded to 8) | value, or NR_CPUS values for PERCPU_HASH |
 *
 * One lock per table, taken with interrupts off: a program may run inside an interrupt.
 */
struct htab_elem {
	struct htab_elem *next;
	u32 hash;
	u8 key[] __aligned(8);
};

struct bpf_htab {
	struct bpf_map map;
	spinlock_t lock;
	u32 n_buckets, count, elem_size, key_round, value_round;
	bool percpu;
	struct htab_elem **buckets;
	struct htab_elem *free_list;
	void *elems; /* the preallocated block */
};

static u32 htab_hash(const void *key, u32 len)
{
	const u8 *p = key;
	u32 h = 2166136261u; /* FNV-1a: short keys, no need for more */

	for (u32 i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static int htab_map_alloc_check(union bpf_attr *attr)
{
	if (!attr->key_size || !attr->value_size || !attr->max_entries ||
	    attr->map_flags & ~(BPF_F_NO_PREALLOC | BPF_F_RDONLY | BPF_F_WRONLY |
				BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG))
		return -EINVAL;
	if (attr->key_size > 512 || attr->value_size > (1U << 16)) /* Linux: MAX_BPF_STACK keys */
		return -E2BIG;
	return 0;
}

static void htab_map_free(struct bpf_map *map)
{
	struct bpf_htab *h = container_of(map, struct bpf_htab, map);

	kfree(h->buckets);
	kfree(h->elems);
	kfree(h);
}

static struct bpf_map *htab_map_alloc(union bpf_attr *attr)
{
	struct bpf_htab *h = kzalloc(sizeof(*h));
	u64 total;

	if (!h)
		return ERR_PTR(-ENOMEM);
	h->percpu = attr->map_type == BPF_MAP_TYPE_PERCPU_HASH;
	h->key_round = ALIGN(attr->key_size, 8);
	h->value_round = ALIGN(attr->value_size, 8);
	h->elem_size = sizeof(struct htab_elem) + h->key_round +
		       h->value_round * (h->percpu ? NR_CPUS : 1);
	h->n_buckets = 1;
	while (h->n_buckets < attr->max_entries && h->n_buckets < (1U << 20))
		h->n_buckets <<= 1;
	total = (u64)h->elem_size * attr->max_entries;
	spin_lock_init(&h->lock);
	if (total > (64ULL << 20))
		goto nomem;
	h->buckets = kzalloc(h->n_buckets * sizeof(*h->buckets));
	h->elems = kzalloc(total);
	if (!h->buckets || !h->elems)
		goto nomem;
	for (u32 i = 0; i < attr->max_entries; i++) {
		struct htab_elem *e = (void *)((u8 *)h->elems + (u64)i * h->elem_size);
		e->next = h->free_list;
		h->free_list = e;
	}
	return &h->map;
nomem:
	htab_map_free(&h->map);
	return ERR_PTR(-ENOMEM);
}

static void *elem_value(struct bpf_htab *h, struct htab_elem *e, int cpu)
{
	return e->key + h->key_round + (u64)h->value_round * cpu;
}

/* With h->lock held: the element of key and the link that points at it. */
static struct htab_elem *lookup_locked(struct bpf_htab *h, const void *key, u32 hash,
				       struct htab_elem ***linkp)
{
	struct htab_elem **link = &h->buckets[hash & (h->n_buckets - 1)];

	for (; *link; link = &(*link)->next)
		if ((*link)->hash == hash && !memcmp((*link)->key, key, h->map.key_size))
			break;
	if (linkp)
		*linkp = link;
	return *link;
}

static void *htab_map_lookup_elem(struct bpf_map *map, void *key)
{
	struct bpf_htab *h = container_of(map, struct bpf_htab, map);
	unsigned long flags = spin_lock_irqsave(&h->lock);
	struct htab_elem *e = lookup_locked(h, key, htab_hash(key, map->key_size), NULL);

	spin_unlock_irqrestore(&h->lock, flags);
	return e ? elem_value(h, e, h->percpu ? smp_processor_id() : 0) : NULL;
}

/* values: one value (all_cpus false: this CPU's copy, or the only one) or one per CPU. */
static long htab_update(struct bpf_map *map, void *key, void *values, u64 flags, bool all_cpus)
{
	struct bpf_htab *h = container_of(map, struct bpf_htab, map);
	u32 hash = htab_hash(key, map->key_size);
	unsigned long irq;
	struct htab_elem **link, *e;
	long err = 0;

	if (flags > BPF_EXIST)
		return -EINVAL;
	irq = spin_lock_irqsave(&h->lock);
	e = lookup_locked(h, key, hash, &link);
	if (e && flags == BPF_NOEXIST) {
		err = -EEXIST;
		goto out;
	}
	if (!e && flags == BPF_EXIST) {
		err = -ENOENT;
		goto out;
	}
	if (!e) {
		err = -E2BIG; /* Linux's answer when max_entries are in use */
		if (!h->free_list)
			goto out;
		err = 0;
		e = h->free_list;
		h->free_list = e->next;
		memset(e->key, 0, h->elem_size - sizeof(*e));
		memcpy(e->key, key, map->key_size);
		e->hash = hash;
		e->next = NULL;
		*link = e;
		h->count++;
	}
	if (!h->percpu)
		memcpy(elem_value(h, e, 0), values, map->value_size);
	else if (!all_cpus)
		memcpy(elem_value(h, e, smp_processor_id()), values, map->value_size);
	else
		for (int cpu = 0; cpu < bpf_num_possible_cpus(); cpu++)
			memcpy(elem_value(h, e, cpu), (u8 *)values + cpu * h->value_round,
			       map->value_size);
out:
	spin_unlock_irqrestore(&h->lock, irq);
	return err;
}

static long htab_map_update_elem(struct bpf_map *map, void *key, void *value, u64 flags)
{
	return htab_update(map, key, value, flags, false);
}

static int htab_percpu_update(struct bpf_map *map, void *key, void *value, u64 flags)
{
	return htab_update(map, key, value, flags, true);
}

static long htab_map_delete_elem(struct bpf_map *map, void *key)
{
	struct bpf_htab *h = container_of(map, struct bpf_htab, map);
	unsigned long irq = spin_lock_irqsave(&h->lock);
	struct htab_elem **link, *e = lookup_locked(h, key, htab_hash(key, map->key_size), &link);

	if (e) {
		*link = e->next;
		e->next = h->free_list;
		h->free_list = e;
		h->count--;
	}
	spin_unlock_irqrestore(&h->lock, irq);
	return e ? 0 : -ENOENT;
}

/* Bucket order, as Linux walks it; a key no longer present starts the walk again. */
static int htab_map_get_next_key(struct bpf_map *map, void *key, void *next_key)
{
	struct bpf_htab *h = container_of(map, struct bpf_htab, map);
	unsigned long irq = spin_lock_irqsave(&h->lock);
	struct htab_elem *e =
		key ? lookup_locked(h, key, htab_hash(key, map->key_size), NULL) : NULL;
	u32 b = 0;
	int err = -ENOENT;

	if (e) {
		b = (e->hash & (h->n_buckets - 1)) + 1;
		e = e->next;
	}
	for (; !e && b < h->n_buckets; b++)
		e = h->buckets[b];
	if (e) {
		memcpy(next_key, e->key, map->key_size);
		err = 0;
	}
	spin_unlock_irqrestore(&h->lock, irq);
	return err;
}

static int htab_percpu_copy(struct bpf_map *map, void *key, void *value)
{
	struct bpf_htab *h = container_of(map, struct bpf_htab, map);
	unsigned long irq = spin_lock_irqsave(&h->lock);
	struct htab_elem *e = lookup_locked(h, key, htab_hash(key, map->key_size), NULL);

	for (int cpu = 0; e && cpu < bpf_num_possible_cpus(); cpu++)
		memcpy((u8 *)value + cpu * h->value_round, elem_value(h, e, cpu), map->value_size);
	spin_unlock_irqrestore(&h->lock, irq);
	return e ? 0 : -ENOENT;
}

const struct bpf_map_ops htab_map_ops = {
	.map_alloc_check = htab_map_alloc_check,
	.map_alloc = htab_map_alloc,
	.map_free = htab_map_free,
	.map_lookup_elem = htab_map_lookup_elem,
	.map_update_elem = htab_map_update_elem,
	.map_delete_elem = htab_map_delete_elem,
	.map_get_next_key = htab_map_get_next_key,
};

const struct bpf_map_ops htab_percpu_map_ops = {
	.map_alloc_check = htab_map_alloc_check,
	.map_alloc = htab_map_alloc,
	.map_free = htab_map_free,
	.map_lookup_elem = htab_map_lookup_elem,
	.map_update_elem = htab_map_update_elem,
	.map_delete_elem = htab_map_delete_elem,
	.map_get_next_key = htab_map_get_next_key,
	.map_copy_value = htab_percpu_copy,
	.map_update_percpu = htab_percpu_update,
};
