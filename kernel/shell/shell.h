/* The serial shell: commands register themselves in a linker section; the shell finds them there. */
#ifndef KERNEL_SHELL_H
#define KERNEL_SHELL_H

#include "lib/compiler.h"
#include "kernel/fs/fs.h"

#define SHELL_LINE_MAX 255
#define SHELL_MAX_ARGS 32

struct shell_cmd {
	const char *name;
	const char *help;
	int (*fn)(int argc, char **argv); /* returns 0 or a nonzero status */
	bool test_only;			  /* exists only when booted with "test" */
};

/* SHELL_CMD(ls, cmd_ls, "list a directory") puts an entry in the .shell_cmds section. */
#define __SHELL_CMD(n, f, h, t)                                                                    \
	static const struct shell_cmd __shell_cmd_##n __used __section(".shell_cmds")              \
		__aligned(8) = { #n, h, f, t }
#define SHELL_CMD(n, f, h) __SHELL_CMD(n, f, h, false)
#define SHELL_TEST_CMD(n, f, h) __SHELL_CMD(n, f, h, true)

extern const struct shell_cmd __start_shell_cmds[], __stop_shell_cmds[];
#define for_each_shell_cmd(c) for (c = __start_shell_cmds; c < __stop_shell_cmds; c++)

/* The directory relative paths start from; the prompt shows it. */
extern struct fnode *shell_cwd;
/* `cat FILE... > DEVICE` (kernel/shell/cmd_fs.c): argv ends before the target. */
int cat_redirect(int argc, char **argv, const char *target);

/* A command word with a slash: runs that program in the foreground (kernel/shell/cmd_exec.c). */
int shell_run_program(int argc, char **argv);

/* Looks up a command by name (test-only commands only in test mode). */
const struct shell_cmd *shell_find_cmd(const char *name);
/* A line split into words (kernel/shell/shell_split.c): argv[argc] is NULL, and a `>`/`>>`'s file
 * name is target, not a word. Each word takes at most its share of the line plus a NUL. */
struct shell_words {
	char buf[2 * SHELL_LINE_MAX + 2];
	char *argv[SHELL_MAX_ARGS + 1];
	int argc;
	bool redirected;    /* a `>` or `>>` was there (with no words, the line does nothing) */
	const char *target; /* the file after it, when there are words */
	bool append;	    /* `>>` */
};
/* Splits line (at most SHELL_LINE_MAX characters) into w; NULL, or what is wrong with it. */
const char *shell_split(const char *line, struct shell_words *w);

/* Parses and runs one line: words, quotes, `>`/`>>` redirection of echo. */
int shell_exec(const char *line);
/* Reads lines and runs them, forever. */
void __noreturn shell_run(void);

/*
 * Tab completion of the last word of line: a command name if it is the first word, else a file
 * name. Writes what to append into add; returns true if it printed the candidates instead (the
 * caller then redraws the prompt and the line).
 */
bool shell_complete(const char *line, char *add, size_t size);

/* Ctrl-C typed while a command prints: long-running commands poll this and stop. */
bool shell_interrupted(void);

#endif
