/* Files with bytes (Linux: fs/ramfs, mm/shmem.c): the initramfs's, and what programs write. */
#ifndef KERNEL_FS_RAMFS_H
#define KERNEL_FS_RAMFS_H

#include "kernel/fs/fs.h"
#include "kernel/syscalls.h"

#define S_IFMT 0170000
#define S_IFSOCK 0140000
#define S_IFLNK 0120000
#define S_IFREG 0100000
#define S_IFDIR 0040000
#define S_IFCHR 0020000
#define S_IFIFO 0010000

#define TMPFS_MAGIC 0x01021994
#define RAMFS_MAGIC 0x858458f6

/*
 * One mounted instance of a writable file system (Linux's super_block, with shmem_sb_info's
 * limits): the rootfs (a ramfs: no limit), or a tmpfs (mount -t tmpfs -o size=N,nr_inodes=N).
 * Pages and inodes are counted here; past a limit a write or a create is -ENOSPC.
 */
struct super_block {
	const char *type; /* "rootfs", "tmpfs" */
	unsigned long magic;
	size_t max_pages, nr_pages;   /* max 0: no limit */
	size_t max_inodes, nr_inodes; /* max 0: no limit */
	struct fnode *root;
	bool dead; /* unmounted: freed when nr_inodes drops to 0 */
};

/*
 * A file's inode. An initramfs file's bytes stay in the archive (data) until the first change
 * copies them into pages of their own; a written file's bytes are in pages[], one 4 KiB page per
 * slot, NULL for a hole that reads as zeros (Linux's page cache over a shmem inode):
 *
 *   size 9000:  pages[0] -> [0, 4096)   pages[1] = NULL (zeros)   pages[2] -> [8192, 9000)
 *
 * A symlink's target is in data (the archive's, or a copy it owns). Several names (hard links)
 * may share one inode: nlink counts them, refs counts the nodes and open users that hold it.
 */
struct ramfs_inode {
	const char *data;
	bool data_owned; /* data is a kmalloc'd copy (a symlink made at run time) */
	void **pages;
	size_t nr_slots; /* length of pages[] */
	size_t size;
	unsigned int mode;     /* S_IF* | permissions */
	unsigned int uid, gid; /* the creator's fsuid and fsgid; 0 for the initramfs's */
	unsigned int nlink, refs;
	s64 mtime; /* ns since boot: stat's st_mtime and st_ctime */
	struct super_block *sb;
};

/* rootfs's super_block: what populate_rootfs() fills, writable like Linux's rootfs. */
extern struct super_block rootfs_sb;

/* Creates a file or symlink whose bytes stay at data (the archive is never freed). */
struct fnode *ramfs_create(struct fnode *dir, const char *name, unsigned int mode, const char *data,
			   size_t size);
/* A new empty inode of mode in dir's file system, and its name: -ENOSPC past the inode limit,
 * -EEXIST, -ENOMEM. A symlink gets its target (len bytes) copied. */
int ramfs_mknod(struct fnode *dir, const char *name, unsigned int mode, const char *target,
		size_t len, struct fnode **out);
/* A second name for n's inode in dir (link(2)). */
int ramfs_link(struct fnode *dir, const char *name, struct fnode *n);
/* The ramfs_inode of n (a file, a symlink, or a directory made by mkdir), or NULL for the
 * kernel's own nodes (tracefs, /proc, directories the kernel made). */
struct ramfs_inode *ramfs_inode(const struct fnode *n);
/* The super_block whose files n's directory holds, or NULL if programs cannot create there. */
struct super_block *fs_sb(const struct fnode *dir);

/* Bytes at pos for exec and uprobes: a pointer to at most *len contiguous bytes (fewer at a
 * page's end), or NULL for a hole of *len zero bytes. pos < size. */
const void *ramfs_bytes_at(const struct ramfs_inode *i, u64 pos, size_t *len);
/* Copies len bytes at pos into buf (holes as zeros): 0, or -EINVAL past the end. */
int ramfs_read_kernel(const struct ramfs_inode *i, u64 pos, void *buf, size_t len);
/* read(2)/write(2) of a regular file at *pos; write appends when append is set. */
ssize_t ramfs_read_user(struct ramfs_inode *i, char __user *buf, size_t count, s64 *pos);
ssize_t ramfs_write_user(struct ramfs_inode *i, const char __user *buf, size_t count, s64 *pos,
			 bool append);
ssize_t ramfs_write_kernel(struct ramfs_inode *i, const void *buf, size_t count, u64 pos);
/* Takes and drops a reference; the last one frees the inode and its pages. */
void ramfs_ihold(struct ramfs_inode *i);
void ramfs_iput(struct ramfs_inode *i);
/* Sets the size: pages past it freed, a grown file reads zeros. -ENOSPC, -EFBIG, -ENOMEM. */
int ramfs_truncate(struct ramfs_inode *i, u64 size);
/* The one lock over every ramfs and tmpfs: names, sizes and bytes (Linux has one per inode). */
void ramfs_lock(void);
void ramfs_unlock(void);

static inline bool fs_is_symlink(const struct fnode *n)
{
	struct ramfs_inode *i = ramfs_inode(n);
	return i && (i->mode & S_IFMT) == S_IFLNK;
}
/* stat's st_mode of any node: a tracefs file's from its handlers, as Linux's tracefs gives. */
unsigned int fs_mode(const struct fnode *n);

/* stat's st_size: a ramfs file's bytes, a sized file's own (a sysfs binary attribute's, as
 * /sys/kernel/btf/vmlinux), 0 for anything else (as Linux's procfs and tracefs). */
static inline s64 fs_size(const struct fnode *n)
{
	struct ramfs_inode *i = ramfs_inode(n);

	if (!i && n->ops && n->ops->size)
		return n->ops->size(n);
	return i && (i->mode & S_IFMT) != S_IFDIR ? (s64)i->size : 0;
}

/* stat's st_ino: the inode's (or node's) address folded, stable while it exists; hard links
 * share it. */
static inline unsigned long fs_ino(const struct fnode *n)
{
	const void *p = ramfs_inode(n) ? (const void *)ramfs_inode(n) : (const void *)n;
	return ((unsigned long)p >> 4) & 0xffffffffUL;
}

/* kernel/fs/initramfs.c: unpacks the newc archive GRUB loaded as a module. */
void populate_rootfs(void);

/* kernel/fs/tmpfs.c: a new tmpfs instance's root, named like point and standing in its place
 * (options: "size=N[kmg%],nr_inodes=N,mode=..."); its teardown at umount, -EBUSY if in use. */
int tmpfs_fill_super(struct fnode *point, const char *options, struct fnode **root);
int tmpfs_kill_sb(struct fnode *root);
/* /tmp, mounted at boot as Linux distributions do. */
void tmpfs_init(void);

#endif
