/* /dev: device nodes. ttyS1 is the binary channel to the host. */
#ifndef KERNEL_DEVFS_H
#define KERNEL_DEVFS_H

#include "kernel/fs/fs.h"

void devfs_init(void);
/* kernel/fs/devices.c: /dev/null, /dev/zero, /dev/tty, /dev/console. */
void devices_init(void);

/*
 * Sends len bytes read from the file at path to device dev as one frame, all integers
 * little-endian:
 *
 *   "FTOSRAW1" | u32 path length | path (no NUL) | u64 len | payload | u32 CRC-32 of the payload
 *
 * The host finds where a file starts by the magic and where it stops by the length, and knows
 * the bytes arrived whole by the CRC. 0, or -EIO if the device has no hardware behind it.
 */
int dev_send_frame(struct fnode *dev, const char *path, const void *buf, u64 len);

#endif
