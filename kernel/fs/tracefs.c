/* tracefs-style helpers over the in-memory file tree: files made from tables, all or none, and
 * numeric files; every failure to make one is said, naming it. */
#include "kernel/fs/tracefs.h"
#include "kernel/printk/printk.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"

static void say_failed(const char *what, struct fnode *parent, const char *name)
{
	char path[FS_PATH_MAX];

	if (parent)
		fs_path(parent, path, sizeof(path));
	pr_warn("Could not create %s '%s%s%s'\n", what, parent ? path : "",
		parent && parent->parent ? "/" : "", name);
}

struct fnode *tracefs_create_file(const char *name, struct fnode *parent, void *data,
				  const struct file_ops *fops)
{
	struct fnode *f = parent ? fs_create(parent, name, fops, data) : NULL;

	if (!f)
		say_failed("tracefs entry", parent, name);
	return f;
}

struct fnode *tracefs_create_dir(const char *name, struct fnode *parent)
{
	struct fnode *d = parent ? fs_mkdir(parent, name) : NULL;

	if (!d)
		say_failed("directory", parent, name);
	return d;
}

struct fnode *tracefs_create_path(const char *path)
{
	struct fnode *d = fs_mkdir_p(path);

	if (!d)
		say_failed("directory", NULL, path);
	return d;
}

void tracefs_remove_files(struct fnode *parent, const struct tracefs_file *files, size_t n)
{
	struct fnode *f;

	for (size_t i = 0; i < n; i++)
		if (!fs_resolve(parent ?: fs_root(), files[i].name, &f) && f->ops == &files[i].fops)
			fs_remove(f);
}

/* Where an entry goes: parent, or for an absolute name its directory, made if missing. */
static struct fnode *entry_dir(struct fnode *parent, const char *name, const char **base)
{
	const char *slash = strrchr(name, '/');
	char dir[FS_PATH_MAX];

	*base = slash ? slash + 1 : name;
	if (name[0] != '/')
		return parent;
	if ((size_t)(slash - name) >= sizeof(dir))
		return NULL;
	memcpy(dir, name, slash - name);
	dir[slash - name] = '\0';
	return tracefs_create_path(dir);
}

int tracefs_create_files(struct fnode *parent, const struct tracefs_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *base;
		struct fnode *dir = entry_dir(parent, files[i].name, &base);

		if (!tracefs_create_file(base, dir, files[i].data, &files[i].fops)) {
			tracefs_remove_files(parent, files, i);
			return -ENOMEM;
		}
	}
	return 0;
}

int tracefs_ulong_show(struct seq_file *m, struct fnode *f)
{
	const struct tracefs_ulong *u = f->priv;

	seq_printf(m, "%lu\n", u->get ? u->get(u->data) : READ_ONCE(*u->value));
	return 0;
}

int tracefs_ulong_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	const struct tracefs_ulong *u = f->priv;
	unsigned long v;

	if (fs_write_ulong(buf, len, u->min, u->max, &v))
		return -EINVAL;
	if (u->set)
		return u->set(u->data, v);
	WRITE_ONCE(*u->value, v);
	return 0;
}
