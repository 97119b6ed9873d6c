/* vsnprintf() and friends: C99 integer/string conversions, %p, and Linux's %pS. */
#include "lib/printf.h"
#include "lib/string.h"
#include "lib/ctype.h"

int (*vsprintf_symbol_hook)(char *buf, size_t size, unsigned long addr, bool with_offset);
unsigned long (*vsprintf_ptr_id_hook)(unsigned long addr);

enum { LEFT = 1, ZEROPAD = 2, PLUS = 4, SPACE = 8, ALT = 16, UPPER = 32 };
enum length { LEN_INT, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_Z, LEN_T };

/* One parsed conversion: "%-08.3lx" is flags LEFT|ZEROPAD, width 8, precision 3, LEN_L. */
struct spec {
	unsigned int flags;
	int width;
	int precision; /* -1 when not given */
	enum length length;
};

/*
 * The buffer being filled. len counts every character produced, even those
 * that did not fit, because vsnprintf() must return the untruncated length.
 */
struct out {
	char *buf;
	size_t size;
	size_t len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

/* Write len bytes of s, padded with spaces to the field width. */
static void field(struct out *o, const struct spec *sp, const char *s, size_t len)
{
	int gap = sp->width - (int)len;

	if (!(sp->flags & LEFT))
		pad(o, ' ', gap);
	while (len--)
		put(o, *s++);
	if (sp->flags & LEFT)
		pad(o, ' ', gap);
}

/*
 * Write v in base with C99's rules. Output is laid out as
 *   [spaces] [sign] [0x] [zeros] digits [spaces]
 * where zeros come from the precision (minimum digit count) or, without a
 * precision, from the 0 flag filling the width.
 */
static void number(struct out *o, const struct spec *sp, unsigned long long v, bool neg,
		   unsigned int base)
{
	const char *xdigits = sp->flags & UPPER ? "0123456789ABCDEF" : "0123456789abcdef";
	char digits[24], sign = 0;
	const char *prefix = "";
	int nd = 0, prec = sp->precision < 0 ? 1 : sp->precision;
	int zeros, len;

	/*
	 * The one break from C99, taken from Linux: %#x of 0 is "0x0", not "0",
	 * so a symbol offset reads "schedule+0x0/0x60" as it does there.
	 */
	if (base == 16 && (sp->flags & ALT)) {
		prefix = sp->flags & UPPER ? "0X" : "0x";
		prec = prec ? prec : 1;
	}
	for (; v; v /= base)
		digits[nd++] = xdigits[v % base];
	/* %#o promises a leading 0; otherwise 0 with precision 0 prints no digits at all. */
	if (base == 8 && (sp->flags & ALT) && prec <= nd)
		prec = nd + 1;
	if (neg)
		sign = '-';
	else if (sp->flags & PLUS)
		sign = '+';
	else if (sp->flags & SPACE)
		sign = ' ';

	zeros = prec > nd ? prec - nd : 0;
	len = (sign != 0) + (int)strlen(prefix) + zeros + nd;
	if ((sp->flags & (ZEROPAD | LEFT)) == ZEROPAD && sp->precision < 0 && sp->width > len) {
		zeros += sp->width - len;
		len = sp->width;
	}
	if (!(sp->flags & LEFT))
		pad(o, ' ', sp->width - len);
	if (sign)
		put(o, sign);
	while (*prefix)
		put(o, *prefix++);
	pad(o, '0', zeros);
	while (nd)
		put(o, digits[--nd]);
	if (sp->flags & LEFT)
		pad(o, ' ', sp->width - len);
}

/* "0x" and 16 lowercase hex digits: every address the same width, for columns. */
static int hex_address(char *buf, unsigned long addr)
{
	int i;

	buf[0] = '0';
	buf[1] = 'x';
	for (i = 0; i < 16; i++)
		buf[2 + i] = "0123456789abcdef"[(addr >> (60 - 4 * i)) & 0xf];
	buf[18] = '\0';
	return 18;
}

/* Linux's %p once the kernel has its key: 16 digits without 0x, of the id (NULL and error values,
 * which are not addresses, as they are). */
static int pointer_id(char *buf, unsigned long addr)
{
	unsigned long v = !addr || addr >= -4095UL ? addr : vsprintf_ptr_id_hook(addr);

	for (int i = 0; i < 16; i++)
		buf[i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xf];
	buf[16] = '\0';
	return 16;
}

/* %p, %px, %pS and %ps (ext is the character after 'p'); returns 1 if ext was part of it. */
static int pointer(struct out *o, const struct spec *sp, unsigned long addr, char ext)
{
	char text[128];
	int n = 0;

	if (ext != 'S' && ext != 's' && ext != 'x' && vsprintf_ptr_id_hook) {
		field(o, sp, text, pointer_id(text, addr));
		return 0;
	}
	if ((ext == 'S' || ext == 's') && vsprintf_symbol_hook)
		n = vsprintf_symbol_hook(text, sizeof(text), addr, ext == 'S');
	if (n >= (int)sizeof(text))
		n = sizeof(text) - 1;
	if (n <= 0)
		n = hex_address(text, addr);
	field(o, sp, text, n);
	return ext == 'S' || ext == 's' || ext == 'x';
}

/*
 * Linux's bounds on a field (lib/vsprintf.c: FIELD_WIDTH_MAX, PRECISION_MAX). Anything wider is a
 * mistake, and "%99999999999d" would overflow an int while its digits are read.
 */
#define WIDTH_MAX ((1 << 23) - 1)
#define PRECISION_MAX ((1 << 15) - 1)

/* Read a width or precision, digits or '*' taking an int argument, clamped to +-max. */
static const char *parse_int(const char *fmt, int *val, int max, va_list *ap)
{
	if (*fmt == '*') {
		*val = va_arg(*ap, int);
		*val = *val > max ? max : *val < -max ? -max : *val;
		return fmt + 1;
	}
	for (*val = 0; isdigit(*fmt); fmt++)
		*val = *val > (max - 9) / 10 ? max : *val * 10 + (*fmt - '0');
	return fmt;
}

/* Parse flags, width, precision and length after a '%'; return the conversion character. */
static const char *parse_spec(const char *fmt, struct spec *sp, va_list *ap)
{
	for (sp->flags = 0;; fmt++) {
		switch (*fmt) {
		case '-':
			sp->flags |= LEFT;
			continue;
		case '0':
			sp->flags |= ZEROPAD;
			continue;
		case '+':
			sp->flags |= PLUS;
			continue;
		case ' ':
			sp->flags |= SPACE;
			continue;
		case '#':
			sp->flags |= ALT;
			continue;
		}
		break;
	}

	sp->width = 0;
	fmt = parse_int(fmt, &sp->width, WIDTH_MAX, ap);
	if (sp->width < 0) {
		/* A negative '*' width means left-justify, as in C. */
		sp->flags |= LEFT;
		sp->width = -sp->width;
	}
	sp->precision = -1;
	if (*fmt == '.') {
		fmt = parse_int(fmt + 1, &sp->precision, PRECISION_MAX, ap);
		if (sp->precision < 0)
			sp->precision = -1;
	}

	sp->length = LEN_INT;
	switch (*fmt++) {
	case 'h':
		sp->length = LEN_H;
		if (*fmt == 'h')
			sp->length = LEN_HH, fmt++;
		break;
	case 'l':
		sp->length = LEN_L;
		if (*fmt == 'l')
			sp->length = LEN_LL, fmt++;
		break;
	case 'j':
		sp->length = LEN_LL;
		break;
	case 'z':
		sp->length = LEN_Z;
		break;
	case 't':
		sp->length = LEN_T;
		break;
	default:
		fmt--; /* no length modifier: that was the conversion */
	}
	return fmt;
}

/* Fetch an integer argument of the spec's length and convert it as C's promotions demand. */
static long long signed_arg(const struct spec *sp, va_list *ap)
{
	switch (sp->length) {
	case LEN_HH:
		return (signed char)va_arg(*ap, int);
	case LEN_H:
		return (short)va_arg(*ap, int);
	case LEN_L:
		return va_arg(*ap, long);
	case LEN_LL:
		return va_arg(*ap, long long);
	case LEN_Z:
		return va_arg(*ap, ssize_t);
	case LEN_T:
		return va_arg(*ap, ptrdiff_t);
	default:
		return va_arg(*ap, int);
	}
}

/* The same for the unsigned conversions. */
static unsigned long long unsigned_arg(const struct spec *sp, va_list *ap)
{
	switch (sp->length) {
	case LEN_HH:
		return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_H:
		return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_L:
		return va_arg(*ap, unsigned long);
	case LEN_LL:
		return va_arg(*ap, unsigned long long);
	case LEN_Z:
		return va_arg(*ap, size_t);
	case LEN_T:
		return (unsigned long)va_arg(*ap, ptrdiff_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

/* Carry out the conversion at *fmt; return the last character of fmt it used. */
static const char *convert(struct out *o, struct spec *sp, const char *fmt, va_list *ap)
{
	long long v;
	const char *s;
	char c;

	switch (*fmt) {
	case 'd':
	case 'i':
		v = signed_arg(sp, ap);
		number(o, sp, v < 0 ? 0ull - v : (unsigned long long)v, v < 0, 10);
		break;
	case 'u':
	case 'o':
	case 'x':
	case 'X':
		/* Signs are for signed conversions; C ignores '+' and ' ' here. */
		sp->flags &= ~(PLUS | SPACE);
		if (*fmt == 'X')
			sp->flags |= UPPER;
		number(o, sp, unsigned_arg(sp, ap), false, *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16);
		break;
	case 'c':
		c = (char)va_arg(*ap, int);
		field(o, sp, &c, 1);
		break;
	case 's':
		s = va_arg(*ap, const char *);
		if (!s)
			s = "(null)";
		field(o, sp, s, strnlen(s, sp->precision < 0 ? (size_t)-1 : (size_t)sp->precision));
		break;
	case 'p':
		fmt += pointer(o, sp, (unsigned long)va_arg(*ap, void *), fmt[1]);
		break;
	case '%':
		put(o, '%');
		break;
	default:
		/* Unknown: show it as written, so the mistake is visible in the output. */
		put(o, '%');
		put(o, *fmt);
	}
	return fmt;
}

/*
 * Format into buf, which always ends up NUL-terminated when size > 0.
 * Returns the length the whole output has, even if it did not fit (C99).
 */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };
	struct spec sp;
	va_list args;

	/* A copy we can pass by address, so helpers may consume arguments. */
	va_copy(args, ap);
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt = parse_spec(fmt + 1, &sp, &args);
		if (!*fmt)
			break;
		fmt = convert(&o, &sp, fmt, &args);
	}
	va_end(args);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* Like vsnprintf(), but returns what was actually stored (without the NUL). */
int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);

	if ((size_t)n < size)
		return n;
	return size ? size - 1 : 0;
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
