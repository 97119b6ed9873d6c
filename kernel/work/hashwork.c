/* The "hash" workload: build keys, hash them, insert into and look up in a small table. */
#include "kernel/work/workloads.h"
#include "lib/compiler.h"

#define WORK noinline __attribute__((noclone))
#define TABLE 64

struct hash_table {
	u32 keys[TABLE];
	u32 used;
};

static volatile u32 hash_sink;

WORK void hash_make_key(char *buf, int n)
{
	for (int i = 0; i < 8; i++, n /= 7)
		buf[i] = 'a' + n % 26;
	buf[8] = '\0';
}

WORK u32 hash_mix(const char *s)
{
	u32 h = 2166136261u; /* FNV-1a */
	while (*s)
		h = (h ^ (u8)*s++) * 16777619u;
	return h;
}

WORK bool hash_lookup(const struct hash_table *t, u32 key)
{
	for (u32 i = 0; i < t->used; i++)
		if (t->keys[i] == key)
			return true;
	return false;
}

WORK void hash_insert(struct hash_table *t, u32 key)
{
	if (!hash_lookup(t, key) && t->used < TABLE)
		t->keys[t->used++] = key;
}

WORK void hash_iteration(struct work_stats *st)
{
	struct hash_table t = { .used = 0 };
	char key[9];

	for (int i = 0; i < 16; i++) {
		hash_make_key(key, i * 31);
		hash_insert(&t, hash_mix(key));
	}
	hash_sink = t.used;
}
