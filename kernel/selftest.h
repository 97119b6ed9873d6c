/* In-kernel self-tests: each case registers itself in a linker section; `selftest` runs them as KTAP. */
#ifndef KERNEL_SELFTEST_H
#define KERNEL_SELFTEST_H

#include "lib/compiler.h"
#include "lib/types.h"

struct ktest {
	const char *name;
	bool failed;
	bool skipped;
};

struct selftest {
	const char *name;
	void (*fn)(struct ktest *t);
	bool dynamic_only; /* skipped in the static-ftrace build: it needs patched sites */
};

/* SELFTEST(heap_alloc_free) { ... } defines a case; cases run in name order. */
#define SELFTEST(n) __SELFTEST(n, false)
/* A case about patched call sites (NOPs, trampolines, ftrace_regs_caller, kprobes on ftrace),
 * which `make STATIC_FTRACE=1` does not have: reported there as `# SKIP`. */
#define SELFTEST_DYNAMIC(n) __SELFTEST(n, true)
#define __SELFTEST(n, dyn)                                                                         \
	static void __selftest_fn_##n(struct ktest *t);                                            \
	static const struct selftest __selftest_##n __used __section(".selftests." #n)             \
		__aligned(8) = { #n, __selftest_fn_##n, dyn };                                     \
	static void __selftest_fn_##n(struct ktest *t)

/* Records a failure with a KTAP diagnostic line ("# file:line: ...") and carries on. */
void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...) __printf(4, 5);
/* Marks the case skipped, with the reason. */
void ktest_skip(struct ktest *t, const char *why);

#define KT_EXPECT(t, cond)                                                                         \
	do {                                                                                       \
		if (!(cond))                                                                       \
			ktest_fail(t, __FILE__, __LINE__, "expected %s", #cond);                   \
	} while (0)

#define KT_EXPECT_EQ(t, a, b)                                                                      \
	do {                                                                                       \
		long long __a = (long long)(a), __b = (long long)(b);                              \
		if (__a != __b)                                                                    \
			ktest_fail(t, __FILE__, __LINE__, "%s == %lld, expected %s == %lld", #a,   \
				   __a, #b, __b);                                                  \
	} while (0)

#define KT_EXPECT_STREQ(t, a, b)                                                                   \
	do {                                                                                       \
		const char *__a = (a), *__b = (b);                                                 \
		if (strcmp(__a, __b))                                                              \
			ktest_fail(t, __FILE__, __LINE__, "%s is \"%s\", expected \"%s\"", #a,     \
				   __a, __b);                                                      \
	} while (0)

/* Stops the case when cond is false (after recording the failure). */
#define KT_ASSERT(t, cond)                                                                         \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			ktest_fail(t, __FILE__, __LINE__, "assertion %s", #cond);                  \
			return;                                                                    \
		}                                                                                  \
	} while (0)

/* Runs the cases whose name matches glob (all if NULL); prints KTAP; returns the failures. */
int selftest_run(const char *glob);
/* Runs the globs of `selftest=GLOB[,GLOB...]` on the kernel command line, if it is there. */
void selftest_from_cmdline(void);

#endif
