/*
 * File permissions for programs (Linux: fs/namei.c, generic_permission(); fs/tracefs/inode.c):
 * the kernel's nodes and the initramfs's files belong to root (uid 0, gid 0), so a process of
 * another user gets the "other" bits, or the group's if its group is root's; a file a program
 * made in a ramfs or tmpfs belongs to its maker. tracefs is root's alone, as in Linux 6.1:
 * directories 0750, files 0640 (writable) or 0440, so another user can neither list nor read
 * nor change tracing, kprobe_events and uprobe_events included.
 */
#include "kernel/cred.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/ramfs.h"
#include "kernel/sched/sched.h"
#include "lib/errno.h"

static struct fnode *tracefs_root;

void tracefs_permission_init(void)
{
	tracefs_root = fs_mkdir_p("/sys/kernel/tracing");
}

/* The mode of a tracefs node, or 0 if n is not one. */
unsigned int tracefs_mode(const struct fnode *n)
{
	const struct fnode *p = n;

	while (p && p != tracefs_root)
		p = p->parent;
	if (!p || !tracefs_root)
		return 0;
	if (n->is_dir)
		return S_IFDIR | 0750;
	return S_IFREG | (n->ops && n->ops->write ? 0640 : 0440);
}

int fnode_permission(const struct fnode *n, int mask)
{
	const struct ramfs_inode *i = ramfs_inode(n);
	unsigned int bits;

	/* A file a program made belongs to it: its owner's bits, then its group's. */
	if (!i || !i->uid || current->fsuid == 0)
		return generic_permission_mode(fs_mode(n), mask);
	bits = current->fsuid == i->uid	  ? i->mode >> 6
	       : current->fsgid == i->gid ? i->mode >> 3
					  : i->mode;
	return ((bits & 7) & mask) == (unsigned int)mask ? 0 : -EACCES;
}
