/*
 * sendfile (Linux: fs/read_write.c, do_sendfile()): bytes from one file to another without the
 * program's copy. Linux moves them through a pipe's pages (do_splice_direct()); here they pass
 * through a bounce buffer mapped for the call in the caller's own address space, so the two
 * files' ordinary read and write doors move them, with every check those make:
 *
 *   sendfile(out, in, &off, n):  buf = an anonymous area of SENDFILE_CHUNK bytes
 *                                loop: in's read into buf at off, out's write from buf
 *                                buf unmapped; off (or in's position) moved by what was written
 */
#include "kernel/fs/file.h"
#include "kernel/fs/fs.h"
#include "kernel/mm/mm_types.h"
#include "kernel/signal.h"
#include "kernel/syscalls.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define SENDFILE_CHUNK (16 * 4096UL)
#define MAX_RW_COUNT (0x7ffff000UL)

/* Linux's order of checks: the fds and their modes, an offset into a pipe, an appending output,
 * an input that cannot be read at a position. 0 or -errno. */
static long sendfile_check(struct file *in, struct file *out, bool offset)
{
	if (!in || !out || !file_can_read(in) || !file_can_write(out))
		return -EBADF;
	if (offset && !in->f_op->seekable)
		return -ESPIPE; /* an offset into a pipe */
	if (out->f_flags & O_APPEND)
		return -EINVAL;
	if (!in->f_op->seekable || !in->f_op->read || (in->node && in->node->is_dir))
		return -EINVAL; /* Linux: no splice_read */
	return 0;
}

/* Moves up to count bytes from in at *pos to out through buf: how many, or -errno if none. */
static ssize_t copy_through(struct file *in, struct file *out, char __user *buf, s64 *pos,
			    size_t count)
{
	ssize_t done = 0;

	while ((size_t)done < count) {
		ssize_t r = file_read(in, buf, MIN(SENDFILE_CHUNK, count - done), pos), w;

		if (r <= 0)
			return done ?: r;
		w = file_write(out, buf, r, &out->f_pos);
		if (w < r) /* what was read and not written goes back to be read again */
			*pos -= r - (w > 0 ? w : 0);
		if (w <= 0)
			return done ?: w;
		done += w;
		if (w < r || signal_pending(current))
			break;
	}
	return done;
}

static long do_sendfile(struct file *in, struct file *out, loff_t __user *offset, size_t count)
{
	s64 pos, *ppos = &pos;
	ssize_t done;
	long buf, err;

	if (offset && copy_from_user(&pos, offset, sizeof(pos)))
		return -EFAULT;
	if ((err = sendfile_check(in, out, offset != NULL)))
		return err;
	if (offset && pos < 0)
		return -EINVAL;
	if (!offset)
		ppos = &in->f_pos;
	if (!(count = MIN(count, MAX_RW_COUNT)))
		return 0;
	if ((buf = vm_mmap_anon(SENDFILE_CHUNK)) < 0)
		return buf;
	done = copy_through(in, out, (char __user *)buf, ppos, count);
	vm_munmap_anon(buf, SENDFILE_CHUNK);
	if (offset && put_user(pos, offset))
		return -EFAULT;
	return done;
}

SYSCALL_DEFINE4(sendfile64, int, out_fd, int, in_fd, loff_t __user *, offset, size_t, count)
{
	struct fd in = fdget(in_fd), out = fdget(out_fd);
	long ret = do_sendfile(in.file, out.file, offset, count);

	fdput(out);
	fdput(in);
	return ret;
}
