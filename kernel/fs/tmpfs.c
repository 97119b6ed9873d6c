/*
 * tmpfs instances (Linux: mm/shmem.c, shmem_fill_super(), shmem_parse_one()): each mount makes a
 * super_block with its own limits and a root directory that stands in for the mount point, so a
 * lookup of /tmp lands in the new tree and ".." from it leads back to /. /tmp is one, mounted at
 * boot as Debian mounts it; `mount -t tmpfs -o size=64k tmpfs DIR` makes more.
 *
 *   /  --children-->  tmp (the mount point, ->mounted)  ---->  tmpfs root (sb->root, inode 01777)
 *   ^                                                            |  parent
 *   +------------------------------------------------------------+
 */
#include "kernel/fs/ramfs.h"
#include "kernel/mm/mm.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/string.h"

/* Parses "size=N[k|m|g|%]": N bytes (rounded up to pages), or % of memory, as shmem does. */
static int parse_size(const char *v, size_t *pages)
{
	unsigned long long n = 0;
	const char *p = v;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9') {
		if (n > (~0ULL - 9) / 10)
			return -EINVAL;
		n = n * 10 + (*p++ - '0');
	}
	switch (*p) {
	case 'k':
	case 'K':
		n <<= 10;
		p++;
		break;
	case 'm':
	case 'M':
		n <<= 20;
		p++;
		break;
	case 'g':
	case 'G':
		n <<= 30;
		p++;
		break;
	case '%':
		if (n > 100)
			return -EINVAL;
		*pages = pages_total() * n / 100;
		return p[1] ? -EINVAL : 0;
	}
	if (*p)
		return -EINVAL;
	*pages = (n + PAGE_SIZE - 1) / PAGE_SIZE;
	return 0;
}

static int parse_uint(const char *v, unsigned long *out)
{
	return kstrtoul(v, 0, out) ? -EINVAL : 0;
}

/* One "key=value" of a comma-separated option string. */
static int parse_one(struct super_block *sb, unsigned int *mode, char *opt)
{
	char *eq = strchr(opt, '=');
	unsigned long v;

	if (!*opt)
		return 0;
	if (!eq)
		return -EINVAL;
	*eq++ = '\0';
	if (!strcmp(opt, "size"))
		return parse_size(eq, &sb->max_pages);
	if (!strcmp(opt, "nr_inodes")) {
		if (parse_uint(eq, &v))
			return -EINVAL;
		sb->max_inodes = v;
		return 0;
	}
	if (!strcmp(opt, "mode")) {
		if (kstrtoul(eq, 8, &v) || v > 07777)
			return -EINVAL;
		*mode = v;
		return 0;
	}
	return -EINVAL; /* Linux: "tmpfs: Unknown parameter 'x'" */
}

static int parse_options(struct super_block *sb, unsigned int *mode, const char *options)
{
	char buf[128], *p = buf;
	int err;

	if (!options)
		return 0;
	if (strlen(options) >= sizeof(buf))
		return -EINVAL;
	strscpy(buf, options, sizeof(buf));
	while (p) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if ((err = parse_one(sb, mode, p)))
			return err;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

int tmpfs_fill_super(struct fnode *point, const char *options, struct fnode **out)
{
	struct super_block *sb = kzalloc(sizeof(*sb));
	unsigned int mode = 01777;
	struct fnode *root = NULL, *holder = NULL;
	int err = -ENOMEM;

	if (!sb)
		return -ENOMEM;
	sb->type = "tmpfs";
	sb->magic = TMPFS_MAGIC;
	sb->max_pages = pages_total() / 2; /* shmem's default: half of memory */
	sb->max_inodes = pages_total() / 2;
	if ((err = parse_options(sb, &mode, options)))
		goto fail;
	/* The root is made as a child of a scratch holder, then cut loose of it. */
	err = -ENOMEM;
	if (!(holder = kzalloc(sizeof(*holder))))
		goto fail;
	holder->is_dir = true;
	holder->sb = sb;
	if ((err = ramfs_mknod(holder, point->name, S_IFDIR | (mode & 07777), NULL, 0, &root)))
		goto fail;
	fs_detach(root);
	root->parent = point->parent ? point->parent : point;
	sb->root = root;
	kfree(holder);
	*out = root;
	return 0;
fail:
	kfree(holder);
	kfree(sb);
	return err;
}

int tmpfs_kill_sb(struct fnode *root)
{
	struct super_block *sb = root->sb;

	if (fs_busy(root))
		return -EBUSY;
	root->parent = NULL;
	sb->root = NULL;
	sb->dead = true; /* freed with its last inode: an unlinked file may still be open */
	ramfs_lock();
	fs_remove(root);
	ramfs_unlock();
	return 0;
}

void tmpfs_init(void)
{
	/* Linux's rootfs is a tmpfs of half the memory (init/do_mounts.c: rootfs_init_fs_context). */
	rootfs_sb.max_pages = pages_total() / 2;
}
