/* Turns one command line into words and runs it: quotes, `>` and `>>` redirection, dispatch. */
#include "kernel/shell.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "lib/errno.h"
#include "lib/string.h"

struct fnode *shell_cwd;

const struct shell_cmd *shell_find_cmd(const char *name)
{
	const struct shell_cmd *c;

	for_each_shell_cmd(c)
		if (!strcmp(c->name, name) && (!c->test_only || test_mode))
			return c;
	return NULL;
}

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

/* `echo WORDS > FILE`: the only command whose output can be redirected, into a file's write handler. */
static int echo_redirect(int argc, char **argv, const char *target, bool append)
{
	char buf[2 * SHELL_LINE_MAX + 2];
	size_t len = 0;
	bool newline = true;
	struct fnode *f;
	int i = 1, err;

	if (i < argc && !strcmp(argv[i], "-n")) {
		newline = false;
		i++;
	}
	/* The words, one space apart, fit: the line they came from was no longer. */
	for (; i < argc; i++) {
		size_t n = strlen(argv[i]);
		memcpy(buf + len, argv[i], n);
		len += n;
		if (i + 1 < argc)
			buf[len++] = ' ';
	}
	if (newline)
		buf[len++] = '\n';
	buf[len] = '\0';

	err = fs_resolve(shell_cwd, target, &f);
	if (!err && f->is_dir)
		err = -EISDIR;
	if (!err && (!f->ops || !f->ops->write))
		err = -EACCES;
	if (err) {
		cprintf("%s: %s\n", target, strerror(err));
		return 1;
	}
	err = fs_write(f, buf, len, append ? FS_APPEND : FS_TRUNC);
	if (err) {
		cprintf("echo: write error: %s\n", strerror(err));
		return 1;
	}
	return 0;
}

int shell_exec(const char *line)
{
	char words[2 * SHELL_LINE_MAX + 2]; /* every word adds at most a NUL */
	char *argv[SHELL_MAX_ARGS + 1];
	int redir_at, argc;
	bool append = false;
	const struct shell_cmd *cmd;

	argc = tokenize(line, words, argv, &redir_at, &append);
	if (argc < 0) {
		cprintf("syntax error: %s\n", argc == -E2BIG ? "too many words" : "unmatched quote or `>'");
		return 2;
	}
	if (argc == 0)
		return redir_at >= 0 ? 2 : 0;
	argv[argc] = NULL;
	if (redir_at >= 0) {
		if (redir_at != argc - 1 || redir_at == 0) {
			cprintf("syntax error: `>' needs one file name, at the end of the line\n");
			return 2;
		}
		if (!strcmp(argv[0], "cat"))
			return cat_redirect(argc - 1, argv, argv[argc - 1]);
		if (strcmp(argv[0], "echo")) {
			cprintf("%s: output redirection is supported for echo and cat only\n", argv[0]);
			return 2;
		}
		return echo_redirect(argc - 1, argv, argv[argc - 1], append);
	}
	cmd = shell_find_cmd(argv[0]);
	if (!cmd) {
		cprintf("%s: command not found\n", argv[0]);
		return 127;
	}
	return cmd->fn(argc, argv);
}
