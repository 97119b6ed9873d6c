/*
 * tmpfs: the writable file systems with Linux's semantics and errnos: files made, written, grown
 * and cut, directories, renames (RENAME_EXCHANGE too), hard and symbolic links, an unlinked file
 * still open, statfs and fstatfs, a tmpfs
 * mounted with size= and nr_inodes= running out (ENOSPC), the kernel's own trees refusing, and
 * every bad pointer EFAULT. Works in /tmp/tf (removed at the end). One check a line, "PASS n/m"
 * last (tests/integration/test_tmpfs.py runs it).
 */
#include "ulib.h"

enum {
	NR_pwrite64 = 18,
	NR_truncate = 76,
	NR_ftruncate = 77,
	NR_rename = 82,
	NR_mkdir = 83,
	NR_rmdir = 84,
	NR_link = 86,
	NR_unlink = 87,
	NR_symlink = 88,
	NR_chmod = 90,
	NR_statfs = 137,
	NR_fstatfs = 138,
	NR_mount = 165,
	NR_umount2 = 166,
	NR_unlinkat = 263,
	NR_utimensat = 280,
	NR_renameat2 = 316,
};

#define O_RDONLY 0
#define O_WRONLY 1
#define O_RDWR 2
#define O_CREAT 0x40
#define O_EXCL 0x80
#define O_TRUNC 0x200
#define O_APPEND 0x400
#define AT_FDCWD -100
#define AT_REMOVEDIR 0x200
#define RENAME_NOREPLACE 1
#define RENAME_EXCHANGE 2
#define RENAME_WHITEOUT 4
#define EPERM 1
#define ENOENT 2
#define EBADF 9
#define EACCES 13
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define EXDEV 18
#define ENOTDIR 20
#define EISDIR 21
#define EINVAL 22
#define ENOSPC 28
#define ENAMETOOLONG 36
#define ENOTEMPTY 39

#define BAD ((void *)0x10)			  /* unmapped */
#define KERNEL ((void *)0xffffffff80100000UL) /* the kernel's text */

struct kstat {
	unsigned long dev, ino, nlink;
	unsigned int mode, uid, gid, pad;
	unsigned long rdev;
	long size, blksize, blocks;
	unsigned long atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
	long reserved[3];
};

static char buf[20000];

static long creat_file(const char *path, int flags)
{
	return sys3(NR_open, path, O_CREAT | O_WRONLY | flags, 0644);
}

static long size_of(const char *path)
{
	struct kstat st;
	long err = sys2(NR_stat, path, &st);
	return err ? err : st.size;
}

static void files(void)
{
	struct kstat st;
	long fd, fd2;

	check("mkdir /tmp/tf", sys2(NR_mkdir, "/tmp/tf", 0755), 0);
	fd = creat_file("/tmp/tf/a", O_EXCL);
	check("O_CREAT|O_EXCL makes a", fd >= 3, 1);
	check("O_EXCL again: EEXIST", creat_file("/tmp/tf/a", O_EXCL), -EEXIST);
	check("write 5", sys3(NR_write, fd, "hello", 5), 5);
	check("pwrite64 at 10", sys4(NR_pwrite64, fd, "x", 1, 10), 1);
	check("size 11 (a hole)", size_of("/tmp/tf/a"), 11);
	sys1(NR_close, fd);
	fd = sys3(NR_open, "/tmp/tf/a", O_RDONLY, 0);
	memset(buf, 'z', 16);
	check("read 11", sys3(NR_read, fd, buf, 16), 11);
	check("hole reads zeros", buf[5] == 0 && buf[9] == 0 && buf[10] == 'x' && buf[0] == 'h', 1);
	check("ftruncate O_RDONLY: EINVAL", sys2(NR_ftruncate, fd, 3), -EINVAL);
	sys1(NR_close, fd);
	fd = sys3(NR_open, "/tmp/tf/a", O_WRONLY | O_APPEND, 0);
	check("O_APPEND write", sys3(NR_write, fd, "!!", 2), 2);
	check("appended at the end", size_of("/tmp/tf/a"), 13);
	check("ftruncate grows", sys2(NR_ftruncate, fd, 10000), 0);
	check("ftruncate negative: EINVAL", sys2(NR_ftruncate, fd, -1), -EINVAL);
	check("ftruncate bad fd: EBADF", sys2(NR_ftruncate, 99, 0), -EBADF);
	sys1(NR_close, fd);
	check("size 10000", size_of("/tmp/tf/a"), 10000);
	check("truncate shrinks", sys2(NR_truncate, "/tmp/tf/a", 4), 0);
	fd = sys3(NR_open, "/tmp/tf/a", O_RDONLY, 0);
	check("read after truncate", sys3(NR_read, fd, buf, 16), 4);
	sys1(NR_close, fd);
	fd = creat_file("/tmp/tf/a", O_TRUNC);
	check("O_TRUNC empties", size_of("/tmp/tf/a"), 0);
	check("write bad buffer: EFAULT", sys3(NR_write, fd, BAD, 4), -EFAULT);
	check("write kernel buffer: EFAULT", sys3(NR_write, fd, KERNEL, 4), -EFAULT);
	check("nothing written", size_of("/tmp/tf/a"), 0);
	sys1(NR_close, fd);
	check("chmod 600", sys2(NR_chmod, "/tmp/tf/a", 0600), 0);
	sys2(NR_stat, "/tmp/tf/a", &st);
	check("mode 100600", st.mode, 0100600);
	long ts[4] = { 1000, 5, 2000, 7 };
	check("utimensat", sys4(NR_utimensat, AT_FDCWD, "/tmp/tf/a", ts, 0), 0);
	sys2(NR_stat, "/tmp/tf/a", &st);
	check("mtime set", st.mtime == 2000 && st.mtime_ns == 7, 1);
	ts[1] = 1000000000;
	check("utimensat bad nsec: EINVAL", sys4(NR_utimensat, AT_FDCWD, "/tmp/tf/a", ts, 0), -EINVAL);
	check("utimensat bad times: EFAULT", sys4(NR_utimensat, AT_FDCWD, "/tmp/tf/a", BAD, 0),
	      -EFAULT);
	/* An unlinked file lives on while it is open. */
	fd = creat_file("/tmp/tf/gone", 0);
	sys3(NR_write, fd, "still", 5);
	fd2 = sys3(NR_open, "/tmp/tf/gone", O_RDONLY, 0);
	check("unlink an open file", sys1(NR_unlink, "/tmp/tf/gone"), 0);
	check("its name is gone", size_of("/tmp/tf/gone"), -ENOENT);
	check("its bytes are not", sys3(NR_read, fd2, buf, 16), 5);
	sys1(NR_close, fd);
	sys1(NR_close, fd2);
}

static void directories(void)
{
	char name[8 + 256 + 1]; /* "/tmp/tf/" and a 256-byte component */
	long fd;

	check("mkdir again: EEXIST", sys2(NR_mkdir, "/tmp/tf", 0755), -EEXIST);
	check("mkdir under a missing dir: ENOENT", sys2(NR_mkdir, "/tmp/none/x", 0755), -ENOENT);
	check("mkdir under a file: ENOTDIR", sys2(NR_mkdir, "/tmp/tf/a/x", 0755), -ENOTDIR);
	check("mkdir bad path: EFAULT", sys2(NR_mkdir, BAD, 0755), -EFAULT);
	check("mkdir /tmp/tf/d/", sys2(NR_mkdir, "/tmp/tf/d/", 0755), 0);
	check("mkdir d/e", sys2(NR_mkdir, "/tmp/tf/d/e", 0755), 0);
	check("rmdir non-empty: ENOTEMPTY", sys1(NR_rmdir, "/tmp/tf/d"), -ENOTEMPTY);
	check("rmdir a file: ENOTDIR", sys1(NR_rmdir, "/tmp/tf/a"), -ENOTDIR);
	check("rmdir .: EINVAL", sys1(NR_rmdir, "/tmp/tf/d/."), -EINVAL);
	check("rmdir a mount point: EBUSY", sys1(NR_rmdir, "/tmp"), -EBUSY);
	check("unlink a dir: EISDIR", sys1(NR_unlink, "/tmp/tf/d"), -EISDIR);
	check("unlink missing: ENOENT", sys1(NR_unlink, "/tmp/tf/none"), -ENOENT);
	check("unlink a/: ENOTDIR", sys1(NR_unlink, "/tmp/tf/a/"), -ENOTDIR);
	check("unlinkat bad flag: EINVAL", sys3(NR_unlinkat, AT_FDCWD, "/tmp/tf/d/e", 1), -EINVAL);
	check("open a dir for writing: EISDIR", sys3(NR_open, "/tmp/tf/d", O_WRONLY, 0), -EISDIR);
	check("O_CREAT on a dir: EISDIR", creat_file("/tmp/tf/d", 0), -EISDIR);
	memset(name, 'n', sizeof(name));
	memcpy(name, "/tmp/tf/", 8);
	name[sizeof(name) - 1] = 0;
	check("a 256-byte name: ENAMETOOLONG", creat_file(name, 0), -ENAMETOOLONG);
	name[sizeof(name) - 2] = 0;
	fd = creat_file(name, 0);
	check("a 255-byte name (Linux's NAME_MAX)", fd >= 0, 1);
	sys1(NR_close, fd);
	check("...found again by stat", size_of(name), 0);
	check("...and unlinked", sys1(NR_unlink, name), 0);
	check("unlinkat AT_REMOVEDIR", sys3(NR_unlinkat, AT_FDCWD, "/tmp/tf/d/e", AT_REMOVEDIR), 0);
}

static long exchange(const char *a, const char *b, int flags)
{
	return sys6(NR_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE | flags, 0);
}

/* RENAME_EXCHANGE: /tmp/tf/a (a 3-byte file) and /tmp/tf/d (a directory) trade names. */
static void exchanges(void)
{
	check("EXCHANGE with NOREPLACE: EINVAL", exchange("/tmp/tf/a", "/tmp/tf/d", RENAME_NOREPLACE),
	      -EINVAL);
	check("RENAME_WHITEOUT: EINVAL",
	      sys6(NR_renameat2, AT_FDCWD, "/tmp/tf/a", AT_FDCWD, "/tmp/tf/w", RENAME_WHITEOUT, 0),
	      -EINVAL);
	check("EXCHANGE with a missing name: ENOENT", exchange("/tmp/tf/a", "/tmp/tf/none", 0),
	      -ENOENT);
	check("EXCHANGE a file and a directory", exchange("/tmp/tf/a", "/tmp/tf/d", 0), 0);
	check("the file's bytes under the directory's name", size_of("/tmp/tf/d"), 3);
	check("the directory under the file's name", sys2(NR_mkdir, "/tmp/tf/a/sub", 0755), 0);
	sys1(NR_rmdir, "/tmp/tf/a/sub");
	check("EXCHANGE back", exchange("/tmp/tf/d", "/tmp/tf/a", 0), 0);
	check("the file is a again", size_of("/tmp/tf/a"), 3);
	check("EXCHANGE a directory with its child: EINVAL",
	      exchange("/tmp/tf/full", "/tmp/tf/full/x", 0), -EINVAL);
	check("EXCHANGE across file systems: EXDEV", exchange("/tmp/tf/a", "/tests/hello", 0), -EXDEV);
	check("EXCHANGE bad path: EFAULT", exchange("/tmp/tf/a", BAD, 0), -EFAULT);
}

static void renames_and_links(void)
{
	struct kstat s1, s2;
	char target[32];
	long fd;

	fd = creat_file("/tmp/tf/b", 0);
	sys3(NR_write, fd, "bbb", 3);
	sys1(NR_close, fd);
	check("rename over a file", sys2(NR_rename, "/tmp/tf/b", "/tmp/tf/a"), 0);
	check("old name gone", size_of("/tmp/tf/b"), -ENOENT);
	check("new name has its bytes", size_of("/tmp/tf/a"), 3);
	check("rename a dir under itself: EINVAL", sys2(NR_rename, "/tmp/tf/d", "/tmp/tf/d/x"),
	      -EINVAL);
	check("rename a file over a dir: EISDIR", sys2(NR_rename, "/tmp/tf/a", "/tmp/tf/d"), -EISDIR);
	check("rename a dir over a file: ENOTDIR", sys2(NR_rename, "/tmp/tf/d", "/tmp/tf/a"),
	      -ENOTDIR);
	sys2(NR_mkdir, "/tmp/tf/full", 0755);
	sys2(NR_mkdir, "/tmp/tf/full/x", 0755);
	check("rename over a non-empty dir: ENOTEMPTY", sys2(NR_rename, "/tmp/tf/d", "/tmp/tf/full"),
	      -ENOTEMPTY);
	check("RENAME_NOREPLACE: EEXIST",
	      sys6(NR_renameat2, AT_FDCWD, "/tmp/tf/d", AT_FDCWD, "/tmp/tf/full", RENAME_NOREPLACE,
		   0),
	      -EEXIST);
	exchanges();
	check("rename to another fs: EXDEV", sys2(NR_rename, "/tmp/tf/a", "/root/a"), -EXDEV);
	check("rename missing: ENOENT", sys2(NR_rename, "/tmp/tf/none", "/tmp/tf/x"), -ENOENT);
	check("rename bad new: EFAULT", sys2(NR_rename, "/tmp/tf/a", BAD), -EFAULT);
	check("rename a dir", sys2(NR_rename, "/tmp/tf/d", "/tmp/tf/full/x/d"), 0);
	check("link", sys2(NR_link, "/tmp/tf/a", "/tmp/tf/hard"), 0);
	sys2(NR_stat, "/tmp/tf/a", &s1);
	sys2(NR_stat, "/tmp/tf/hard", &s2);
	check("one inode, two links", s1.ino == s2.ino && s1.nlink == 2, 1);
	check("link exists: EEXIST", sys2(NR_link, "/tmp/tf/a", "/tmp/tf/hard"), -EEXIST);
	check("link a dir: EPERM", sys2(NR_link, "/tmp/tf/full", "/tmp/tf/l"), -EPERM);
	check("unlink one name", sys1(NR_unlink, "/tmp/tf/a"), 0);
	check("the other keeps the bytes", size_of("/tmp/tf/hard"), 3);
	check("symlink", sys2(NR_symlink, "hard", "/tmp/tf/sym"), 0);
	check("readlink", sys3(NR_readlink, "/tmp/tf/sym", target, sizeof(target)), 4);
	check("open through it", size_of("/tmp/tf/sym"), 3);
	check("symlink bad target: EFAULT", sys2(NR_symlink, BAD, "/tmp/tf/s2"), -EFAULT);
	check("symlink over a name: EEXIST", sys2(NR_symlink, "x", "/tmp/tf/hard"), -EEXIST);
}

/* A small tmpfs of its own: 4 pages, 3 inodes (its root among them). */
struct statfs {
	long f_type, f_bsize;
	unsigned long f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int f_fsid[2];
	long f_namelen, f_frsize, f_flags, f_spare[4];
};

/* statfs on the small tmpfs (2 of its 4 pages and all 3 inodes in use) and the kernel's trees. */
static void statfs_checks(void)
{
	struct statfs st;
	int p[2];

	memset(&st, 0xff, sizeof(st));
	check("statfs the small tmpfs", sys2(NR_statfs, "/tmp/tf/small/g", &st), 0);
	check("f_type TMPFS_MAGIC", st.f_type, 0x01021994);
	check("f_bsize", st.f_bsize, 4096);
	check("f_blocks: size=16k", st.f_blocks, 4);
	check("f_bfree: 8k written", st.f_bfree, 2);
	check("f_bavail", st.f_bavail, 2);
	check("f_files: nr_inodes=3", st.f_files, 3);
	check("f_ffree", st.f_ffree, 0);
	check("f_flags: rw,relatime", st.f_flags, 0x20 | 0x400);
	check("f_namelen: Linux's 255", st.f_namelen, 255);
	check("statfs /proc: PROC_SUPER_MAGIC", sys2(NR_statfs, "/proc", &st) ?: st.f_type, 0x9fa0);
	check("its flags: nosuid,nodev,noexec,relatime", st.f_flags, 0x42e);
	check("statfs tracefs: TRACEFS_MAGIC",
	      sys2(NR_statfs, "/sys/kernel/tracing/trace", &st) ?: st.f_type, 0x74726163);
	check("statfs /: the rootfs, RAMFS_MAGIC", sys2(NR_statfs, "/", &st) ?: st.f_type,
	      0x858458f6);
	check("its limit, half of memory",
	      st.f_blocks > 1000 && st.f_bfree <= st.f_blocks && st.f_bavail == st.f_bfree, 1);
	sys1(NR_pipe, p);
	check("fstatfs of a pipe: PIPEFS_MAGIC", sys2(NR_fstatfs, p[0], &st) ?: st.f_type,
	      0x50495045);
	check("fstatfs bad buffer: EFAULT", sys2(NR_fstatfs, p[0], BAD), -EFAULT);
	sys1(NR_close, p[0]);
	sys1(NR_close, p[1]);
	check("fstatfs bad fd: EBADF", sys2(NR_fstatfs, 999, &st), -EBADF);
	check("statfs bad path: EFAULT", sys2(NR_statfs, BAD, &st), -EFAULT);
	check("statfs bad buffer: EFAULT", sys2(NR_statfs, "/tmp", BAD), -EFAULT);
	check("statfs no such file: ENOENT", sys2(NR_statfs, "/tmp/tf/none", &st), -ENOENT);
	check("statfs through a file: ENOTDIR", sys2(NR_statfs, "/tests/hello/x", &st), -ENOTDIR);
}

static void limits(void)
{
	long fd, n;

	sys2(NR_mkdir, "/tmp/tf/small", 0755);
	check("mount -t tmpfs -o size=16k,nr_inodes=3",
	      sys6(NR_mount, "tmpfs", "/tmp/tf/small", "tmpfs", 0, "size=16k,nr_inodes=3", 0), 0);
	check("bad option: EINVAL",
	      sys6(NR_mount, "tmpfs", "/tmp/tf/full", "tmpfs", 0, "size=lots", 0), -EINVAL);
	fd = creat_file("/tmp/tf/small/f", 0);
	n = sys3(NR_write, fd, buf, sizeof(buf));
	check("a short write at the limit", n, 16384);
	check("then ENOSPC", sys3(NR_write, fd, buf, 1), -ENOSPC);
	check("umount while open: EBUSY", sys2(NR_umount2, "/tmp/tf/small", 0), -EBUSY);
	sys1(NR_close, fd);
	check("mkdir, the last inode", sys2(NR_mkdir, "/tmp/tf/small/d", 0755), 0);
	check("no inode left: ENOSPC", creat_file("/tmp/tf/small/g", 0), -ENOSPC);
	check("rename across mounts: EXDEV", sys2(NR_rename, "/tmp/tf/small/f", "/tmp/tf/f"), -EXDEV);
	check("unlink frees the pages", sys1(NR_unlink, "/tmp/tf/small/f"), 0);
	fd = creat_file("/tmp/tf/small/g", 0);
	check("room again", sys3(NR_write, fd, buf, 8192), 8192);
	sys1(NR_close, fd);
	statfs_checks();
	check("umount", sys2(NR_umount2, "/tmp/tf/small", 0), 0);
	check("its files went with it", size_of("/tmp/tf/small/g"), -ENOENT);
}

/* The kernel's own trees take no new names; an initramfs file takes writes (copied up). */
static void kernel_trees(void)
{
	char c = 0x7f, elf[4];
	long fd;

	check("create in /proc: EACCES", creat_file("/proc/x", 0), -EACCES);
	check("mkdir in /proc: EPERM", sys2(NR_mkdir, "/proc/x", 0755), -EPERM);
	check("unlink /proc/version: EPERM", sys1(NR_unlink, "/proc/version"), -EPERM);
	check("rmdir a tracefs dir: EPERM", sys1(NR_rmdir, "/sys/kernel/tracing/events"), -EPERM);
	check("rename /proc/version: EPERM", sys2(NR_rename, "/proc/version", "/proc/v"), -EPERM);
	check("open bad path: EFAULT", sys3(NR_open, BAD, O_CREAT | O_WRONLY, 0644), -EFAULT);
	check("create in the rootfs", (fd = creat_file("/root/made", 0)) >= 3, 1);
	sys1(NR_close, fd);
	check("unlink it", sys1(NR_unlink, "/root/made"), 0);
	fd = sys3(NR_open, "/tests/hello", O_RDWR, 0);
	check("an initramfs file opens for writing", fd >= 3, 1);
	check("pwrite its first byte again", sys4(NR_pwrite64, fd, &c, 1, 0), 1);
	check("it still reads as ELF", sys3(NR_read, fd, elf, 4) == 4 && elf[1] == 'E', 1);
	sys1(NR_close, fd);
}

int main(int argc, char **argv, char **envp)
{
	memset(buf, 'w', sizeof(buf));
	files();
	directories();
	renames_and_links();
	limits();
	kernel_trees();
	sys1(NR_unlink, "/tmp/tf/hard");
	sys1(NR_unlink, "/tmp/tf/sym");
	sys1(NR_rmdir, "/tmp/tf/full/x/d");
	sys1(NR_rmdir, "/tmp/tf/full/x");
	sys1(NR_rmdir, "/tmp/tf/full");
	sys1(NR_rmdir, "/tmp/tf/small");
	check("clean up", sys1(NR_rmdir, "/tmp/tf"), 0);
	return check_summary();
}
