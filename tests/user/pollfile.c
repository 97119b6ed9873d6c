/* pollfile: one poll() of a file, without waiting, and the events it reported ("revents 0x41"). */
#include "ulib.h"

#define O_NONBLOCK 04000
#define NR_poll 7

struct pollfd {
	int fd;
	short events, revents;
};

int main(int argc, char **argv, char **envp)
{
	struct pollfd p = { .events = 0x41 }; /* POLLIN | POLLRDNORM */
	long n;

	if (argc != 2) {
		put_str("usage: pollfile PATH\n");
		return 2;
	}
	p.fd = syscall6(NR_open, (long)argv[1], O_NONBLOCK, 0, 0, 0, 0);
	if (p.fd < 0) {
		put_str("open failed\n");
		return 1;
	}
	n = syscall6(NR_poll, (long)&p, 1, 0, 0, 0, 0);
	put_str("poll ");
	put_num(n);
	put_str(" revents 0x");
	put_hex((unsigned short)p.revents);
	put_str("\n");
	syscall6(NR_close, p.fd, 0, 0, 0, 0, 0);
	return 0;
}
