/*
 * perfrecord [-F HZ] [-a] PROGRAM [ARGS...]: samples cpu-clock with call chains while a program
 * runs, as `perf record -g` does, and prints one line per sample for tools/perf-flamegraph:
 *
 *   sample PID TID CPU TIME_NS PERIOD_NS k ADDR,ADDR,... u ADDR,ADDR,...
 *
 * (k: the kernel's frames, u: the program's, each newest first). Without -a the program's own
 * task is sampled; with -a every CPU is (CPU-wide events, root only at perf_event_paranoid 2),
 * idle included, so the kernel's own work shows. The rings are drained while the program runs.
 * `perfrecord -w N` is a workload of its own: N rounds of user-space arithmetic (fib) and of
 * system calls that do kernel work (reading /proc/meminfo), built with frame pointers;
 * `perfrecord -t MS` repeats those rounds until the task has run MS milliseconds (task-clock).
 */
#include "uperf.h"

#define MAX_CPUS 8
#define RING_PAGES 16 /* data pages per ring: 64 KiB */
#define RING_SIZE (RING_PAGES * 4096UL)
#define WNOHANG 1

static long fds[MAX_CPUS], rings[MAX_CPUS];
static int nr_rings;
static long samples, lost;

static void put_u(u64 v)
{
	put_num((long)v);
}

static void print_chain(const u64 *ips, u64 nr)
{
	const char *sep = "";
	int in = 0; /* 0 none yet, 1 kernel, 2 user */

	for (u64 i = 0; i < nr; i++) {
		if (ips[i] == PERF_CONTEXT_KERNEL || ips[i] == PERF_CONTEXT_USER) {
			put_str(ips[i] == PERF_CONTEXT_KERNEL ? " k " : " u ");
			in = ips[i] == PERF_CONTEXT_KERNEL ? 1 : 2;
			sep = "";
			continue;
		}
		if (!in)
			continue;
		put_str(sep);
		put_hex(ips[i]);
		sep = ",";
	}
	put_str("\n");
}

/* ip, pid|tid, time, cpu, period, callchain: the sample_type asked for below. */
static void print_sample(const u64 *p)
{
	put_str("sample ");
	put_u(p[1] & 0xffffffff);
	put_str(" ");
	put_u(p[1] >> 32);
	put_str(" ");
	put_u(p[3] & 0xffffffff);
	put_str(" ");
	put_u(p[2]);
	put_str(" ");
	put_u(p[4]);
	print_chain(p + 6, p[5]);
	samples++;
}

/* Every whole record between data_tail and data_head, then data_tail moved past them. */
static void drain(long ring)
{
	struct perf_event_mmap_page *mp = (void *)ring;
	u64 head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE), tail = mp->data_tail;
	static u64 rec[1024];

	while (tail < head) {
		const unsigned char *data = (const unsigned char *)ring + 4096;
		struct perf_event_header h;
		u64 off = tail & (RING_SIZE - 1);

		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > sizeof(rec))
			break;
		for (u32 i = 0; i < h.size; i++) /* the record may wrap */
			((unsigned char *)rec)[i] = data[(off + i) & (RING_SIZE - 1)];
		if (h.type == PERF_RECORD_SAMPLE)
			print_sample(rec + 1);
		else if (h.type == PERF_RECORD_LOST)
			lost += rec[2];
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static int open_ring(struct perf_event_attr *a, long pid, int cpu)
{
	long fd = perf_event_open(a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC), ring;

	if (fd < 0)
		return (int)fd;
	ring = sys6(NR_mmap, 0, (RING_PAGES + 1) * 4096UL, 3, 1, fd, 0);
	if (ring < 0 && ring > -4096)
		return (int)ring;
	fds[nr_rings] = fd;
	rings[nr_rings++] = ring;
	return 0;
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static unsigned long fib(int n)
{
	return n < 2 ? (unsigned long)n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static void read_meminfo(void)
{
	static char buf[2048];
	long fd = sys3(NR_open, "/proc/meminfo", 0, 0);

	if (fd >= 0) {
		while (sys3(NR_read, fd, buf, sizeof(buf)) > 0)
			;
		sys1(NR_close, fd);
	}
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static int workload(int rounds)
{
	unsigned long sum = 0;

	for (int i = 0; i < rounds; i++) {
		sum += fib(22);
		for (int j = 0; j < 20; j++)
			read_meminfo();
	}
	return sum == 0; /* keeps fib from being optimized away */
}

/* Rounds until this task has run for ms of its own task-clock: a number of cpu-clock samples that
 * does not depend on how fast the machine (or the emulator under load) runs. */
static int workload_for(int ms)
{
	struct perf_event_attr a;
	u64 ns = 0;
	long fd;
	int err = 0;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	fd = perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 1;
	while (!err && ns < (u64)ms * 1000000)
		err = workload(1) || sys3(NR_read, fd, &ns, sizeof(ns)) != sizeof(ns);
	sys1(NR_close, fd);
	return err;
}

int main(int argc, char **argv, char **envp)
{
	struct perf_event_attr a;
	int argi = 1, all = 0, status = 0;
	long pid;
	int go[2];
	u64 freq = 100;
	char c = 0;

	if (argc == 3 && (!strcmp(argv[1], "-w") || !strcmp(argv[1], "-t"))) {
		int n = 0;
		for (const char *p = argv[2]; *p >= '0' && *p <= '9'; p++)
			n = n * 10 + *p - '0';
		return argv[1][1] == 'w' ? workload(n) : workload_for(n);
	}
	for (; argi < argc && argv[argi][0] == '-'; argi++) {
		if (!strcmp(argv[argi], "-a")) {
			all = 1;
		} else if (!strcmp(argv[argi], "-F") && argi + 1 < argc) {
			freq = 0;
			for (const char *p = argv[++argi]; *p >= '0' && *p <= '9'; p++)
				freq = freq * 10 + *p - '0';
		} else {
			break;
		}
	}
	if (argi >= argc || !freq) {
		puts_fd(2, "usage: perfrecord [-F HZ] [-a] PROGRAM [ARGS...] | perfrecord -w N | perfrecord -t MS\n");
		return 2;
	}
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = freq;
	a.flags = ATTR_FREQ;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	sys1(NR_pipe, go);
	pid = sys0(NR_fork);
	if (pid == 0) {
		sys1(NR_close, go[1]);
		sys3(NR_read, go[0], &c, 1); /* until the rings are ready */
		sys3(NR_execve, argv[argi], argv + argi, envp);
		exit_group(127);
	}
	sys1(NR_close, go[0]);
	for (int cpu = 0; all && cpu < MAX_CPUS; cpu++)
		open_ring(&a, -1, cpu); /* a CPU that is not there answers ENODEV: skipped */
	if (!all && open_ring(&a, pid, -1))
		puts_fd(2, "perfrecord: perf_event_open failed\n");
	if (!nr_rings) {
		puts_fd(2, "perfrecord: no event could be opened (perf_event_paranoid?)\n");
		sys2(NR_kill, pid, 9);
		return 1;
	}
	sys3(NR_write, go[1], &c, 1);
	while (sys4(NR_wait4, pid, &status, WNOHANG, 0) == 0) {
		long ts[2] = { 0, 20 * 1000 * 1000 };
		for (int i = 0; i < nr_rings; i++)
			drain(rings[i]);
		sys2(NR_nanosleep, ts, 0);
	}
	for (int i = 0; i < nr_rings; i++) {
		drain(rings[i]);
		sys1(NR_close, fds[i]);
	}
	put_str("# perfrecord: ");
	put_num(samples);
	put_str(" samples, ");
	put_num(lost);
	put_str(" lost\n");
	return 0;
}
