/* Unit tests for lib/siphash.c: the reference implementation's published vector, and the key's
 * weight (another key, another id; the same key, the same id). */
#include "lib/siphash.h"
#include "tests/unit/ktest_host.h"

/* Key 00 01 .. 0f and the 8-byte message 00 01 .. 07: the reference code's vectors_sip64[8]. */
KTEST(siphash_reference_vector)
{
	siphash_key_t key = { { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL } };

	EXPECT_EQ(siphash_1u64(0x0706050403020100ULL, &key), 0x93f5f5799a932462ULL);
}

KTEST(siphash_depends_on_key_and_input)
{
	siphash_key_t a = { { 1, 2 } }, b = { { 1, 3 } };
	u64 x = 0xffff888000501d40ULL;

	EXPECT_EQ(siphash_1u64(x, &a), siphash_1u64(x, &a));
	EXPECT_TRUE(siphash_1u64(x, &a) != siphash_1u64(x, &b));
	EXPECT_TRUE(siphash_1u64(x, &a) != siphash_1u64(x + 8, &a));
}
