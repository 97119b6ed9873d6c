/*
 * syscalls: every system call this kernel answers, with good and hostile arguments (NULL, kernel,
 * unmapped and read-only pointers, bad fds, huge lengths, bad flags), each result held against the
 * errno Linux gives. One line per check, "ok N name" or "not ok N name: got X, want Y", then a
 * summary; tests/integration/test_user.py reads it.
 */
#include "ulib.h"

#define EPERM 1
#define ENOENT 2
#define ESRCH 3
#define EBADF 9
#define ECHILD 10
#define ENOMEM 12
#define EACCES 13
#define EFAULT 14
#define ENOTDIR 20
#define EISDIR 21
#define EINVAL 22
#define EMFILE 24
#define ENOTTY 25
#define ESPIPE 29
#define ERANGE 34
#define ENAMETOOLONG 36
#define ENOSYS 38

#define KERNEL_PTR ((void *)0xffffffff80000000UL)
#define UNMAPPED_PTR ((void *)0x1000UL)
#define NONCANON_PTR ((void *)0x0000800000000000UL)

static char buf[8192];

/* Every bad pointer kind, one check each. */
static void bad_ptrs(const char *name, long (*call)(void *p))
{
	static char line[96];
	void *ptrs[] = { 0, KERNEL_PTR, UNMAPPED_PTR, NONCANON_PTR };
	const char *kinds[] = { " NULL", " kernel", " unmapped", " non-canonical" };

	for (int k = 0; k < 4; k++) {
		size_t n = strlen(name);
		memcpy(line, name, n);
		memcpy(line + n, kinds[k], strlen(kinds[k]) + 1);
		check(line, call(ptrs[k]), -EFAULT);
	}
}

static int version_fd;
static long read_into(void *p)
{
	return sys3(NR_read, version_fd, p, 16);
}
static long write_from(void *p)
{
	return sys3(NR_write, 1, p, 16);
}
static long open_path(void *p)
{
	return sys2(NR_open, p, 0);
}
static long stat_path(void *p)
{
	return sys2(NR_stat, p, buf);
}
static long stat_into(void *p)
{
	return sys2(NR_stat, "/bin/busybox", p);
}
static long fstat_into(void *p)
{
	return sys2(NR_fstat, version_fd, p);
}
static long uname_into(void *p)
{
	return sys1(NR_uname, p);
}
static long execve_path(void *p)
{
	return sys3(NR_execve, p, 0, 0);
}
static long execve_argv(void *p)
{
	return sys3(NR_execve, "/tests/hello", p, 0);
}
static long getcwd_into(void *p)
{
	return sys2(NR_getcwd, p, 100);
}
static long clock_into(void *p)
{
	return sys2(NR_clock_gettime, 1, p);
}
static long random_into(void *p)
{
	return sys3(NR_getrandom, p, 16, 0);
}
static long ioctl_into(void *p)
{
	return sys3(NR_ioctl, 0, 0x5401, p);
}
static long sleep_from(void *p)
{
	return sys2(NR_nanosleep, p, 0);
}
static long readlink_into(void *p)
{
	return sys3(NR_readlink, "/bin/sh", p, 16);
}
static long writev_vec(void *p)
{
	return sys3(NR_writev, 1, p, 1);
}

static void files(void)
{
	static char longpath[5000];
	char *page;
	long fd, n;

	version_fd = sys2(NR_open, "/proc/version", 0);
	check("open /proc/version", version_fd >= 3, 1);
	bad_ptrs("read into", read_into);
	bad_ptrs("write from", write_from);
	bad_ptrs("open path", open_path);
	check("read into read-only text", sys3(NR_read, version_fd, (void *)check, 8), -EFAULT);
	check("read count 0", sys3(NR_read, version_fd, buf, 0), 0);
	check("read huge count", sys3(NR_read, version_fd, buf, 1UL << 62), -EFAULT);
	check("read bad fd", sys3(NR_read, 99, buf, 1), -EBADF);
	check("read negative fd", sys3(NR_read, -1, buf, 1), -EBADF);
	check("write bad fd", sys3(NR_write, 1000000, "x", 1), -EBADF);
	check("write read-only fd", sys3(NR_write, version_fd, "x", 1), -EBADF);
	check("write count 0", sys3(NR_write, 1, 0, 0), 0);
	n = sys3(NR_read, version_fd, buf, sizeof(buf));
	check("read /proc/version", n > 20 && !memcmp_prefix(buf, "ftrace-os version "), 1);
	check("read at end", sys3(NR_read, version_fd, buf, 10), 0);
	check("lseek SEEK_SET", sys3(NR_lseek, version_fd, 10, 0), 10);
	check("lseek bad whence", sys3(NR_lseek, version_fd, 0, 7), -EINVAL);
	check("lseek negative", sys3(NR_lseek, version_fd, -1, 0), -EINVAL);
	check("lseek console", sys3(NR_lseek, 1, 0, 0), -ESPIPE);
	check("pread64 console", sys4(NR_pread64, 0, buf, 1, 0), -ESPIPE);
	check("pread64 negative", sys4(NR_pread64, version_fd, buf, 1, -1), -EINVAL);
	check("pread64 offset 3", sys4(NR_pread64, version_fd, buf, 4, 3) == 4 && buf[0] == 'a', 1);
	check("open empty path", sys2(NR_open, "", 0), -ENOENT);
	check("open missing", sys2(NR_open, "/no/such/file", 0), -ENOENT);
	check("open through a file", sys2(NR_open, "/proc/version/x", 0), -ENOTDIR);
	check("open dir for writing", sys2(NR_open, "/proc", 1), -EISDIR);
	check("open O_DIRECTORY file", sys2(NR_open, "/proc/version", 0x10000), -ENOTDIR);
	memset(longpath, 'a', sizeof(longpath) - 1);
	check("open 4999-byte path", sys2(NR_open, longpath, 0), -ENAMETOOLONG);
	/* A path running into an unmapped page with no NUL before it. */
	page = (char *)sys6(NR_mmap, 0, 8192, 3, 0x22, -1, 0);
	sys2(NR_munmap, page + 4096, 4096);
	memset(page, 'a', 4096);
	check("open path without NUL before the hole", sys2(NR_open, page + 4096 - 100, 0),
	      -EFAULT);
	check("open 4096 bytes without NUL", sys2(NR_open, page, 0), -ENAMETOOLONG);
	sys2(NR_munmap, page, 4096);
	check("openat bad dirfd", sys4(NR_openat, 99, "x", 0, 0), -EBADF);
	check("openat file as dirfd", sys4(NR_openat, version_fd, "x", 0, 0), -ENOTDIR);
	fd = sys4(NR_openat, -100, "/bin/sh", 0, 0);
	check("openat symlink", fd >= 3, 1);
	sys1(NR_close, fd);
	check("open O_NOFOLLOW symlink", sys2(NR_open, "/bin/sh", 0x20000), -40);
	check("close bad fd", sys1(NR_close, 99), -EBADF);
	check("close negative fd", sys1(NR_close, -1), -EBADF);
	check("dup2 bad old", sys2(NR_dup2, 99, 5), -EBADF);
	check("dup2 huge new", sys2(NR_dup2, 1, 100000), -EBADF);
	check("dup2 same", sys2(NR_dup2, 1, 1), 1);
	check("dup3 same", sys3(NR_dup3, 1, 1, 0), -EINVAL);
	check("dup3 bad flags", sys3(NR_dup3, 1, 5, 0x1234), -EINVAL);
	check("fcntl bad fd", sys3(NR_fcntl, 99, 1, 0), -EBADF);
	check("fcntl bad cmd", sys3(NR_fcntl, 1, 9999, 0), -EINVAL);
	check("fcntl F_SETFD/F_GETFD",
	      sys3(NR_fcntl, version_fd, 2, 1) + sys3(NR_fcntl, version_fd, 1, 0), 1);
	for (n = 0; (fd = sys1(NR_dup, 1)) >= 0; n++)
		;
	check("dup until the table is full", fd, -EMFILE);
	while (n--)
		sys1(NR_close, 63 - n);
	check("ioctl file", sys3(NR_ioctl, version_fd, 0x5401, buf), -ENOTTY);
	check("ioctl bad fd", sys3(NR_ioctl, 99, 0x5401, buf), -EBADF);
	bad_ptrs("ioctl TCGETS into", ioctl_into);
	check("ioctl TCGETS", sys3(NR_ioctl, 0, 0x5401, buf), 0);
	check("ioctl TIOCGWINSZ",
	      sys3(NR_ioctl, 0, 0x5413, buf) == 0 && *(unsigned short *)(buf + 2) == 80, 1);
	check("ioctl unknown", sys3(NR_ioctl, 0, 0x1234, buf), -ENOTTY);
	bad_ptrs("writev vector", writev_vec);
	check("writev too many", sys3(NR_writev, 1, buf, 2000), -EINVAL);
	check("access bad mode", sys2(NR_access, "/proc/version", 0x40), -EINVAL);
	check("access X_OK busybox", sys2(NR_access, "/bin/busybox", 1), 0);
	check("access X_OK text", sys2(NR_access, "/proc/version", 1), -EACCES);
	check("access missing", sys2(NR_access, "/nope", 0), -ENOENT);
}

static void stat_and_dirs(void)
{
	unsigned int *mode = (unsigned int *)(buf + 24);
	long fd, n;

	bad_ptrs("stat path", stat_path);
	bad_ptrs("stat into", stat_into);
	bad_ptrs("fstat into", fstat_into);
	check("stat busybox", sys2(NR_stat, "/bin/sh", buf) == 0 && (*mode & 0170000) == 0100000,
	      1);
	check("lstat symlink", sys2(NR_lstat, "/bin/sh", buf) == 0 && (*mode & 0170000) == 0120000,
	      1);
	check("stat dir", sys2(NR_stat, "/proc", buf) == 0 && (*mode & 0170000) == 0040000, 1);
	check("fstat bad fd", sys2(NR_fstat, 99, buf), -EBADF);
	check("newfstatat bad flags", sys4(NR_newfstatat, -100, "/proc", buf, 0x9999), -EINVAL);
	check("newfstatat AT_EMPTY_PATH", sys4(NR_newfstatat, version_fd, "", buf, 0x1000), 0);
	bad_ptrs("readlink into", readlink_into);
	check("readlink size 0", sys3(NR_readlink, "/bin/sh", buf, 0), -EINVAL);
	check("readlink not a link", sys3(NR_readlink, "/proc/version", buf, 10), -EINVAL);
	check("readlink /bin/sh",
	      sys3(NR_readlink, "/bin/sh", buf, 64) == 7 && !memcmp_prefix(buf, "busybox"), 1);
	fd = sys2(NR_open, "/", 0x10000);
	check("open / O_DIRECTORY", fd >= 3, 1);
	check("read a directory", sys3(NR_read, fd, buf, 10), -EISDIR);
	check("getdents64 bad fd", sys3(NR_getdents64, 99, buf, 100), -EBADF);
	check("getdents64 on a file", sys3(NR_getdents64, version_fd, buf, 100), -ENOTDIR);
	check("getdents64 NULL", sys3(NR_getdents64, fd, 0, 100), -EFAULT);
	check("getdents64 tiny buffer", sys3(NR_getdents64, fd, buf, 1), -EINVAL);
	n = sys3(NR_getdents64, fd, buf, sizeof(buf));
	check("getdents64 / starts with .", n > 0 && buf[19] == '.' && buf[20] == 0, 1);
	check("getdents64 at the end", sys3(NR_getdents64, fd, buf, sizeof(buf)), 0);
	sys1(NR_close, fd);
	bad_ptrs("getcwd into", getcwd_into);
	check("getcwd too small", sys2(NR_getcwd, buf, 1), -ERANGE);
	check("chdir NULL", sys1(NR_chdir, 0), -EFAULT);
	check("chdir a file", sys1(NR_chdir, "/proc/version"), -ENOTDIR);
	check("chdir /tests", sys1(NR_chdir, "/tests"), 0);
	check("getcwd /tests", sys2(NR_getcwd, buf, 100) == 7 && !strcmp(buf, "/tests"), 1);
	check("open relative", (fd = sys2(NR_open, "hello", 0)) >= 3, 1);
	sys1(NR_close, fd);
}

static long pipe_into(void *p)
{
	return sys2(NR_pipe2, p, 0);
}

static void pipes(void)
{
	int fd[2];
	long ign[4] = { 1, 0, 0, 0 }; /* SIG_IGN */
	unsigned int *mode = (unsigned int *)(buf + 24);

	bad_ptrs("pipe2 into", pipe_into);
	check("pipe2 bad flags", sys2(NR_pipe2, fd, 0x1), -EINVAL);
	check("pipe2", sys2(NR_pipe2, fd, 0), 0);
	check("fstat pipe is a FIFO",
	      sys2(NR_fstat, fd[0], buf) == 0 && (*mode & 0170000) == 0010000, 1);
	check("pipe write", sys3(NR_write, fd[1], "abc", 3), 3);
	check("pipe read", sys3(NR_read, fd[0], buf, 10) == 3 && buf[2] == 'c', 1);
	check("pipe read end not writable", sys3(NR_write, fd[0], "x", 1), -EBADF);
	check("pipe lseek", sys3(NR_lseek, fd[0], 0, 0), -ESPIPE);
	sys1(NR_close, fd[1]);
	check("pipe read after last writer: EOF", sys3(NR_read, fd[0], buf, 10), 0);
	sys1(NR_close, fd[0]);
	check("pipe with O_NONBLOCK", sys2(NR_pipe2, fd, 0x800), 0);
	check("empty pipe, O_NONBLOCK: EAGAIN", sys3(NR_read, fd[0], buf, 10), -11);
	sys1(NR_close, fd[0]);
	check("SIGPIPE ignored", sys4(NR_rt_sigaction, 13, ign, 0, 8), 0);
	check("pipe write without reader: EPIPE", sys3(NR_write, fd[1], "x", 1), -32);
	sys1(NR_close, fd[1]);
}

static void memory(void)
{
	long brk = sys1(NR_brk, 0), p;

	check("brk grows", sys1(NR_brk, brk + 8192), brk + 8192);
	((char *)brk)[8000] = 1;
	check("brk below start refused", sys1(NR_brk, 4096), brk + 8192);
	check("brk shrinks", sys1(NR_brk, brk), brk);
	check("mmap length 0", sys6(NR_mmap, 0, 0, 3, 0x22, -1, 0), -EINVAL);
	check("mmap bad prot", sys6(NR_mmap, 0, 4096, 0x100, 0x22, -1, 0), -EINVAL);
	check("mmap no type", sys6(NR_mmap, 0, 4096, 3, 0x20, -1, 0), -EINVAL);
	check("mmap huge", sys6(NR_mmap, 0, 1UL << 62, 3, 0x22, -1, 0), -ENOMEM);
	check("mmap fixed unaligned", sys6(NR_mmap, 0x10000001, 4096, 3, 0x32, -1, 0), -EINVAL);
	check("mmap file fd -1", sys6(NR_mmap, 0, 4096, 1, 0x2, -1, 0), -EBADF);
	check("mmap file fd 99", sys6(NR_mmap, 0, 4096, 1, 0x2, 99, 0), -EBADF);
	check("mmap a console fd", sys6(NR_mmap, 0, 4096, 1, 0x2, 0, 0), -19); /* ENODEV */
	p = sys6(NR_mmap, 0, 3 * 4096, 3, 0x22, -1, 0);
	check("mmap anonymous", p > 0 && ((char *)p)[5000] == 0, 1);
	((char *)p)[5000] = 7;
	check("mprotect unaligned", sys3(NR_mprotect, p + 1, 4096, 1), -EINVAL);
	check("mprotect unmapped", sys3(NR_mprotect, 0x10000000, 4096, 1), -ENOMEM);
	check("mprotect middle read-only", sys3(NR_mprotect, p + 4096, 4096, 1), 0);
	check("read into read-only mapping", sys3(NR_read, version_fd, (void *)(p + 4096), 8),
	      -EFAULT);
	check("read into PROT_NONE",
	      sys3(NR_mprotect, p, 4096, 0) + sys3(NR_read, version_fd, (void *)p, 8), -EFAULT);
	check("munmap unaligned", sys2(NR_munmap, p + 1, 4096), -EINVAL);
	check("munmap length 0", sys2(NR_munmap, p, 0), -EINVAL);
	check("munmap kernel range", sys2(NR_munmap, KERNEL_PTR, 4096), -EINVAL);
	check("munmap", sys2(NR_munmap, p, 3 * 4096), 0);
	check("read into unmapped mapping", sys3(NR_read, version_fd, (void *)p, 8), -EFAULT);
}

static void process(void)
{
	long pid = sys0(NR_getpid);
	long rl[2];

	check("gettid == getpid", sys0(NR_gettid), pid);
	check("getpid low 32 bits of rax", syscall6(0x100000000L | NR_getpid, 0, 0, 0, 0, 0, 0),
	      pid);
	check("getppid", sys0(NR_getppid) > 0, 1);
	check("getuid", sys0(NR_getuid), 0);
	check("unknown syscall 400", sys0(400), -ENOSYS);
	check("syscall -1", sys0(-1), -ENOSYS);
	check("wait4 without children", sys4(NR_wait4, -1, buf, 0, 0), -ECHILD);
	check("wait4 bad options", sys4(NR_wait4, -1, buf, 0x100, 0), -EINVAL);
	check("clone with CLONE_VM", sys6(NR_clone, 0x100 | 17, 0, 0, 0, 0, 0), -EINVAL);
	bad_ptrs("execve path", execve_path);
	/* argv NULL is allowed (an empty argv[0] is supplied): only the other bad pointers fail. */
	check("execve argv kernel", execve_argv(KERNEL_PTR), -EFAULT);
	check("execve argv unmapped", execve_argv(UNMAPPED_PTR), -EFAULT);
	check("execve missing", sys3(NR_execve, "/nope", 0, 0), -ENOENT);
	check("execve a text file", sys3(NR_execve, "/proc/version", 0, 0), -EACCES);
	check("execve a directory", sys3(NR_execve, "/tests", 0, 0), -EACCES);
	bad_ptrs("uname into", uname_into);
	check("uname", sys1(NR_uname, buf) == 0 && !strcmp(buf + 4 * 65, "x86_64"), 1);
	check("arch_prctl SET_FS kernel", sys2(NR_arch_prctl, 0x1002, KERNEL_PTR), -EPERM);
	check("arch_prctl bad option", sys2(NR_arch_prctl, 0x9999, 0), -EINVAL);
	check("arch_prctl GET_FS NULL", sys2(NR_arch_prctl, 0x1003, 0), -EFAULT);
	check("set_robust_list bad size", sys2(NR_set_robust_list, buf, 5), -EINVAL);
	check("set_tid_address", sys1(NR_set_tid_address, buf), pid);
	check("rt_sigaction SIGKILL", sys4(NR_rt_sigaction, 9, buf, 0, 8), -EINVAL);
	check("rt_sigaction signal 0", sys4(NR_rt_sigaction, 0, 0, buf, 8), -EINVAL);
	check("rt_sigaction bad sigsetsize", sys4(NR_rt_sigaction, 2, 0, buf, 4), -EINVAL);
	check("rt_sigaction into kernel", sys4(NR_rt_sigaction, 2, 0, KERNEL_PTR, 8), -EFAULT);
	check("rt_sigprocmask bad how", sys4(NR_rt_sigprocmask, 99, buf, 0, 8), -EINVAL);
	check("prlimit64 bad resource", sys4(NR_prlimit64, 0, 99, 0, rl), -EINVAL);
	check("prlimit64 no such pid", sys4(NR_prlimit64, 99999, 7, 0, rl), -ESRCH);
	check("prlimit64 NOFILE", sys4(NR_prlimit64, 0, 7, 0, rl) == 0 && rl[0] == 64, 1);
	check("sysinfo NULL", sys1(NR_sysinfo, 0), -EFAULT);
	check("umask", sys1(NR_umask, 022) + sys1(NR_umask, 0), 022);
	check("sched_yield", sys0(NR_sched_yield), 0);
}

static void time_and_random(void)
{
	long ts[2];

	bad_ptrs("clock_gettime into", clock_into);
	check("clock_gettime bad clock", sys2(NR_clock_gettime, 99, ts), -EINVAL);
	check("clock_gettime MONOTONIC", sys2(NR_clock_gettime, 1, ts) == 0 && ts[1] < 1000000000,
	      1);
	check("gettimeofday NULL", sys2(NR_gettimeofday, 0, 0), 0);
	check("gettimeofday kernel", sys2(NR_gettimeofday, KERNEL_PTR, 0), -EFAULT);
	bad_ptrs("nanosleep from", sleep_from);
	ts[0] = 0, ts[1] = 2000000000;
	check("nanosleep nsec too big", sys2(NR_nanosleep, ts, 0), -EINVAL);
	ts[0] = -1, ts[1] = 0;
	check("nanosleep negative", sys2(NR_nanosleep, ts, 0), -EINVAL);
	ts[0] = 0, ts[1] = 1000000;
	check("nanosleep 1 ms", sys2(NR_nanosleep, ts, 0), 0);
	bad_ptrs("getrandom into", random_into);
	check("getrandom bad flags", sys3(NR_getrandom, buf, 16, 0x80), -EINVAL);
	check("getrandom 16", sys3(NR_getrandom, buf, 16, 0), 16);
}

int main(int argc, char **argv, char **envp)
{
	files();
	stat_and_dirs();
	pipes();
	memory();
	process();
	time_and_random();
	return check_summary();
}
