/* SipHash-2-4 (Aumasson and Bernstein): a keyed hash whose output gives neither its input nor its
 * key away, so an id made with it can be shown where the value itself must not be (%p). */
#ifndef LIB_SIPHASH_H
#define LIB_SIPHASH_H

#include "lib/types.h"

typedef struct {
	u64 key[2];
} siphash_key_t;

/* The 8 bytes of first, little-endian, hashed with key (Linux's siphash_1u64()). */
u64 siphash_1u64(u64 first, const siphash_key_t *key);

#endif
