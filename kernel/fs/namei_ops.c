/*
 * The system calls that make, remove and move names (Linux: fs/namei.c, do_mkdirat(),
 * do_rmdir(), do_unlinkat(), do_renameat2(), do_symlinkat(), do_linkat()), with Linux's checks in
 * Linux's order, so each bad case gets Linux's errno. Only a ramfs or tmpfs directory (one with a
 * super_block) takes new names; the kernel's own trees (/proc, /sys, tracefs) answer -EPERM, or
 * their directory's mkdir/rmdir hook where they have one.
 */
#include "kernel/cred.h"
#include "kernel/fs/file.h"
#include "kernel/fs/ramfs.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

#define AT_REMOVEDIR 0x200
#define AT_SYMLINK_FOLLOW 0x400
#define RENAME_NOREPLACE 1
#define RENAME_EXCHANGE 2
#define RENAME_WHITEOUT 4
#define S_ISVTX 01000
#define PATH_MAX 4096

static bool is_dot(const char *last)
{
	return !last[0] || !strcmp(last, ".") || !strcmp(last, "..");
}

/* May the caller add or remove names in dir (write and search permission)? */
static int may_change(struct fnode *dir)
{
	return fnode_permission(dir, MAY_WRITE | MAY_EXEC);
}

/* Linux's may_delete(): in a sticky directory (/tmp), only the owner of the file or of the
 * directory, or root, removes or renames it away. */
static int may_delete(struct fnode *dir, struct fnode *victim)
{
	struct ramfs_inode *d = ramfs_inode(dir), *v = ramfs_inode(victim);
	int err = may_change(dir);

	if (err)
		return err;
	if (d && v && (d->mode & S_ISVTX) && current->fsuid && current->fsuid != v->uid &&
	    current->fsuid != d->uid)
		return -EPERM;
	return 0;
}

/* Is n the root of a mounted file system (a tmpfs root, or the tree one is mounted on)? */
static bool is_mountpoint(const struct fnode *n)
{
	return n == fs_root() || n->mounted || (n->sb && n->sb->root == n) || !n->parent;
}

static void touch(struct fnode *dir)
{
	if (ramfs_inode(dir))
		ramfs_inode(dir)->mtime = ktime_get_ns();
}

static long do_mkdirat(int dfd, const char __user *pathname, umode_t mode)
{
	char last[FS_NAME_MAX + 1];
	struct fnode *dir, *n;
	bool trailing;
	int err;

	if ((err = user_path_parent(dfd, pathname, &dir, last, &trailing)))
		return err;
	ramfs_lock();
	if (is_dot(last) || fs_lookup(dir, last, strlen(last)))
		err = -EEXIST;
	else if (!(err = may_change(dir)) && dir->ops && dir->ops->mkdir)
		err = dir->ops->mkdir(dir, last);
	else if (!err)
		err = ramfs_mknod(dir, last, S_IFDIR | (mode & 07777 & ~current->umask), NULL, 0,
				  &n);
	if (!err)
		touch(dir);
	ramfs_unlock();
	return err;
}

SYSCALL_DEFINE2(mkdir, const char __user *, pathname, umode_t, mode)
{
	return do_mkdirat(AT_FDCWD, pathname, mode);
}

SYSCALL_DEFINE3(mkdirat, int, dfd, const char __user *, pathname, umode_t, mode)
{
	return do_mkdirat(dfd, pathname, mode);
}

/* Takes n's name away; its inode goes with its last name and last opener. */
static void drop_name(struct fnode *dir, struct fnode *n)
{
	struct ramfs_inode *i = ramfs_inode(n), *d = ramfs_inode(dir);

	if (n->is_dir && d)
		d->nlink--;
	if (i)
		i->nlink = n->is_dir ? 0 : i->nlink - 1;
	touch(dir);
	fs_unlink(n);
}

static long do_rmdir(int dfd, const char __user *pathname)
{
	char last[FS_NAME_MAX + 1];
	struct fnode *dir, *n;
	bool trailing;
	int err;

	if ((err = user_path_parent(dfd, pathname, &dir, last, &trailing)))
		return err;
	if (!strcmp(last, "."))
		return -EINVAL;
	if (!strcmp(last, ".."))
		return -ENOTEMPTY;
	if (!last[0])
		return -EBUSY; /* rmdir / */
	ramfs_lock();
	if (!(n = fs_lookup(dir, last, strlen(last))))
		err = -ENOENT;
	else if (!n->is_dir)
		err = -ENOTDIR;
	else if ((err = may_delete(dir, n)))
		;
	else if (is_mountpoint(n))
		err = -EBUSY;
	else if (dir->ops && dir->ops->rmdir)
		err = dir->ops->rmdir(dir, n);
	else if (!ramfs_inode(n))
		err = -EPERM;
	else if (n->children)
		err = -ENOTEMPTY;
	else
		drop_name(dir, n);
	ramfs_unlock();
	return err;
}

SYSCALL_DEFINE1(rmdir, const char __user *, pathname)
{
	return do_rmdir(AT_FDCWD, pathname);
}

static long do_unlinkat(int dfd, const char __user *pathname)
{
	char last[FS_NAME_MAX + 1];
	struct fnode *dir, *n;
	bool trailing;
	int err;

	if ((err = user_path_parent(dfd, pathname, &dir, last, &trailing)))
		return err;
	if (is_dot(last))
		return -EISDIR;
	ramfs_lock();
	if (!(n = fs_lookup(dir, last, strlen(last))))
		err = -ENOENT;
	else if (trailing)
		err = n->is_dir ? -EISDIR : -ENOTDIR;
	else if ((err = may_delete(dir, n)))
		;
	else if (n->is_dir)
		err = -EISDIR;
	else if (!ramfs_inode(n))
		err = -EPERM;
	else
		drop_name(dir, n);
	ramfs_unlock();
	return err;
}

SYSCALL_DEFINE1(unlink, const char __user *, pathname)
{
	return do_unlinkat(AT_FDCWD, pathname);
}

SYSCALL_DEFINE3(unlinkat, int, dfd, const char __user *, pathname, int, flag)
{
	if (flag & ~AT_REMOVEDIR)
		return -EINVAL;
	return flag & AT_REMOVEDIR ? do_rmdir(dfd, pathname) : do_unlinkat(dfd, pathname);
}

struct user_namespace; /* Linux's idmapped mounts: there are none here, so always NULL */

/*
 * Linux's vfs_symlink(), with its signature but for the third argument: Linux's is the new link's
 * dentry, ours its name in dir. Both that and oldname are kernel copies, so a probe reading them as
 * user memory (`+0($arg3):ustring`, `+u0($arg3):string`) gets a fault, as on Linux. The caller
 * holds ramfs_lock() and has checked that the name is free. noclone: gcc would otherwise make a
 * vfs_symlink.constprop.0 of it for the NULL namespace, and the name would be gone.
 */
static noinline __attribute__((noclone)) int vfs_symlink(struct user_namespace *mnt_userns,
							 struct fnode *dir, const char *last,
							 const char *oldname)
{
	struct fnode *n;
	int err = may_change(dir);

	if (!err)
		err = ramfs_mknod(dir, last, S_IFLNK | 0777, oldname, strlen(oldname), &n);
	if (!err)
		touch(dir);
	return err;
}

static long do_symlinkat(const char __user *oldname, int newdfd, const char __user *newname)
{
	char last[FS_NAME_MAX + 1], *target = kmalloc(PATH_MAX);
	struct fnode *dir;
	bool trailing;
	long len;
	int err;

	if (!target)
		return -ENOMEM;
	len = strncpy_from_user(target, oldname, PATH_MAX);
	err = len < 0 ? len : len == PATH_MAX ? -ENAMETOOLONG : !len ? -ENOENT : 0;
	if (!err)
		err = user_path_parent(newdfd, newname, &dir, last, &trailing);
	if (!err) {
		ramfs_lock();
		if (is_dot(last) || fs_lookup(dir, last, strlen(last)))
			err = -EEXIST;
		else
			err = vfs_symlink(NULL, dir, last, target);
		ramfs_unlock();
	}
	kfree(target);
	return err;
}

SYSCALL_DEFINE2(symlink, const char __user *, oldname, const char __user *, newname)
{
	return do_symlinkat(oldname, AT_FDCWD, newname);
}

SYSCALL_DEFINE3(symlinkat, const char __user *, oldname, int, newdfd, const char __user *, newname)
{
	return do_symlinkat(oldname, newdfd, newname);
}

static long do_linkat(int olddfd, const char __user *oldname, int newdfd,
		      const char __user *newname, int flags)
{
	char last[FS_NAME_MAX + 1];
	struct fnode *old, *dir;
	bool trailing;
	int err;

	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if ((err = user_path_at(olddfd, oldname, !(flags & AT_SYMLINK_FOLLOW), &old)))
		return err;
	if ((err = user_path_parent(newdfd, newname, &dir, last, &trailing)))
		return err;
	ramfs_lock();
	if (is_dot(last) || fs_lookup(dir, last, strlen(last)))
		err = -EEXIST;
	else if (old->is_dir)
		err = -EPERM; /* no hard links to directories */
	else if (!(err = may_change(dir)))
		err = ramfs_link(dir, last, old);
	if (!err)
		touch(dir);
	ramfs_unlock();
	return err;
}

SYSCALL_DEFINE2(link, const char __user *, oldname, const char __user *, newname)
{
	return do_linkat(AT_FDCWD, oldname, AT_FDCWD, newname, 0);
}

SYSCALL_DEFINE5(linkat, int, olddfd, const char __user *, oldname, int, newdfd, const char __user *,
		newname, int, flags)
{
	return do_linkat(olddfd, oldname, newdfd, newname, flags);
}

/* Is n dir itself or one of its ancestors (a directory moved under itself)? */
static bool is_ancestor(const struct fnode *n, const struct fnode *dir)
{
	for (const struct fnode *p = dir; p; p = p->parent)
		if (p == n)
			return true;
	return false;
}

/* The checks of a rename whose both names are found (or new is NULL), in Linux's order. */
static int may_rename(struct fnode *odir, struct fnode *old, struct fnode *ndir, struct fnode *new,
		      unsigned int flags)
{
	int err;

	if ((err = may_delete(odir, old)))
		return err;
	if ((err = new ? may_delete(ndir, new) : may_change(ndir)))
		return err;
	if (is_mountpoint(old) || (new &&is_mountpoint(new)))
		return -EBUSY;
	if (!ramfs_inode(old) || !fs_sb(ndir))
		return -EPERM; /* the kernel's own nodes keep their names */
	if (fs_sb(ndir) != ramfs_inode(old)->sb)
		return -EXDEV;
	if (old->is_dir && is_ancestor(old, ndir))
		return -EINVAL;
	if (!new)
		return 0;
	if (flags & RENAME_NOREPLACE)
		return -EEXIST;
	if (new->is_dir &&new != old && is_ancestor(new, odir))
		return -ENOTEMPTY;
	if (old->is_dir && !new->is_dir)
		return -ENOTDIR;
	if (!old->is_dir && new->is_dir)
		return -EISDIR;
	if (new->is_dir &&new->children)
		return -ENOTEMPTY;
	return 0;
}

/* A subdirectory moving from one directory to another takes its ".." link along. */
static void move_dir_link(struct fnode *n, struct fnode *from, struct fnode *to)
{
	if (!n->is_dir || from == to)
		return;
	if (ramfs_inode(from))
		ramfs_inode(from)->nlink--;
	if (ramfs_inode(to))
		ramfs_inode(to)->nlink++;
}

/* RENAME_EXCHANGE: both names exist and trade places, whatever their types (Linux's checks). */
static int rename_exchange(struct fnode *odir, struct fnode *old, const char *olast,
			   struct fnode *ndir, struct fnode *new, const char *nlast)
{
	int err;

	if ((err = may_delete(odir, old)) || (err = may_delete(ndir, new)))
		return err;
	if (is_mountpoint(old) || is_mountpoint(new))
		return -EBUSY;
	if (!ramfs_inode(old) || !ramfs_inode(new) || !fs_sb(ndir) || !fs_sb(odir))
		return -EPERM;
	if (ramfs_inode(old)->sb != ramfs_inode(new)->sb)
		return -EXDEV;
	if ((old->is_dir && is_ancestor(old, ndir)) || (new->is_dir &&is_ancestor(new, odir)))
		return -EINVAL;
	move_dir_link(old, odir, ndir);
	move_dir_link(new, ndir, odir);
	fs_detach(old);
	fs_detach(new);
	fs_attach(ndir, old, nlast);
	fs_attach(odir, new, olast);
	touch(odir);
	touch(ndir);
	return 0;
}

static long do_renameat2(int olddfd, const char __user *oldname, int newdfd,
			 const char __user *newname, unsigned int flags)
{
	char olast[FS_NAME_MAX + 1], nlast[FS_NAME_MAX + 1];
	struct fnode *odir, *ndir, *old, *new;
	bool otrail, ntrail;
	int err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	if ((flags & RENAME_EXCHANGE) && (flags & (RENAME_NOREPLACE | RENAME_WHITEOUT)))
		return -EINVAL;
	if (flags & RENAME_WHITEOUT)
		return -EINVAL; /* not built: no overlay file system here to read a whiteout */
	if ((err = user_path_parent(olddfd, oldname, &odir, olast, &otrail)) ||
	    (err = user_path_parent(newdfd, newname, &ndir, nlast, &ntrail)))
		return err;
	if (is_dot(olast))
		return -EBUSY;
	if (is_dot(nlast))
		return flags & RENAME_NOREPLACE ? -EEXIST : -EBUSY;
	ramfs_lock();
	old = fs_lookup(odir, olast, strlen(olast));
	new = fs_lookup(ndir, nlast, strlen(nlast));
	if (!old)
		err = -ENOENT;
	else if ((otrail || ntrail) && !old->is_dir)
		err = -ENOTDIR;
	else if ((flags & RENAME_EXCHANGE) && !new)
		err = -ENOENT;
	else if (old == new || (new &&ramfs_inode(new) && ramfs_inode(new) == ramfs_inode(old)))
		err = 0; /* the same file: nothing to do, as POSIX says */
	else if (flags & RENAME_EXCHANGE)
		err = rename_exchange(odir, old, olast, ndir, new, nlast);
	else if (!(err = may_rename(odir, old, ndir, new, flags))) {
		if (new)
			drop_name(ndir, new);
		move_dir_link(old, odir, ndir);
		fs_detach(old);
		fs_attach(ndir, old, nlast);
		touch(odir);
		touch(ndir);
	}
	ramfs_unlock();
	return err;
}

SYSCALL_DEFINE2(rename, const char __user *, oldname, const char __user *, newname)
{
	return do_renameat2(AT_FDCWD, oldname, AT_FDCWD, newname, 0);
}

SYSCALL_DEFINE4(renameat, int, olddfd, const char __user *, oldname, int, newdfd,
		const char __user *, newname)
{
	return do_renameat2(olddfd, oldname, newdfd, newname, 0);
}

SYSCALL_DEFINE5(renameat2, int, olddfd, const char __user *, oldname, int, newdfd,
		const char __user *, newname, unsigned int, flags)
{
	return do_renameat2(olddfd, oldname, newdfd, newname, flags);
}
