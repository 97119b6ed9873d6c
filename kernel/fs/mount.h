/* The mount table (kernel/fs/mount.c). */
#ifndef KERNEL_FS_MOUNT_H
#define KERNEL_FS_MOUNT_H

/* /proc/mounts and the mounts the kernel starts with; /sys/kernel/debug/tracing. After
 * procfs_init() and the tracefs files. */
void mounts_init(void);

#endif
