/* Wildcard matching: '*', '?', '[...]' classes and '\' escapes, on whole strings. */
#include "lib/glob.h"
#include "lib/string.h"

/*
 * Match c against the class whose text starts at p, just after the '['. A
 * leading '!' or '^' negates it; a ']' right at the start, and a '-' at
 * either end, are literal; '\' escapes the next character. Returns a pointer
 * past the closing ']' and sets *hit, or returns NULL if the class never ends.
 */
static const char *match_class(const char *p, char c, bool *hit)
{
	bool negate = false, found = false;
	const char *first;

	if (*p == '!' || *p == '^') {
		negate = true;
		p++;
	}
	for (first = p; *p != ']' || p == first;) {
		u8 lo, hi;

		if (*p == '\\')
			p++;
		if (!*p)
			return NULL;
		lo = hi = *p++;
		if (p[0] == '-' && p[1] && p[1] != ']') {
			p++;
			if (*p == '\\')
				p++;
			if (!*p)
				return NULL;
			hi = *p++;
		}
		if (lo <= (u8)c && (u8)c <= hi)
			found = true;
	}
	*hit = found != negate;
	return p + 1;
}

/* If the pattern element at pat matches the character c (never NUL), its length in pat; else 0. */
static size_t match_elem(const char *pat, char c)
{
	const char *end;
	bool hit;

	switch (*pat) {
	case '?':
		return 1;
	case '[':
		end = match_class(pat + 1, c, &hit);
		if (end)
			return hit ? end - pat : 0;
		break; /* unterminated: a literal '[' */
	case '\\':
		if (pat[1])
			return pat[1] == c ? 2 : 0;
		break; /* trailing: a literal '\' */
	}
	return *pat == c;
}

/*
 * Does all of str match pat? On a mismatch we only ever back up to the most
 * recent '*' and let it swallow one more character: whatever earlier stars
 * matched can stay, since the last star can absorb anything they could have.
 * That keeps the cost at O(len(pat) * len(str)), never exponential.
 */
bool glob_match(const char *pat, const char *str)
{
	const char *star_pat = NULL, *star_str = NULL;
	size_t n;

	for (;;) {
		if (*pat == '*') {
			/* Try the star as empty first; remember where to come back to. */
			star_pat = ++pat;
			star_str = str;
		} else if (!*str) {
			/* Stars could only consume more of str, and there is none left. */
			return !*pat;
		} else if ((n = match_elem(pat, *str))) {
			pat += n;
			str++;
		} else if (star_pat) {
			pat = star_pat;
			str = ++star_str;
		} else {
			return false;
		}
	}
}

/* False if pat has an unterminated '[' class or ends in a lone '\'. */
bool glob_valid(const char *pat)
{
	bool hit;

	for (; *pat; pat++) {
		if (*pat == '\\') {
			if (!*++pat)
				return false;
		} else if (*pat == '[') {
			pat = match_class(pat + 1, 'x', &hit);
			if (!pat)
				return false;
			pat--;
		}
	}
	return true;
}

/*
 * Which kind of pattern pat is (see enum glob_kind). For the literal kinds,
 * *needle and *needle_len give the text between the stars; for GLOB_GLOB
 * they give the whole pattern.
 */
enum glob_kind glob_classify(const char *pat, const char **needle, size_t *needle_len)
{
	size_t len = strlen(pat), i;
	bool front = len > 0 && pat[0] == '*';
	bool back = len > front && pat[len - 1] == '*';

	*needle = pat;
	*needle_len = len;
	for (i = 0; i < len; i++) {
		if (strchr("?[\\", pat[i]) || (pat[i] == '*' && i != 0 && i != len - 1))
			return GLOB_GLOB;
	}
	*needle = pat + front;
	*needle_len = len - front - back;
	if (front && back)
		return GLOB_MIDDLE;
	if (front)
		return GLOB_END;
	return back ? GLOB_FRONT : GLOB_FULL;
}

static bool contains(const char *str, const char *needle, size_t len)
{
	size_t slen = strlen(str), i;

	if (len == 0)
		return true;
	for (i = 0; i + len <= slen; i++) {
		if (str[i] == needle[0] && !memcmp(str + i, needle, len))
			return true;
	}
	return false;
}

/*
 * Does str match a pattern that glob_classify() said is of kind, with the
 * needle it gave? Always the same answer as glob_match(pat, str).
 */
bool glob_kind_match(enum glob_kind kind, const char *needle, size_t len, const char *pat,
		     const char *str)
{
	size_t slen;

	switch (kind) {
	case GLOB_FULL:
		return !strncmp(str, needle, len) && str[len] == '\0';
	case GLOB_FRONT:
		return !strncmp(str, needle, len);
	case GLOB_END:
		slen = strlen(str);
		return slen >= len && !memcmp(str + slen - len, needle, len);
	case GLOB_MIDDLE:
		return contains(str, needle, len);
	default:
		return glob_match(pat, str);
	}
}
