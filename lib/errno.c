/* strerror(): the messages a Linux user sees for each errno we return. */
#include "lib/errno.h"
#include "lib/compiler.h"
#include "lib/printf.h"

static const char *const messages[] = {
	[0] = "Success",
	[EPERM] = "Operation not permitted",
	[ENOENT] = "No such file or directory",
	[EIO] = "Input/output error",
	[E2BIG] = "Argument list too long",
	[ENOEXEC] = "Exec format error",
	[EAGAIN] = "Resource temporarily unavailable",
	[ENOMEM] = "Cannot allocate memory",
	[EACCES] = "Permission denied",
	[EFAULT] = "Bad address",
	[EBUSY] = "Device or resource busy",
	[EEXIST] = "File exists",
	[EXDEV] = "Invalid cross-device link",
	[ENODEV] = "No such device",
	[ENOTDIR] = "Not a directory",
	[EISDIR] = "Is a directory",
	[EINVAL] = "Invalid argument",
	[ENOSPC] = "No space left on device",
	[ESPIPE] = "Illegal seek",
	[EROFS] = "Read-only file system",
	[ERANGE] = "Numerical result out of range",
	[ENAMETOOLONG] = "File name too long",
	[ENOSYS] = "Function not implemented",
	[ENOTEMPTY] = "Directory not empty",
	[ESRCH] = "No such process",
	[EINTR] = "Interrupted system call",
	[ENXIO] = "No such device or address",
	[EBADF] = "Bad file descriptor",
	[ECHILD] = "No child processes",
	[EFBIG] = "File too large",
	[EMFILE] = "Too many open files",
	[ENOTTY] = "Inappropriate ioctl for device",
	[EPIPE] = "Broken pipe",
	[ELOOP] = "Too many levels of symbolic links",
	[EOVERFLOW] = "Value too large for defined data type",
	[EOPNOTSUPP] = "Operation not supported",
	[EILSEQ] = "Invalid or incomplete multibyte or wide character",
	[EADDRNOTAVAIL] = "Cannot assign requested address",
};

/*
 * The message for err, which may be given as -EINVAL (kernel style) or EINVAL.
 * An unknown number is written into a static buffer, so that answer is only
 * good until the next unknown one; known ones are constant.
 */
const char *strerror(int err)
{
	static char unknown[32];
	unsigned int n = err < 0 ? 0u - err : (unsigned int)err;

	if (n < ARRAY_SIZE(messages) && messages[n])
		return messages[n];
	snprintf(unknown, sizeof(unknown), "Unknown error %u", n);
	return unknown;
}
