/* Unit tests for lib/hash.h: known values, output range, and a spread-out distribution. */
#include "lib/hash.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "tests/unit/ktest_host.h"

#define BUCKET_BITS 8
#define NKEYS 4096	/* 16 per bucket on average */

static unsigned int buckets[1 << BUCKET_BITS];

/* Did the keys fill every bucket, with none holding more than max? */
static bool spread_ok(const char *what, unsigned int max)
{
	unsigned int i, lo = ~0u, hi = 0;

	for (i = 0; i < (1u << BUCKET_BITS); i++) {
		lo = buckets[i] < lo ? buckets[i] : lo;
		hi = buckets[i] > hi ? buckets[i] : hi;
		buckets[i] = 0;
	}
	return ktest_check(lo > 0 && hi <= max, __FILE__, __LINE__,
			   "%s: buckets hold %u..%u keys, expected 1..%u", what, lo, hi, max);
}

KTEST(hash_known_values)
{
	EXPECT_EQ(hash_64(1, 32), 0x61c88646);	/* the top half of the constant */
	EXPECT_EQ(hash_64(12345, 10), 0x17b);
	EXPECT_EQ(hash_64(0, 17), 0);
	EXPECT_EQ(hash_64(0xdeadbeef, 0), 0);
	EXPECT_EQ(hash_32(1, 32), 0x61c88647);
	EXPECT_EQ(hash_long(1ul, 32), 0x61c88646);
	EXPECT_EQ(hash_ptr((void *)1, 32), 0x61c88646);
}

/* FNV-1a's published test vectors. */
KTEST(hash_str_vectors)
{
	EXPECT_EQ(hash_str(""), 0x811c9dc5);
	EXPECT_EQ(hash_str("a"), 0xe40c292c);
	EXPECT_EQ(hash_str("foobar"), 0xbf9cf968);
	EXPECT_TRUE(hash_str("schedule") != hash_str("schedulf"));
}

KTEST(hash_bits_range)
{
	unsigned int bits, i;

	for (bits = 1; bits <= 32; bits++) {
		for (i = 0; i < 2000; i++) {
			u64 v = i < 1000 ? i : ktest_random();
			u64 limit = 1ull << bits;

			if (!EXPECT_TRUE(hash_64(v, bits) < limit) ||
			    !EXPECT_TRUE(hash_32((u32)v, bits) < limit))
				return;
		}
	}
}

/* Sequential keys, page-aligned addresses and random keys all spread evenly. */
KTEST(hash_distribution)
{
	static char objects[NKEYS][64];
	unsigned int i;

	for (i = 0; i < NKEYS; i++)
		buckets[hash_64(i, BUCKET_BITS)]++;
	spread_ok("hash_64(0..4095)", 24);
	for (i = 0; i < NKEYS; i++)
		buckets[hash_64(0xffffffff81000000ull + (u64)i * 4096, BUCKET_BITS)]++;
	spread_ok("hash_64(page addresses)", 24);
	for (i = 0; i < NKEYS; i++)
		buckets[hash_ptr(objects[i], BUCKET_BITS)]++;
	spread_ok("hash_ptr(64-byte objects)", 24);
	for (i = 0; i < NKEYS; i++)
		buckets[hash_64(ktest_random(), BUCKET_BITS)]++;
	spread_ok("hash_64(random)", 40);
}

KTEST(hash_str_distribution)
{
	char name[32];
	unsigned int i;

	for (i = 0; i < NKEYS; i++) {
		snprintf(name, sizeof(name), "func_%u", i);
		buckets[hash_str(name) & ((1u << BUCKET_BITS) - 1)]++;
	}
	spread_ok("hash_str(\"func_N\") low bits", 40);
}
