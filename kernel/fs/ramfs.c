/* Regular files and symlinks with bytes behind them (the initramfs's), readable from the shell too. */
#include "kernel/fs/ramfs.h"
#include "kernel/cred.h"
#include "kernel/fs/file.h"
#include "kernel/mm/mm.h"
#include "lib/string.h"

static int ramfs_show(struct seq_file *m, struct fnode *f)
{
	struct ramfs_inode *i = f->priv;
	seq_write(m, i->data, i->size);
	return 0;
}

/* Executables are bytes, not text: the shell's cat refuses them, as for trace_pipe_raw. */
static const struct file_ops ramfs_text_ops = { .show = ramfs_show };
static const struct file_ops ramfs_binary_ops = { .show = ramfs_show, .binary = true };
static const struct file_ops ramfs_symlink_ops = { 0 };

static bool has_nul(const char *data, size_t size)
{
	for (size_t k = 0; k < size; k++)
		if (!data[k])
			return true;
	return false;
}

struct fnode *ramfs_create(struct fnode *dir, const char *name, unsigned int mode, const char *data,
			   size_t size)
{
	struct ramfs_inode *i = kmalloc(sizeof(*i));
	const struct file_ops *ops = &ramfs_text_ops;
	struct fnode *n;

	if (!i)
		return NULL;
	i->data = data;
	i->size = size;
	i->mode = mode;
	if ((mode & S_IFMT) == S_IFLNK)
		ops = &ramfs_symlink_ops;
	else if (has_nul(data, size))
		ops = &ramfs_binary_ops;
	n = fs_create(dir, name, ops, i);
	if (!n)
		kfree(i);
	return n;
}

struct ramfs_inode *ramfs_inode(const struct fnode *n)
{
	if (n->ops == &ramfs_text_ops || n->ops == &ramfs_binary_ops ||
	    n->ops == &ramfs_symlink_ops)
		return n->priv;
	return NULL;
}

unsigned int fs_mode(const struct fnode *n)
{
	struct ramfs_inode *i = ramfs_inode(n);
	unsigned int tmode = tracefs_mode(n);

	if (tmode)
		return tmode;
	if (n->is_dir)
		return S_IFDIR | 0755;
	if (i)
		return i->mode;
	if (n->ops && n->ops->fops && n->ops->fops->mode)
		return n->ops->fops->mode;
	if (n->ops && n->ops->device)
		return S_IFCHR | 0620;
	return S_IFREG | (n->ops && n->ops->show ? 0444 : 0) | (n->ops && n->ops->write ? 0200 : 0);
}
