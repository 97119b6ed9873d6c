/*
 * pollwake: poll(2), select(2) and pselect6(2) as Linux has them (the sets, the timeouts written
 * back, the errnos), and a sleeper woken by the file it waits on. One check a line, "PASS n/m"
 * last (tests/integration/test_poll.py). `pollwake trace poll|select`: a child asleep in poll or
 * select on a pipe, one write, and the trace of what woke it, for the test to read.
 */
#include "ulib.h"

enum { NR_poll = 7, NR_select = 23, NR_pselect6 = 270 };
#define EBADF 9
#define EINVAL 22
#define POLLIN 0x001
#define POLLOUT 0x004
#define POLLHUP 0x010

struct pollfd {
	int fd;
	short events, revents;
};

struct timeval {
	long tv_sec, tv_usec;
};

static char trace_buf[16384];

static long select_(int n, unsigned long *in, unsigned long *out, struct timeval *tv)
{
	return syscall6(NR_select, n, (long)in, (long)out, 0, (long)tv, 0);
}

/* Until the child is asleep: a nanosleep's worth of waiting says nothing about the result, only
 * how likely the child is already in its wait (either way it must see the byte). */
static void let_it_sleep(void)
{
	long ts[2] = { 0, 50000000 };

	sys2(NR_nanosleep, ts, 0);
}

static void test_select(void)
{
	int p[2], q[2];
	unsigned long in, out;
	struct timeval tv = { 0, 0 };
	long ts[2];
	long sig[2] = { 0, 8 };

	check("pipe", sys1(NR_pipe, p), 0);
	check("select with n = -1: EINVAL", select_(-1, 0, 0, &tv), -EINVAL);
	in = 1UL << 40; /* fd 40 is not open */
	check("select of an fd not open: EBADF", select_(41, &in, 0, &tv), -EBADF);
	in = 1UL << p[0];
	check("select, timeout 0, an empty pipe: 0", select_(p[0] + 1, &in, 0, &tv), 0);
	check("  and the set comes back empty", in, 0);
	in = 1UL << p[0];
	out = 1UL << p[1];
	check("select: the write end is writable", select_(p[1] + 1, &in, &out, &tv), 1);
	check("  only its bit set", in == 0 && out == 1UL << p[1], 1);
	tv.tv_sec = -1;
	check("select with tv_sec -1: EINVAL", select_(p[0] + 1, &in, 0, &tv), -EINVAL);
	tv = (struct timeval){ 0, 20000 };
	in = 1UL << p[0];
	check("select, 20 ms, nothing comes: 0", select_(p[0] + 1, &in, 0, &tv), 0);
	check("  the time left written back: 0", tv.tv_sec == 0 && tv.tv_usec == 0, 1);
	ts[0] = 0;
	ts[1] = 1000000000;
	check("pselect6 with tv_nsec 1e9: EINVAL",
	      syscall6(NR_pselect6, p[0] + 1, (long)&in, 0, 0, (long)ts, (long)sig), -EINVAL);
	ts[1] = 0;
	in = 1UL << p[0];
	sys3(NR_write, p[1], "x", 1);
	check("pselect6 with a mask: the byte is there",
	      syscall6(NR_pselect6, p[0] + 1, (long)&in, 0, 0, (long)ts, (long)sig), 1);
	check("  in the read set", in, 1UL << p[0]);
	sys3(NR_read, p[0], &out, 1);
	check("pipe", sys1(NR_pipe, q), 0);
	long child = sys0(NR_fork);
	if (!child) {
		unsigned long set = 1UL << p[0] | 1UL << q[0];
		long r = select_(q[0] + 1, &set, 0, 0); /* no timeout: only the byte ends it */
		exit_group(r == 1 && set == 1UL << q[0] ? 0 : 1);
	}
	int status = -1;
	let_it_sleep();
	sys3(NR_write, q[1], "y", 1);
	sys4(NR_wait4, child, &status, 0, 0);
	check("a child asleep in select for ever wakes for a byte, only its fd set", status, 0);
	for (int i = 0; i < 2; i++) {
		sys1(NR_close, p[i]);
		sys1(NR_close, q[i]);
	}
}

static void test_poll(void)
{
	int p[2];
	struct pollfd fd;
	long tm, child;
	int status = -1;

	check("pipe", sys1(NR_pipe, p), 0);
	child = sys0(NR_fork);
	if (!child) {
		struct pollfd c = { .fd = p[0], .events = POLLIN };
		long r;

		sys1(NR_close, p[1]); /* the parent's is then the last writer */
		r = syscall6(NR_poll, (long)&c, 1, -1, 0, 0, 0);
		exit_group(r == 1 && c.revents == POLLHUP ? 0 : 1);
	}
	sys1(NR_close, p[1]);
	let_it_sleep();
	sys1(NR_close, p[0]);
	sys4(NR_wait4, child, &status, 0, 0);
	check("a child asleep in poll wakes when the last writer goes: POLLHUP", status, 0);
	tm = sys3(NR_open, "/sys/kernel/tracing/trace_marker", 1, 0);
	fd.fd = sys3(NR_open, "/sys/kernel/tracing/trace_pipe", 0, 0);
	check("trace_marker and trace_pipe", tm >= 0 && fd.fd >= 0, 1);
	child = sys0(NR_fork);
	if (!child) {
		struct pollfd c = { .fd = fd.fd, .events = POLLIN };
		long r = syscall6(NR_poll, (long)&c, 1, -1, 0, 0, 0);
		exit_group(r == 1 && (c.revents & POLLIN) ? 0 : 1);
	}
	let_it_sleep();
	sys3(NR_write, tm, "pollwake\n", 9);
	sys4(NR_wait4, child, &status, 0, 0);
	check("a child asleep in poll on trace_pipe wakes for a trace_marker line", status, 0);
	trace_buf[0] = 0;
	sys3(NR_read, fd.fd, trace_buf, sizeof(trace_buf) - 1); /* the line, out of the way */
	sys1(NR_close, fd.fd);
	sys1(NR_close, tm);
}

/* Reads trace_pipe into trace_buf until needle is in it. */
static void trace_until(long fd, long *n, const char *needle)
{
	long r;

	while (!strstr(trace_buf, needle) && *n < (long)sizeof(trace_buf) - 1 &&
	       (r = sys3(NR_read, fd, trace_buf + *n, sizeof(trace_buf) - 1 - *n)) > 0) {
		*n += r;
		trace_buf[*n] = 0;
	}
}

static void put_pid_into(char *s, long pid)
{
	char d[20];
	int l = 0;

	while (*s)
		s++;
	for (; pid; pid /= 10)
		d[l++] = '0' + pid % 10;
	while (l)
		*s++ = d[--l];
	*s = 0;
}

/*
 * The child sleeps in poll or select on a pipe; once the trace shows it asleep (its sched_switch
 * with prev_state=S), one write. The trace then says who woke it: the test wants the wake-up
 * inside that write, not in a timer interrupt after it.
 */
static int trace(const char *how)
{
	long tp = sys3(NR_open, "/sys/kernel/tracing/trace_pipe", 0, 0), n = 0, child, me;
	char asleep[64] = " prev_pid=";
	int p[2], status = -1;

	if (tp < 0 || sys1(NR_pipe, p))
		return 1;
	child = sys0(NR_fork);
	if (!child) {
		struct pollfd c = { .fd = p[0], .events = POLLIN };
		unsigned long set = 1UL << p[0];
		long r = !strcmp(how, "select") ? select_(p[0] + 1, &set, 0, 0)
						: syscall6(NR_poll, (long)&c, 1, -1, 0, 0, 0);
		exit_group(r == 1 ? 0 : 1);
	}
	me = sys0(NR_getpid);
	put_pid_into(asleep, child);
	memcpy(asleep + strlen(asleep), " prev_prio=120 prev_state=S ", 29);
	trace_until(tp, &n, asleep);
	sys3(NR_write, p[1], "z", 1);
	sys4(NR_wait4, child, &status, 0, 0);
	trace_until(tp, &n, " sys_write -> ");
	put_str(trace_buf);
	put_str("\npoller ");
	put_num(child);
	put_str(" of ");
	put_num(me);
	put_str(" woke: ");
	put_num(status == 0);
	put_str("\n");
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	if (argc > 2 && !strcmp(argv[1], "trace"))
		return trace(argv[2]);
	test_select();
	test_poll();
	return check_summary();
}
