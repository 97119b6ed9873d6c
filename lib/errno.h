/* Linux's errno numbers, so messages and return codes match what a Linux user sees. */
#ifndef LIB_ERRNO_H
#define LIB_ERRNO_H

#define EPERM 1
#define ENOENT 2
#define ESRCH 3
#define EINTR 4
#define EIO 5
#define ENXIO 6
#define E2BIG 7
#define ENOEXEC 8
#define EBADF 9
#define ECHILD 10
#define EAGAIN 11
#define ENOMEM 12
#define EACCES 13
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define EXDEV 18
#define ENODEV 19
#define ENOTDIR 20
#define EISDIR 21
#define EINVAL 22
#define EMFILE 24
#define ENOTTY 25
#define EFBIG 27
#define ENOSPC 28
#define ESPIPE 29
#define EROFS 30
#define EPIPE 32
#define ERANGE 34
#define ENAMETOOLONG 36
#define ENOSYS 38
#define ENOTEMPTY 39
#define ELOOP 40
#define EOVERFLOW 75
#define EILSEQ 84
#define EOPNOTSUPP 95
#define ETIMEDOUT 110
#define EADDRNOTAVAIL 99
#define ECANCELED 125 /* internal here: "not my kind of command", never returned to a user */

/* Linux's message for each errno above ("Invalid argument"), "Unknown error N" otherwise. */
const char *strerror(int err);

#endif
