/*
 * Inodes and names of the writable file systems (Linux: fs/ramfs/inode.c, mm/shmem.c's inode
 * side): the initramfs's files, and the files, directories, symlinks and hard links programs make
 * in the rootfs and in a tmpfs. The bytes are kernel/fs/ramfs_file.c's.
 */
#include "kernel/fs/ramfs.h"
#include "kernel/cred.h"
#include "kernel/fs/file.h"
#include "kernel/locking/mutex.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/string.h"

/* Linux's rootfs is a tmpfs of half the memory; the limit is set at tmpfs_init(). */
struct super_block rootfs_sb = { .type = "rootfs", .magic = RAMFS_MAGIC };

static DEFINE_MUTEX(ramfs_mutex);

void ramfs_lock(void)
{
	mutex_lock(&ramfs_mutex);
}

void ramfs_unlock(void)
{
	mutex_unlock(&ramfs_mutex);
}

static int ramfs_show(struct seq_file *m, struct fnode *f)
{
	struct ramfs_inode *i = f->priv;
	size_t len;

	ramfs_lock();
	for (u64 pos = 0; pos < i->size; pos += len) {
		const void *p = ramfs_bytes_at(i, pos, &len);
		if (p) {
			seq_write(m, p, len);
		} else {
			for (size_t k = 0; k < len; k++)
				seq_putc(m, '\0');
		}
	}
	ramfs_unlock();
	return 0;
}

/* The shell's `echo x > FILE` and `>> FILE` on a file of ours: FS_TRUNC or FS_APPEND. */
static int ramfs_shell_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct ramfs_inode *i = f->priv;
	ssize_t n = 0;
	int err = 0;

	ramfs_lock();
	if ((i->mode & S_IFMT) != S_IFREG)
		err = -EINVAL;
	else if (!(flags & FS_APPEND))
		err = ramfs_truncate(i, 0);
	if (!err)
		n = ramfs_write_kernel(i, buf, len, i->size);
	ramfs_unlock();
	return err ? err : n < 0 ? (int)n : 0;
}

/* The last close of an unlinked file comes from fput(), outside the lock; an unlink or a
 * rename that frees a name holds it already. */
static void ramfs_evict(struct fnode *f)
{
	ramfs_iput(f->priv);
}

/* Executables are bytes, not text: the shell's cat refuses them, as for trace_pipe_raw. */
static const struct file_ops ramfs_text_ops = {
	.show = ramfs_show,
	.write = ramfs_shell_write,
	.evict = ramfs_evict,
};
static const struct file_ops ramfs_binary_ops = {
	.show = ramfs_show,
	.binary = true,
	.evict = ramfs_evict,
};
static const struct file_ops ramfs_symlink_ops = { .evict = ramfs_evict };
static const struct file_ops ramfs_dir_ops = { .evict = ramfs_evict };

static bool has_nul(const char *data, size_t size)
{
	for (size_t k = 0; k < size; k++)
		if (!data[k])
			return true;
	return false;
}

/* A fresh inode counted in sb (NULL past its inode limit or out of memory), root's when the
 * kernel makes it (the initramfs is unpacked before there is a current task). */
static struct ramfs_inode *new_inode(struct super_block *sb, unsigned int mode, bool kernel)
{
	struct ramfs_inode *i;

	if (sb->max_inodes && sb->nr_inodes >= sb->max_inodes)
		return NULL;
	if (!(i = kzalloc(sizeof(*i))))
		return NULL;
	i->mode = mode;
	i->sb = sb;
	i->uid = kernel ? 0 : current->fsuid;
	i->gid = kernel ? 0 : current->fsgid;
	i->nlink = (mode & S_IFMT) == S_IFDIR ? 2 : 1;
	i->mtime = ktime_get_ns();
	sb->nr_inodes++;
	return i;
}

static void ramfs_free_inode(struct ramfs_inode *i)
{
	if ((i->mode & S_IFMT) == S_IFREG)
		ramfs_truncate(i, 0);
	kfree(i->pages);
	if (i->data_owned)
		kfree(i->data);
	if (!--i->sb->nr_inodes && i->sb->dead)
		kfree(i->sb);
	kfree(i);
}

void ramfs_ihold(struct ramfs_inode *i)
{
	__atomic_add_fetch(&i->refs, 1, __ATOMIC_RELAXED);
}

/* Called with the lock (an unlink, a rename) or without (the last close from fput(), an mm
 * going, a uprobe event deleted): the freeing takes it if the caller does not hold it. */
void ramfs_iput(struct ramfs_inode *i)
{
	bool locked;

	if (__atomic_sub_fetch(&i->refs, 1, __ATOMIC_ACQ_REL))
		return;
	locked = mutex_owned(&ramfs_mutex);
	if (!locked)
		ramfs_lock();
	ramfs_free_inode(i);
	if (!locked)
		ramfs_unlock();
}

/* The file_ops that go with an inode: text or bytes (cat refuses those), symlink, directory. */
static const struct file_ops *ops_for(const struct ramfs_inode *i)
{
	switch (i->mode & S_IFMT) {
	case S_IFLNK:
		return &ramfs_symlink_ops;
	case S_IFDIR:
		return &ramfs_dir_ops;
	default:
		return i->data && has_nul(i->data, i->size) ? &ramfs_binary_ops : &ramfs_text_ops;
	}
}

/* A name for i in dir, taking a reference. */
static struct fnode *add_name(struct fnode *dir, const char *name, struct ramfs_inode *i)
{
	struct fnode *n;

	if ((i->mode & S_IFMT) == S_IFDIR)
		n = fs_lookup(dir, name, strlen(name)) ? NULL : fs_mkdir(dir, name);
	else
		n = fs_create(dir, name, ops_for(i), i);
	if (!n)
		return NULL;
	n->ops = ops_for(i);
	n->priv = i;
	ramfs_ihold(i);
	return n;
}

struct fnode *ramfs_create(struct fnode *dir, const char *name, unsigned int mode, const char *data,
			   size_t size)
{
	struct ramfs_inode *i = new_inode(&rootfs_sb, mode, true);
	struct fnode *n;

	if (!i)
		return NULL;
	i->data = data;
	i->size = size;
	if (!(n = add_name(dir, name, i))) {
		rootfs_sb.nr_inodes--;
		kfree(i);
	}
	return n;
}

int ramfs_mknod(struct fnode *dir, const char *name, unsigned int mode, const char *target,
		size_t len, struct fnode **out)
{
	struct super_block *sb = fs_sb(dir);
	struct ramfs_inode *i;
	struct fnode *n;
	char *copy = NULL;

	if (!sb)
		return -EPERM;
	if (strlen(name) > FS_NAME_MAX)
		return -ENAMETOOLONG;
	if (fs_lookup(dir, name, strlen(name)))
		return -EEXIST;
	if ((mode & S_IFMT) == S_IFLNK) {
		if (!(copy = kmalloc(len ? len : 1)))
			return -ENOMEM;
		memcpy(copy, target, len);
	}
	if (!(i = new_inode(sb, mode, false))) {
		kfree(copy);
		return sb->max_inodes && sb->nr_inodes >= sb->max_inodes ? -ENOSPC : -ENOMEM;
	}
	i->data = copy;
	i->data_owned = copy != NULL;
	i->size = copy ? len : 0;
	if (!(n = add_name(dir, name, i))) {
		i->refs = 1;
		ramfs_iput(i);
		return -ENOMEM;
	}
	if ((mode & S_IFMT) == S_IFDIR && ramfs_inode(dir))
		ramfs_inode(dir)->nlink++;
	*out = n;
	return 0;
}

int ramfs_link(struct fnode *dir, const char *name, struct fnode *old)
{
	struct ramfs_inode *i = ramfs_inode(old);

	if (!i || !fs_sb(dir) || fs_sb(dir) != i->sb)
		return -EXDEV; /* a name in another file system */
	if (strlen(name) > FS_NAME_MAX)
		return -ENAMETOOLONG;
	if (fs_lookup(dir, name, strlen(name)))
		return -EEXIST;
	if (!add_name(dir, name, i))
		return -ENOMEM;
	i->nlink++;
	i->mtime = ktime_get_ns();
	return 0;
}

struct ramfs_inode *ramfs_inode(const struct fnode *n)
{
	if (n->ops == &ramfs_text_ops || n->ops == &ramfs_binary_ops ||
	    n->ops == &ramfs_symlink_ops || n->ops == &ramfs_dir_ops)
		return n->priv;
	return NULL;
}

struct super_block *fs_sb(const struct fnode *dir)
{
	return dir->sb;
}

unsigned int fs_mode(const struct fnode *n)
{
	struct ramfs_inode *i = ramfs_inode(n);
	unsigned int tmode = tracefs_mode(n);

	if (tmode)
		return tmode;
	if (i)
		return i->mode;
	if (n->is_dir)
		return S_IFDIR | 0755;
	if (n->ops && n->ops->fops && n->ops->fops->mode)
		return n->ops->fops->mode;
	if (n->ops && n->ops->device)
		return S_IFCHR | 0620;
	return S_IFREG | (n->ops && n->ops->show ? 0444 : 0) | (n->ops && n->ops->write ? 0200 : 0);
}
