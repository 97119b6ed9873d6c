/* stat and its kin, readlink, getdents64: what a program learns about a node (Linux: fs/stat.c). */
#include "kernel/fs/file.h"
#include "kernel/fs/mount.h"
#include "kernel/fs/ramfs.h"
#include "kernel/sched/sched.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

/* Linux's x86-64 struct stat, 144 bytes. */
struct stat {
	unsigned long st_dev, st_ino, st_nlink;
	unsigned int st_mode, st_uid, st_gid, __pad0;
	unsigned long st_rdev;
	long st_size, st_blksize, st_blocks;
	unsigned long st_atime, st_atime_nsec, st_mtime, st_mtime_nsec, st_ctime, st_ctime_nsec;
	long reserved[3];
};

_Static_assert(sizeof(struct stat) == 144, "Linux's x86-64 struct stat");

#define MKDEV(ma, mi) (((ma) << 8) | (mi))

static void fill_stat(struct stat *st, const struct fnode *n, const struct file *f)
{
	const struct ramfs_inode *i;

	memset(st, 0, sizeof(*st));
	st->st_blksize = PAGE_SIZE;
	if (!n) { /* the console (/dev/console's numbers) or a pipe */
		st->st_mode = f ? f->f_op->mode : S_IFCHR | 0620;
		st->st_rdev = (st->st_mode & S_IFMT) == S_IFCHR ? MKDEV(5, 1) : 0;
		st->st_ino = f ? fs_ino((const void *)f) : 1;
		st->st_nlink = 1;
		return;
	}
	st->st_dev = mount_dev(n); /* major 0: Linux's new_encode_dev() is the minor, below 256 */
	st->st_ino = fs_ino(n);
	st->st_mode = fs_mode(n);
	st->st_nlink = n->is_dir ? 2 : 1;
	st->st_size = fs_size(n);
	if (n->is_dir)
		st->st_size = 0;
	st->st_blocks = (st->st_size + 511) / 512;
	if ((i = ramfs_inode(n))) { /* a file of ours: its owner, links and time */
		st->st_nlink = i->nlink;
		st->st_uid = i->uid;
		st->st_gid = i->gid;
		st->st_atime = st->st_mtime = st->st_ctime = i->mtime / NSEC_PER_SEC;
		st->st_atime_nsec = st->st_mtime_nsec = st->st_ctime_nsec = i->mtime % NSEC_PER_SEC;
	}
}

static long put_stat(const struct fnode *n, const struct file *f, struct stat __user *ust)
{
	struct stat st;

	fill_stat(&st, n, f);
	return copy_to_user(ust, &st, sizeof(st)) ? -EFAULT : 0;
}

/* fstat, and fstatat's AT_EMPTY_PATH: the open file's node, or what the file says of itself. */
static long fd_stat(unsigned int fd, struct stat __user *ust)
{
	struct fd f = fdget(fd);
	long ret;

	if (!f.file)
		return -EBADF;
	ret = put_stat(f.file->node, f.file, ust);
	fdput(f);
	return ret;
}

static long do_stat(int dfd, const char __user *filename, struct stat __user *ust, int flags)
{
	struct fnode *n;
	int err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (flags & AT_EMPTY_PATH) {
		char c;
		if (get_user(c, filename))
			return -EFAULT;
		if (!c) { /* fstatat(fd, "", ..., AT_EMPTY_PATH): the fd itself */
			if (dfd == AT_FDCWD)
				return put_stat(current->cwd, NULL, ust);
			return fd_stat(dfd, ust);
		}
	}
	if ((err = user_path_at(dfd, filename, flags & AT_SYMLINK_NOFOLLOW, &n)))
		return err;
	return put_stat(n, NULL, ust);
}

SYSCALL_DEFINE2(newstat, const char __user *, filename, struct stat __user *, statbuf)
{
	return do_stat(AT_FDCWD, filename, statbuf, 0);
}

SYSCALL_DEFINE2(newlstat, const char __user *, filename, struct stat __user *, statbuf)
{
	return do_stat(AT_FDCWD, filename, statbuf, AT_SYMLINK_NOFOLLOW);
}

SYSCALL_DEFINE4(newfstatat, int, dfd, const char __user *, filename, struct stat __user *, statbuf,
		int, flag)
{
	return do_stat(dfd, filename, statbuf, flag);
}

SYSCALL_DEFINE2(newfstat, unsigned int, fd, struct stat __user *, statbuf)
{
	return fd_stat(fd, statbuf);
}

SYSCALL_DEFINE3(readlink, const char __user *, path, char __user *, buf, int, bufsiz)
{
	struct ramfs_inode *i;
	struct fnode *n;
	size_t len;
	int err;

	if (bufsiz <= 0)
		return -EINVAL;
	if ((err = user_path_at(AT_FDCWD, path, true, &n)))
		return err;
	if (!fs_is_symlink(n))
		return -EINVAL;
	i = ramfs_inode(n);
	len = MIN(i->size, (size_t)bufsiz);
	return copy_to_user(buf, i->data, len) ? -EFAULT : (long)len;
}

SYSCALL_DEFINE3(getdents64, unsigned int, fd, void __user *, dirent, unsigned int, count)
{
	struct fd f = fdget(fd);
	long ret;

	if (!f.file)
		return -EBADF;
	if (!f.file->f_op->getdents64)
		ret = -ENOTDIR;
	else if (!access_ok(dirent, count))
		ret = -EFAULT;
	else
		ret = f.file->f_op->getdents64(f.file, dirent, count);
	fdput(f);
	return ret;
}
