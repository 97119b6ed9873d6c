/*
 * kernel/shell/shell_split.c: any line the shell's editor lets through (up to SHELL_LINE_MAX bytes)
 * splits into words that fit the word buffer, and, as the oracle, the words quoted again
 * (each in double quotes, '"' and '\' escaped) and joined by spaces, with the redirection
 * put back at the end, split into exactly the same words and redirection.
 *
 * Input: the line (a NUL ends it, as in the kernel).
 */
#include "tests/fuzz/fuzz.h"
#include "kernel/shell/shell.h"
#include "lib/string.h"

static size_t quote(char *dst, const char *word)
{
	size_t n = 0;

	dst[n++] = '"';
	for (; *word; word++) {
		if (*word == '"' || *word == '\\')
			dst[n++] = '\\';
		dst[n++] = *word;
	}
	dst[n++] = '"';
	dst[n++] = ' ';
	return n;
}

/* The words use at most the buffer, and echo's "WORDS\n" (shell_exec.c) fits its own. */
static void check_room(const char *line, const struct shell_words *w)
{
	size_t used = 0, echo = 1;

	for (int i = 0; i <= w->argc; i++) {
		const char *word = i < w->argc ? w->argv[i] : w->target;

		if (!word)
			continue;
		FUZZ_CHECK(word >= w->buf && word + strlen(word) < w->buf + sizeof(w->buf),
			   "\"%s\": word %d outside the buffer", line, i);
		used += strlen(word) + 1;
		echo += strlen(word) + (i > 0);
	}
	FUZZ_CHECK(used <= sizeof(w->buf) && echo < sizeof(w->buf),
		   "\"%s\": %zu bytes of words, %zu of echo text", line, used, echo);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct shell_words w, again;
	static char line2[8 * (SHELL_LINE_MAX + 1)];
	char *line = fuzz_cstr(data, size < SHELL_LINE_MAX ? size : SHELL_LINE_MAX);
	const char *bad = shell_split(line, &w), *bad2;
	size_t n = 0;

	if (bad) {
		fuzz_free(line);
		return 0;
	}
	check_room(line, &w);
	FUZZ_CHECK(w.argc <= SHELL_MAX_ARGS && !w.argv[w.argc], "\"%s\": argv not ended", line);
	for (int i = 0; i < w.argc; i++)
		n += quote(line2 + n, w.argv[i]);
	if (w.redirected) {
		memcpy(line2 + n, w.append ? ">> " : "> ", 3);
		n += w.append ? 3 : 2;
		if (w.target)
			n += quote(line2 + n, w.target);
	}
	line2[n] = '\0';
	bad2 = shell_split(line2, &again);
	FUZZ_CHECK(!bad2, "\"%s\" split, but its words requoted (%s) did not: %s", line, line2, bad2);
	FUZZ_CHECK(again.argc == w.argc && again.redirected == w.redirected &&
			   again.append == w.append && !again.target == !w.target &&
			   (!w.target || !strcmp(again.target, w.target)),
		   "\"%s\" and its requoted form \"%s\" split differently", line, line2);
	for (int i = 0; i < w.argc; i++)
		FUZZ_CHECK(!strcmp(again.argv[i], w.argv[i]), "\"%s\": word %d is \"%s\", requoted \"%s\"",
			   line, i, w.argv[i], again.argv[i]);
	fuzz_free(line);
	return 0;
}
