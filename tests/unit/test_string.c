/* Unit tests for lib/string.c and lib/ctype.h. */
#include "lib/string.h"
#include "lib/ctype.h"
#include "lib/errno.h"
#include "tests/unit/ktest_host.h"

/* Fill buf with a pattern that differs at every offset, so misplaced bytes show. */
static void fill(u8 *buf, size_t n, u8 seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (u8)(seed + i * 7);
}

/* Every length and both alignments for the word-at-a-time paths; bytes outside stay put. */
KTEST(string_memcpy)
{
	u8 src[80], dst[80], want[80];
	size_t so, d, n, i;

	fill(src, sizeof(src), 1);
	for (so = 0; so < 9; so++) {
		for (d = 0; d < 9; d++) {
			for (n = 0; n + 9 <= sizeof(dst); n += 1 + n / 8) {
				fill(dst, sizeof(dst), 100);
				fill(want, sizeof(want), 100);
				for (i = 0; i < n; i++)
					want[d + i] = src[so + i];
				EXPECT_EQ(memcpy(dst + d, src + so, n), dst + d);
				for (i = 0; i < sizeof(dst); i++) {
					if (!EXPECT_EQ(dst[i], want[i]))
						break;
				}
			}
		}
	}
}

/* Overlap in both directions, against a copy made through a bounce buffer. */
KTEST(string_memmove)
{
	u8 buf[64], want[64], tmp[64];
	size_t s, d, n, i;

	for (s = 0; s < 16; s++) {
		for (d = 0; d < 16; d++) {
			for (n = 0; n <= 40; n += 3) {
				fill(buf, sizeof(buf), 5);
				fill(want, sizeof(want), 5);
				for (i = 0; i < n; i++)
					tmp[i] = want[s + i];
				for (i = 0; i < n; i++)
					want[d + i] = tmp[i];
				EXPECT_EQ(memmove(buf + d, buf + s, n), buf + d);
				EXPECT_EQ(memcmp(buf, want, sizeof(buf)), 0);
			}
		}
	}
}

KTEST(string_memset)
{
	u8 buf[64];
	size_t off, n, i;

	for (off = 0; off < 9; off++) {
		for (n = 0; off + n <= sizeof(buf); n += 5) {
			fill(buf, sizeof(buf), 9);
			EXPECT_EQ(memset(buf + off, 0x1a5, n), buf + off);
			for (i = 0; i < sizeof(buf); i++) {
				u8 want = i >= off && i < off + n ? 0xa5 : (u8)(9 + i * 7);

				if (!EXPECT_EQ(buf[i], want))
					break;
			}
		}
	}
}

/* Comparisons are of unsigned bytes: 0x80 sorts after 0x7f. */
KTEST(string_compare)
{
	EXPECT_EQ(memcmp("abc", "abd", 3) < 0, 1);
	EXPECT_EQ(memcmp("abd", "abc", 3) > 0, 1);
	EXPECT_EQ(memcmp("abc", "abd", 2), 0);
	EXPECT_EQ(memcmp("x", "y", 0), 0);
	EXPECT_EQ(memcmp("\x80", "\x7f", 1) > 0, 1);
	EXPECT_EQ(strcmp("", ""), 0);
	EXPECT_EQ(strcmp("abc", "abc"), 0);
	EXPECT_EQ(strcmp("abc", "abcd") < 0, 1);
	EXPECT_EQ(strcmp("abcd", "abc") > 0, 1);
	EXPECT_EQ(strcmp("\xff", "a") > 0, 1);
	EXPECT_EQ(strncmp("abcX", "abcY", 3), 0);
	EXPECT_EQ(strncmp("abcX", "abcY", 4) < 0, 1);
	EXPECT_EQ(strncmp("ab", "ab", 100), 0);
	EXPECT_EQ(strncmp("a", "b", 0), 0);
}

KTEST(string_strlen)
{
	EXPECT_EQ(strlen(""), 0);
	EXPECT_EQ(strlen("schedule"), 8);
	EXPECT_EQ(strnlen("schedule", 3), 3);
	EXPECT_EQ(strnlen("schedule", 8), 8);
	EXPECT_EQ(strnlen("schedule", 100), 8);
	EXPECT_EQ(strnlen("abc", 0), 0);
}

KTEST(string_strchr)
{
	const char *s = "a.b.c";

	EXPECT_EQ(strchr(s, '.'), s + 1);
	EXPECT_EQ(strrchr(s, '.'), s + 3);
	EXPECT_EQ(strchr(s, 'a'), s);
	EXPECT_EQ(strrchr(s, 'a'), s);
	EXPECT_EQ(strchr(s, 'x'), NULL);
	EXPECT_EQ(strrchr(s, 'x'), NULL);
	/* Looking for NUL finds the terminator. */
	EXPECT_EQ(strchr(s, '\0'), s + 5);
	EXPECT_EQ(strrchr(s, '\0'), s + 5);
	/* c is converted to char, so bytes above 0x7f are found whichever sign char has. */
	s = "\xe9t\xe9!";
	EXPECT_EQ(strchr(s, 0xe9), s);
	EXPECT_EQ(strrchr(s, 0xe9), s + 2);
}

KTEST(string_strstr)
{
	const char *s = "_raw_spin_unlock";

	EXPECT_EQ(strstr(s, "spin"), s + 5);
	EXPECT_EQ(strstr(s, "_"), s);
	EXPECT_EQ(strstr(s, "lock"), s + 12);
	EXPECT_EQ(strstr(s, ""), s);
	EXPECT_EQ(strstr(s, "locks"), NULL);
	EXPECT_EQ(strstr(s + 16, ""), s + 16);
	EXPECT_EQ(strstr(s + 16, "a"), NULL);
	/* A partial match ("aa" then 'a' not 'b') must not skip the real one. */
	s = "aaab";
	EXPECT_EQ(strstr(s, "aab"), s + 1);
}

/* Linux semantics: the length copied, or -E2BIG when cut; NUL-terminated whenever size > 0. */
KTEST(string_strscpy)
{
	char buf[8];

	memset(buf, 'x', sizeof(buf));
	EXPECT_EQ(strscpy(buf, "abc", sizeof(buf)), 3);
	EXPECT_STREQ(buf, "abc");
	EXPECT_EQ(buf[4], 'x');
	EXPECT_EQ(strscpy(buf, "1234567", sizeof(buf)), 7);
	EXPECT_STREQ(buf, "1234567");
	EXPECT_EQ(strscpy(buf, "12345678", sizeof(buf)), -E2BIG);
	EXPECT_STREQ(buf, "1234567");
	EXPECT_EQ(strscpy(buf, "", sizeof(buf)), 0);
	EXPECT_STREQ(buf, "");
	EXPECT_EQ(strscpy(buf, "ab", 1), -E2BIG);
	EXPECT_STREQ(buf, "");
	buf[0] = 'q';
	EXPECT_EQ(strscpy(buf, "ab", 0), -E2BIG);
	EXPECT_EQ(buf[0], 'q');
}

KTEST(string_spn_strsep)
{
	char line[] = "a b\t\tc", *p = line;

	EXPECT_EQ(strspn("  \tx", " \t"), 3);
	EXPECT_EQ(strspn("", " "), 0);
	EXPECT_EQ(strcspn("abc/def", "/"), 3);
	EXPECT_EQ(strcspn("abc", "/"), 3);
	EXPECT_EQ(strcspn("", "/"), 0);
	EXPECT_STREQ(strsep(&p, " \t"), "a");
	EXPECT_STREQ(strsep(&p, " \t"), "b");
	EXPECT_STREQ(strsep(&p, " \t"), ""); /* two delimiters in a row: an empty token */
	EXPECT_STREQ(strsep(&p, " \t"), "c");
	EXPECT_TRUE(p == NULL);
	EXPECT_TRUE(strsep(&p, " ") == NULL);
}

KTEST(string_skip_spaces_strim)
{
	char a[] = "  \t schedule \n ", b[] = "   ", c[] = "", d[] = "x";
	const char *s = " \n\v\f\r\tword";

	EXPECT_EQ(skip_spaces(s), s + 6);
	EXPECT_EQ(skip_spaces(s + 10), s + 10);
	EXPECT_STREQ(skip_spaces("abc "), "abc ");
	EXPECT_STREQ(strim(a), "schedule");
	EXPECT_EQ(strim(a), a + 4);
	EXPECT_STREQ(strim(b), "");
	EXPECT_STREQ(strim(c), "");
	EXPECT_EQ(strim(d), d);
	EXPECT_STREQ(d, "x");
}

/* Every byte value against the host C library in the C locale. */
KTEST(ctype_classes)
{
	int c;

	for (c = -1; c < 256; c++) {
		unsigned int got = (!!isdigit(c)) | (!!isxdigit(c)) << 1 | (!!isspace(c)) << 2 |
				   (!!isalpha(c)) << 3 | (!!isalnum(c)) << 4 |
				   (!!isupper(c)) << 5 | (!!islower(c)) << 6 |
				   (!!isprint(c)) << 7 | (!!ispunct(c)) << 8;

		if (!EXPECT_EQ(got, host_ctype(c)))
			break;
	}
}

KTEST(ctype_case)
{
	int c;

	for (c = 0; c < 256; c++) {
		int up = c >= 'a' && c <= 'z' ? c - 32 : c;
		int low = c >= 'A' && c <= 'Z' ? c + 32 : c;

		EXPECT_EQ(toupper(c), up);
		EXPECT_EQ(tolower(c), low);
	}
}
