/* Self-tests of the tracefs helpers: a table of files is made whole or not at all, and a numeric
 * file keeps its bounds. */
#include "kernel/fs/tracefs.h"
#include "kernel/selftest.h"
#include "lib/errno.h"
#include "lib/string.h"

static int nothing_show(struct seq_file *m, struct fnode *f)
{
	return 0;
}

static const struct tracefs_file abcd[] = {
	TRACEFS_FILE("a", nothing_show, NULL),
	TRACEFS_FILE("b", nothing_show, NULL),
	TRACEFS_FILE("c", nothing_show, NULL),
	TRACEFS_FILE("d", nothing_show, NULL),
};

SELFTEST(tracefs_create_files_all_or_none)
{
	struct fnode *dir = fs_mkdir(fs_root(), "selftest-tracefs"), *n;
	static const struct file_ops other = { .show = nothing_show };

	KT_ASSERT(t, dir != NULL);
	/* "c" exists already: the table cannot be made, and what it made goes again. */
	KT_ASSERT(t, fs_create(dir, "c", &other, NULL) != NULL);
	KT_EXPECT_EQ(t, tracefs_create_files(dir, abcd, ARRAY_SIZE(abcd)), -ENOMEM);
	KT_EXPECT_EQ(t, fs_resolve(dir, "a", &n), -ENOENT);
	KT_EXPECT_EQ(t, fs_resolve(dir, "b", &n), -ENOENT);
	KT_EXPECT_EQ(t, fs_resolve(dir, "d", &n), -ENOENT);
	KT_EXPECT(t, !fs_resolve(dir, "c", &n) && n->ops == &other); /* not the table's: kept */
	fs_remove(n);
	KT_EXPECT_EQ(t, tracefs_create_files(dir, abcd, ARRAY_SIZE(abcd)), 0);
	for (unsigned int i = 0; i < ARRAY_SIZE(abcd); i++)
		KT_EXPECT(t, !fs_resolve(dir, abcd[i].name, &n) && n->ops == &abcd[i].fops);
	tracefs_remove_files(dir, abcd, ARRAY_SIZE(abcd));
	KT_EXPECT(t, dir->children == NULL);
	KT_EXPECT(t, tracefs_create_file("x", NULL, NULL, &other) == NULL); /* no parent */
	fs_remove(dir);
}

static unsigned long test_number = 3;
static int refuse(void *data, unsigned long v)
{
	return v == 7 ? -EBUSY : (test_number = v * 2, 0);
}
static const struct tracefs_ulong plain = { .value = &test_number, .min = 2, .max = 10 };
static const struct tracefs_ulong hooked = { .value = &test_number, .max = 9, .set = refuse };
static const struct tracefs_file numbers[] = {
	TRACEFS_ULONG("plain", &plain),
	TRACEFS_ULONG("hooked", &hooked),
};

static const char *show(struct fnode *f, char *buf, size_t size)
{
	struct seq_file m = { .buf = buf, .size = size - 1 };

	fs_read(f, &m);
	buf[m.count] = '\0';
	return buf;
}

SELFTEST(tracefs_ulong_bounds_and_set)
{
	struct fnode *dir = fs_mkdir(fs_root(), "selftest-tracefs"), *p, *h;
	char buf[32];

	KT_ASSERT(t, dir && !tracefs_create_files(dir, numbers, ARRAY_SIZE(numbers)));
	KT_ASSERT(t, !fs_resolve(dir, "plain", &p) && !fs_resolve(dir, "hooked", &h));
	KT_EXPECT_STREQ(t, show(p, buf, sizeof(buf)), "3\n");
	KT_EXPECT_EQ(t, fs_write(p, "5\n", 2, FS_TRUNC), 0);
	KT_EXPECT_EQ(t, test_number, 5);
	KT_EXPECT_EQ(t, fs_write(p, "11\n", 3, FS_TRUNC), -EINVAL);
	KT_EXPECT_EQ(t, fs_write(p, "1", 1, FS_TRUNC), -EINVAL);
	KT_EXPECT_EQ(t, fs_write(p, "4x", 2, FS_TRUNC), -EINVAL);
	KT_EXPECT_EQ(t, fs_write(p, "-4", 2, FS_TRUNC), -EINVAL);
	KT_EXPECT_EQ(t, test_number, 5);
	KT_EXPECT_EQ(t, fs_write(h, "7", 1, FS_TRUNC), -EBUSY); /* set said no */
	KT_EXPECT_EQ(t, test_number, 5);
	KT_EXPECT_EQ(t, fs_write(h, "4", 1, FS_TRUNC), 0); /* set stores its own way */
	KT_EXPECT_STREQ(t, show(h, buf, sizeof(buf)), "8\n");
	fs_remove(dir);
}
