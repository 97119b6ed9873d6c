/*
 * lib/kstrtox.c against the C library's strtoull(3), held to kstrtox's documented rules: all
 * of the string is the number (no leading space, no sign but kstrtoll's '-' and an optional
 * '+'), one trailing newline allowed, -ERANGE when the digits are fine but the value does not
 * fit, -EINVAL for anything else malformed, and the result untouched on error.
 *
 * Input: one byte choosing the parser and the base, then the string.
 */
#include "tests/fuzz/fuzz.h"
#include "lib/ctype.h"
#include "lib/errno.h"
#include "lib/string.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aull

static const unsigned int bases[] = { 0, 10, 16, 8, 2, 36, 1, 37 };

/*
 * What kstrtoull(s) must do, from strtoull: where strtoull is laxer (leading white space, a
 * sign, "0x" before nothing) the first byte after our optional '+' must be a digit or letter,
 * and strtoull must have eaten everything but a newline.
 */
static int expect_ull(const char *s, unsigned int base, unsigned long long *val)
{
	char *end;
	int err;

	if (base == 1 || base > 36)
		return -EINVAL;
	if (*s == '+')
		s++;
	if (!isalnum(*s))
		return -EINVAL;
	*val = libc_strtoull(s, &end, base, &err);
	if (err)
		return -ERANGE;
	if (end == s || !(end[0] == '\0' || (end[0] == '\n' && end[1] == '\0')))
		return -EINVAL;
	return 0;
}

/* kstrtoll: an optional '-' before what kstrtoull reads, and the value within long long. */
static int expect_ll(const char *s, unsigned int base, long long *val)
{
	unsigned long long v, max = ~0ull >> 1;
	bool neg = *s == '-';
	int err;

	if (neg && s[1] == '+')
		return -EINVAL; /* "-+1": one sign only */
	err = expect_ull(s + neg, base, &v);
	if (err)
		return err;
	if (v > max + neg)
		return -ERANGE;
	*val = neg ? (long long)(0 - v) : (long long)v;
	return 0;
}

static void check_ull(const char *s, unsigned int base)
{
	unsigned long long got = SENTINEL, want = SENTINEL;
	int err = kstrtoull(s, base, &got), werr = expect_ull(s, base, &want);
	unsigned int u = 0x5a5a5a5a;

	FUZZ_CHECK(err == werr && got == (werr ? SENTINEL : want),
		   "kstrtoull(\"%s\", %u): %d %llu, expected %d %llu", s, base, err, got, werr, want);
	if (!werr && want > 0xffffffffull)
		werr = -ERANGE;
	err = kstrtouint(s, base, &u);
	FUZZ_CHECK(err == werr && u == (werr ? 0x5a5a5a5au : (unsigned int)want),
		   "kstrtouint(\"%s\", %u): %d %u, expected %d", s, base, err, u, werr);
}

static void check_ll(const char *s, unsigned int base)
{
	long long got = SENTINEL, want = SENTINEL;
	int err = kstrtoll(s, base, &got), werr = expect_ll(s, base, &want), i = 0x5a5a5a5a;

	FUZZ_CHECK(err == werr && got == (werr ? (long long)SENTINEL : want),
		   "kstrtoll(\"%s\", %u): %d %lld, expected %d %lld", s, base, err, got, werr, want);
	if (!werr && want != (int)want)
		werr = -ERANGE;
	err = kstrtoint(s, base, &i);
	FUZZ_CHECK(err == werr && i == (werr ? 0x5a5a5a5a : (int)want),
		   "kstrtoint(\"%s\", %u): %d %d, expected %d", s, base, err, i, werr);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	unsigned int base;
	char *s;

	if (!size || size > 80)
		return 0;
	base = data[0] & 0x80 ? data[0] & 0x3f : bases[data[0] & 7];
	s = fuzz_cstr(data + 1, size - 1);
	if (strlen(s) == size - 1) { /* a NUL inside would cut the string short for both */
		check_ull(s, base);
		check_ll(s, base);
	}
	fuzz_free(s);
	return 0;
}
