/*
 * The character devices every program expects (Linux: drivers/char/mem.c, drivers/tty/tty_io.c):
 * /dev/null (reads end at once, writes vanish), /dev/zero (reads give zeros), and /dev/tty and
 * /dev/console, the console's tty (kernel/fs/tty.c). The kernel shell reaches them too.
 */
#include "kernel/fs/file.h"
#include "kernel/fs/fs.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

static ssize_t null_read(struct file *f, char __user *buf, size_t count, s64 *pos)
{
	return 0;
}

static ssize_t null_write(struct file *f, const char __user *buf, size_t count, s64 *pos)
{
	return count;
}

static ssize_t zero_read(struct file *f, char __user *buf, size_t count, s64 *pos)
{
	static const char zeros[256];
	size_t done = 0;

	while (done < count) {
		size_t n = MIN(count - done, sizeof(zeros));
		if (copy_to_user(buf + done, zeros, n))
			return done ? (ssize_t)done : -EFAULT;
		done += n;
	}
	return done;
}

static const struct file_operations null_fops = {
	.read = null_read,
	.write = null_write,
	.seekable = true,
	.mode = 0020666,
};

static const struct file_operations zero_fops = {
	.read = zero_read,
	.write = null_write,
	.seekable = true,
	.mode = 0020666,
};

/* For the kernel shell, which reads and writes nodes as text. */
static int empty_show(struct seq_file *m, struct fnode *f)
{
	return 0;
}

static int discard_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	return 0;
}

static const struct file_ops null_ops = { .show = empty_show,
					  .write = discard_write,
					  .fops = &null_fops };
static const struct file_ops zero_ops = { .write = discard_write, .fops = &zero_fops };
static const struct file_ops tty_ops = { .fops = &tty_fops };

void devices_init(void)
{
	struct fnode *dev = fs_mkdir_p("/dev");

	fs_create(dev, "null", &null_ops, NULL);
	fs_create(dev, "zero", &zero_ops, NULL);
	fs_create(dev, "tty", &tty_ops, NULL);
	fs_create(dev, "console", &tty_ops, NULL);
}
