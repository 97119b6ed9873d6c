/* /dev: ttyS1, COM2, where `cat FILE > /dev/ttyS1` sends a file's bytes to the host in a frame. */
#include "kernel/fs/devfs.h"
#include "kernel/fs/tracefs.h"
#include "arch/x86/serial.h"
#include "lib/crc32.h"
#include "lib/errno.h"
#include "lib/string.h"

#define FRAME_MAGIC "FTOSRAW1"

/* `echo WORDS > /dev/ttyS1`: the bytes go out raw, as to a Linux tty. */
static int ttyS1_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	if (!serial2_present())
		return -EIO;
	serial2_write(buf, len);
	return 0;
}

static const struct file_ops ttyS1_fops = { .write = ttyS1_write, .device = true };

int dev_send_frame(struct fnode *dev, const char *path, const void *buf, u64 len)
{
	u32 name_len = strlen(path), crc = crc32_ieee(0, buf, len);
	int err;

	/* Little-endian on the wire is the CPU's own order on x86: the integers go out as they are. */
	if ((err = dev->ops->write(dev, FRAME_MAGIC, 8, 0)) ||
	    (err = dev->ops->write(dev, (const char *)&name_len, 4, 0)) ||
	    (err = dev->ops->write(dev, path, name_len, 0)) ||
	    (err = dev->ops->write(dev, (const char *)&len, 8, 0)) ||
	    (err = dev->ops->write(dev, buf, len, 0)))
		return err;
	return dev->ops->write(dev, (const char *)&crc, 4, 0);
}

void devfs_init(void)
{
	serial2_init();
	tracefs_create_file("ttyS1", tracefs_create_path("/dev"), NULL, &ttyS1_fops);
}
