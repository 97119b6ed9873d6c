/* Self-tests of an open file's references: the fd table's, a system call's (fget), the last fput. */
#include "kernel/fs/file.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "lib/errno.h"

static int releases;

static void count_release(struct file *f)
{
	releases++;
}

static const struct file_operations counted_fops = { .release = count_release };

/* A close() while a call holds the file: the slot empties, the file stays until the call's fput. */
static void close_under_a_call(struct ktest *t, struct files_struct *files)
{
	struct file *f = alloc_file(&counted_fops, O_RDWR), *g;
	int fd;

	KT_ASSERT(t, f);
	KT_EXPECT_EQ(t, f->f_count, 1);
	fd = fd_install_from(f, 3, false);
	KT_ASSERT(t, fd >= 3);
	KT_EXPECT_EQ(t, f->f_count, 2);
	fput(f); /* the opener's: the table's is left */
	KT_EXPECT_EQ(t, f->f_count, 1);
	g = fget(fd);
	KT_ASSERT(t, g == f);
	KT_EXPECT_EQ(t, f->f_count, 2);
	KT_EXPECT_EQ(t, close_fd(files, fd), 0);
	KT_EXPECT_EQ(t, f->f_count, 1);
	KT_EXPECT_EQ(t, releases, 0);
	KT_EXPECT(t, fget(fd) == NULL);
	KT_EXPECT_EQ(t, close_fd(files, fd), -EBADF);
	fput(g);
	KT_EXPECT_EQ(t, releases, 1);
}

/* fdget() takes no reference while the table has one user, and one as soon as it has two. */
static void fdget_light(struct ktest *t, struct files_struct *files)
{
	struct file *f = alloc_file(&counted_fops, O_RDWR);
	struct files_struct *child;
	struct fd light;
	int fd;

	KT_ASSERT(t, f);
	fd = fd_install_from(f, 3, false);
	fput(f);
	KT_ASSERT(t, fd >= 3);
	light = fdget(fd);
	KT_EXPECT(t, light.file == f && light.flags == 0);
	KT_EXPECT_EQ(t, f->f_count, 1);
	fdput(light);
	KT_EXPECT_EQ(t, f->f_count, 1);
	__atomic_add_fetch(&files->count, 1, __ATOMIC_RELAXED); /* as a CLONE_FILES thread does */
	light = fdget(fd);
	KT_EXPECT(t, light.file == f && light.flags == FDPUT_FPUT);
	KT_EXPECT_EQ(t, f->f_count, 2);
	fdput(light);
	KT_EXPECT_EQ(t, f->f_count, 1);
	__atomic_sub_fetch(&files->count, 1, __ATOMIC_RELAXED);
	light = fdget(NR_OPEN_DEFAULT);
	KT_EXPECT(t, light.file == NULL);
	/* fork's copy holds every file once more; dropping the copy releases nothing */
	child = dup_files(files);
	KT_ASSERT(t, child);
	KT_EXPECT_EQ(t, f->f_count, 2);
	put_files_struct(child);
	KT_EXPECT_EQ(t, f->f_count, 1);
	KT_EXPECT_EQ(t, releases, 1);
}

SELFTEST(file_references)
{
	struct files_struct *saved = current->files, *files = console_files();

	KT_ASSERT(t, files);
	releases = 0;
	current->files = files; /* the shell has none: fget() looks in current's */
	close_under_a_call(t, files);
	fdget_light(t, files);
	current->files = saved;
	put_files_struct(files); /* the last user closes fdget_light()'s file */
	KT_EXPECT_EQ(t, releases, 2);
}
