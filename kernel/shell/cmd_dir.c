/* Shell commands that make and remove directories: mkdir and rmdir (tracefs's instances/). */
#include "kernel/shell/shell.h"
#include "kernel/printk/printk.h"
#include "lib/errno.h"
#include "lib/string.h"

/* The directory that holds path's last component, and that component (trailing slashes go). */
static int split_parent(char *path, struct fnode **dir, const char **name)
{
	char *slash;
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	slash = strrchr(path, '/');
	if (!slash) {
		*name = path;
		return fs_resolve(shell_cwd, ".", dir);
	}
	*name = slash + 1;
	if (slash == path)
		return fs_resolve(shell_cwd, "/", dir);
	*slash = '\0';
	return fs_resolve(shell_cwd, path, dir);
}

static int cmd_mkdir(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		cprintf("usage: mkdir DIR...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		char path[FS_PATH_MAX];
		struct fnode *dir;
		const char *name;
		int err;

		strscpy(path, argv[i], sizeof(path));
		err = split_parent(path, &dir, &name);
		if (!err)
			err = *name ? fs_user_mkdir(dir, name) : -EEXIST;
		if (err) {
			cprintf("mkdir: cannot create directory '%s': %s\n", argv[i],
				strerror(err));
			status = 1;
		}
	}
	return status;
}
SHELL_CMD(mkdir, cmd_mkdir, "make directories (in tracefs: instances/NAME, a trace instance)");

static int cmd_rmdir(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		cprintf("usage: rmdir DIR...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct fnode *victim;
		int err = fs_resolve(shell_cwd, argv[i], &victim);

		if (!err)
			err = fs_user_rmdir(victim);
		if (err) {
			cprintf("rmdir: failed to remove '%s': %s\n", argv[i], strerror(err));
			status = 1;
		}
	}
	return status;
}
SHELL_CMD(rmdir, cmd_rmdir, "remove directories (instances/NAME: refused while in use)");
