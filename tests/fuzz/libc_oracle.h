/* What the fuzz targets ask of the C library (tests/fuzz/libc_oracle.c): the reference answers. */
#ifndef TESTS_FUZZ_LIBC_ORACLE_H
#define TESTS_FUZZ_LIBC_ORACLE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

bool libc_fnmatch(const char *pat, const char *str);
int libc_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
/* strtoull(), with errno as *err (0 or ERANGE). */
unsigned long long libc_strtoull(const char *s, char **end, int base, int *err);

/* Prints what went wrong (printf-style, libc's) and aborts: libFuzzer keeps the input. */
void fuzz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
