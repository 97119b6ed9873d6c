/* Printing in two halves, as trace_printk() needs: vbin_printf() stores a format's arguments as
 * binary words now, bstr_printf() formats them later, when someone reads the trace.
 *
 * The words are laid out as Linux's vbin_printf() lays them out, since trace-cmd decodes a bprint
 * record's buffer by that layout and the format from printk_formats:
 *   an int, long or pointer argument: its size (1, 2, 4 or 8 bytes), aligned to its size, an
 *   8-byte one to 4 only (as two u32 words); a %s: the string's bytes and its NUL, unaligned;
 *   a '*' width or precision: an int. The whole is padded to a multiple of 4 bytes.
 */
#include "lib/printf.h"
#include "lib/string.h"

/* One conversion of a format: its text (for snprintf later) and how its argument is kept. */
struct bspec {
	const char *start; /* the '%' */
	size_t len;	   /* up to and with the conversion character (and a %p's extension) */
	int stars;	   /* '*' width and precision: ints before the value */
	int size;	   /* of the value: 1, 2, 4 or 8; 0 for %s; -1 for none (%%) */
	bool string, pointer, is_signed;
};

/* Parses the conversion at fmt (just past a '%'); returns where the format goes on. */
static const char *parse_bspec(const char *fmt, struct bspec *b)
{
	int qual = 0; /* 'H' hh, 'h', 'l', 'L' ll, 'z' */

	b->stars = 0;
	b->string = b->pointer = b->is_signed = false;
	while (*fmt && strchr("-+ #0", *fmt))
		fmt++;
	for (int part = 0; part < 2; part++) { /* width, then .precision */
		if (part && *fmt == '.')
			fmt++;
		else if (part)
			break;
		if (*fmt == '*') {
			b->stars++;
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			fmt++;
	}
	if (*fmt == 'h') {
		qual = fmt[1] == 'h' ? 'H' : 'h';
		fmt += qual == 'H' ? 2 : 1;
	} else if (*fmt == 'l') {
		qual = fmt[1] == 'l' ? 'L' : 'l';
		fmt += qual == 'L' ? 2 : 1;
	} else if (*fmt == 'z' || *fmt == 't') {
		qual = 'z';
		fmt++;
	}
	switch (*fmt) {
	case 's':
		b->string = true;
		b->size = 0;
		break;
	case 'p':
		b->pointer = true;
		b->size = 8;
		while (fmt[1] &&
		       ((fmt[1] >= 'a' && fmt[1] <= 'z') || (fmt[1] >= 'A' && fmt[1] <= 'Z')))
			fmt++; /* %ps, %pS: the extension letters go with it */
		break;
	case 'c':
		b->size = 1;
		break;
	case 'd':
	case 'i':
		b->is_signed = true;
		/* fall through */
	case 'u':
	case 'x':
	case 'X':
	case 'o':
		b->size = qual == 'H'				      ? 1
			  : qual == 'h'				      ? 2
			  : qual == 'l' || qual == 'L' || qual == 'z' ? 8
								      : 4;
		break;
	default: /* %% and anything unknown: no argument */
		b->size = -1;
		break;
	}
	return *fmt ? fmt + 1 : fmt;
}

static char *align(char *p, const char *base, size_t a)
{
	return (char *)base + ALIGN((size_t)(p - base), a);
}

/* Stores v in size bytes at *p (aligned as Linux does), if it fits before end; moves *p on. */
static void put_arg(char **p, const char *base, const char *end, unsigned long long v, int size)
{
	*p = align(*p, base, size == 8 ? 4 : size);
	if (*p + size <= end)
		memcpy(*p, &v, size); /* little-endian: the low bytes are the value */
	*p += size;
}

int vbin_printf(u32 *bin_buf, size_t size, const char *fmt, va_list args)
{
	char *base = (char *)bin_buf, *p = base, *end = base + size;
	struct bspec b;

	while (*fmt) {
		if (*fmt++ != '%')
			continue;
		fmt = parse_bspec(fmt, &b);
		for (int i = 0; i < b.stars; i++)
			put_arg(&p, base, end, va_arg(args, int), 4);
		if (b.string) {
			const char *s = va_arg(args, const char *);
			size_t n = strlen(s ? s : "(null)") + 1;
			if (p + n <= end)
				memcpy(p, s ? s : "(null)", n);
			p += n;
		} else if (b.size == 8) {
			put_arg(&p, base, end, va_arg(args, unsigned long long), 8);
		} else if (b.size > 0) {
			put_arg(&p, base, end, (unsigned int)va_arg(args, int), b.size);
		}
	}
	return (int)(ALIGN((size_t)(p - base), 4) / 4);
}

/* Reads back what put_arg() stored. */
static unsigned long long get_arg(const char **p, const char *base, int size)
{
	unsigned long long v = 0;

	*p = align((char *)*p, base, size == 8 ? 4 : size);
	memcpy(&v, *p, size);
	*p += size;
	return v;
}

/* The value as the conversion's C type wants it, sign-extended where the type is signed. */
static long long widen(unsigned long long v, int size, bool is_signed)
{
	if (!is_signed || size == 8)
		return (long long)v;
	return size == 1 ? (signed char)v : size == 2 ? (short)v : (int)v;
}

int bstr_printf(char *buf, size_t size, const char *fmt, const u32 *bin_buf)
{
	const char *base = (const char *)bin_buf, *p = base;
	size_t n = 0;
	struct bspec b;

	while (*fmt) {
		const char *pct = strchr(fmt, '%');
		char spec[32];
		int star[2] = { 0, 0 };

		if (!pct) {
			n += snprintf(buf + MIN(n, size), size - MIN(n, size), "%s", fmt);
			break;
		}
		n += snprintf(buf + MIN(n, size), size - MIN(n, size), "%.*s", (int)(pct - fmt),
			      fmt);
		fmt = parse_bspec(pct + 1, &b);
		/* One conversion alone, its length qualifier widened to ll: the value is passed as that. */
		b.len = fmt - pct;
		if (b.len >= sizeof(spec) - 2)
			return -1;
		memcpy(spec, pct, b.len);
		spec[b.len] = '\0';
		for (int i = 0; i < b.stars; i++)
			star[i] = (int)get_arg(&p, base, 4);
		if (b.size < 0) {
			n += snprintf(buf + MIN(n, size), size - MIN(n, size), "%s", spec);
			continue;
		}
		if (!b.string && !b.pointer) { /* rewrite the qualifier: %hhd, %d, %ld -> %lld */
			char conv = spec[b.len - 1], *q = spec + b.len - 1;
			while (q > spec && strchr("hlzt", q[-1]))
				q--;
			if (conv == 'c') {
				strcpy(q, "c");
			} else {
				q[0] = q[1] = 'l';
				q[2] = conv;
				q[3] = '\0';
			}
		}
		const char *s = b.string ? p : NULL;
		unsigned long long v = b.string ? 0 : get_arg(&p, base, b.size);
		if (b.string)
			p += strlen(s) + 1;
		char *out = buf + MIN(n, size);
		size_t room = size - MIN(n, size);
#define BSTR_PRINT(val)                                                                            \
	(b.stars == 2	? snprintf(out, room, spec, star[0], star[1], val)                         \
	 : b.stars == 1 ? snprintf(out, room, spec, star[0], val)                                  \
			: snprintf(out, room, spec, val))
		if (b.string)
			n += BSTR_PRINT(s);
		else if (b.pointer)
			n += BSTR_PRINT((void *)(unsigned long)v);
		else if (b.size == 1 && spec[strlen(spec) - 1] == 'c')
			n += BSTR_PRINT((int)v);
		else
			n += BSTR_PRINT(widen(v, b.size, b.is_signed));
#undef BSTR_PRINT
	}
	if (size)
		buf[MIN(n, size - 1)] = '\0';
	return (int)n;
}
