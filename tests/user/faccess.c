/*
 * faccess: access, faccessat and faccessat2 as Linux answers them: with the real uid and gid
 * unless AT_EACCESS asks with the effective ones (a process of real uid 1000 and effective 0),
 * AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, and EINVAL for bad flags and modes. One check a line,
 * "PASS n/m" last (tests/integration/test_user_files.py runs it).
 */
#include "ulib.h"

enum {
	NR_unlink = 87,
	NR_symlink = 88,
	NR_setresuid = 117,
	NR_faccessat2 = 439,
};

#define O_RDONLY 0
#define ENOENT 2
#define EACCES 13
#define EINVAL 22
#define AT_FDCWD -100
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_EACCESS 0x200
#define AT_EMPTY_PATH 0x1000
#define W_OK 2
#define R_OK 4

static long faccessat2(int dfd, const char *path, int mode, int flags)
{
	return sys4(NR_faccessat2, dfd, path, mode, flags);
}

/* Real uid 1000, effective 0: access() asks as the real user, AT_EACCESS as the effective one. */
static void faccessat2_checks(void)
{
	const char *kp = "/sys/kernel/tracing/kprobe_events", *link = "/tmp/faccessat2-dangling";
	long fd = sys3(NR_open, "/proc/version", O_RDONLY, 0);

	check("setresuid(1000, 0, 0)", sys3(NR_setresuid, 1000, 0, 0), 0);
	check("faccessat2 W_OK asks the real uid: EACCES", faccessat2(AT_FDCWD, kp, W_OK, 0), -EACCES);
	check("access W_OK the same", sys2(NR_access, kp, W_OK), -EACCES);
	check("faccessat2 AT_EACCESS asks the effective uid", faccessat2(AT_FDCWD, kp, W_OK, AT_EACCESS),
	      0);
	check("faccessat2 R_OK as the real uid's group", faccessat2(AT_FDCWD, kp, R_OK, 0), 0);
	check("faccessat2 bad flags: EINVAL", faccessat2(AT_FDCWD, kp, R_OK, 0x1), -EINVAL);
	check("faccessat2 bad mode: EINVAL", faccessat2(AT_FDCWD, kp, 8, 0), -EINVAL);
	check("faccessat2 AT_EMPTY_PATH: the fd itself", faccessat2(fd, "", R_OK, AT_EMPTY_PATH), 0);
	check("faccessat2 \"\" without AT_EMPTY_PATH: ENOENT", faccessat2(fd, "", R_OK, 0), -ENOENT);
	sys1(NR_close, fd);
	check("symlink to nowhere", sys2(NR_symlink, "/nonexistent", link), 0);
	check("faccessat2 follows it: ENOENT", faccessat2(AT_FDCWD, link, 0, 0), -ENOENT);
	check("AT_SYMLINK_NOFOLLOW asks of the link", faccessat2(AT_FDCWD, link, 0, AT_SYMLINK_NOFOLLOW),
	      0);
	sys1(NR_unlink, link);
}

int main(int argc, char **argv, char **envp)
{
	faccessat2_checks();
	return check_summary();
}
