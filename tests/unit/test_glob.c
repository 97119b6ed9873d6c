/* Unit tests for lib/glob.c: match tables, validity, and the ftrace fast paths agreeing. */
#include "lib/glob.h"
#include "lib/string.h"
#include "lib/compiler.h"
#include "tests/unit/ktest_host.h"

struct row {
	const char *pat, *str;
	bool match;
};

/* Function names from Linux's ftrace self-tests, and the globs those tests write. */
static const char *const names[] = {
	"schedule", "preempt_schedule", "schedule_timeout", "_raw_spin_lock", "_raw_spin_unlock",
	"mutex_trylock", "mutex_lock", "SyS_read", "sys_read", "schxdule",
};

static const struct {
	const char *pat;
	const char *hits;	/* the names it matches, space-separated */
} ftrace_globs[] = {
	{ "*schedule", "schedule preempt_schedule" },
	{ "*schedule*", "schedule preempt_schedule schedule_timeout" },
	{ "schedule*", "schedule schedule_timeout" },
	{ "*pin*lock", "_raw_spin_lock _raw_spin_unlock" },
	{ "mutex*try*", "mutex_trylock" },
	{ "sch*ule", "schedule schxdule" },
	{ "[Ss]y[Ss]_*", "SyS_read sys_read" },
	{ "sch?dule", "schedule schxdule" },
	{ "schedule", "schedule" },
	{ "*", "schedule preempt_schedule schedule_timeout _raw_spin_lock _raw_spin_unlock "
	       "mutex_trylock mutex_lock SyS_read sys_read schxdule" },
	{ "*lock*", "_raw_spin_lock _raw_spin_unlock mutex_trylock mutex_lock" },
	{ "nomatch*", "" },
};

static const struct row stars[] = {
	{ "*", "", true }, { "*", "anything", true }, { "**", "", true },
	{ "***a", "a", true }, { "a*", "a", true }, { "*a", "a", true },
	{ "*a", "ab", false }, { "a*", "ba", false }, { "*a*", "bab", true },
	{ "*a*", "bbb", false }, { "a*b*c", "abc", true }, { "a*b*c", "aXbYc", true },
	{ "a*b*c", "acb", false }, { "a*b*c", "abcabc", true }, { "a*b*c", "abcab", false },
	/* Each needs the star to give back what it swallowed first. */
	{ "*ab", "aab", true }, { "*aab", "aaab", true }, { "*abc", "ababc", true },
	{ "a*a", "aa", true }, { "a*a", "a", false },
	{ "a*c", "a/b/c", true },	/* '/' is nothing special */
	{ "Schedule", "schedule", false },	/* case matters */
};

static const struct row questions[] = {
	{ "?", "", false }, { "?", "a", true }, { "?", "ab", false }, { "??", "a", false },
	{ "*?", "", false }, { "*?", "a", true }, { "?*?", "ab", true }, { "?*?", "a", false },
	{ "a?c", "abc", true }, { "a?c", "ac", false }, { "?\xe9", "x\xe9", true },
	{ "", "", true }, { "", "a", false }, { "a", "", false }, { "abc", "abc", true },
	{ "abc", "abcd", false }, { "abcd", "abc", false },
};

static const struct row classes[] = {
	{ "[abc]", "a", true }, { "[abc]", "d", false }, { "[abc]", "", false },
	{ "[abc]", "ab", false }, { "[a-z]", "m", true }, { "[a-z]", "M", false },
	{ "[a-z0-9_]*", "do_sys_open", true }, { "[a-z0-9_]*", "Do", false },
	{ "[!a-z]", "A", true }, { "[!a-z]", "a", false }, { "[^a-z]", "A", true },
	{ "[^a-z]", "q", false }, { "[!a-z]", "", false },
	/* ']' first is a member; '-' first or last is a member. */
	{ "[]a]", "]", true }, { "[]a]", "a", true }, { "[]a]", "b", false },
	{ "[!]a]", "]", false }, { "[!]a]", "b", true }, { "[^]]", "]", false },
	{ "[a-]", "-", true }, { "[a-]", "a", true }, { "[a-]", "b", false },
	{ "[-a]", "-", true }, { "[!-]", "-", false }, { "[]-a]", "^", true },
	{ "[z-a]", "m", false },	/* a backwards range holds nothing */
	{ "[a-cx-z]", "y", true }, { "[a-cx-z]", "d", false },
	{ "[\xe0-\xef]", "\xe9", true }, { "[\xe0-\xef]", "a", false },
	/* An unterminated class is just a '[' (glob_valid() rejects it first). */
	{ "x[]", "x[]", true }, { "[ab", "[ab", true }, { "[ab", "a", false },
};

static const struct row escapes[] = {
	{ "\\*", "*", true }, { "\\*", "a", false }, { "\\*", "", false },
	{ "a\\?c", "a?c", true }, { "a\\?c", "abc", false },
	{ "\\[a]", "[a]", true }, { "\\[a]", "a", false },
	{ "[\\]]", "]", true }, { "[\\]]", "\\", false },
	{ "[\\!a]", "!", true }, { "[\\!a]", "b", false },
	{ "[a\\-z]", "-", true }, { "[a\\-z]", "m", false },
	{ "[a-\\z]", "m", true }, { "\\\\", "\\", true }, { "\\a", "a", true },
	{ "*\\*", "a*", true }, { "*\\*", "a", false },
	{ "trail\\", "trail\\", true },	/* a lone trailing '\' is itself */
};

static bool check_rows(const struct row *rows, size_t n)
{
	bool all = true;
	size_t i;

	for (i = 0; i < n; i++) {
		bool got = glob_match(rows[i].pat, rows[i].str);

		all &= ktest_check(got == rows[i].match, __FILE__, __LINE__,
				   "glob_match(\"%s\", \"%s\") is %d, expected %d",
				   rows[i].pat, rows[i].str, got, rows[i].match);
	}
	return all;
}

/* Is name one of the space-separated words in list? */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; (p = strstr(p, name)); p += n) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	}
	return false;
}

KTEST(glob_ftrace_selftest_patterns)
{
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(ftrace_globs); i++) {
		for (j = 0; j < ARRAY_SIZE(names); j++) {
			bool want = listed(ftrace_globs[i].hits, names[j]);
			bool got = glob_match(ftrace_globs[i].pat, names[j]);

			ktest_check(got == want, __FILE__, __LINE__,
				    "glob_match(\"%s\", \"%s\") is %d, expected %d",
				    ftrace_globs[i].pat, names[j], got, want);
		}
	}
}

KTEST(glob_stars)
{
	check_rows(stars, ARRAY_SIZE(stars));
}

KTEST(glob_question_and_literals)
{
	check_rows(questions, ARRAY_SIZE(questions));
}

KTEST(glob_classes)
{
	check_rows(classes, ARRAY_SIZE(classes));
}

KTEST(glob_escapes)
{
	check_rows(escapes, ARRAY_SIZE(escapes));
}

/* Only the last star is ever backtracked to, so this is fast, not 2^20 steps. */
KTEST(glob_no_exponential_backtracking)
{
	char s[2001];

	memset(s, 'a', sizeof(s) - 1);
	s[sizeof(s) - 1] = '\0';
	EXPECT_FALSE(glob_match("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*ab", s));
	EXPECT_TRUE(glob_match("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a", s));
	s[sizeof(s) - 2] = 'b';
	EXPECT_TRUE(glob_match("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*ab", s));
}

KTEST(glob_valid_patterns)
{
	static const char *const good[] = {
		"", "abc", "*", "[a]", "[]a]", "[!]]", "[^]]", "\\[", "a\\\\", "[\\]]", "x]",
		"[a-]", "*schedule*", "[Ss]y[Ss]_*",
	};
	static const char *const bad[] = {
		"[", "[abc", "[]", "[!]", "[^]", "abc\\", "[a-", "[a\\", "[a-\\", "\\", "ok*[",
		"[a][", "\\\\\\",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		ktest_check(glob_valid(good[i]), __FILE__, __LINE__, "\"%s\" should be valid",
			    good[i]);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		ktest_check(!glob_valid(bad[i]), __FILE__, __LINE__, "\"%s\" should be invalid",
			    bad[i]);
}

KTEST(glob_classify_kinds)
{
	static const struct {
		const char *pat;
		enum glob_kind kind;
		const char *needle;
	} cases[] = {
		{ "schedule", GLOB_FULL, "schedule" }, { "", GLOB_FULL, "" },
		{ "schedule*", GLOB_FRONT, "schedule" }, { "*schedule", GLOB_END, "schedule" },
		{ "*schedule*", GLOB_MIDDLE, "schedule" }, { "*", GLOB_END, "" },
		{ "**", GLOB_MIDDLE, "" }, { "sch*ule", GLOB_GLOB, "sch*ule" },
		{ "sch?dule", GLOB_GLOB, "sch?dule" }, { "[Ss]ys", GLOB_GLOB, "[Ss]ys" },
		{ "a\\*", GLOB_GLOB, "a\\*" }, { "***", GLOB_GLOB, "***" },
		{ "*a*b*", GLOB_GLOB, "*a*b*" }, { "*pin*lock", GLOB_GLOB, "*pin*lock" },
	};
	const char *needle;
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		enum glob_kind kind = glob_classify(cases[i].pat, &needle, &len);

		ktest_check(kind == cases[i].kind && len == strlen(cases[i].needle) &&
				    !strncmp(needle, cases[i].needle, len),
			    __FILE__, __LINE__, "glob_classify(\"%s\") = %d \"%.*s\", expected %d \"%s\"",
			    cases[i].pat, kind, (int)len, needle, cases[i].kind, cases[i].needle);
	}
}

/* Collect every pattern and string above, so the fast paths meet all of them. */
static size_t gather(const char **pats, const char **strs)
{
	static const struct { const struct row *rows; size_t n; } tables[] = {
		{ stars, ARRAY_SIZE(stars) }, { questions, ARRAY_SIZE(questions) },
		{ classes, ARRAY_SIZE(classes) }, { escapes, ARRAY_SIZE(escapes) },
	};
	size_t t, i, n = 0;

	/* A pattern is also a fine string to match: "*", "[Ss]..." as names. */
	for (i = 0; i < ARRAY_SIZE(ftrace_globs); i++, n++)
		pats[n] = strs[n] = ftrace_globs[i].pat;
	for (t = 0; t < ARRAY_SIZE(tables); t++) {
		for (i = 0; i < tables[t].n; i++, n++) {
			pats[n] = tables[t].rows[i].pat;
			strs[n] = tables[t].rows[i].str;
		}
	}
	return n;
}

/* glob_classify() + glob_kind_match() must answer exactly as glob_match() on every pair. */
KTEST(glob_kind_match_agrees)
{
	static const char *pats[256], *strs[256 + ARRAY_SIZE(names)];
	size_t n = gather(pats, strs), ns = n, i, j, len;
	const char *needle;

	for (j = 0; j < ARRAY_SIZE(names); j++)
		strs[ns++] = names[j];
	for (i = 0; i < n; i++) {
		enum glob_kind kind = glob_classify(pats[i], &needle, &len);

		for (j = 0; j < ns; j++) {
			bool fast = glob_kind_match(kind, needle, len, pats[i], strs[j]);

			ktest_check(fast == glob_match(pats[i], strs[j]), __FILE__, __LINE__,
				    "kind %d for \"%s\" says %d on \"%s\", glob_match disagrees",
				    kind, pats[i], fast, strs[j]);
		}
	}
}
