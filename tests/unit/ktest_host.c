/*
 * The unit-test runner: runs every registered case (or those matching a glob
 * given as argv[1]) and prints KTAP as the kernel's selftest command does.
 * Built WITHOUT host_prefix.h: it uses the host C library for its own output.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/glob.h"
#include "tests/unit/ktest_host.h"

#define MAX_CASES 1024
#define MAX_DIAGNOSTICS 20	/* per case: a failing table must not flood the report */

static struct ktest_case {
	const char *name;
	void (*fn)(void);
} cases[MAX_CASES];
static int ncases;

static bool case_failed;
static int case_diagnostics;
static u64 random_state;

void ktest_register(const char *name, void (*fn)(void))
{
	int i;

	for (i = 0; i < ncases; i++) {
		if (!strcmp(cases[i].name, name)) {
			fprintf(stderr, "ktest: case %s defined twice\n", name);
			exit(2);
		}
	}
	if (ncases == MAX_CASES) {
		fprintf(stderr, "ktest: more than %d cases\n", MAX_CASES);
		exit(2);
	}
	cases[ncases].name = name;
	cases[ncases++].fn = fn;
}

bool ktest_check(bool ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return true;
	case_failed = true;
	if (++case_diagnostics > MAX_DIAGNOSTICS)
		return false;
	printf("# %s:%d: ", file, line);
	if (case_diagnostics == MAX_DIAGNOSTICS) {
		printf("more failures not shown\n");
		return false;
	}
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return false;
}

bool ktest_check_str(const char *file, int line, const char *expr, const char *got,
		     const char *want)
{
	bool ok = got && want ? !strcmp(got, want) : got == want;

	return ktest_check(ok, file, line, "%s == \"%s\", expected \"%s\"", expr,
			   got ? got : "(NULL)", want ? want : "(NULL)");
}

/* xorshift64*: plenty for shuffling test data, and the same on every run. */
u64 ktest_random(void)
{
	random_state ^= random_state >> 12;
	random_state ^= random_state << 25;
	random_state ^= random_state >> 27;
	return random_state * 0x2545F4914F6CDD1Dull;
}

int host_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	return vsnprintf(buf, size, fmt, ap);
}

int host_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

unsigned int host_ctype(int c)
{
	int (*const fns[])(int) = { isdigit, isxdigit, isspace, isalpha, isalnum,
				    isupper, islower, isprint, ispunct };
	unsigned int i, bits = 0;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		bits |= (fns[i](c) != 0) << i;
	return bits;
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : "*";
	int i, n = 0, failed = 0;

	/* Line-buffered, so the report interleaves sanely with a sanitizer's stderr. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < ncases; i++)
		n += glob_match(filter, cases[i].name);
	printf("KTAP version 1\n1..%d\n", n);
	for (i = 0, n = 0; i < ncases; i++) {
		if (!glob_match(filter, cases[i].name))
			continue;
		case_failed = false;
		case_diagnostics = 0;
		random_state = 0x9E3779B97F4A7C15ull;
		cases[i].fn();
		failed += case_failed;
		printf("%sok %d %s\n", case_failed ? "not " : "", ++n, cases[i].name);
	}
	printf("# %d passed, %d failed\n", n - failed, failed);
	return failed ? 1 : 0;
}
