/*
 * File permissions for programs (Linux: fs/namei.c, generic_permission(); fs/tracefs/inode.c):
 * every node here belongs to root (uid 0, gid 0), so a process of another user gets the "other"
 * bits, or the group's if its group is root's. tracefs is root's alone, as in Linux 6.1:
 * directories 0750, files 0640 (writable) or 0440, so another user can neither list nor read
 * nor change tracing, kprobe_events and uprobe_events included.
 */
#include "kernel/cred.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/ramfs.h"
#include "lib/errno.h"

#define S_IFREG 0100000
#define S_IFDIR 0040000

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
	return generic_permission_mode(fs_mode(n), mask);
}
