/*
 * The initramfs: GRUB loads a cpio archive (newc format) as a multiboot2 module, and this unpacks
 * it into the file tree at boot, as Linux's init/initramfs.c does into its rootfs. Files are not
 * copied: each one's bytes stay where they are in the archive, which stays reserved.
 *
 *   "070701" ino mode uid gid nlink mtime filesize major minor rmajor rminor namesize check
 *   (13 fields of 8 hex digits: a 110-byte header) name\0 [pad to 4] data [pad to 4] ... "TRAILER!!!"
 */
#include "kernel/fs/ramfs.h"
#include "kernel/mm/mm.h"
#include "kernel/multiboot.h"
#include "kernel/printk/printk.h"
#include "lib/string.h"

#define NEWC_HDR 110

static bool hex8(const char *p, unsigned long *out)
{
	unsigned long v = 0;

	for (int k = 0; k < 8; k++) {
		char c = p[k];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;
		if (d < 0)
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

/* The directory that will hold path's last component, made if missing; *name points at it. */
static struct fnode *parent_of(char *path, const char **name)
{
	char *slash = strrchr(path, '/');
	struct fnode *dir;

	if (!slash) {
		*name = path;
		return fs_root();
	}
	*slash = '\0';
	dir = fs_mkdir_p(path);
	*slash = '/';
	*name = slash + 1;
	return dir;
}

/* One entry: 0, or what went wrong (the archive's remaining entries are then not trusted). */
static const char *unpack_one(char *path, unsigned long mode, const char *data, unsigned long size)
{
	const char *name;
	struct fnode *dir;

	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (!strcmp(path, ".") || !path[0])
		return NULL;
	dir = parent_of(path, &name);
	if (!dir)
		return "cannot make a directory";
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return fs_mkdir(dir, name) ? NULL : "cannot make a directory";
	case S_IFREG:
	case S_IFLNK:
		return ramfs_create(dir, name, mode, data, size) ? NULL : "cannot create a file";
	default:
		return NULL; /* devices, fifos: not made (devtmpfs-like /dev is the kernel's) */
	}
}

void populate_rootfs(void)
{
	const char *p = boot_info.initrd_len ? __va(boot_info.initrd_start) : NULL;
	const char *end = p + boot_info.initrd_len, *bad = NULL;
	int entries = 0;

	if (!p)
		return;
	while (p + NEWC_HDR <= end) {
		unsigned long f[13], namesize, filesize;
		const char *name = p + NEWC_HDR, *data;
		char path[FS_PATH_MAX];

		for (int k = 0; k < 13; k++)
			if (!hex8(p + 6 + 8 * k, &f[k]))
				bad = "bad header";
		if (bad || memcmp(p, "070701", 6)) {
			bad = "no newc magic";
			break;
		}
		namesize = f[11];
		filesize = f[6];
		data = (const char *)ALIGN((unsigned long)name + namesize, 4);
		if (namesize == 0 || data > end || filesize > (unsigned long)(end - data) ||
		    name[namesize - 1] != '\0') {
			bad = "truncated entry";
			break;
		}
		if (!strcmp(name, "TRAILER!!!"))
			break;
		if (namesize > sizeof(path)) {
			bad = "name too long";
			break;
		}
		memcpy(path, name, namesize);
		if ((bad = unpack_one(path, f[1], data, filesize)))
			break;
		entries++;
		p = (const char *)ALIGN((unsigned long)data + filesize, 4);
	}
	if (bad)
		pr_err("Initramfs unpacking failed: %s\n", bad);
	pr_info("initramfs: %d entries unpacked (%lluK archive)\n", entries,
		boot_info.initrd_len / 1024);
}
