/*
 * Mounts as programs see them (Linux: fs/namespace.c, fs/proc_namespace.c): one tree holds every
 * file system here, so a mount of tracefs, debugfs, proc, sysfs or devtmpfs joins the instance
 * that already exists: the target directory leads to it from then on (fnode->mounted) and
 * /proc/mounts lists it, as Linux lists a second mount of one superblock. /sys/kernel/debug/tracing
 * is tracefs again, as Linux's debugfs automount makes it. tmpfs is the exception: each mount is
 * a new, empty instance (kernel/fs/tmpfs.c), and /tmp is one from boot on. Only root mounts; a
 * type this kernel does not have is -ENODEV.
 */
#include "kernel/cred.h"
#include "kernel/fs/file.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/mount.h"
#include "kernel/fs/ramfs.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

#define MNT_FLAGS "rw,nosuid,nodev,noexec,relatime"
#define MAX_MOUNTS 32

struct mount {
	unsigned int dev; /* its file system's device number: st_dev of every file in it */
	const char *type;
	char source[32];
	struct fnode *point;
	const char *opts;
	struct fnode *tmpfs_root; /* a tmpfs mount's own tree, freed at umount */
};

static struct mount mounts[MAX_MOUNTS];
static int nr_mounts;

/* The types there are, and the directory each one's single instance has as its root. */
static const struct {
	const char *type, *root;
} fs_types[] = {
	{ "tracefs", "/sys/kernel/tracing" },
	{ "debugfs", "/sys/kernel/debug" },
	{ "proc", "/proc" },
	{ "sysfs", "/sys" },
	{ "devtmpfs", "/dev" },
};

/*
 * Linux gives each file system without a disk an anonymous device, major 0 and the next free
 * minor (get_anon_bdev()); here the single instances of a kind share one, 1 for the rootfs and
 * 2.. in fs_types[]'s order, and each tmpfs mount gets its own from 16 on. A second mount of
 * tracefs is the same file system, so the same device, as on Linux.
 */
static unsigned int anon_dev(const char *type)
{
	static unsigned int next_tmpfs = 16;

	if (!strcmp(type, "tmpfs"))
		return next_tmpfs++;
	for (unsigned int i = 0; i < ARRAY_SIZE(fs_types); i++)
		if (!strcmp(type, fs_types[i].type))
			return i + 2;
	return 1;
}

static void add_mount(const char *type, const char *source, struct fnode *point, const char *opts)
{
	if (nr_mounts == MAX_MOUNTS)
		return;
	mounts[nr_mounts].dev = anon_dev(type);
	mounts[nr_mounts].tmpfs_root = NULL;
	mounts[nr_mounts].type = type;
	strscpy(mounts[nr_mounts].source, source, sizeof(mounts[0].source));
	mounts[nr_mounts].point = point;
	mounts[nr_mounts].opts = opts;
	nr_mounts++;
}

static int mounts_show(struct seq_file *m, struct fnode *f)
{
	char path[FS_PATH_MAX];

	for (int i = 0; i < nr_mounts; i++) {
		fs_path(mounts[i].point, path, sizeof(path));
		seq_printf(m, "%s %s %s %s 0 0\n", mounts[i].source, path, mounts[i].type,
			   mounts[i].opts);
	}
	return 0;
}

static const struct file_ops mounts_ops = { .show = mounts_show };

/* The mount n lies in: its nearest mount point or tmpfs root at or above it; NULL: none. */
static const struct mount *find_mount(const struct fnode *n)
{
	for (; n; n = n->parent)
		for (int i = nr_mounts - 1; i >= 0;
		     i--) /* the latest mount on a point is the one seen */
			if (mounts[i].point == n ||
			    (mounts[i].tmpfs_root && mounts[i].tmpfs_root == n))
				return &mounts[i];
	return NULL;
}

const char *mount_of(const struct fnode *n, const char **opts)
{
	const struct mount *m = find_mount(n);

	*opts = m ? m->opts : "rw";
	return m ? m->type : "rootfs";
}

unsigned int mount_dev(const struct fnode *n)
{
	const struct mount *m = find_mount(n);

	return m ? m->dev : 1;
}

/* A new tmpfs standing on point (which keeps what it had, hidden, as on Linux). */
static int mount_tmpfs(const char *source, struct fnode *point, const char *options)
{
	struct fnode *root;
	int err;

	if (nr_mounts == MAX_MOUNTS)
		return -ENOMEM;
	if (point->mounted)
		return -EBUSY; /* stacking mounts on one point is not built */
	if ((err = tmpfs_fill_super(point, options, &root)))
		return err;
	point->mounted = root;
	add_mount("tmpfs", source, point, "rw,relatime");
	mounts[nr_mounts - 1].tmpfs_root = root;
	return 0;
}

void mounts_init(void)
{
	tracefs_permission_init();
	struct fnode *debug = fs_mkdir_p("/sys/kernel/debug");
	struct fnode *tracing = fs_mkdir_p("/sys/kernel/tracing");
	struct fnode *automount = fs_mkdir(debug, "tracing");

	add_mount("rootfs", "rootfs", fs_root(), "rw");
	add_mount("proc", "proc", fs_mkdir_p("/proc"), MNT_FLAGS);
	add_mount("sysfs", "sysfs", fs_mkdir_p("/sys"), MNT_FLAGS);
	add_mount("devtmpfs", "devtmpfs", fs_mkdir_p("/dev"), "rw,nosuid,relatime");
	add_mount("debugfs", "debugfs", debug, MNT_FLAGS);
	add_mount("tracefs", "tracefs", tracing, MNT_FLAGS);
	if (automount && automount != tracing) {
		automount->mounted = tracing;
		add_mount("tracefs", "tracefs", automount, MNT_FLAGS);
	}
	fs_create(fs_mkdir_p("/proc"), "mounts", &mounts_ops, NULL);
	/* Programs create files in the rootfs and tmpfs only; these trees are the kernel's. */
	fs_set_sb(fs_mkdir_p("/proc"), NULL);
	fs_set_sb(fs_mkdir_p("/sys"), NULL);
	fs_set_sb(fs_mkdir_p("/dev"), NULL);
	tmpfs_init();
	if (mount_tmpfs("tmpfs", fs_mkdir_p("/tmp"), NULL))
		pr_err("tmpfs: cannot mount /tmp\n");
}

SYSCALL_DEFINE5(mount, const char __user *, dev_name, const char __user *, dir_name,
		const char __user *, type, unsigned long, flags, void __user *, data)
{
	char name[16], source[32], options[128];
	struct fnode *point, *root;
	int err;

	if (!capable_root())
		return -EPERM;
	if (!type || strncpy_from_user(name, type, sizeof(name)) < 0 ||
	    (dev_name && strncpy_from_user(source, dev_name, sizeof(source)) < 0) ||
	    (data && strncpy_from_user(options, data, sizeof(options)) < 0))
		return -EFAULT;
	name[sizeof(name) - 1] = source[sizeof(source) - 1] = options[sizeof(options) - 1] = '\0';
	if (!dev_name)
		strscpy(source, "none", sizeof(source));
	if ((err = user_path_at(AT_FDCWD, dir_name, false, &point)))
		return err;
	if (!point->is_dir)
		return -ENOTDIR;
	if (!strcmp(name, "tmpfs")) {
		ramfs_lock();
		err = mount_tmpfs(source, point, data ? options : NULL);
		ramfs_unlock();
		return err;
	}
	for (size_t i = 0; i < sizeof(fs_types) / sizeof(fs_types[0]); i++) {
		if (strcmp(name, fs_types[i].type))
			continue;
		root = fs_mkdir_p(fs_types[i].root);
		if (point != root) {
			if (point->children)
				return -EBUSY; /* a directory of ours with content: not shadowed */
			point->mounted = root;
		}
		add_mount(fs_types[i].type, source, point, MNT_FLAGS);
		return 0;
	}
	return -ENODEV;
}

SYSCALL_DEFINE2(umount2, const char __user *, name, int, flags)
{
	struct fnode *point;
	int err;

	if (!capable_root())
		return -EPERM;
	if ((err = user_path_at(AT_FDCWD, name, false, &point)))
		return err;
	/* The last mount on point goes; a lookup now lands on what it covered. */
	for (int i = nr_mounts - 1; i > 0; i--) {
		struct fnode *p = mounts[i].point;
		if (p != point && p->mounted != point)
			continue;
		if (mounts[i].tmpfs_root && (err = tmpfs_kill_sb(mounts[i].tmpfs_root)))
			return err; /* a file open or a cwd in it: -EBUSY */
		if (p->mounted == point)
			p->mounted = NULL;
		memmove(&mounts[i], &mounts[i + 1], (nr_mounts - i - 1) * sizeof(mounts[0]));
		nr_mounts--;
		return 0;
	}
	return -EINVAL;
}
