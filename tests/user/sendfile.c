/*
 * sendfile: sendfile(2) between files, one check a line and "PASS n/m" at the end
 * (tests/integration/test_user_files.py runs it): from the file's position or from an offset of
 * the caller's, into a file and into a pipe, and each bad argument with Linux's errno.
 */
#include "ulib.h"

enum { NR_sendfile = 40, NR_unlink = 87 };

#define O_RDONLY 0
#define O_WRONLY 1
#define O_RDWR 2
#define O_CREAT 0x40
#define O_TRUNC 0x200
#define O_APPEND 0x400
#define EBADF 9
#define EFAULT 14
#define EINVAL 22
#define ESPIPE 29
#define SIZE 100000 /* more than one pass of the kernel's bounce buffer (64 KiB) */

static char data[SIZE], back[SIZE];

static long sendfile(long out, long in, long *off, long count)
{
	return sys4(NR_sendfile, out, in, off, count);
}

static long same(const char *a, const char *b, long n)
{
	for (long i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

int main(int argc, char **argv, char **envp)
{
	long in, out, off, p[2];
	int pipefd[2];

	for (long i = 0; i < SIZE; i++)
		data[i] = 'a' + i % 23;
	in = sys3(NR_open, "/tmp/sf-in", O_CREAT | O_TRUNC | O_RDWR, 0644);
	sys3(NR_write, in, data, SIZE);
	sys3(NR_lseek, in, 0, 0);
	out = sys3(NR_open, "/tmp/sf-out", O_CREAT | O_TRUNC | O_RDWR, 0644);
	check("sendfile the whole file", sendfile(out, in, 0, SIZE + 10), SIZE);
	check("...moved the input's position", sys3(NR_lseek, in, 0, 1), SIZE);
	sys3(NR_lseek, out, 0, 0);
	check("...and the bytes are the file's", sys3(NR_read, out, back, SIZE) == SIZE &&
						     same(data, back, SIZE), 1);
	off = 1000;
	sys3(NR_lseek, out, 0, 0);
	check("sendfile from an offset", sendfile(out, in, &off, 50), 50);
	check("...moved the offset", off, 1050);
	check("...not the input's position", sys3(NR_lseek, in, 0, 1), SIZE);
	check("sendfile at the end of the input", sendfile(out, in, 0, 10), 0);
	sys1(NR_pipe, pipefd);
	off = 7;
	check("sendfile into a pipe", sendfile(pipefd[1], in, &off, 20), 20);
	check("...which reads the file's bytes", sys3(NR_read, pipefd[0], back, 20) == 20 &&
						    same(data + 7, back, 20), 1);
	check("a closed input: EBADF", sendfile(out, 99, 0, 1), -EBADF);
	check("a closed output: EBADF", sendfile(99, in, 0, 1), -EBADF);
	p[0] = sys2(NR_open, "/tmp/sf-in", O_RDONLY);
	check("an output opened read-only: EBADF", sendfile(p[0], in, 0, 1), -EBADF);
	p[1] = sys3(NR_open, "/tmp/sf-out", O_WRONLY | O_APPEND, 0);
	check("an appending output: EINVAL", sendfile(p[1], in, 0, 1), -EINVAL);
	check("a pipe as input: EINVAL", sendfile(out, pipefd[0], 0, 1), -EINVAL);
	off = 0;
	check("an offset into a pipe: ESPIPE", sendfile(out, pipefd[0], &off, 1), -ESPIPE);
	check("a bad offset pointer: EFAULT", sendfile(out, in, (long *)8, 1), -EFAULT);
	off = -1;
	check("a negative offset: EINVAL", sendfile(out, in, &off, 1), -EINVAL);
	check("count 0", sendfile(out, in, 0, 0), 0);
	sys1(NR_unlink, "/tmp/sf-in");
	sys1(NR_unlink, "/tmp/sf-out");
	return check_summary();
}
