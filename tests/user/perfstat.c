/*
 * perfstat [-e EVENT,EVENT...] PROGRAM [ARGS...]: counts what a program does, as `perf stat` does.
 *
 * EVENT is task-clock, cpu-clock, context-switches, cpu-migrations, page-faults, or a trace event
 * as SYSTEM:NAME (its id read from events/). The child waits on a pipe until every counter is
 * open on its pid, then execs; the counters are read once it has exited and printed in perf
 * stat's layout. As a user at perf_event_paranoid 2 the counters exclude the kernel (perf's :u).
 */
#include "uperf.h"

#define MAX_EVENTS 8

struct counter {
	char name[64];
	u32 type;
	u64 config;
	long fd;
};

static struct counter counters[MAX_EVENTS];
static int nr_counters;

static u64 now_ns(void)
{
	long ts[2];
	sys2(NR_clock_gettime, 1, ts); /* CLOCK_MONOTONIC */
	return (u64)ts[0] * 1000000000ULL + ts[1];
}

/* "sched:sched_switch" -> "sched/sched_switch" -> its id; a software name -> its config. */
static int add_counter(const char *name, size_t len)
{
	static const char *const sw[] = { "cpu-clock", "task-clock", "page-faults", "context-switches",
					  "cpu-migrations" };
	struct counter *c = &counters[nr_counters];
	char path[64];

	if (nr_counters == MAX_EVENTS || len >= sizeof(c->name))
		return -1;
	memcpy(c->name, name, len);
	c->name[len] = 0;
	for (unsigned int i = 0; i < sizeof(sw) / sizeof(sw[0]); i++)
		if (!strcmp(c->name, sw[i])) {
			c->type = PERF_TYPE_SOFTWARE;
			c->config = i;
			nr_counters++;
			return 0;
		}
	memcpy(path, c->name, len + 1);
	for (size_t i = 0; i < len; i++)
		if (path[i] == ':')
			path[i] = '/';
	c->type = PERF_TYPE_TRACEPOINT;
	if (tracepoint_id(path) < 0)
		return -1;
	c->config = tracepoint_id(path);
	nr_counters++;
	return 0;
}

static int parse_events(const char *list)
{
	const char *p = list;

	while (*p) {
		size_t n = 0;
		while (p[n] && p[n] != ',')
			n++;
		if (add_counter(p, n)) {
			puts_fd(2, "perfstat: unknown event: ");
			puts_fd(2, p);
			puts_fd(2, "\n");
			return -1;
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

static int paranoid(void)
{
	char buf[8];
	long fd = sys3(NR_open, "/proc/sys/kernel/perf_event_paranoid", 0, 0), n;
	int neg = 0, v = 0;

	if (fd < 0)
		return 2;
	n = sys3(NR_read, fd, buf, sizeof(buf));
	sys1(NR_close, fd);
	for (long i = 0; i < n; i++) {
		if (buf[i] == '-')
			neg = 1;
		else if (buf[i] >= '0' && buf[i] <= '9')
			v = v * 10 + buf[i] - '0';
	}
	return neg ? -v : v;
}

/* Right-aligned in width columns, as perf's "%18" does. */
static void put_padded(const char *s, int width)
{
	for (int i = strlen(s); i < width; i++)
		put_str(" ");
	put_str(s);
}

static void fmt_num(char *buf, unsigned long v)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	*--p = 0;
	do
		*--p = '0' + v % 10;
	while (v /= 10);
	memcpy(buf, p, strlen(p) + 1);
}

/* ns as "12.34 msec" */
static void fmt_msec(char *buf, u64 ns)
{
	u64 hundredths = ns / 10000;
	size_t n;

	fmt_num(buf, hundredths / 100);
	n = strlen(buf);
	buf[n] = '.';
	buf[n + 1] = '0' + hundredths % 100 / 10;
	buf[n + 2] = '0' + hundredths % 10;
	memcpy(buf + n + 3, " msec", 6);
}

static void print_counter(const struct counter *c, u64 v, int user_only)
{
	char num[48];
	int clock = c->type == PERF_TYPE_SOFTWARE && c->config <= PERF_COUNT_SW_TASK_CLOCK;

	if (clock)
		fmt_msec(num, v);
	else
		fmt_num(num, v);
	put_padded(num, clock ? 23 : 18);
	put_str(clock ? " " : "      ");
	put_str(c->name);
	if (user_only)
		put_str(":u");
	put_str("\n");
}

int main(int argc, char **argv, char **envp)
{
	struct perf_event_attr a;
	int argi = 1, status = 0, user_only;
	int go[2];
	long pid;
	u64 start, end;
	char c = 0, num[32];

	if (argi + 1 < argc && !strcmp(argv[argi], "-e")) {
		if (parse_events(argv[argi + 1]))
			return 2;
		argi += 2;
	} else if (parse_events("task-clock,context-switches,cpu-migrations,page-faults")) {
		return 2;
	}
	if (argi >= argc) {
		puts_fd(2, "usage: perfstat [-e EVENT,...] PROGRAM [ARGS...]\n");
		return 2;
	}
	user_only = sys0(NR_getuid) != 0 && paranoid() > 1;
	sys1(NR_pipe, go);
	pid = sys0(NR_fork);
	if (pid == 0) {
		sys1(NR_close, go[1]);
		sys3(NR_read, go[0], &c, 1); /* until every counter is open */
		sys3(NR_execve, argv[argi], argv + argi, envp);
		puts_fd(2, "perfstat: cannot run the program\n");
		exit_group(127);
	}
	sys1(NR_close, go[0]);
	for (int i = 0; i < nr_counters; i++) {
		memset(&a, 0, sizeof(a));
		a.type = counters[i].type;
		a.size = sizeof(a);
		a.config = counters[i].config;
		a.flags = user_only ? ATTR_EXCLUDE_KERNEL : 0;
		counters[i].fd = perf_event_open(&a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (counters[i].fd < 0) {
			puts_fd(2, "perfstat: perf_event_open failed for ");
			puts_fd(2, counters[i].name);
			puts_fd(2, "\n");
		}
	}
	start = now_ns();
	sys3(NR_write, go[1], &c, 1);
	sys4(NR_wait4, pid, &status, 0, 0);
	end = now_ns();
	put_str("\n Performance counter stats for '");
	for (int i = argi; i < argc; i++) {
		put_str(argv[i]);
		put_str(i + 1 < argc ? " " : "");
	}
	put_str("':\n\n");
	for (int i = 0; i < nr_counters; i++) {
		u64 v = 0;
		if (counters[i].fd >= 0 && sys3(NR_read, counters[i].fd, &v, sizeof(v)) == sizeof(v))
			print_counter(&counters[i], v, user_only);
		else
			put_padded("<not counted>", 18), put_str("      "), put_str(counters[i].name),
				put_str("\n");
	}
	fmt_num(num, (end - start) / 1000000000ULL);
	put_str("\n");
	put_padded(num, 8);
	put_str(".");
	fmt_num(num, 1000000000ULL + (end - start) % 1000000000ULL);
	put_str(num + 1); /* nine digits, leading zeros kept */
	put_str(" seconds time elapsed\n\n");
	return (status >> 8) & 0xff;
}
