/* resize_read: `trace` and trace_pipe read by one process while another resizes the buffer and
 * empties it (Linux 6.1's own rules: a resize is refused while a read of `trace` is in the pages,
 * and the write fails with ENOMEM, what Linux's buffer_size_kb says of any refused resize;
 * `echo > trace` always goes ahead), as the serial shell, one command at a time, cannot.
 *
 *   resize_read ROUNDS     the child reads `trace` then 16 KiB of trace_pipe, ROUNDS times, and
 *                          checks every line whole: a header, a LOST line, or the function
 *                          tracer's "comm-pid [cpu] flags time: compute_* <-parent"; the parent,
 *                          meanwhile, writes 8, 16, 12, 32 to buffer_size_kb (0 or ENOMEM) and
 *                          opens `trace` with O_TRUNC, until the child is done; then 64, which
 *                          nothing refuses any more
 *
 * The caller leaves a function tracer filtered to compute_* writing into the top buffer.
 */
#include "ulib.h"

#define T "/sys/kernel/tracing/"
#define O_WRONLY 1
#define O_TRUNC 0x200
#define O_NONBLOCK 0x800
#define ENOMEM 12
#define EAGAIN 11

static long lines, bad;
static char line[512];
static int len;

static int digits(const char **p, int n)
{
	for (int i = 0; i < n; i++, (*p)++)
		if (**p < '0' || **p > '9')
			return 0;
	return 1;
}

/* "CPU:N [LOST EVENTS]" (trace) or "CPU:N [LOST M EVENTS]" (trace_pipe). */
static int lost_line(const char *p)
{
	p += 4;
	if (!digits(&p, 1))
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (memcmp_prefix(p, " [LOST "))
		return 0;
	p += 7;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == ' ')
		p++;
	return !strcmp(p, "EVENTS]");
}

static int event_line(const char *l)
{
	const char *p = strstr(l, "] ");

	if (!p || p - l < 8 || p[-4] != '[' || p[-5] != ' ')
		return 0;
	p += 2 + 5; /* the flags */
	while (*p == ' ')
		p++;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p++ != '.' || !digits(&p, 6) || memcmp_prefix(p, ": compute_"))
		return 0;
	return strstr(p, " <-") != 0;
}

static void check_line(void)
{
	line[len] = '\0';
	lines++;
	if (line[0] != '#' && !(!memcmp_prefix(line, "CPU:") && lost_line(line)) &&
	    !event_line(line)) {
		if (bad++ < 3) {
			put_str("bad line: ");
			put_str(line);
			put_str("\n");
		}
	}
	len = 0;
}

static void feed(const char *buf, long n)
{
	for (long i = 0; i < n; i++) {
		if (buf[i] == '\n')
			check_line();
		else if (len < (int)sizeof(line) - 1)
			line[len++] = buf[i];
	}
}

/* A whole read of `trace`, or up to max bytes of a non-blocking trace_pipe. */
static long read_file(const char *path, int flags, long max)
{
	static char buf[4096];
	long fd = sys3(NR_open, path, flags, 0), n, total = 0;

	if (fd < 0)
		return fd;
	while (total < max && (n = sys3(NR_read, fd, buf, sizeof(buf))) > 0) {
		feed(buf, n);
		total += n;
	}
	sys1(NR_close, fd);
	len = 0; /* a line cut by the end of a pipe read is not judged */
	return total;
}

static int reader(long rounds)
{
	for (long i = 0; i < rounds; i++)
		if (read_file(T "trace", 0, 1L << 40) < 0 || read_file(T "trace_pipe", O_NONBLOCK, 16384) < 0)
			return 2;
	put_str("lines ");
	put_num(lines);
	put_str(", bad ");
	put_num(bad);
	put_str("\n");
	return bad ? 1 : 0;
}

static long write_file(const char *path, const char *text, int flags)
{
	long fd = sys3(NR_open, path, O_WRONLY | flags, 0), r;

	if (fd < 0)
		return fd;
	r = text ? sys3(NR_write, fd, text, strlen(text)) : 0;
	sys1(NR_close, fd);
	return r < 0 ? r : 0;
}

int main(int argc, char **argv, char **envp)
{
	static const char *const sizes[] = { "8", "16", "12", "32" };
	long rounds = argc > 1 ? atol(argv[1]) : 20, child, done = 0, busy = 0, other = 0, emptied = 0;
	int status = -1;
	char kb[16];

	child = sys0(NR_fork);
	if (child == 0)
		exit_group(reader(rounds));
	for (long i = 0; sys4(NR_wait4, child, &status, 1 /* WNOHANG */, 0) == 0; i++) {
		long r = write_file(T "buffer_size_kb", sizes[i % 4], 0);

		done += r == 0;
		busy += r == -ENOMEM;
		if (r != 0 && r != -ENOMEM && !other++) {
			put_str("resize: error ");
			put_num(r);
			put_str("\n");
		}
		emptied += write_file(T "trace", 0, O_TRUNC) == 0;
	}
	put_str("resized ");
	put_num(done);
	put_str(", refused ");
	put_num(busy);
	put_str(", emptied ");
	put_num(emptied);
	put_str("\n");
	check("the reader's lines all whole", status, 0);
	check("each resize done or refused with ENOMEM", other, 0);
	check("each echo > trace done", emptied > 0, 1);
	check("a resize with no reader done", write_file(T "buffer_size_kb", "64", 0), 0);
	long fd = sys3(NR_open, T "buffer_size_kb", 0, 0);
	long n = fd < 0 ? -1 : sys3(NR_read, fd, kb, sizeof(kb) - 1);
	kb[n > 0 ? n : 0] = '\0';
	check("buffer_size_kb reads 64", !strcmp(kb, "64\n"), 1);
	return check_summary();
}
