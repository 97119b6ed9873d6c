/* Unit tests for kernel/shell/shell_split.c: words, quotes, and where a `>` may stand. */
#include "kernel/shell/shell.h"
#include "lib/string.h"
#include "tests/unit/ktest_host.h"

static struct shell_words w;

static void add(char *out, size_t *n, const char *s)
{
	size_t len = strlen(s);

	memcpy(out + *n, s, len + 1);
	*n += len;
}

/* Splits line and joins the words with '|' (then " > target" or " >> target"), or its error. */
static const char *split(const char *line)
{
	static char out[4 * SHELL_LINE_MAX];
	const char *bad = shell_split(line, &w);
	size_t n = 0;

	if (bad)
		return bad;
	out[0] = '\0';
	for (int i = 0; i < w.argc; i++) {
		if (i)
			add(out, &n, "|");
		add(out, &n, w.argv[i]);
	}
	if (w.target) {
		add(out, &n, w.append ? " >> " : " > ");
		add(out, &n, w.target);
	}
	return out;
}

KTEST(shell_split_words_and_quotes)
{
	EXPECT_STREQ(split("ls  -l\t/sys"), "ls|-l|/sys");
	EXPECT_STREQ(split("echo 'a b' \"c \\\" d\" e\\ f"), "echo|a b|c \" d|e f");
	EXPECT_STREQ(split("echo 'it''s' \"\""), "echo|its|");
	EXPECT_STREQ(split("echo '\\n'"), "echo|\\n");	/* single quotes keep the backslash */
	EXPECT_STREQ(split("   "), "");
	EXPECT_EQ(w.argc, 0);
	EXPECT_EQ(w.argv[0], NULL);
}

KTEST(shell_split_redirection)
{
	EXPECT_STREQ(split("echo sched* > set_ftrace_filter"), "echo|sched* > set_ftrace_filter");
	EXPECT_STREQ(split("echo x>>file"), "echo|x >> file");
	EXPECT_EQ(w.argv[w.argc], NULL);	/* the target is not a word */
	EXPECT_STREQ(split("echo '>' \\> \">>\""), "echo|>|>|>>");
	EXPECT_STREQ(split(">"), "");		/* nothing to run: the shell returns 2, quietly */
	EXPECT_TRUE(w.redirected);
	EXPECT_EQ(w.target, NULL);
}

KTEST(shell_split_errors)
{
	const char *where = "`>' needs one file name, at the end of the line";

	EXPECT_STREQ(split("echo 'open"), "unmatched quote or `>'");
	EXPECT_STREQ(split("echo a > b > c"), "unmatched quote or `>'");
	EXPECT_STREQ(split("echo a > b c"), where);
	EXPECT_STREQ(split("echo a >"), where);
	EXPECT_STREQ(split("> file"), where);
	EXPECT_STREQ(split("a b c d e f g h i j k l m n o p q r s t u v w x y z 1 2 3 4 5 6"),
		     "a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q|r|s|t|u|v|w|x|y|z|1|2|3|4|5|6");
	EXPECT_STREQ(split("a b c d e f g h i j k l m n o p q r s t u v w x y z 1 2 3 4 5 6 7"),
		     "too many words");
}
