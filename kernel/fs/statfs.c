/* statfs and fstatfs: what a program learns about the file system a node lies in (Linux: fs/statfs.c). */
#include "kernel/fs/file.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/mount.h"
#include "kernel/fs/ramfs.h"
#include "kernel/syscalls.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

/* Linux's x86-64 struct statfs, 120 bytes. */
struct statfs {
	long f_type, f_bsize;
	unsigned long f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int f_fsid[2];
	long f_namelen, f_frsize, f_flags, f_spare[4];
};

_Static_assert(sizeof(struct statfs) == 120, "Linux's x86-64 struct statfs");

/* f_flags, Linux's ST_* values; ST_VALID says the field is filled at all. */
#define ST_RDONLY 0x0001
#define ST_NOSUID 0x0002
#define ST_NODEV 0x0004
#define ST_NOEXEC 0x0008
#define ST_VALID 0x0020
#define ST_RELATIME 0x0400

#define PIPEFS_MAGIC 0x50495045

/* The magic numbers of Linux's include/uapi/linux/magic.h for the kernel's own trees. */
static const struct {
	const char *type;
	long magic;
} magics[] = {
	{ "proc", 0x9fa0 },	   { "sysfs", 0x62656572 },   { "devtmpfs", TMPFS_MAGIC },
	{ "debugfs", 0x64626720 }, { "tracefs", 0x74726163 }, { "tmpfs", TMPFS_MAGIC },
	{ "rootfs", RAMFS_MAGIC },
};

static bool has_opt(const char *opts, const char *opt)
{
	size_t len = strlen(opt);

	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, opt, len) && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

/* The super_block's counts where programs' files live (Linux's shmem_statfs(): limits only when
 * the mount has them), the type alone for the kernel's trees (simple_statfs()). */
static void fill_statfs(struct statfs *st, const struct fnode *n, const struct file *f)
{
	const struct ramfs_inode *i = n ? ramfs_inode(n) : NULL;
	const struct super_block *sb = i ? i->sb : n ? n->sb : NULL;
	const char *opts, *type = n ? mount_of(n, &opts) : "devtmpfs";

	memset(st, 0, sizeof(*st));
	st->f_bsize = st->f_frsize = PAGE_SIZE;
	st->f_namelen = FS_NAME_MAX; /* Linux's NAME_MAX, 255 */
	if (!n)
		opts = "rw,nosuid,relatime";
	st->f_flags = ST_VALID | (has_opt(opts, "ro") ? ST_RDONLY : 0) |
		      (has_opt(opts, "nosuid") ? ST_NOSUID : 0) |
		      (has_opt(opts, "nodev") ? ST_NODEV : 0) |
		      (has_opt(opts, "noexec") ? ST_NOEXEC : 0) |
		      (has_opt(opts, "relatime") ? ST_RELATIME : 0);
	if (!n && f && (f->f_op->mode & S_IFMT) == S_IFIFO) {
		st->f_type = PIPEFS_MAGIC;
		return;
	}
	if (sb) {
		st->f_type = sb->magic;
		if (sb->max_pages) {
			st->f_blocks = sb->max_pages;
			st->f_bfree = st->f_bavail =
				sb->max_pages - MIN(sb->nr_pages, sb->max_pages);
		}
		if (sb->max_inodes) {
			st->f_files = sb->max_inodes;
			st->f_ffree = sb->max_inodes - MIN(sb->nr_inodes, sb->max_inodes);
		}
		return;
	}
	for (size_t k = 0; k < sizeof(magics) / sizeof(magics[0]); k++)
		if (!strcmp(type, magics[k].type))
			st->f_type = magics[k].magic;
}

static long put_statfs(const struct fnode *n, const struct file *f, struct statfs __user *buf)
{
	struct statfs st;

	fill_statfs(&st, n, f);
	return copy_to_user(buf, &st, sizeof(st)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(statfs, const char __user *, pathname, struct statfs __user *, buf)
{
	struct fnode *n;
	int err = user_path_at(AT_FDCWD, pathname, false, &n);

	return err ? err : put_statfs(n, NULL, buf);
}

SYSCALL_DEFINE2(fstatfs, unsigned int, fd, struct statfs __user *, buf)
{
	struct fd f = fdget(fd);
	long ret;

	if (!f.file)
		return -EBADF;
	ret = put_statfs(f.file->node, f.file, buf);
	fdput(f);
	return ret;
}
