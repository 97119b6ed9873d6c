/* The mount table (kernel/fs/mount.c). */
#ifndef KERNEL_FS_MOUNT_H
#define KERNEL_FS_MOUNT_H

/* /proc/mounts and the mounts the kernel starts with; /sys/kernel/debug/tracing. After
 * procfs_init() and the tracefs files. */
void mounts_init(void);

struct fnode;
/* The type of the mount n lies in ("proc", "tracefs", "tmpfs"...: its nearest mount point or
 * tmpfs root at or above it), and that mount's options as /proc/mounts prints them. */
const char *mount_of(const struct fnode *n, const char **opts);
/* That mount's device number, minor only (major 0: no disk behind it), as st_dev gives it. */
unsigned int mount_dev(const struct fnode *n);

#endif
