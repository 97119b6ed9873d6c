/* Files with bytes: what the initramfs unpacks (regular files and symlinks) into the file tree. */
#ifndef KERNEL_FS_RAMFS_H
#define KERNEL_FS_RAMFS_H

#include "kernel/fs/fs.h"

#define S_IFMT 0170000
#define S_IFSOCK 0140000
#define S_IFLNK 0120000
#define S_IFREG 0100000
#define S_IFDIR 0040000
#define S_IFCHR 0020000
#define S_IFIFO 0010000

/* A regular file's bytes, or a symlink's target, where the initramfs archive holds them. */
struct ramfs_inode {
	const char *data;
	size_t size;
	unsigned int mode; /* S_IF* | permissions, from the archive */
};

/* Creates a file or symlink whose bytes stay at data (the archive is never freed). */
struct fnode *ramfs_create(struct fnode *dir, const char *name, unsigned int mode, const char *data,
			   size_t size);
/* The ramfs_inode of n, or NULL if n is a directory or a file of another kind (tracefs, /proc). */
struct ramfs_inode *ramfs_inode(const struct fnode *n);
static inline bool fs_is_symlink(const struct fnode *n)
{
	struct ramfs_inode *i = ramfs_inode(n);
	return i && (i->mode & S_IFMT) == S_IFLNK;
}
/* stat's st_mode of any node: a tracefs file's from its handlers, as Linux's tracefs gives. */
unsigned int fs_mode(const struct fnode *n);

/* stat's st_size: a ramfs file's bytes, 0 for anything else (as Linux's procfs and tracefs). */
static inline s64 fs_size(const struct fnode *n)
{
	struct ramfs_inode *i = ramfs_inode(n);
	return i && (i->mode & S_IFMT) != S_IFDIR ? (s64)i->size : 0;
}

/* stat's st_ino: the node's address folded, stable while it exists. */
static inline unsigned long fs_ino(const struct fnode *n)
{
	return ((unsigned long)n >> 4) & 0xffffffffUL;
}

/* kernel/fs/initramfs.c: unpacks the newc archive GRUB loaded as a module. */
void populate_rootfs(void);

#endif
