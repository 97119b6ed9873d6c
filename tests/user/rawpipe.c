/*
 * rawpipe: per_cpu/cpu0/trace_pipe_raw and trace_pipe read by a program, as trace-cmd and perf
 * read them (tests/integration/test_rawpipe.py boots one CPU, so every event is CPU 0's).
 *
 *   rawpipe page       one page read in two pieces, non-blocking; its header and events decoded
 *                      and printed ("page commit C events N", then "TS: TEXT" a marker), EAGAIN
 *                      before and after
 *   rawpipe block      a child blocks in read(trace_pipe_raw); one marker wakes it with that page
 *   rawpipe epoll      a child sleeps in epoll_wait on trace_pipe; one marker wakes it
 *   rawpipe percent P  buffer_percent P; a child sleeps in epoll_wait on trace_pipe_raw; markers
 *                      one at a time, each followed by a look at the child, until it wakes; then
 *                      the pages read say it woke at the first marker that filled P percent
 * Whether a child sleeps is read in /proc/PID/status, never waited for with a delay.
 */
#include "ulib.h"

enum { NR_epoll_wait = 232, NR_epoll_ctl = 233, NR_epoll_create1 = 291 };
#define O_WRONLY 1
#define O_NONBLOCK 04000
#define EAGAIN 11
#define PAGE 4096
#define T "/sys/kernel/tracing/"
#define RAW0 T "per_cpu/cpu0/trace_pipe_raw"

struct epoll_event {
	unsigned int events;
	unsigned long data;
} __attribute__((packed));

static unsigned char page[PAGE];

static void marker(const char *s)
{
	long fd = sys3(NR_open, T "trace_marker", O_WRONLY, 0);

	sys3(NR_write, fd, s, strlen(s));
	sys1(NR_close, fd);
}

/* A whole page through reads of the sizes Linux's spare page allows: first 100 bytes, then the
 * rest. Returns what the first read returned (-EAGAIN: nothing there). */
static long read_page(long fd)
{
	long n = sys3(NR_read, fd, page, 100), m;

	if (n != 100)
		return n;
	m = sys3(NR_read, fd, page + 100, PAGE - 100);
	return m == PAGE - 100 ? PAGE : -1;
}

static unsigned long u64_at(const unsigned char *p)
{
	unsigned long v;

	memcpy(&v, p, 8);
	return v;
}

static unsigned int u32_at(const unsigned char *p)
{
	unsigned int v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * Walks the page as libtraceevent does (header_page, header_event): time_stamp, commit, then
 * events whose 5-bit type_len gives the length (0: in the next word, less itself), 29 padding,
 * 30 a time extend, 31 an absolute stamp. Prints each print event (a trace_marker's) with its
 * time; returns the data events, -1 if the lengths do not add up to commit.
 */
static long decode(int print)
{
	unsigned long ts = u64_at(page), commit = u64_at(page + 8), off = 0;
	long events = 0;

	while (off < commit) {
		const unsigned char *e = page + 16 + off;
		unsigned int w = u32_at(e), type_len = w & 31, delta = w >> 5, len;

		if (type_len == 30 || type_len == 31) {
			ts = type_len == 30 ? ts + delta + ((unsigned long)u32_at(e + 4) << 27)
					    : delta + ((unsigned long)u32_at(e + 4) << 27);
			off += 8;
			continue;
		}
		ts += delta;
		len = type_len ? type_len * 4 : u32_at(e + 4) - 4;
		if (type_len == 29) {
			off += (type_len ? 4 : 8) + len;
			continue;
		}
		const unsigned char *d = e + (type_len ? 4 : 8);
		events++;
		if (print) {
			put_num(ts);
			put_str(": ");
			put_str((const char *)d + 16); /* trace_entry, ip: then the marker's text */
		}
		off += (type_len ? 4 : 8) + len;
	}
	return off == commit ? events : -1;
}

static int page_mode(void)
{
	long fd = sys3(NR_open, RAW0, O_NONBLOCK, 0), n;

	check("open trace_pipe_raw O_NONBLOCK", fd >= 0, 1);
	n = read_page(fd);
	check("a full page in two reads", n, PAGE);
	put_str("page commit ");
	put_num(u64_at(page + 8));
	put_str(" events ");
	put_num(decode(0));
	put_str("\n");
	decode(1);
	check("the events' lengths add up to commit", decode(0) > 0, 1);
	check("what was read is gone: EAGAIN", read_page(fd), -EAGAIN);
	sys1(NR_close, fd);
	return check_summary();
}

/* Until the child sleeps (or has gone): its State line says S. */
static void until_asleep(long child)
{
	char path[40] = "/proc/", buf[512], digits[20];
	int l = 0, i = 6;

	for (long c = child; c; c /= 10)
		digits[l++] = '0' + c % 10;
	while (l)
		path[i++] = digits[--l];
	memcpy(path + i, "/status", 8);
	for (;;) {
		long fd = sys3(NR_open, path, 0, 0), n;
		if (fd < 0)
			return;
		n = sys3(NR_read, fd, buf, sizeof(buf) - 1);
		sys1(NR_close, fd);
		buf[n > 0 ? n : 0] = 0;
		if (strstr(buf, "State:\tS") || strstr(buf, "State:\tZ"))
			return;
		sys0(NR_sched_yield);
	}
}

static int block_mode(void)
{
	long child = sys0(NR_fork);
	int status = -1;

	if (!child) {
		long fd = sys3(NR_open, RAW0, 0, 0);
		exit_group(read_page(fd) == PAGE && decode(0) == 1 ? 0 : 1);
	}
	until_asleep(child);
	marker("wake the reader");
	sys4(NR_wait4, child, &status, 0, 0);
	check("a reader blocked in read(trace_pipe_raw) wakes for one event, its page", status, 0);
	return check_summary();
}

static long epoll_on(const char *path, long *fd)
{
	long epfd = sys1(NR_epoll_create1, 0);
	struct epoll_event ev = { 1, 7 }; /* EPOLLIN */

	*fd = sys3(NR_open, path, O_NONBLOCK, 0);
	if (epfd < 0 || *fd < 0 || sys4(NR_epoll_ctl, epfd, 1, *fd, &ev))
		exit_group(2);
	return epfd;
}

static int epoll_mode(void)
{
	long child = sys0(NR_fork);
	int status = -1;

	if (!child) {
		struct epoll_event ev;
		long fd, epfd = epoll_on(T "trace_pipe", &fd);
		long got = sys4(NR_epoll_wait, epfd, &ev, 1, -1);
		long n = sys3(NR_read, fd, page, PAGE - 1);
		page[n > 0 ? n : 0] = 0;
		exit_group(got == 1 && ev.data == 7 && strstr((char *)page, "epoll wake") ? 0 : 1);
	}
	until_asleep(child);
	marker("epoll wake");
	sys4(NR_wait4, child, &status, 0, 0);
	check("a reader asleep in epoll_wait on trace_pipe wakes for one event", status, 0);
	return check_summary();
}

static long read_number(const char *path)
{
	char buf[24];
	long fd = sys3(NR_open, path, 0, 0), n = sys3(NR_read, fd, buf, sizeof(buf) - 1);

	sys1(NR_close, fd);
	buf[n > 0 ? n : 0] = 0;
	return atol(buf);
}

static int percent_mode(const char *p)
{
	long percent = atol(p), nr_pages = read_number(T "per_cpu/cpu0/buffer_size_kb") / 4;
	long fd = sys3(NR_open, T "buffer_percent", O_WRONLY, 0), child, markers = 0, pages = 0;
	int pfd[2];
	int status = -1;
	char c;

	sys3(NR_write, fd, p, strlen(p));
	sys1(NR_close, fd);
	check("buffer_percent written", read_number(T "buffer_percent"), percent);
	sys1(NR_pipe, pfd);
	child = sys0(NR_fork);
	if (!child) {
		struct epoll_event ev;
		long rfd, epfd = epoll_on(RAW0, &rfd);
		long got = sys4(NR_epoll_wait, epfd, &ev, 1, -1);
		sys3(NR_write, pfd[1], "w", 1);
		exit_group(got == 1 ? 0 : 1);
	}
	sys3(NR_fcntl, pfd[0], 4, O_NONBLOCK); /* F_SETFL */
	until_asleep(child);
	while (sys3(NR_read, pfd[0], &c, 1) != 1 && markers < 100000) {
		marker("a marker of forty bytes, to fill pages");
		markers++;
		until_asleep(child);
	}
	sys4(NR_wait4, child, &status, 0, 0);
	check("the reader woke", status, 0);
	fd = sys3(NR_open, RAW0, O_NONBLOCK, 0);
	while (read_page(fd) == PAGE)
		pages++;
	sys1(NR_close, fd);
	put_str("woke after ");
	put_num(markers);
	put_str(" markers, ");
	put_num(pages);
	put_str(" pages of ");
	put_num(nr_pages);
	put_str("\n");
	/* The last page read is the one the writer was on: full pages are the others (full_hit()). */
	check("full enough when woken", pages * 100 >= percent * nr_pages, 1);
	check("not full enough one page before", percent == 0 ? markers == 1
							      : (pages - 1) * 100 < percent * nr_pages, 1);
	return check_summary();
}

int main(int argc, char **argv, char **envp)
{
	if (argc >= 2 && !strcmp(argv[1], "page"))
		return page_mode();
	if (argc >= 2 && !strcmp(argv[1], "block"))
		return block_mode();
	if (argc >= 2 && !strcmp(argv[1], "epoll"))
		return epoll_mode();
	if (argc >= 3 && !strcmp(argv[1], "percent"))
		return percent_mode(argv[2]);
	put_str("usage: rawpipe page|block|epoll|percent P\n");
	return 2;
}
