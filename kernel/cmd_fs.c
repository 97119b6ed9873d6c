/* Shell commands for the file tree: ls, cat, echo, cd, pwd. */
#include "kernel/shell.h"
#include "kernel/printk.h"
#include "lib/errno.h"
#include "lib/string.h"

static int cmd_cat(int argc, char **argv)
{
	char buf[1024];
	struct seq_file m = { .buf = buf, .size = sizeof(buf), .flush = seq_console_flush };
	int status = 0;

	if (argc < 2) {
		cprintf("usage: cat FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct fnode *f;
		int err = fs_resolve(shell_cwd, argv[i], &f);
		if (!err)
			err = fs_read(f, &m);
		seq_flush(&m);
		if (err) {
			cprintf("cat: %s: %s\n", argv[i], strerror(err));
			status = 1;
		}
	}
	return status;
}
SHELL_CMD(cat, cmd_cat, "print files");

static int cmd_ls(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : ".";
	struct fnode *d;
	int err = fs_resolve(shell_cwd, path, &d);

	if (err) {
		cprintf("ls: cannot access '%s': %s\n", path, strerror(err));
		return 2;
	}
	if (!d->is_dir) {
		cprintf("%s\n", path);
		return 0;
	}
	for (struct fnode *f = d->children; f; f = f->next)
		cprintf("%s%s\n", f->name, f->is_dir ? "/" : "");
	return 0;
}
SHELL_CMD(ls, cmd_ls, "list a directory, one entry a line (directories end in /)");

static int cmd_echo(int argc, char **argv)
{
	int i = 1;
	bool newline = true;

	if (i < argc && !strcmp(argv[i], "-n")) {
		newline = false;
		i++;
	}
	for (; i < argc; i++)
		cprintf("%s%s", argv[i], i + 1 < argc ? " " : "");
	if (newline)
		console_puts("\n");
	return 0;
}
SHELL_CMD(echo, cmd_echo, "print words; `echo WORDS > FILE` writes a file, `>>` appends");

static int cmd_cd(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/";
	struct fnode *d;
	int err = fs_resolve(shell_cwd, path, &d);

	if (!err && !d->is_dir)
		err = -ENOTDIR;
	if (err) {
		cprintf("cd: %s: %s\n", path, strerror(err));
		return 1;
	}
	shell_cwd = d;
	return 0;
}
SHELL_CMD(cd, cmd_cd, "change directory");

static int cmd_pwd(int argc, char **argv)
{
	char path[FS_PATH_MAX];
	fs_path(shell_cwd, path, sizeof(path));
	cprintf("%s\n", path);
	return 0;
}
SHELL_CMD(pwd, cmd_pwd, "print the current directory");
