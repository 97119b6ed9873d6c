/* Memory and string routines for a kernel that has no libc. */
#include "lib/string.h"
#include "lib/ctype.h"
#include "lib/errno.h"

/* A u64 the compiler may assume aliases anything, so word copies are legal C. */
typedef u64 __attribute__((may_alias)) word_t;

static bool both_aligned(const void *a, const void *b)
{
	return (((uintptr_t)a | (uintptr_t)b) & (sizeof(word_t) - 1)) == 0;
}

/* Copy n bytes from src to dst, which must not overlap; return dst. */
void *memcpy(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	/* Whole words when both sides allow it: trace output copies a lot. */
	if (both_aligned(d, s)) {
		for (; n >= sizeof(word_t); n -= sizeof(word_t)) {
			*(word_t *)d = *(const word_t *)s;
			d += sizeof(word_t);
			s += sizeof(word_t);
		}
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

/* Copy n bytes from src to dst even when they overlap; return dst. */
void *memmove(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	if (d <= s || d >= s + n) {
		while (n--)
			*d++ = *s++;
	} else {
		/* dst overlaps the tail of src: copy backwards so src is read before overwritten. */
		while (n--)
			d[n] = s[n];
	}
	return dst;
}

/* Fill n bytes at dst with the byte c; return dst. */
void *memset(void *dst, int c, size_t n)
{
	u8 *d = dst;
	word_t w = (u8)c * 0x0101010101010101ull;

	for (; n && ((uintptr_t)d & (sizeof(word_t) - 1)); n--)
		*d++ = (u8)c;
	for (; n >= sizeof(word_t); n -= sizeof(word_t)) {
		*(word_t *)d = w;
		d += sizeof(word_t);
	}
	while (n--)
		*d++ = (u8)c;
	return dst;
}

/* Compare n bytes as unsigned chars: <0, 0 or >0 like the first differing byte. */
int memcmp(const void *a, const void *b, size_t n)
{
	const u8 *x = a, *y = b;

	for (; n; n--, x++, y++) {
		if (*x != *y)
			return *x - *y;
	}
	return 0;
}

/* The number of bytes before the terminating NUL. */
size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return p - s;
}

/* Like strlen(), but never looks at more than max bytes. */
size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

/* Compare two strings as unsigned chars. */
int strcmp(const char *a, const char *b)
{
	return strncmp(a, b, (size_t)-1);
}

/* Compare at most n characters of two strings as unsigned chars. */
int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (u8)*a - (u8)*b;
		if (!*a)
			break;
	}
	return 0;
}

/* The first c in s (c may be NUL, finding the terminator), or NULL. */
char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

/* The last c in s (c may be NUL, finding the terminator), or NULL. */
char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

/* The first occurrence of needle in haystack; haystack itself if needle is "". */
char *strstr(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	if (!n)
		return (char *)haystack;
	for (; *haystack; haystack++) {
		if (!strncmp(haystack, needle, n))
			return (char *)haystack;
	}
	return NULL;
}

/* Copies src with its NUL; dst must have room (the trace events' __assign_str sized it). */
char *strcpy(char *dst, const char *src)
{
	char *d = dst;

	while ((*d++ = *src++))
		;
	return dst;
}

/*
 * Copy src into dst of size bytes, always NUL-terminated when size > 0.
 * Returns the length copied, or -E2BIG if src did not fit and was cut.
 */
ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t i;

	if (size == 0)
		return -E2BIG;
	for (i = 0; i < size; i++) {
		dst[i] = src[i];
		if (!src[i])
			return i;
	}
	dst[size - 1] = '\0';
	return -E2BIG;
}

/* Length of the run at the start of s made only of characters in accept. */
size_t strspn(const char *s, const char *accept)
{
	size_t n = 0;

	while (s[n] && strchr(accept, s[n]))
		n++;
	return n;
}

/* Length of the run at the start of s made only of characters not in reject. */
size_t strcspn(const char *s, const char *reject)
{
	size_t n = 0;

	while (s[n] && !strchr(reject, s[n]))
		n++;
	return n;
}

/*
 * Cut the next token off *sp: the text up to the first delimiter, which becomes NUL. *sp moves
 * past it, or becomes NULL after the last token. Empty tokens are returned as "".
 */
char *strsep(char **sp, const char *delim)
{
	char *s = *sp, *end;

	if (!s)
		return NULL;
	end = s + strcspn(s, delim);
	*sp = *end ? end + 1 : NULL;
	*end = '\0';
	return s;
}

/* The first character of s that is not white space. */
char *skip_spaces(const char *s)
{
	while (isspace(*s))
		s++;
	return (char *)s;
}

/* Cut white space off the end of s in place; return s past its leading white space. */
char *strim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace(s[n - 1]))
		n--;
	s[n] = '\0';
	return skip_spaces(s);
}
