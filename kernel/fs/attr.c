/*
 * Changing what stat says of a file (Linux: fs/open.c do_sys_truncate(), do_sys_ftruncate(),
 * chmod_common(); fs/utimes.c do_utimes()): its size, its mode, its times. Only the files of a
 * ramfs or tmpfs have these to change; the kernel's own nodes (tracefs, /proc) answer -EPERM.
 */
#include "kernel/cred.h"
#include "kernel/fs/file.h"
#include "kernel/fs/ramfs.h"
#include "kernel/sched/sched.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define UTIME_NOW ((1L << 30) - 1)
#define UTIME_OMIT ((1L << 30) - 2)

/* The size checks both truncates share, then the change, under the lock. */
static long do_truncate(struct fnode *n, loff_t length)
{
	struct ramfs_inode *i = ramfs_inode(n);
	int err;

	if (n->is_dir)
		return -EISDIR;
	if (!i || (i->mode & S_IFMT) != S_IFREG)
		return -EINVAL;
	ramfs_lock();
	err = ramfs_truncate(i, length);
	ramfs_unlock();
	return err;
}

SYSCALL_DEFINE2(truncate, const char __user *, path, long, length)
{
	struct fnode *n;
	int err;

	if (length < 0)
		return -EINVAL;
	if ((err = user_path_at(AT_FDCWD, path, false, &n)))
		return err;
	if (!n->is_dir && (err = fnode_permission(n, MAY_WRITE)))
		return err;
	return do_truncate(n, length);
}

SYSCALL_DEFINE2(ftruncate, unsigned int, fd, unsigned long, length)
{
	struct fd f;
	long ret;

	if ((long)length < 0)
		return -EINVAL;
	if (!(f = fdget(fd)).file)
		return -EBADF;
	if (!f.file->node || f.file->node->is_dir || (f.file->f_flags & O_ACCMODE) == O_RDONLY)
		ret = -EINVAL;
	else
		ret = do_truncate(f.file->node, length);
	fdput(f);
	return ret;
}

/* Only the owner or root changes a file's mode or sets its times explicitly. */
static int owner_or_root(const struct ramfs_inode *i)
{
	return capable_root() || current->fsuid == i->uid ? 0 : -EPERM;
}

static long chmod_common(struct fnode *n, umode_t mode)
{
	struct ramfs_inode *i = ramfs_inode(n);
	int err;

	if (!i || (i->mode & S_IFMT) == S_IFLNK)
		return -EPERM;
	if ((err = owner_or_root(i)))
		return err;
	ramfs_lock();
	i->mode = (i->mode & S_IFMT) | (mode & 07777);
	i->mtime = ktime_get_ns();
	ramfs_unlock();
	return 0;
}

static long do_fchmodat(int dfd, const char __user *filename, umode_t mode)
{
	struct fnode *n;
	int err = user_path_at(dfd, filename, false, &n);

	return err ? err : chmod_common(n, mode);
}

SYSCALL_DEFINE2(chmod, const char __user *, filename, umode_t, mode)
{
	return do_fchmodat(AT_FDCWD, filename, mode);
}

SYSCALL_DEFINE3(fchmodat, int, dfd, const char __user *, filename, umode_t, mode)
{
	return do_fchmodat(dfd, filename, mode);
}

SYSCALL_DEFINE2(fchmod, unsigned int, fd, umode_t, mode)
{
	struct fd f = fdget(fd);
	long ret;

	if (!f.file)
		return -EBADF;
	ret = f.file->node ? chmod_common(f.file->node, mode) : -EPERM;
	fdput(f);
	return ret;
}

struct __kernel_timespec {
	s64 tv_sec;
	long tv_nsec;
};

static bool nsec_valid(long nsec)
{
	return nsec == UTIME_OMIT || nsec == UTIME_NOW || (nsec >= 0 && nsec <= 999999999);
}

/* The modification time only (atime and ctime follow it here): times NULL means now, which the
 * owner or anyone who may write does; an explicit time is the owner's or root's. */
static long utimes_common(struct fnode *n, const struct __kernel_timespec *t)
{
	struct ramfs_inode *i = ramfs_inode(n);
	int err;

	if (!i)
		return -EPERM;
	if (t && !(t[0].tv_nsec == UTIME_NOW && t[1].tv_nsec == UTIME_NOW))
		err = owner_or_root(i);
	else
		err = owner_or_root(i) && fnode_permission(n, MAY_WRITE) ? -EACCES : 0;
	if (err)
		return err;
	ramfs_lock();
	if (!t || t[1].tv_nsec == UTIME_NOW)
		i->mtime = ktime_get_ns();
	else if (t[1].tv_nsec != UTIME_OMIT)
		i->mtime = t[1].tv_sec * (s64)NSEC_PER_SEC + t[1].tv_nsec;
	ramfs_unlock();
	return 0;
}

SYSCALL_DEFINE4(utimensat, int, dfd, const char __user *, filename,
		struct __kernel_timespec __user *, utimes, int, flags)
{
	struct __kernel_timespec t[2];
	struct fnode *n;
	int err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (utimes) {
		if (copy_from_user(t, utimes, sizeof(t)))
			return -EFAULT;
		if (!nsec_valid(t[0].tv_nsec) || !nsec_valid(t[1].tv_nsec))
			return -EINVAL;
	}
	if (!filename) { /* futimens(fd, ...): the fd itself */
		struct fd f = dfd == AT_FDCWD ? (struct fd){ NULL, 0 } : fdget(dfd);
		if (!f.file)
			return -EBADF;
		err = f.file->node ? utimes_common(f.file->node, utimes ? t : NULL) : -EPERM;
		fdput(f);
		return err;
	}
	if ((err = user_path_at(dfd, filename, flags & AT_SYMLINK_NOFOLLOW, &n)))
		return err;
	return utimes_common(n, utimes ? t : NULL);
}
