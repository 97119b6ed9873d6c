/* The "fs" workload: a pretend file system (open, path walk, read through a page cache, close),
 * shaped like the calls a real VFS makes, so function_graph output reads like Linux's. */
#include "kernel/work/workloads.h"
#include "lib/compiler.h"
#include "lib/string.h"

#define WORK noinline __attribute__((noclone))

struct mock_file {
	int inode;
	size_t pos;
};

static const char *const paths[] = { "/etc/hostname", "/usr/lib/os-release", "/var/log/messages" };
static char page_cache[4][64];
static volatile size_t fs_sink;

WORK int inode_permission(int inode)
{
	return inode >= 0 ? 0 : -1;
}

WORK int dentry_lookup(const char *name, size_t len)
{
	int h = 0;
	for (size_t i = 0; i < len; i++)
		h = h * 31 + name[i];
	return h & 0x3ff;
}

WORK int path_lookup(const char *path)
{
	int inode = 1;
	while (*path) {
		size_t len = strcspn(++path, "/");
		inode ^= dentry_lookup(path, len);
		if (inode_permission(inode))
			return -1;
		path += len;
	}
	return inode;
}

WORK void vfs_open(struct mock_file *f, const char *path)
{
	f->inode = path_lookup(path);
	f->pos = 0;
}

WORK const char *page_cache_lookup(int inode)
{
	return page_cache[inode & 3];
}

WORK size_t copy_to_buffer(char *dst, const char *src, size_t n)
{
	memcpy(dst, src, n);
	return n;
}

WORK size_t vfs_read(struct mock_file *f, char *buf, size_t n)
{
	size_t got = copy_to_buffer(buf, page_cache_lookup(f->inode), n);
	f->pos += got;
	return got;
}

WORK void vfs_close(struct mock_file *f)
{
	fs_sink += f->pos; /* something the compiler cannot drop, or it drops the call */
	f->inode = -1;
}

WORK void fs_iteration(struct work_stats *st)
{
	struct mock_file f;
	char buf[32];

	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		vfs_open(&f, paths[i]);
		fs_sink += vfs_read(&f, buf, sizeof(buf));
		vfs_close(&f);
	}
}
