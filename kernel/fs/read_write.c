/* read, write and their kin over the fd table: the checks Linux makes, then the file's own door. */
#include "kernel/fs/file.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/ramfs.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define MAX_RW_COUNT (0x7ffff000UL) /* Linux's cap on one read or write: INT_MAX, page aligned */
#define UIO_MAXIOV 1024
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

bool file_can_read(const struct file *f)
{
	return (f->f_flags & O_ACCMODE) == O_RDONLY || (f->f_flags & O_ACCMODE) == O_RDWR;
}

bool file_can_write(const struct file *f)
{
	return (f->f_flags & O_ACCMODE) == O_WRONLY || (f->f_flags & O_ACCMODE) == O_RDWR;
}

/* Linux calls these two vfs_read() and vfs_write(); here those names belong to the mock VFS that
 * the fs workload traces (kernel/work/mockfs.c), and a symbol must name one function. */
ssize_t file_read(struct file *f, char __user *buf, size_t count, s64 *pos)
{
	if (!file_can_read(f))
		return -EBADF;
	if (f->node && f->node->is_dir)
		return -EISDIR;
	if (!f->f_op->read)
		return -EINVAL;
	if (!access_ok(buf, count))
		return -EFAULT;
	return f->f_op->read(f, buf, MIN(count, MAX_RW_COUNT), pos);
}

ssize_t file_write(struct file *f, const char __user *buf, size_t count, s64 *pos)
{
	if (!file_can_write(f))
		return -EBADF;
	if (!f->f_op->write)
		return -EINVAL;
	if (!access_ok(buf, count))
		return -EFAULT;
	return f->f_op->write(f, buf, MIN(count, MAX_RW_COUNT), pos);
}

/*
 * read and write at the file's own position (Linux's ksys_read() and ksys_write()). Every call
 * below holds the file from fdget() to fdput(): a thread that closes the fd meanwhile takes it
 * out of the table, and the file is released when this call lets it go.
 */
static ssize_t ksys_rw(unsigned int fd, void __user *buf, size_t count, bool write)
{
	struct fd f = fdget(fd);
	ssize_t ret;

	if (!f.file)
		return -EBADF;
	ret = write ? file_write(f.file, buf, count, &f.file->f_pos)
		    : file_read(f.file, buf, count, &f.file->f_pos);
	fdput(f);
	return ret;
}

SYSCALL_DEFINE3(read, unsigned int, fd, char __user *, buf, size_t, count)
{
	return ksys_rw(fd, buf, count, false);
}

SYSCALL_DEFINE3(write, unsigned int, fd, const char __user *, buf, size_t, count)
{
	return ksys_rw(fd, (void __user *)buf, count, true);
}

/* pread64 and pwrite64: -EBADF, -EINVAL (pos < 0), -ESPIPE, or the transfer at pos. */
static long positioned(unsigned int fd, void __user *buf, size_t count, loff_t pos, bool write)
{
	struct fd f = fdget(fd);
	long ret;

	if (!f.file)
		return -EBADF;
	if (pos < 0)
		ret = -EINVAL;
	else if (!f.file->f_op->seekable)
		ret = -ESPIPE;
	else
		ret = write ? file_write(f.file, buf, count, &pos)
			    : file_read(f.file, buf, count, &pos);
	fdput(f);
	return ret;
}

SYSCALL_DEFINE4(pread64, unsigned int, fd, char __user *, buf, size_t, count, loff_t, pos)
{
	return positioned(fd, buf, count, pos, false);
}

SYSCALL_DEFINE4(pwrite64, unsigned int, fd, const char __user *, buf, size_t, count, loff_t, pos)
{
	return positioned(fd, (void __user *)buf, count, pos, true);
}

struct iovec {
	void __user *iov_base;
	size_t iov_len;
};

/* Each iovec in turn, stopping at a short transfer; an error after some bytes is those bytes. */
static ssize_t iter_file(struct file *f, const struct iovec __user *uvec, unsigned long vlen,
			 bool write)
{
	ssize_t total = 0;

	if (vlen > UIO_MAXIOV)
		return -EINVAL;
	for (unsigned long k = 0; k < vlen; k++) {
		struct iovec v;
		ssize_t n;
		if (copy_from_user(&v, &uvec[k], sizeof(v)))
			return total ? total : -EFAULT;
		if ((ssize_t)v.iov_len < 0)
			return -EINVAL;
		if (!v.iov_len)
			continue;
		n = write ? file_write(f, v.iov_base, v.iov_len, &f->f_pos)
			  : file_read(f, v.iov_base, v.iov_len, &f->f_pos);
		if (n < 0)
			return total ? total : n;
		total += n;
		if ((size_t)n < v.iov_len)
			break;
	}
	return total;
}

static ssize_t do_iter(unsigned int fd, const struct iovec __user *uvec, unsigned long vlen,
		       bool write)
{
	struct fd f = fdget(fd);
	ssize_t ret;

	if (!f.file)
		return -EBADF;
	ret = iter_file(f.file, uvec, vlen, write);
	fdput(f);
	return ret;
}

SYSCALL_DEFINE3(readv, unsigned long, fd, const struct iovec __user *, vec, unsigned long, vlen)
{
	return do_iter(fd, vec, vlen, false);
}

SYSCALL_DEFINE3(writev, unsigned long, fd, const struct iovec __user *, vec, unsigned long, vlen)
{
	return do_iter(fd, vec, vlen, true);
}

/* SEEK_END's base: a control file's size is its text once read (Linux's tracefs says 0 before). */
static s64 file_size(struct file *f)
{
	if (f->private_data)
		return f->private_len;
	return f->node ? fs_size(f->node) : 0;
}

static s64 file_lseek(struct file *f, off_t offset, unsigned int whence)
{
	s64 base;

	if (!f->f_op->seekable)
		return -ESPIPE;
	if (whence == SEEK_SET)
		base = 0;
	else if (whence == SEEK_CUR)
		base = f->f_pos;
	else if (whence == SEEK_END)
		base = file_size(f);
	else
		return -EINVAL;
	if (offset < 0 ? base + offset < 0 : base > 0x7fffffffffffffffLL - offset)
		return offset < 0 ? -EINVAL : -EOVERFLOW;
	/* A directory's position is an entry index: only a rewind means anything. */
	f->f_pos = base + offset;
	return f->f_pos;
}

SYSCALL_DEFINE3(lseek, unsigned int, fd, off_t, offset, unsigned int, whence)
{
	struct fd f = fdget(fd);
	s64 ret;

	if (!f.file)
		return -EBADF;
	ret = file_lseek(f.file, offset, whence);
	fdput(f);
	return ret;
}

SYSCALL_DEFINE3(ioctl, unsigned int, fd, unsigned int, cmd, unsigned long, arg)
{
	struct fd f = fdget(fd);
	long ret;

	if (!f.file)
		return -EBADF;
	ret = f.file->f_op->ioctl ? f.file->f_op->ioctl(f.file, cmd, arg) : -ENOTTY;
	fdput(f);
	return ret;
}
