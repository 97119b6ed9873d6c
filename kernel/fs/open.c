/*
 * Opening a file of the tree for a program, and the kinds of open file it can be (Linux: fs/open.c):
 *   a ramfs file   its bytes (the archive's or its pages) at f_pos, under ramfs_lock()
 *   a tracefs or /proc file   its show() rendered into a buffer at the first read (a snapshot,
 *                  as Linux's seq_file reads one), its write() handed each write() whole
 *   a directory    getdents64 walks its children, "." and ".." first
 */
#include "kernel/thread_group.h"
#include "kernel/fs/file.h"
#include "kernel/cred.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/ramfs.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

#define RENDER_MAX (16UL << 20)
#define WRITE_MAX (64UL << 10) /* one write() to a control file; larger is -EINVAL */

static ssize_t read_bytes(const char *data, size_t size, char __user *buf, size_t count, s64 *pos)
{
	size_t n;

	if (*pos >= (s64)size)
		return 0;
	n = MIN(count, size - *pos);
	if (copy_to_user(buf, data + *pos, n))
		return -EFAULT;
	*pos += n;
	return n;
}

static ssize_t ramfs_read(struct file *f, char __user *buf, size_t count, s64 *pos)
{
	ssize_t n;

	ramfs_lock();
	n = ramfs_read_user(ramfs_inode(f->node), buf, count, pos);
	ramfs_unlock();
	return n;
}

static ssize_t ramfs_write(struct file *f, const char __user *buf, size_t count, s64 *pos)
{
	ssize_t n;

	ramfs_lock();
	/* pwrite64 on an O_APPEND file appends too, as Linux does. */
	n = ramfs_write_user(ramfs_inode(f->node), buf, count, pos, f->f_flags & O_APPEND);
	ramfs_unlock();
	return n;
}

/* The whole text of a show() file, once: a buffer doubled until it holds it all. */
static int render(struct file *f)
{
	for (size_t size = PAGE_SIZE; size <= RENDER_MAX; size *= 2) {
		struct seq_file m = { .buf = kmalloc(size), .size = size };
		int err;
		if (!m.buf)
			return -ENOMEM;
		err = fs_read(f->node, &m);
		if (err || !m.overflow) {
			if (err) {
				kfree(m.buf);
				return err;
			}
			f->private_data = m.buf;
			f->private_len = m.count;
			return 0;
		}
		kfree(m.buf);
	}
	return -EFBIG;
}

static ssize_t seq_read(struct file *f, char __user *buf, size_t count, s64 *pos)
{
	int err;

	if (!f->private_data && (err = render(f)))
		return err;
	return read_bytes(f->private_data, f->private_len, buf, count, pos);
}

static ssize_t seq_write_user(struct file *f, const char __user *buf, size_t count, s64 *pos)
{
	unsigned int flags = f->f_flags & O_APPEND  ? FS_APPEND
			     : f->f_flags & O_TRUNC ? FS_TRUNC
						    : 0;
	char *kbuf;
	int err;

	if (count > WRITE_MAX)
		return -EINVAL;
	if (!(kbuf = kmalloc(count + 1)))
		return -ENOMEM;
	if (copy_from_user(kbuf, buf, count)) {
		kfree(kbuf);
		return -EFAULT;
	}
	err = fs_write(f->node, kbuf, count, flags);
	kfree(kbuf);
	return err ? err : (ssize_t)count;
}

struct linux_dirent64 {
	u64 d_ino;
	s64 d_off;
	u16 d_reclen;
	u8 d_type;
	char d_name[];
} __packed;

#define DT_CHR 2
#define DT_DIR 4
#define DT_REG 8
#define DT_LNK 10

static u8 dtype(const struct fnode *n)
{
	unsigned int m = fs_mode(n) & S_IFMT;
	return m == S_IFDIR ? DT_DIR : m == S_IFLNK ? DT_LNK : m == S_IFCHR ? DT_CHR : DT_REG;
}

int dir_emit(void __user *dirent, unsigned int count, unsigned int *used, const char *name, u64 ino,
	     s64 off, const struct fnode *n)
{
	char rec[sizeof(struct linux_dirent64) + FS_NAME_MAX + 8];
	struct linux_dirent64 *d = (void *)rec;
	size_t len = strlen(name), reclen = ALIGN(sizeof(*d) + len + 1, 8);

	if (*used + reclen > count)
		return *used ? 1 : -EINVAL; /* no room even for one: Linux's EINVAL */
	memset(rec, 0, reclen);
	d->d_ino = ino;
	d->d_off = off;
	d->d_reclen = reclen;
	d->d_type = dtype(n);
	memcpy(d->d_name, name, len);
	if (copy_to_user((char __user *)dirent + *used, rec, reclen))
		return -EFAULT;
	*used += reclen;
	return 0;
}

int dir_getdents64(struct file *f, void __user *dirent, unsigned int count)
{
	struct fnode *dir = f->node, *c = dir->children;
	unsigned int used = 0;
	s64 idx;
	int err;

	for (idx = 2; c && idx < f->f_pos; idx++)
		c = c->next;
	for (;;) {
		const struct fnode *n = f->f_pos == 0	? dir
					: f->f_pos == 1 ? (dir->parent ?: dir)
							: c;
		const char *name = f->f_pos == 0 ? "." : f->f_pos == 1 ? ".." : c ? c->name : NULL;

		if (!name)
			break;
		if ((err = dir_emit(dirent, count, &used, name, fs_ino(n), f->f_pos + 1, n)))
			return err < 0 ? err : (int)used;
		if (f->f_pos++ >= 2)
			c = c->next;
	}
	return used;
}

static const struct file_operations ramfs_fops = {
	.read = ramfs_read,
	.write = ramfs_write,
	.seekable = true,
};
static const struct file_operations seq_fops = {
	.read = seq_read,
	.write = seq_write_user,
	.seekable = true,
};
static const struct file_operations dir_fops = { .getdents64 = dir_getdents64, .seekable = true };

struct file *dentry_open(struct fnode *n, unsigned int flags, int *err)
{
	/* Access mode 3 asks for both permissions and grants neither read nor write (Linux's
	 * ioctl-only open): read() and write() on it are -EBADF. */
	unsigned int acc = flags & O_ACCMODE;
	bool rd = acc != O_WRONLY, wr = acc != O_RDONLY;
	const struct file_operations *fop = &seq_fops;
	struct file *f;

	*err = 0;
	if (n->is_dir && (wr || (flags & O_TRUNC)))
		*err = -EISDIR;
	else if (!n->is_dir && (flags & O_DIRECTORY))
		*err = -ENOTDIR;
	else if (fs_is_symlink(n))
		*err = -ELOOP; /* O_NOFOLLOW met a symlink */
	else if ((!n->is_dir && !ramfs_inode(n) && !(n->ops && n->ops->fops)) &&
		 ((rd && (!n->ops || !n->ops->show)) || (wr && (!n->ops || !n->ops->write))))
		*err = -EACCES;
	if (!*err)
		*err = fnode_permission(n, (rd ? MAY_READ : 0) |
						   (wr || (flags & O_TRUNC) ? MAY_WRITE : 0));
	if (!*err && (flags & O_TRUNC) && ramfs_inode(n) && !n->is_dir) {
		ramfs_lock();
		*err = ramfs_truncate(ramfs_inode(n), 0);
		ramfs_unlock();
	}
	if (*err)
		return NULL;
	if (n->is_dir)
		fop = n->ops && n->ops->fops ? n->ops->fops : &dir_fops; /* /proc lists pids */
	else if (n->ops && n->ops->fops)
		fop = n->ops->fops;
	else if (ramfs_inode(n))
		fop = &ramfs_fops;
	if (!(f = alloc_file(fop, flags & ~(O_CREAT | O_EXCL | O_NOCTTY)))) {
		*err = -ENOMEM;
		return NULL;
	}
	f->node = n;
	fs_pin(n); /* a tracefs file open in a program cannot be removed under it (-EBUSY) */
	return f;
}

/*
 * O_CREAT: the last component is looked up and, if missing, made a regular file of mode less the
 * umask, all under ramfs_lock() so that of two O_EXCL creators exactly one wins. The file is
 * opened with the access asked for, whatever its new mode says (Linux's rule for the creator).
 */
static int open_create(int dfd, const char __user *filename, int flags, unsigned int mode,
		       struct file **out)
{
	char last[FS_NAME_MAX + 1];
	struct fnode *dir, *n;
	bool trailing, made = false;
	int err = user_path_parent(dfd, filename, &dir, last, &trailing);

	if (err)
		return err;
	if (!last[0] || !strcmp(last, ".") || !strcmp(last, ".."))
		return -EISDIR; /* "/", "dir/.", "dir/..": a directory is never created by open */
	ramfs_lock();
	n = fs_lookup(dir, last, strlen(last));
	if (n && fs_is_symlink(n) && !(flags & (O_EXCL | O_NOFOLLOW))) {
		ramfs_unlock(); /* an existing link: open where it leads */
		if ((err = user_path_at(dfd, filename, false, &n)))
			return err;
		ramfs_lock();
	}
	if (n && (flags & O_EXCL))
		err = -EEXIST;
	else if (n && n->is_dir)
		err = -EISDIR;
	else if (!n && trailing)
		err = -EISDIR;
	else if (!n && !(err = fnode_permission(dir, MAY_WRITE | MAY_EXEC))) {
		err = ramfs_mknod(dir, last, S_IFREG | (mode & 07777 & ~current->umask), NULL, 0,
				  &n);
		if (err == -EPERM)
			err = -EACCES; /* a kernel tree without create: Linux's lookup_open() */
		made = !err;
	}
	ramfs_unlock();
	if (err)
		return err;
	if (made) {
		/* The creator's access, whatever the new mode allows. */
		if (!(*out = alloc_file(&ramfs_fops, flags & ~(O_CREAT | O_EXCL | O_NOCTTY))))
			return -ENOMEM;
		(*out)->node = n;
		fs_pin(n);
		return 0;
	}
	*out = dentry_open(n, flags, &err);
	return err;
}

/* Linux's struct open_how (include/uapi/linux/openat2.h): what every open becomes on its way in. */
struct open_how {
	u64 flags, mode, resolve;
};

/*
 * Linux's do_sys_openat2(), with its signature: each open(), openat() and creat() comes through
 * here, so a probe on it sees every path a program opens (`p do_sys_openat2
 * path=+0($arg2):ustring`, docs/15). noinline, as Linux's own callers do not inline it either.
 */
static noinline long do_sys_openat2(int dfd, const char __user *filename, struct open_how *how)
{
	int flags = (int)how->flags;
	struct fnode *n;
	struct file *f;
	long fd;
	int err;

	if (flags & O_CREAT) {
		if ((err = open_create(dfd, filename, flags, (unsigned int)how->mode, &f)))
			return err;
	} else if ((err = user_path_at(dfd, filename, flags & O_NOFOLLOW, &n))) {
		return err;
	} else if (!(f = dentry_open(n, flags, &err))) {
		return err;
	}
	fd = fd_install_from(f, 0, flags & O_CLOEXEC);
	fput(f);
	return fd;
}

/* Linux's do_sys_open(): build_open_how() (a mode only with O_CREAT), then the above. */
static noinline long do_sys_open(int dfd, const char __user *filename, int flags, unsigned int mode)
{
	struct open_how how = { .flags = (unsigned int)flags, .mode = flags & O_CREAT ? mode : 0 };

	return do_sys_openat2(dfd, filename, &how);
}

SYSCALL_DEFINE3(open, const char __user *, filename, int, flags, umode_t, mode)
{
	return do_sys_open(AT_FDCWD, filename, flags, mode);
}

SYSCALL_DEFINE4(openat, int, dfd, const char __user *, filename, int, flags, umode_t, mode)
{
	return do_sys_open(dfd, filename, flags, mode);
}

SYSCALL_DEFINE2(creat, const char __user *, pathname, umode_t, mode)
{
	return do_sys_open(AT_FDCWD, pathname, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

#define F_OK 0
#define X_OK 1
#define W_OK 2
#define R_OK 4

/*
 * Linux's do_faccessat(): the question is asked with the real uid and gid (a set-user-ID program
 * asking for its caller), unless AT_EACCESS asks with the effective ones, which permission checks
 * use. So the fs ids are swapped for the call, as Linux's access_override_creds() does; root may
 * do everything but execute a file no one may execute. faccessat has no flags argument: 0.
 */
static long do_faccessat(int dfd, const char __user *filename, int mode, int flags)
{
	unsigned int fsuid = current->fsuid, fsgid = current->fsgid;
	struct fnode *n = NULL;
	struct fd f = { 0 };
	int err;
	char c;

	if (mode & ~(F_OK | X_OK | W_OK | R_OK))
		return -EINVAL;
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EACCESS | AT_EMPTY_PATH))
		return -EINVAL;
	if ((flags & AT_EMPTY_PATH) && !get_user(c, filename) && !c) { /* the fd itself */
		if (dfd == AT_FDCWD) {
			n = current->cwd;
		} else {
			if (!(f = fdget(dfd)).file)
				return -EBADF;
			n = f.file->node;
		}
	} else if ((err = user_path_at(dfd, filename, flags & AT_SYMLINK_NOFOLLOW, &n))) {
		return err;
	}
	if (!(flags & AT_EACCESS))
		current->fsuid = current->uid, current->fsgid = current->gid;
	err = mode ? fnode_permission(n, mode) : 0;
	current->fsuid = fsuid, current->fsgid = fsgid;
	if (f.file)
		fdput(f);
	return err;
}

SYSCALL_DEFINE2(access, const char __user *, filename, int, mode)
{
	return do_faccessat(AT_FDCWD, filename, mode, 0);
}

SYSCALL_DEFINE3(faccessat, int, dfd, const char __user *, filename, int, mode)
{
	return do_faccessat(dfd, filename, mode, 0);
}

SYSCALL_DEFINE4(faccessat2, int, dfd, const char __user *, filename, int, mode, int, flags)
{
	return do_faccessat(dfd, filename, mode, flags);
}

SYSCALL_DEFINE1(chdir, const char __user *, filename)
{
	struct fnode *n;
	int err = user_path_at(AT_FDCWD, filename, false, &n);

	if (err)
		return err;
	if (!n->is_dir)
		return -ENOTDIR;
	set_fs_pwd(n);
	return 0;
}

SYSCALL_DEFINE2(getcwd, char __user *, buf, unsigned long, size)
{
	char path[FS_PATH_MAX];
	size_t len;

	if (current->cwd->unlinked)
		return -ENOENT; /* removed while we stood in it */
	fs_path(current->cwd, path, sizeof(path));
	len = strlen(path) + 1;
	if (len > size)
		return -ERANGE;
	return copy_to_user(buf, path, len) ? -EFAULT : (long)len;
}
