/* Path lookup for programs: from the process's cwd or a directory fd, through symlinks (Linux: fs/namei.c). */
#include "kernel/fs/file.h"
#include "kernel/cred.h"
#include "kernel/fs/ramfs.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

#define PATH_MAX 4096
#define MAXSYMLINKS 40

static int walk(struct fnode *start, const char *path, size_t plen, bool nofollow,
		struct fnode **out, int *links);

/* Follows the symlink n found in dir: its target is a path relative to dir. */
static int follow(struct fnode *dir, struct fnode *n, struct fnode **out, int *links)
{
	struct ramfs_inode *i = ramfs_inode(n);

	if (++*links > MAXSYMLINKS)
		return -ELOOP;
	if (!i->size)
		return -ENOENT;
	return walk(dir, i->data, i->size, false, out, links);
}

static int walk(struct fnode *start, const char *path, size_t plen, bool nofollow,
		struct fnode **out, int *links)
{
	const char *end = path + plen;
	struct fnode *n = plen && path[0] == '/' ? fs_root() : start;
	bool trailing_slash = plen && end[-1] == '/';
	int err;

	while (path < end) {
		const char *s = path;
		struct fnode *next;
		size_t len;

		while (s < end && *s != '/')
			s++;
		len = s - path;
		if (len == 0 || (len == 1 && path[0] == '.')) {
			next = n;
		} else if (!n->is_dir) {
			return -ENOTDIR;
		} else if ((err = fnode_permission(n, MAY_EXEC))) {
			return err; /* no search permission on the directory */
		} else if (len == 2 && path[0] == '.' && path[1] == '.') {
			next = n->parent ? n->parent : n;
		} else if (len > 255) {
			return -ENAMETOOLONG;
		} else if (!(next = fs_lookup(n, path, len))) {
			return -ENOENT;
		}
		while (s < end && *s == '/')
			s++;
		if (fs_is_symlink(next) && (s < end || !nofollow || trailing_slash)) {
			if ((err = follow(n, next, &next, links)))
				return err;
		}
		n = next;
		path = s;
	}
	if (trailing_slash && !n->is_dir)
		return -ENOTDIR;
	*out = n;
	return 0;
}

int kern_path(struct fnode *cwd, const char *path, bool nofollow, struct fnode **out)
{
	int links = 0;

	if (!path[0])
		return -ENOENT;
	return walk(cwd ? cwd : fs_root(), path, strlen(path), nofollow, out, &links);
}

/* Copies a user's path into a kernel buffer of PATH_MAX: 0, -EFAULT, -ENAMETOOLONG, -ENOMEM. */
static int getname(const char __user *upath, char **out)
{
	char *buf = kmalloc(PATH_MAX);
	long n;

	if (!buf)
		return -ENOMEM;
	n = strncpy_from_user(buf, upath, PATH_MAX);
	if (n < 0 || n == PATH_MAX) {
		kfree(buf);
		return n < 0 ? n : -ENAMETOOLONG;
	}
	*out = buf;
	return 0;
}

/* A user's path into a kernel copy, and where a relative one starts: the cwd or dirfd's
 * directory, whose file *dir holds until the walk is done (the caller fdput()s it). 0 (the caller
 * kfree()s *path), or -EFAULT, -ENAMETOOLONG, -EBADF, -ENOTDIR. */
static int user_path_start(int dirfd, const char __user *upath, char **path, struct fnode **start,
			   struct fd *dir)
{
	int err = getname(upath, path);

	*start = current->cwd;
	*dir = (struct fd){ NULL, 0 };
	if (!err && !(*path)[0])
		err = -ENOENT; /* Linux's getname(): "" names nothing, whatever dirfd is */
	if (!err && (*path)[0] != '/' && dirfd != AT_FDCWD) {
		*dir = fdget(dirfd);
		err = !dir->file				     ? -EBADF
		      : !dir->file->node || !dir->file->node->is_dir ? -ENOTDIR
								     : 0;
		if (!err)
			*start = dir->file->node;
	}
	return err;
}

int user_path_at(int dirfd, const char __user *upath, bool nofollow, struct fnode **out)
{
	struct fnode *start;
	struct fd dir;
	char *path = NULL;
	int err = user_path_start(dirfd, upath, &path, &start, &dir);

	if (!err)
		err = kern_path(start, path, nofollow, out);
	fdput(dir);
	kfree(path);
	return err;
}

/* The directory that holds path's last component, and that component (into last, with its
 * length limit): "a/b/" gives a and "b" with *trailing set; "/" and "a/.." give their own last
 * ("" and ".."), which each caller refuses in Linux's way. */
int kern_path_parent(struct fnode *cwd, const char *path, struct fnode **dir, char *last,
		     bool *trailing)
{
	size_t len = strlen(path), start;
	int links = 0, err;

	if (!len)
		return -ENOENT;
	*trailing = false;
	while (len > 1 && path[len - 1] == '/') {
		len--;
		*trailing = true;
	}
	for (start = len; start && path[start - 1] != '/'; start--)
		;
	if (len - start > FS_NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(last, path + start, len - start);
	last[len - start] = '\0';
	if (path[0] == '/' && len == 1)
		last[0] = '\0';
	if (!start) {
		*dir = cwd ? cwd : fs_root();
		return 0;
	}
	err = walk(cwd ? cwd : fs_root(), path, start, false, dir, &links);
	if (!err && !(*dir)->is_dir)
		err = -ENOTDIR;
	return err ? err : fnode_permission(*dir, MAY_EXEC);
}

int user_path_parent(int dirfd, const char __user *upath, struct fnode **dir, char *last,
		     bool *trailing)
{
	struct fnode *start;
	struct fd dirf;
	char *path = NULL;
	int err = user_path_start(dirfd, upath, &path, &start, &dirf);

	if (!err)
		err = kern_path_parent(start, path, dir, last, trailing);
	fdput(dirf);
	kfree(path);
	return err;
}
