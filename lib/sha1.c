/* SHA-1 over a whole message at once (FIPS 180-4, section 6.1): no streaming is needed here. */
#include "lib/sha1.h"
#include "lib/string.h"

static u32 rol32(u32 v, int n)
{
	return (v << n) | (v >> (32 - n));
}

/* One 64-byte block into the five state words. */
static void sha1_block(u32 h[5], const u8 *b)
{
	u32 w[80], a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4];

	for (int i = 0; i < 16; i++)
		w[i] = (u32)b[4 * i] << 24 | (u32)b[4 * i + 1] << 16 | (u32)b[4 * i + 2] << 8 |
		       b[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++) {
		u32 f, k, t;

		if (i < 20) {
			f = (bb & c) | (~bb & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = bb ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (bb & c) | (bb & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = bb ^ c ^ d;
			k = 0xca62c1d6;
		}
		t = rol32(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol32(bb, 30);
		bb = a;
		a = t;
	}
	h[0] += a;
	h[1] += bb;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

void sha1(const void *p, size_t len, u8 out[SHA1_DIGEST_SIZE])
{
	u32 h[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
	const u8 *m = p;
	u8 last[128];
	size_t full = len / 64 * 64, rest = len - full, tail;
	u64 bits = (u64)len * 8;

	for (size_t i = 0; i < full; i += 64)
		sha1_block(h, m + i);
	/* the rest, a 1 bit, zeros, and the length in bits: one block or two */
	memset(last, 0, sizeof(last));
	memcpy(last, m + full, rest);
	last[rest] = 0x80;
	tail = rest + 1 + 8 <= 64 ? 64 : 128;
	for (int i = 0; i < 8; i++)
		last[tail - 1 - i] = (u8)(bits >> (8 * i));
	for (size_t i = 0; i < tail; i += 64)
		sha1_block(h, last + i);
	for (int i = 0; i < 5; i++) {
		out[4 * i] = h[i] >> 24;
		out[4 * i + 1] = h[i] >> 16;
		out[4 * i + 2] = h[i] >> 8;
		out[4 * i + 3] = h[i];
	}
}
