/* kstrto*(): strict number parsing for values a user writes into control files. */
#include "lib/string.h"
#include "lib/ctype.h"
#include "lib/errno.h"

/* Base 0 means "as C would read it": 0x.. is hex, 0.. is octal, the rest decimal. */
static unsigned int guess_base(const char *s)
{
	if (s[0] == '0' && tolower(s[1]) == 'x' && isxdigit(s[2]))
		return 16;
	return s[0] == '0' ? 8 : 10;
}

/* The value of digit c, or 36 (bigger than any base) if c is not one. */
static unsigned int digit_value(char c)
{
	if (isdigit(c))
		return c - '0';
	if (isalpha(c))
		return tolower(c) - 'a' + 10;
	return 36;
}

/*
 * Parse all of s as an unsigned number, allowing one trailing newline (what
 * `echo` appends). 0 on success, -EINVAL for anything malformed, -ERANGE if
 * the digits are fine but the value does not fit.
 */
static int parse_ull(const char *s, unsigned int base, unsigned long long *res)
{
	unsigned long long v = 0;
	const char *start;

	if (base == 0)
		base = guess_base(s);
	if (base < 2 || base > 36)
		return -EINVAL;
	if (base == 16 && s[0] == '0' && tolower(s[1]) == 'x')
		s += 2;
	for (start = s;; s++) {
		unsigned int d = digit_value(*s);

		if (d >= base)
			break;
		if (v > (~0ull - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (s == start)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = v;
	return 0;
}

/* Parse s (an optional '+', then digits) as an unsigned long long; see parse_ull(). */
int kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	if (s[0] == '+')
		s++;
	return parse_ull(s, base, res);
}

/* Parse s (an optional sign, then digits) as a long long; see parse_ull(). */
int kstrtoll(const char *s, unsigned int base, long long *res)
{
	unsigned long long v, max = ~0ull >> 1;
	int err;

	if (s[0] == '-') {
		err = parse_ull(s + 1, base, &v);
		if (err)
			return err;
		if (v > max + 1)
			return -ERANGE;
		*res = (long long)(0 - v);
		return 0;
	}
	err = kstrtoull(s, base, &v);
	if (err)
		return err;
	if (v > max)
		return -ERANGE;
	*res = v;
	return 0;
}

/* unsigned long is 64 bits here (LP64), so these are the 64-bit parsers. */
int kstrtoul(const char *s, unsigned int base, unsigned long *res)
{
	unsigned long long v;
	int err = kstrtoull(s, base, &v);

	if (!err)
		*res = v;
	return err;
}

int kstrtol(const char *s, unsigned int base, long *res)
{
	long long v;
	int err = kstrtoll(s, base, &v);

	if (!err)
		*res = v;
	return err;
}

int kstrtou64(const char *s, unsigned int base, u64 *res)
{
	unsigned long long v;
	int err = kstrtoull(s, base, &v);

	if (!err)
		*res = v;
	return err;
}

/* Like kstrtoull(), but -ERANGE for values that do not fit an unsigned int. */
int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	unsigned long long v;
	int err = kstrtoull(s, base, &v);

	if (err)
		return err;
	if (v != (unsigned int)v)
		return -ERANGE;
	*res = v;
	return 0;
}

/* Like kstrtoll(), but -ERANGE for values that do not fit an int. */
int kstrtoint(const char *s, unsigned int base, int *res)
{
	long long v;
	int err = kstrtoll(s, base, &v);

	if (err)
		return err;
	if (v != (int)v)
		return -ERANGE;
	*res = v;
	return 0;
}
