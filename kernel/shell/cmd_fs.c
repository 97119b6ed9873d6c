/* Shell commands for the file tree: ls, cat, echo, cd, pwd. */
#include "kernel/shell/shell.h"
#include "kernel/fs/devfs.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
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
		if (!err && !f->is_dir && f->ops && f->ops->binary) {
			/* Read nothing: a consuming file must not lose what the console cannot show. */
			cprintf("cat: %s: binary file, redirect it to /dev/ttyS1\n", argv[i]);
			status = 1;
			continue;
		}
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
SHELL_CMD(cat, cmd_cat, "print files; `cat FILE > /dev/ttyS1` sends one to the host");

/* A whole file in memory: the frame gives its length first, so nothing is sent before the end. */
struct collect {
	struct seq_file m;
	char *data;
	size_t len, cap;
};

/* Moves the seq_file's chunk to the end of data, growing it; a chunk that does not fit is
 * dropped whole and marked as overflow, which the show handler may see (trace_pipe_raw). */
static void collect_flush(struct seq_file *m)
{
	struct collect *c = container_of(m, struct collect, m);

	if (c->len + m->count > c->cap) {
		size_t cap = MAX(2 * c->cap, c->len + m->count);
		char *data = kmalloc(cap);
		if (!data) {
			m->overflow = true;
			return;
		}
		memcpy(data, c->data, c->len);
		kfree(c->data);
		c->data = data;
		c->cap = cap;
	}
	memcpy(c->data + c->len, m->buf, m->count);
	c->len += m->count;
}

/*
 * `cat FILE... > DEVICE`: each file is read whole, then sent as one frame (dev_send_frame()) named
 * by its absolute path. Any error stops before the frame, so the host sees whole files or nothing.
 */
int cat_redirect(int argc, char **argv, const char *target)
{
	char chunk[1024];
	struct fnode *dev;
	int err = fs_resolve(shell_cwd, target, &dev);

	if (!err && (dev->is_dir || !dev->ops || !dev->ops->device))
		err = -EINVAL;
	if (err == -EINVAL) {
		cprintf("cat: output redirection goes to a device only, such as /dev/ttyS1\n");
		return 2;
	}
	if (err) {
		cprintf("%s: %s\n", target, strerror(err));
		return 1;
	}
	if (argc < 2) {
		cprintf("usage: cat FILE... > DEVICE\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct collect c = {
			.m = { .buf = chunk, .size = sizeof(chunk), .flush = collect_flush }
		};
		char path[FS_PATH_MAX];
		struct fnode *f;

		err = fs_resolve(shell_cwd, argv[i], &f);
		if (!err)
			err = fs_read(f, &c.m);
		seq_flush(&c.m);
		if (!err && c.m.overflow)
			err = -ENOMEM;
		if (!err) {
			fs_path(f, path, sizeof(path));
			err = dev_send_frame(dev, path, c.data, c.len);
		}
		kfree(c.data);
		if (err) {
			cprintf("cat: %s: %s\n", argv[i], strerror(err));
			return 1;
		}
	}
	return 0;
}

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
	/* Pinned while we stand in it: a removed event's directory must not vanish under us. */
	fs_pin(d);
	fs_unpin(shell_cwd);
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
