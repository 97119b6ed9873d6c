/* ftrace_hash: the sets of function addresses behind set_ftrace_filter and set_ftrace_notrace.
 *
 *   buckets[hash_long(ip, size_bits)] -> entry(ip) -> entry(ip) -> NULL
 *
 * Lookups run inside ftrace_ops_list_func on every traced call, so they must be cheap and must
 * not take locks: a hash in use is never modified, only replaced whole (and freed after the code
 * update that stops its use).
 */
#include "kernel/trace/ftrace.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"
#include "lib/hash.h"

#define FTRACE_HASH_DEFAULT_BITS 8
/* A hash grows (while it is being built, never in use) once it averages two entries a bucket, up
 * to 2^15 buckets: at Linux's 40,000 functions, a filter of all of them still walks chains of
 * about one entry, where 256 fixed buckets made every lookup walk about 160. */
#define FTRACE_HASH_MAX_BITS 15

struct ftrace_hash *alloc_ftrace_hash(unsigned int size_bits)
{
	struct ftrace_hash *hash = kzalloc(sizeof(*hash));

	if (!hash)
		return NULL;
	hash->size_bits = size_bits ? size_bits : FTRACE_HASH_DEFAULT_BITS;
	hash->buckets = kzalloc(sizeof(*hash->buckets) << hash->size_bits);
	if (!hash->buckets) {
		kfree(hash);
		return NULL;
	}
	return hash;
}

void free_ftrace_hash(struct ftrace_hash *hash)
{
	if (!hash)
		return;
	for (unsigned long b = 0; b < (1UL << hash->size_bits); b++) {
		struct ftrace_func_entry *e = hash->buckets[b];
		while (e) {
			struct ftrace_func_entry *next = e->next;
			kfree(e);
			e = next;
		}
	}
	kfree(hash->buckets);
	kfree(hash);
}

static struct ftrace_func_entry **bucket(const struct ftrace_hash *hash, unsigned long ip)
{
	return &hash->buckets[hash_long(ip, hash->size_bits)];
}

bool ftrace_lookup_hash(const struct ftrace_hash *hash, unsigned long ip)
{
	if (ftrace_hash_empty(hash))
		return false;
	for (struct ftrace_func_entry *e = *bucket(hash, ip); e; e = e->next)
		if (e->ip == ip)
			return true;
	return false;
}

/* Twice the buckets, every entry moved. Out of memory, the hash stays as it was: slower, correct. */
static void grow(struct ftrace_hash *hash)
{
	unsigned int bits = hash->size_bits + 1;
	struct ftrace_func_entry **buckets = kzalloc(sizeof(*buckets) << bits);

	if (!buckets)
		return;
	for (unsigned long b = 0; b < (1UL << hash->size_bits); b++) {
		struct ftrace_func_entry *e = hash->buckets[b], *next;
		for (; e; e = next) {
			unsigned long nb = hash_long(e->ip, bits);
			next = e->next;
			e->next = buckets[nb];
			buckets[nb] = e;
		}
	}
	kfree(hash->buckets);
	hash->buckets = buckets;
	hash->size_bits = bits;
}

int ftrace_hash_add(struct ftrace_hash *hash, unsigned long ip)
{
	struct ftrace_func_entry *e;

	if (ftrace_lookup_hash(hash, ip))
		return 0;
	if (hash->count >= (2UL << hash->size_bits) && hash->size_bits < FTRACE_HASH_MAX_BITS)
		grow(hash);
	e = kmalloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->ip = ip;
	e->next = *bucket(hash, ip);
	*bucket(hash, ip) = e;
	hash->count++;
	return 0;
}

void ftrace_hash_remove(struct ftrace_hash *hash, unsigned long ip)
{
	for (struct ftrace_func_entry **pp = bucket(hash, ip); *pp; pp = &(*pp)->next) {
		if ((*pp)->ip == ip) {
			struct ftrace_func_entry *e = *pp;
			*pp = e->next;
			kfree(e);
			hash->count--;
			return;
		}
	}
}

struct ftrace_hash *alloc_and_copy_ftrace_hash(const struct ftrace_hash *src)
{
	struct ftrace_hash *hash = alloc_ftrace_hash(src ? src->size_bits : 0);

	if (!hash || !src)
		return hash;
	for (unsigned long b = 0; b < (1UL << src->size_bits); b++) {
		for (struct ftrace_func_entry *e = src->buckets[b]; e; e = e->next) {
			if (ftrace_hash_add(hash, e->ip)) {
				free_ftrace_hash(hash);
				return NULL;
			}
		}
	}
	return hash;
}
