/* Unit tests for lib/kstrtox.c: Linux's strict kstrto*() parsing. */
#include "lib/string.h"
#include "lib/errno.h"
#include "lib/compiler.h"
#include "tests/unit/ktest_host.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aull

struct ucase {
	const char *s;
	unsigned int base;
	int err;
	unsigned long long val;
};

static const struct ucase unsigned_cases[] = {
	{ "0", 0, 0, 0 },
	{ "123", 10, 0, 123 },
	{ "123\n", 10, 0, 123 },	/* what `echo 123 > file` writes */
	{ "0012", 10, 0, 12 },
	{ "+5", 10, 0, 5 },
	{ "123\n\n", 10, -EINVAL, 0 },
	{ "123 ", 10, -EINVAL, 0 },
	{ " 123", 10, -EINVAL, 0 },
	{ "12a", 10, -EINVAL, 0 },
	{ "", 10, -EINVAL, 0 },
	{ "\n", 10, -EINVAL, 0 },
	{ "+", 10, -EINVAL, 0 },
	{ "-5", 10, -EINVAL, 0 },
	{ "++5", 10, -EINVAL, 0 },
	{ "0x1f", 0, 0, 31 },
	{ "0X1F", 0, 0, 31 },
	{ "0x1f", 16, 0, 31 },
	{ "1f", 16, 0, 31 },
	{ "0x", 16, -EINVAL, 0 },
	{ "0x", 0, -EINVAL, 0 },	/* octal 0, then junk */
	{ "0xg", 0, -EINVAL, 0 },
	{ "00x12", 0, -EINVAL, 0 },
	{ "017", 0, 0, 15 },
	{ "017", 10, 0, 17 },
	{ "08", 0, -EINVAL, 0 },
	{ "777", 8, 0, 511 },
	{ "101", 2, 0, 5 },
	{ "102", 2, -EINVAL, 0 },
	{ "z", 36, 0, 35 },
	{ "12", 1, -EINVAL, 0 },
	{ "12", 37, -EINVAL, 0 },
	{ "18446744073709551615", 10, 0, ~0ull },
	{ "18446744073709551616", 10, -ERANGE, 0 },
	{ "99999999999999999999x", 10, -ERANGE, 0 },
	{ "0xffffffffffffffff", 0, 0, ~0ull },
	{ "0x10000000000000000", 0, -ERANGE, 0 },
	{ "01777777777777777777777", 0, 0, ~0ull },
	{ "2000000000000000000000", 8, -ERANGE, 0 },
};

KTEST(kstrtoull_table)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(unsigned_cases); i++) {
		const struct ucase *c = &unsigned_cases[i];
		unsigned long long v = SENTINEL;
		int err = kstrtoull(c->s, c->base, &v);

		if (!ktest_check(err == c->err, __FILE__, __LINE__,
				 "kstrtoull(\"%s\", %u) returned %d, expected %d", c->s, c->base,
				 err, c->err))
			continue;
		/* On error the result must be left alone. */
		EXPECT_EQ(v, c->err ? SENTINEL : c->val);
	}
}

struct scase {
	const char *s;
	unsigned int base;
	int err;
	long long val;
};

static const struct scase signed_cases[] = {
	{ "-1", 10, 0, -1 },
	{ "-5\n", 10, 0, -5 },
	{ "+7", 10, 0, 7 },
	{ "-0", 10, 0, 0 },
	{ "-0x10", 0, 0, -16 },
	{ "-010", 0, 0, -8 },
	{ "9223372036854775807", 10, 0, 0x7fffffffffffffffll },
	{ "9223372036854775808", 10, -ERANGE, 0 },
	{ "-9223372036854775808", 10, 0, -0x7fffffffffffffffll - 1 },
	{ "-9223372036854775809", 10, -ERANGE, 0 },
	{ "-", 10, -EINVAL, 0 },
	{ "-\n", 10, -EINVAL, 0 },
	{ "+-1", 10, -EINVAL, 0 },
	{ "-+1", 10, -EINVAL, 0 },
	{ "--1", 10, -EINVAL, 0 },
	{ " -1", 10, -EINVAL, 0 },
};

KTEST(kstrtoll_table)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(signed_cases); i++) {
		const struct scase *c = &signed_cases[i];
		long long v = SENTINEL;
		int err = kstrtoll(c->s, c->base, &v);

		if (!ktest_check(err == c->err, __FILE__, __LINE__,
				 "kstrtoll(\"%s\", %u) returned %d, expected %d", c->s, c->base,
				 err, c->err))
			continue;
		EXPECT_EQ(v, c->err ? (long long)SENTINEL : c->val);
	}
}

/* The narrower parsers share the parsing and only add range checks. */
KTEST(kstrtoul_widths)
{
	unsigned long ul = 0;
	long l = 0;
	u64 u = 0;
	unsigned int ui = 7;
	int i = 7;

	EXPECT_EQ(kstrtoul("0x80000000\n", 16, &ul), 0);
	EXPECT_EQ(ul, 0x80000000ul);
	EXPECT_EQ(kstrtol("-42", 0, &l), 0);
	EXPECT_EQ(l, -42);
	EXPECT_EQ(kstrtou64("18446744073709551615", 10, &u), 0);
	EXPECT_EQ(u, ~0ull);
	EXPECT_EQ(kstrtoul("x", 10, &ul), -EINVAL);

	EXPECT_EQ(kstrtouint("4294967295", 10, &ui), 0);
	EXPECT_EQ(ui, 4294967295u);
	EXPECT_EQ(kstrtouint("4294967296", 10, &ui), -ERANGE);
	EXPECT_EQ(ui, 4294967295u);
	EXPECT_EQ(kstrtouint("-1", 10, &ui), -EINVAL);

	EXPECT_EQ(kstrtoint("2147483647", 10, &i), 0);
	EXPECT_EQ(i, 2147483647);
	EXPECT_EQ(kstrtoint("-2147483648", 10, &i), 0);
	EXPECT_EQ(i, -2147483647 - 1);
	EXPECT_EQ(kstrtoint("2147483648", 10, &i), -ERANGE);
	EXPECT_EQ(kstrtoint("-2147483649", 10, &i), -ERANGE);
	EXPECT_EQ(i, -2147483647 - 1);
	EXPECT_EQ(kstrtoint("12\n", 0, &i), 0);
	EXPECT_EQ(i, 12);
}
