/* Hashes for hash tables: multiplicative for integers and pointers, FNV-1a for strings. */
#ifndef LIB_HASH_H
#define LIB_HASH_H

#include "lib/types.h"

/*
 * 2^64 / phi and 2^32 / phi, rounded to odd. Multiplying by them scatters the
 * input's low bits into the product's high bits, which are the ones we keep.
 */
#define GOLDEN_RATIO_64 0x61C8864680B583EBull
#define GOLDEN_RATIO_32 0x61C88647u

/* A hash of val in [0, 2^bits), for 0 <= bits <= 32 (0 bits: always 0). */
static inline u32 hash_64(u64 val, unsigned int bits)
{
	return bits ? (u32)((val * GOLDEN_RATIO_64) >> (64 - bits)) : 0;
}

static inline u32 hash_32(u32 val, unsigned int bits)
{
	return bits ? (val * GOLDEN_RATIO_32) >> (32 - bits) : 0;
}

#define hash_long(val, bits) hash_64((u64)(val), bits)

/* Pointers to kernel objects: their low bits are mostly alignment zeros, hence the mixing. */
static inline u32 hash_ptr(const void *ptr, unsigned int bits)
{
	return hash_long((uintptr_t)ptr, bits);
}

/* FNV-1a over the bytes of s: xor in each byte, then multiply by the FNV prime. */
static inline u32 hash_str(const char *s)
{
	u32 h = 2166136261u;

	while (*s)
		h = (h ^ (u8)*s++) * 16777619u;
	return h;
}

#endif
