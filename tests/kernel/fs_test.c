/* Self-tests of the file tree's path resolution and of seq_file's overflow rule. */
#include "kernel/fs/fs.h"
#include "kernel/selftest.h"
#include "lib/errno.h"
#include "lib/string.h"

SELFTEST(fs_resolve_paths)
{
	struct fnode *proc, *n;
	char path[FS_PATH_MAX];

	KT_ASSERT(t, fs_resolve(fs_root(), "/proc", &proc) == 0);
	KT_EXPECT_EQ(t, fs_resolve(proc, "version", &n), 0);
	KT_EXPECT_STREQ(t, n->name, "version");
	KT_EXPECT_EQ(t, fs_resolve(proc, "../proc/./version", &n), 0);
	KT_EXPECT_STREQ(t, n->name, "version");
	KT_EXPECT_EQ(t, fs_resolve(proc, "/../..//proc", &n), 0);
	KT_EXPECT(t, n == proc);
	KT_EXPECT_EQ(t, fs_resolve(proc, "nope", &n), -ENOENT);
	KT_EXPECT_EQ(t, fs_resolve(proc, "version/x", &n), -ENOTDIR);
	fs_resolve(proc, "sys/kernel/printk", &n);
	fs_path(n, path, sizeof(path));
	KT_EXPECT_STREQ(t, path, "/proc/sys/kernel/printk");
}

SELFTEST(seq_file_overflow)
{
	char buf[8];
	struct seq_file m = { .buf = buf, .size = sizeof(buf) };

	seq_printf(&m, "%d", 1234);
	KT_EXPECT(t, !m.overflow);
	seq_puts(&m, "56789");
	KT_EXPECT(t, m.overflow);
	KT_EXPECT_EQ(t, m.count, sizeof(buf));
	KT_EXPECT(t, !memcmp(buf, "12345678", 8));
}
