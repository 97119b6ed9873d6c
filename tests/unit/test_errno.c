/* Unit tests for lib/errno.c: strerror() must say what Linux says. */
#include "lib/errno.h"
#include "lib/compiler.h"
#include "tests/unit/ktest_host.h"

static const struct {
	int err;
	const char *msg;
} messages[] = {
	{ EPERM, "Operation not permitted" },
	{ ENOENT, "No such file or directory" },
	{ EIO, "Input/output error" },
	{ E2BIG, "Argument list too long" },
	{ ENOEXEC, "Exec format error" },
	{ EAGAIN, "Resource temporarily unavailable" },
	{ ENOMEM, "Cannot allocate memory" },
	{ EACCES, "Permission denied" },
	{ EFAULT, "Bad address" },
	{ EBUSY, "Device or resource busy" },
	{ EEXIST, "File exists" },
	{ ENODEV, "No such device" },
	{ ENOTDIR, "Not a directory" },
	{ EISDIR, "Is a directory" },
	{ EINVAL, "Invalid argument" },
	{ ENOSPC, "No space left on device" },
	{ ESPIPE, "Illegal seek" },
	{ EROFS, "Read-only file system" },
	{ ERANGE, "Numerical result out of range" },
	{ ENAMETOOLONG, "File name too long" },
	{ ESRCH, "No such process" },
	{ EINTR, "Interrupted system call" },
	{ ENXIO, "No such device or address" },
	{ EBADF, "Bad file descriptor" },
	{ ECHILD, "No child processes" },
	{ EFBIG, "File too large" },
	{ EMFILE, "Too many open files" },
	{ ENOTTY, "Inappropriate ioctl for device" },
	{ EPIPE, "Broken pipe" },
	{ ELOOP, "Too many levels of symbolic links" },
	{ EOVERFLOW, "Value too large for defined data type" },
	{ EOPNOTSUPP, "Operation not supported" },
	{ ENOSYS, "Function not implemented" },
	{ ENOTEMPTY, "Directory not empty" },
};

KTEST(strerror_known)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(messages); i++) {
		EXPECT_STREQ(strerror(messages[i].err), messages[i].msg);
		/* The kernel passes -EINVAL; the sign does not matter. */
		EXPECT_STREQ(strerror(-messages[i].err), messages[i].msg);
	}
	/* The numbers themselves are Linux's, as user space knows them. */
	EXPECT_EQ(EINVAL, 22);
	EXPECT_EQ(ENOTEMPTY, 39);
	EXPECT_STREQ(strerror(0), "Success");
}

KTEST(strerror_unknown)
{
	EXPECT_STREQ(strerror(15), "Unknown error 15");	 /* ENOTBLK: not one we return */
	EXPECT_STREQ(strerror(-41), "Unknown error 41"); /* unused by Linux */
	EXPECT_STREQ(strerror(4095), "Unknown error 4095");
	EXPECT_STREQ(strerror(-2147483647 - 1), "Unknown error 2147483648");
}
