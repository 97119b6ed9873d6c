/* Unit tests for lib/sha1.c: FIPS 180's examples, and lengths around the padding's edges. */
#include "lib/sha1.h"
#include "lib/string.h"
#include "tests/unit/ktest_host.h"

static bool digest_is(const char *msg, size_t len, const char *hex)
{
	u8 d[SHA1_DIGEST_SIZE];
	char s[2 * SHA1_DIGEST_SIZE + 1];

	sha1(msg, len, d);
	for (int i = 0; i < SHA1_DIGEST_SIZE; i++) {
		s[2 * i] = "0123456789abcdef"[d[i] >> 4];
		s[2 * i + 1] = "0123456789abcdef"[d[i] & 15];
	}
	s[2 * SHA1_DIGEST_SIZE] = 0;
	return !strcmp(s, hex);
}

/* hashlib.sha1(...).hexdigest() gives each */
KTEST(sha1_known_values)
{
	static const char two_blocks[] =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	static char a64[65], a55[56], a56[57];

	memset(a64, 'a', 64);
	memset(a55, 'a', 55);
	memset(a56, 'a', 56);
	EXPECT_EQ(digest_is("", 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709"), 1);
	EXPECT_EQ(digest_is("abc", 3, "a9993e364706816aba3e25717850c26c9cd0d89d"), 1);
	EXPECT_EQ(digest_is(two_blocks, 56, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"), 1);
	EXPECT_EQ(digest_is(a55, 55, "c1c8bbdc22796e28c0e15163d20899b65621d65a"), 1);
	EXPECT_EQ(digest_is(a56, 56, "c2db330f6083854c99d4b5bfb6e8f29f201be699"), 1);
	EXPECT_EQ(digest_is(a64, 64, "0098ba824b5c16427bd7a1122a5a442a25ec644d"), 1);
}
