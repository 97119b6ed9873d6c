/* A tiny KUnit-like harness for the host unit tests: register cases, check values, print KTAP. */
#ifndef KTEST_HOST_H
#define KTEST_HOST_H

#include "lib/types.h"

#define __ktest_printf(a, b) __attribute__((format(printf, a, b)))

/*
 * KTEST(area_what) { ... } defines a case. A constructor adds it to the
 * runner's table before main() runs, so a new case needs no list updating.
 */
#define KTEST(name)							\
	static void ktest_##name(void);					\
	__attribute__((constructor)) static void ktest_reg_##name(void)	\
	{								\
		ktest_register(#name, ktest_##name);			\
	}								\
	static void ktest_##name(void)

void ktest_register(const char *name, void (*fn)(void));

/*
 * The checks. Each records a "# file:line: ..." diagnostic and marks the
 * running case failed when it does not hold, then lets the case go on;
 * each also yields whether it held, for `if (!EXPECT_...) return;`.
 */
bool ktest_check(bool ok, const char *file, int line, const char *fmt, ...) __ktest_printf(4, 5);
bool ktest_check_str(const char *file, int line, const char *expr, const char *got,
		     const char *want);

#define EXPECT_TRUE(cond) ktest_check(!!(cond), __FILE__, __LINE__, "expected %s", #cond)
#define EXPECT_FALSE(cond) ktest_check(!(cond), __FILE__, __LINE__, "expected !(%s)", #cond)

/* Integers of any type (and pointers) compare as 64-bit values. */
#define EXPECT_EQ(got, want)						\
	({								\
		long long _g = (long long)(got), _w = (long long)(want);\
		ktest_check(_g == _w, __FILE__, __LINE__,		\
			    "%s == %lld (%#llx), expected %s == %lld (%#llx)", \
			    #got, _g, _g, #want, _w, _w);		\
	})

/* Strings compare by content; NULL equals only NULL. */
#define EXPECT_STREQ(got, want) ktest_check_str(__FILE__, __LINE__, #got, got, want)

/* Deterministic pseudo-random numbers, reseeded before each case. */
u64 ktest_random(void);

/* The host C library's formatter, the reference our vsnprintf is compared against. */
int host_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int host_snprintf(char *buf, size_t size, const char *fmt, ...);
/* The host C library's classification of c: bit i set when the i-th of
 * isdigit isxdigit isspace isalpha isalnum isupper islower isprint ispunct holds. */
unsigned int host_ctype(int c);

#endif
