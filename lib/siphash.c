/* SipHash-2-4 of one 64-bit word: two rounds per message word, four to finish. */
#include "lib/siphash.h"

static inline u64 rotl64(u64 v, int s)
{
	return v << s | v >> (64 - s);
}

/* The state is four words; one round mixes them with adds, rotations and xors only. */
static void sip_rounds(u64 v[4], int n)
{
	while (n--) {
		v[0] += v[1];
		v[1] = rotl64(v[1], 13) ^ v[0];
		v[0] = rotl64(v[0], 32);
		v[2] += v[3];
		v[3] = rotl64(v[3], 16) ^ v[2];
		v[0] += v[3];
		v[3] = rotl64(v[3], 21) ^ v[0];
		v[2] += v[1];
		v[1] = rotl64(v[1], 17) ^ v[2];
		v[2] = rotl64(v[2], 32);
	}
}

/* Each word goes into v3, through two rounds, then into v0. */
static void sip_absorb(u64 v[4], u64 m)
{
	v[3] ^= m;
	sip_rounds(v, 2);
	v[0] ^= m;
}

u64 siphash_1u64(u64 first, const siphash_key_t *key)
{
	/* The constants spell "somepseudorandomlygeneratedbytes", the algorithm's own. */
	u64 v[4] = { key->key[0] ^ 0x736f6d6570736575ULL, key->key[1] ^ 0x646f72616e646f6dULL,
		     key->key[0] ^ 0x6c7967656e657261ULL, key->key[1] ^ 0x7465646279746573ULL };

	sip_absorb(v, first);
	sip_absorb(v, (u64)8 << 56); /* the last word: the message's length in its top byte */
	v[2] ^= 0xff;
	sip_rounds(v, 4);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}
