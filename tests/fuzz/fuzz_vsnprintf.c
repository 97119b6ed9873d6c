/*
 * lib/vsprintf.c against the C library's vsnprintf(3) on the formats both support: flags
 * "-0+ #", widths and precisions (digits or '*'), lengths hh h l ll j z t, conversions
 * d i u o x X c s %. Output bytes, truncation into a buffer of any size, and the return value
 * (the untruncated length) must be identical.
 *
 * Left out, as C leaves them undefined or we differ on purpose: '#' except with o x X; '0' and
 * a precision with c and s; lengths with c and s; anything inside "%%"; a NULL %s; %p (ours is
 * always 18 wide); widths and precisions past what glibc prints (ours are clamped, as Linux's);
 * and %#x of 0, which is "0x0" here as in Linux (vsprintf.c: number()).
 *
 * The input is read as a small program: per conversion, literal text, then the spec's parts and
 * its argument. The arguments travel as 12 64-bit words: on x86-64 every integer and pointer
 * argument takes one such slot, so both implementations read exactly what a caller passing
 * the proper types would have given them.
 */
#include "tests/fuzz/fuzz.h"
#include "lib/printf.h"
#include "lib/string.h"

#define NARGS 12

struct reader {
	const u8 *p;
	size_t left;
};

static unsigned int take(struct reader *r)
{
	if (!r->left)
		return 0;
	r->left--;
	return *r->p++;
}

static unsigned long long take64(struct reader *r)
{
	unsigned long long v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | take(r);
	return v;
}

static const char *const strings[] = { "", "a", "hello", "two words", "tab\there", "%d" };
static const char *const lengths[] = { "", "", "hh", "h", "l", "ll", "j", "z", "t" };
static const char convs[] = "diuoxXcs%";

/* The value an integer conversion will print, after its length's conversion. */
static unsigned long long as_printed(unsigned long long v, const char *len)
{
	if (!strcmp(len, "hh"))
		return (u8)v;
	if (!strcmp(len, "h"))
		return (u16)v;
	if (!*len)
		return (u32)v;
	return v;
}

/* Appends one conversion (and its arguments) to fmt/args; false when out of room. */
static bool one_spec(struct reader *r, char *fmt, size_t *n, unsigned long long *args, int *na)
{
	unsigned int flags = take(r), shape = take(r);
	char conv = convs[take(r) % (sizeof(convs) - 1)];
	const char *len = lengths[shape % 9];
	bool integer = strchr("diuoxX", conv) != NULL;
	unsigned long long v;
	char spec[40];
	int k = 0;

	if (*na + 3 > NARGS)
		return false;
	if (conv == '%') { /* C allows nothing between the two */
		if (*n + 3 > 200)
			return false;
		memcpy(fmt + *n, "%%", 2);
		*n += 2;
		return true;
	}
	if (!integer)
		len = "";
	spec[k++] = '%';
	for (int i = 0; i < 5; i++) {
		/* '#' only where C defines it (o x X), '0' only on integers. */
		if (!(flags & (1u << i)) || (i == 3 && !strchr("oxX", conv)) ||
		    (i == 4 && !integer))
			continue;
		spec[k++] = "-+ #0"[i];
	}
	switch ((shape >> 4) & 3) { /* width */
	case 1:
		k += snprintf(spec + k, 5, "%u", take(r) % 40);
		break;
	case 2:
		spec[k++] = '*';
		args[(*na)++] = (int)(take(r) % 81) - 40; /* negative: left-justify */
		break;
	}
	if (integer || conv == 's') {
		switch ((shape >> 6) & 3) { /* precision */
		case 1:
			k += snprintf(spec + k, 6, ".%u", take(r) % 30);
			break;
		case 2:
			spec[k++] = '.';
			spec[k++] = '*';
			args[(*na)++] = (int)(take(r) % 41) - 10; /* negative: as if none */
			break;
		case 3:
			spec[k++] = '.';
			break;
		}
	}
	k += snprintf(spec + k, 4, "%s", len);
	spec[k++] = conv;
	v = take64(r);
	if (conv == 's')
		args[(*na)++] = (unsigned long)strings[v % ARRAY_SIZE(strings)];
	else
		args[(*na)++] = v;
	/* %#x and %#X of 0: drop the '#', where we follow Linux and C does not. */
	if (strchr("xX", conv) && !as_printed(v, len) && (flags & 8)) {
		char *hash = strchr(spec, '#');
		memmove(hash, hash + 1, spec + k - hash);
		k--;
	}
	if (*n + k + 1 > 200)
		return false;
	memcpy(fmt + *n, spec, k);
	*n += k;
	return true;
}

static int ours(char *buf, size_t size, const char *fmt, const unsigned long long *a, ...)
{
	va_list ap;
	int n;

	va_start(ap, a);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

static int theirs(char *buf, size_t size, const char *fmt, const unsigned long long *a, ...)
{
	va_list ap;
	int n;

	va_start(ap, a);
	n = libc_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

#define ARGS(a) a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11]

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct reader r = { data, size };
	unsigned long long args[NARGS] = { 0 };
	char fmt[256], a[512], b[512];
	size_t n = 0, bufsize = take(&r) % 64;
	int na = 0, got, want;

	if (take(&r) & 1)
		bufsize = sizeof(a); /* mostly untruncated, sometimes cut anywhere */
	while (r.left) {
		unsigned int lit = take(&r) % 4;

		while (lit-- && r.left && n < 200) {
			char c = take(&r);
			if (c && c != '%')
				fmt[n++] = c;
		}
		if (!one_spec(&r, fmt, &n, args, &na))
			break;
	}
	fmt[n] = '\0';
	memset(a, 0x55, sizeof(a));
	memset(b, 0x55, sizeof(b));
	got = ours(a, bufsize, fmt, args, ARGS(args));
	want = theirs(b, bufsize, fmt, args, ARGS(args));
	FUZZ_CHECK(got == want && !memcmp(a, b, sizeof(a)),
		   "vsnprintf(size %zu, \"%s\"): returned %d \"%.*s\", C library %d \"%.*s\"", bufsize,
		   fmt, got, (int)bufsize, a, want, (int)bufsize, b);
	return 0;
}
