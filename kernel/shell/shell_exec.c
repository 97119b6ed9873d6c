/* Runs one command line: split into words (kernel/shell/shell_split.c), then a redirection or a command. */
#include "kernel/shell/shell.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
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
	struct shell_words w;
	const struct shell_cmd *cmd;
	const char *bad = shell_split(line, &w);

	if (bad) {
		cprintf("syntax error: %s\n", bad);
		return 2;
	}
	if (w.argc == 0)
		return w.redirected ? 2 : 0;
	if (w.target) {
		if (!strcmp(w.argv[0], "cat"))
			return cat_redirect(w.argc, w.argv, w.target);
		if (strcmp(w.argv[0], "echo")) {
			cprintf("%s: output redirection is supported for echo and cat only\n",
				w.argv[0]);
			return 2;
		}
		return echo_redirect(w.argc, w.argv, w.target, w.append);
	}
	cmd = shell_find_cmd(w.argv[0]);
	if (!cmd && strchr(w.argv[0], '/'))
		return shell_run_program(w.argc, w.argv); /* a path: a program (cmd_exec.c) */
	if (!cmd) {
		cprintf("%s: command not found\n", w.argv[0]);
		return 127;
	}
	return cmd->fn(w.argc, w.argv);
}
