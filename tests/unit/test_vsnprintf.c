/* Unit tests for lib/vsprintf.c: C99 conversions checked against the host libc, plus %p/%pS. */
#include "lib/printf.h"
#include "lib/string.h"
#include "lib/compiler.h"
#include "tests/unit/ktest_host.h"

/*
 * Ours, called through a function gcc does not know as printf-like: this file
 * feeds odd formats on purpose ("%y", "%-05d", a NULL "%s"), which would draw
 * -Wformat warnings through the checked snprintf().
 */
static int ours(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* Format with ours and with the host's; both the text and the returned length must agree. */
#define EXPECT_SAME(fmt, ...)							\
	({									\
		char _ours[256], _ref[256];					\
		int _n = ours(_ours, sizeof(_ours), fmt, __VA_ARGS__);		\
		int _r = host_snprintf(_ref, sizeof(_ref), fmt, __VA_ARGS__);	\
		ktest_check(_n == _r && !strcmp(_ours, _ref), __FILE__, __LINE__,	\
			    "format \"%s\": got \"%s\" (%d), libc says \"%s\" (%d)",	\
			    fmt, _ours, _n, _ref, _r);				\
	})

/* Our result alone, for what libc does differently or leaves undefined. */
#define EXPECT_FMT(want, fmt, ...)						\
	({									\
		char _buf[256];							\
		int _n = ours(_buf, sizeof(_buf), fmt, __VA_ARGS__);		\
		EXPECT_STREQ(_buf, want) && EXPECT_EQ(_n, (int)strlen(want));	\
	})

static const char *const lengths[] = { "hh", "h", "", "l", "ll", "z", "t", "j" };

static const long long values[] = {
	0, 1, -1, 7, 42, 127, 128, 255, 256, -129, 65535, 65536, 2147483647,
	-2147483647 - 1, 4294967295ll, 0x123456789abcdefll, 0x7fffffffffffffffll,
	-0x7fffffffffffffffll - 1,
};

/* Would the conversion see 0, once v is cut to the width the length modifier names? */
static bool zero_as(int len, long long v)
{
	return len == 0 ? (u8)v == 0 : len == 1 ? (u16)v == 0 : len == 2 ? (u32)v == 0 : v == 0;
}

/* Pass v as the type the length modifier names (the printf family reads it back as that). */
static bool same_as_libc(const char *fmt, int len, long long v)
{
	/* Our one deliberate difference: %#x of 0 is "0x0" (tested on its own below). */
	if (strchr(fmt, '#') && (strchr(fmt, 'x') || strchr(fmt, 'X')) && zero_as(len, v))
		return true;
	switch (len) {
	case 0: case 1: case 2: return EXPECT_SAME(fmt, (int)v);
	case 3: return EXPECT_SAME(fmt, (long)v);
	case 5: return EXPECT_SAME(fmt, (size_t)v);
	case 6: return EXPECT_SAME(fmt, (ptrdiff_t)v);
	default: return EXPECT_SAME(fmt, v);
	}
}

/*
 * Every flag combination x width x precision x length x conversion x value.
 * Formats the compiler cannot check are fine here: both sides get the same.
 */
KTEST(vsnprintf_integers_vs_libc)
{
	static const char *const widths[] = { "", "1", "6", "25" };
	static const char *const precs[] = { "", ".", ".0", ".3", ".22" };
	const char *convs = "diuxXo";
	char fmt[32], flags[8];
	unsigned int f, w, p, l, c, v, n;

	for (f = 0; f < 32; f++) {
		for (n = 0, c = 0; c < 5; c++)
			if (f & (1u << c))
				flags[n++] = "-0+ #"[c];
		flags[n] = '\0';
		for (w = 0; w < ARRAY_SIZE(widths); w++)
		for (p = 0; p < ARRAY_SIZE(precs); p++)
		for (l = 0; l < ARRAY_SIZE(lengths); l++)
		for (c = 0; convs[c]; c++) {
			host_snprintf(fmt, sizeof(fmt), "<%%%s%s%s%s%c>", flags, widths[w],
				      precs[p], lengths[l], convs[c]);
			for (v = 0; v < ARRAY_SIZE(values); v++)
				same_as_libc(fmt, l, values[v]);
		}
	}
}

KTEST(vsnprintf_strings_vs_libc)
{
	static const char *const fmts[] = {
		"%s", "%10s", "%-10s", "%.3s", "%10.3s", "%-10.3s", "%.0s", "%.s", "%2s",
		"%c", "%5c", "%-5c", "[%s|%s]",
	};
	static const char *const strs[] = { "", "a", "sched", "schedule_timeout" };
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(fmts); i++) {
		for (j = 0; j < ARRAY_SIZE(strs); j++) {
			if (strchr(fmts[i], 'c'))
				EXPECT_SAME(fmts[i], strs[j][0] ? strs[j][0] : '?');
			else
				EXPECT_SAME(fmts[i], strs[j], strs[j]);
		}
	}
}

KTEST(vsnprintf_star_width_precision)
{
	EXPECT_SAME("[%*d]", 5, 42);
	EXPECT_SAME("[%-*d]", 5, 42);
	EXPECT_SAME("[%*d]", -5, 42);		/* negative width: left-justify */
	EXPECT_SAME("[%.*d]", 4, 42);
	EXPECT_SAME("[%.*d]", -1, 42);		/* negative precision: as if none */
	EXPECT_SAME("[%0*.*x]", 8, -1, 0xbeef);
	EXPECT_SAME("[%*.*s]", 8, 3, "schedule");
	EXPECT_SAME("[%-*.*s]", 8, 3, "schedule");
	EXPECT_FMT("[   42]", "[%*d]", 5, 42);
	EXPECT_FMT("[42   ]", "[%*d]", -5, 42);
}

/* The cases people get wrong, spelled out rather than only compared. */
KTEST(vsnprintf_edge_values)
{
	EXPECT_FMT("-9223372036854775808", "%lld", -0x7fffffffffffffffll - 1);
	EXPECT_FMT("18446744073709551615", "%llu", ~0ull);
	EXPECT_FMT("01777777777777777777777", "%#llo", ~0ull);
	EXPECT_FMT("ffffffffffffffff", "%zx", (size_t)-1);
	EXPECT_FMT("44 255 4464", "%hhd %hhu %hd", 300, -1, 70000);
	EXPECT_FMT("0x0 0X0", "%#x %#X", 0, 0);	/* C99 says "0"; Linux, and we, "0x0" */
	EXPECT_FMT("[   0x0|0x0000|0x0]", "[%#6x|%#06x|%#.0x]", 0, 0, 0);
	EXPECT_FMT("[0x0  ]", "[%-#5hhx]", 256);
	EXPECT_FMT("0x2a 0X2A", "%#x %#X", 42, 42);
	EXPECT_FMT("0", "%#o", 0);
	EXPECT_FMT("0", "%#.0o", 0);		/* # wins over "print nothing for 0" */
	EXPECT_FMT("[]", "[%.0d]", 0);
	EXPECT_FMT("[+]", "[%+.0d]", 0);
	EXPECT_FMT("[+0042]", "[%+05d]", 42);
	EXPECT_FMT("[ 0042]", "[% 05d]", 42);
	EXPECT_FMT("[-0042]", "[%05d]", -42);
	EXPECT_FMT("[  042]", "[%05.3d]", 42);	/* precision turns the 0 flag off */
	EXPECT_FMT("[42   ]", "[%-05d]", 42);	/* and so does '-' */
	EXPECT_FMT("[0x002a]", "[%#06x]", 42);
	EXPECT_FMT("[%|%]", "[%%|%%]%s", "");
}

/* What libc leaves undefined or does differently: Linux's choices. */
KTEST(vsnprintf_linux_choices)
{
	EXPECT_FMT("(null)", "%s", (char *)NULL);
	EXPECT_FMT("    (null)", "%10s", (char *)NULL);
	EXPECT_FMT("(nu", "%.3s", (char *)NULL);
	EXPECT_FMT("0x0000000000000000", "%p", NULL);
	EXPECT_FMT("0xffffffff81000a5c", "%p", (void *)0xffffffff81000a5cul);
	EXPECT_FMT("0x00000000deadbeef", "%px", (void *)0xdeadbeeful);
	EXPECT_FMT("[  0x0000000000001000]", "[%20p]", (void *)0x1000);
	EXPECT_FMT("[0x0000000000001000  ]", "[%-20p]", (void *)0x1000);
	EXPECT_FMT("0x0000000000000010:", "%p:", (void *)16);
}

static unsigned long fake_id(unsigned long addr)
{
	return addr ^ 0xffff0000ffff0000ul;
}

/* With the kernel's key (here a stand-in), %p prints ids as Linux's: no 0x, 16 digits; NULL and
 * error values as they are; %px, %pS and %ps keep the address. */
KTEST(vsnprintf_hashed_pointers)
{
	vsprintf_ptr_id_hook = fake_id;
	EXPECT_FMT("ffff001010ff0a5c", "%p", (void *)0x10ef000a5cul);
	EXPECT_FMT("0000000000000000", "%p", NULL);
	EXPECT_FMT("fffffffffffffff2", "%p", (void *)-14l);
	EXPECT_FMT("[    ffff0000ffff1000]", "[%20p]", (void *)0x1000);
	EXPECT_FMT("0x00000000deadbeef", "%px", (void *)0xdeadbeeful);
	EXPECT_FMT("ffff0000ffff0010:", "%p:", (void *)16);
	vsprintf_ptr_id_hook = NULL;
	EXPECT_FMT("0x0000000000000010", "%p", (void *)16);
}

/* Not part of C: make the mistake visible, and never read past the end of fmt. */
KTEST(vsnprintf_bad_formats)
{
	char buf[16];

	EXPECT_FMT("%y", "%y", 0);
	EXPECT_EQ(ours(buf, sizeof(buf), "abc%"), 3);
	EXPECT_STREQ(buf, "abc");
	EXPECT_EQ(ours(buf, sizeof(buf), "abc%-5l"), 3);
	EXPECT_STREQ(buf, "abc");
}

/* Fields wider than Linux allows are clamped as Linux clamps them: no int overflow reading
 * "%99999999999d", none negating a '*' width of INT_MIN. */
KTEST(vsnprintf_huge_fields)
{
	char buf[16];

	EXPECT_EQ(ours(buf, sizeof(buf), "%99999999999d", 7), (1 << 23) - 1);
	EXPECT_STREQ(buf, "               ");
	EXPECT_EQ(ours(buf, sizeof(buf), "%*d", -0x7fffffff - 1, 7), (1 << 23) - 1);
	EXPECT_STREQ(buf, "7              ");
	EXPECT_EQ(ours(buf, sizeof(buf), "%.99999999999d", 7), (1 << 15) - 1);
	EXPECT_STREQ(buf, "000000000000000");
	EXPECT_EQ(ours(buf, sizeof(buf), "%.*x", 0x7fffffff, 7), (1 << 15) - 1);
	EXPECT_EQ(ours(buf, sizeof(buf), "[%8388607d]", 7), (1 << 23) + 1);
}

KTEST(vsnprintf_char_nul)
{
	char buf[4] = "xyz";

	EXPECT_EQ(snprintf(buf, sizeof(buf), "%c", 0), 1);
	EXPECT_EQ(buf[0], 0);
	EXPECT_EQ(buf[1], 0);
}

/* C99: the return is the full length; the buffer gets what fits, NUL-terminated. */
KTEST(vsnprintf_truncation)
{
	char b5[5], b1[1], b3[3];

	EXPECT_EQ(snprintf(b5, sizeof(b5), "hello world"), 11);
	EXPECT_STREQ(b5, "hell");
	EXPECT_EQ(snprintf(b5, sizeof(b5), "%s", "hello"), 5);
	EXPECT_STREQ(b5, "hell");
	EXPECT_EQ(snprintf(b5, sizeof(b5), "%s", "hell"), 4);
	EXPECT_STREQ(b5, "hell");
	EXPECT_EQ(snprintf(b3, sizeof(b3), "%d", -12345), 6);
	EXPECT_STREQ(b3, "-1");
	EXPECT_EQ(snprintf(b3, sizeof(b3), "%20s", "x"), 20);
	EXPECT_STREQ(b3, "  ");
	EXPECT_EQ(snprintf(b1, sizeof(b1), "hello"), 5);
	EXPECT_EQ(b1[0], '\0');
	/* size 0: nothing is written, not even the NUL; NULL is allowed. */
	b1[0] = 'q';
	EXPECT_EQ(snprintf(b1, 0, "hello %d", 42), 8);
	EXPECT_EQ(b1[0], 'q');
	EXPECT_EQ(snprintf(NULL, 0, "%s", "schedule"), 8);
}

static int ours_vscnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* scnprintf() answers what it stored, so `len += scnprintf(buf + len, size - len, ...)` is safe. */
KTEST(vsnprintf_scnprintf)
{
	char buf[8];
	int len = 0, i;

	EXPECT_EQ(scnprintf(buf, sizeof(buf), "%s", "abc"), 3);
	EXPECT_EQ(scnprintf(buf, sizeof(buf), "%s", "abcdefgh"), 7);
	EXPECT_STREQ(buf, "abcdefg");
	EXPECT_EQ(scnprintf(buf, 1, "abc"), 0);
	EXPECT_EQ(scnprintf(buf, 0, "abc"), 0);
	EXPECT_EQ(ours_vscnprintf(buf, 4, "%d", 123456), 3);
	EXPECT_STREQ(buf, "123");
	for (i = 0; i < 5; i++)
		len += scnprintf(buf + len, sizeof(buf) - len, "%d,", i);
	EXPECT_EQ(len, 7);
	EXPECT_STREQ(buf, "0,1,2,3");
}

/* A stand-in for kallsyms: one function, "schedule", at 0x1000..0x1060. */
static int fake_symbol(char *buf, size_t size, unsigned long addr, bool with_offset)
{
	if (addr < 0x1000 || addr >= 0x1060)
		return 0;
	if (with_offset)
		return snprintf(buf, size, "schedule+%#lx/%#x", addr - 0x1000, 0x60);
	return snprintf(buf, size, "schedule");
}

static int huge_symbol(char *buf, size_t size, unsigned long addr, bool with_offset)
{
	(void)addr;
	(void)with_offset;
	memset(buf, 'a', size - 1);
	buf[size - 1] = '\0';
	return 1000;	/* claims more than the buffer it was given */
}

KTEST(vsnprintf_symbols)
{
	char buf[256];

	vsprintf_symbol_hook = NULL;
	EXPECT_FMT("0x000000000000101a", "%pS", (void *)0x101a);
	EXPECT_FMT("0x000000000000101a", "%ps", (void *)0x101a);

	vsprintf_symbol_hook = fake_symbol;
	EXPECT_FMT("schedule+0x1a/0x60", "%pS", (void *)0x101a);
	EXPECT_FMT("schedule", "%ps", (void *)0x101a);
	EXPECT_FMT("schedule+0x0/0x60 <-x", "%pS <-x", (void *)0x1000);
	EXPECT_FMT("[schedule      ]", "[%-14ps]", (void *)0x1001);
	EXPECT_FMT("[      schedule]", "[%14ps]", (void *)0x1001);
	EXPECT_FMT("[schedule+0x1a/0x60]", "[%5pS]", (void *)0x101a);
	/* Not in any symbol: the hook says 0 and the address prints. */
	EXPECT_FMT("0x0000000000002000", "%pS", (void *)0x2000);
	/* Plain %p never asks the hook. */
	EXPECT_FMT("0x000000000000101a", "%p", (void *)0x101a);

	vsprintf_symbol_hook = huge_symbol;
	EXPECT_EQ(snprintf(buf, sizeof(buf), "%ps", (void *)1), 127);
	EXPECT_EQ(strlen(buf), 127);
	EXPECT_EQ(buf[126], 'a');
	vsprintf_symbol_hook = NULL;
}
