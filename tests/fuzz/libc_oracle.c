/* The C library as the fuzzers' oracle: built without host_prefix.h, so these are glibc's. */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "tests/fuzz/libc_oracle.h"

bool libc_fnmatch(const char *pat, const char *str)
{
	/* No FNM_PATHNAME, FNM_PERIOD or FNM_NOESCAPE: '*' and '?' match any byte, '\' escapes. */
	return fnmatch(pat, str, 0) == 0;
}

int libc_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	return vsnprintf(buf, size, fmt, ap);
}

unsigned long long libc_strtoull(const char *s, char **end, int base, int *err)
{
	unsigned long long v;

	errno = 0;
	v = strtoull(s, end, base);
	*err = errno;
	return v;
}

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fuzz: oracle disagrees: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort(); /* libFuzzer saves the input as a crash */
}
