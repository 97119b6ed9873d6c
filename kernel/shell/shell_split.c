/* A command line's syntax: words, quotes and one `>`/`>>` redirection. Pure text work, so the
 * host fuzzes it too (tests/fuzz/fuzz_shell_split.c). */
#include "kernel/shell/shell.h"
#include "lib/errno.h"
#include "lib/string.h"

/*
 * Splits src into words copied to out. Single quotes keep everything literally; double quotes
 * allow \" and \\; a backslash outside quotes keeps the next character. An unquoted `>` or `>>`
 * ends a word; *redir_at is the index of the word after it. Returns the word count or -errno.
 */
static int tokenize(const char *src, char *out, char **argv, int *redir_at, bool *append)
{
	int argc = 0;

	*redir_at = -1;
	for (;;) {
		while (*src == ' ' || *src == '\t')
			src++;
		if (!*src)
			return argc;
		if (*src == '>') {
			if (*redir_at >= 0)
				return -EINVAL;
			*append = src[1] == '>';
			src += *append ? 2 : 1;
			*redir_at = argc;
			continue;
		}
		if (argc == SHELL_MAX_ARGS)
			return -E2BIG;
		argv[argc++] = out;
		char quote = 0;
		while (*src && (quote || !strchr(" \t>", *src))) {
			char c = *src++;
			if (c == quote)
				quote = 0;
			else if (!quote && (c == '\'' || c == '"'))
				quote = c;
			else if (c == '\\' && quote != '\'' && *src)
				*out++ = *src++;
			else
				*out++ = c;
		}
		if (quote)
			return -EINVAL;
		*out++ = '\0';
	}
}

const char *shell_split(const char *line, struct shell_words *w)
{
	int redir_at;

	w->append = false;
	w->target = NULL;
	w->argc = tokenize(line, w->buf, w->argv, &redir_at, &w->append);
	if (w->argc < 0) {
		int err = w->argc;

		w->argc = 0;
		return err == -E2BIG ? "too many words" : "unmatched quote or `>'";
	}
	w->argv[w->argc] = NULL;
	w->redirected = redir_at >= 0;
	if (!w->redirected || w->argc == 0)
		return NULL;
	if (redir_at != w->argc - 1 || redir_at == 0)
		return "`>' needs one file name, at the end of the line";
	w->target = w->argv[--w->argc];
	w->argv[w->argc] = NULL;
	return NULL;
}
