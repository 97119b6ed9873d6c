/*
 * bpfload OBJECT WORKLOAD N: loads a BPF object built for Linux with Debian's libbpf (unmodified,
 * linked statically), attaches every program in it the way libbpf chooses (here, as on Linux 6.1:
 * perf_event_open with the kprobe PMU's type, then BPF_LINK_CREATE), runs a workload between two
 * trace_marker lines, detaches, and prints every map entry, and the kprobe_events lines there were
 * while attached by a kprobe or uprobe program (libbpf's fallback would have added its own there),
 * with the reads that took:
 *
 *   pid P
 *   btf loaded|not loaded                       (libbpf gave the kernel the object's BTF or not)
 *   kprobe_events LINE
 *   kprobe_events_reads R
 *   map NAME KEY VALUE
 *   ring NAME PREV_PID NEXT_PID NEXT_COMM       (a ring buffer map's records, switchring.bpf.c's)
 *   ring NAME polls P records R                 (read after detaching, with ring_buffer__poll())
 *
 * WORKLOAD: read (N reads of /proc/version), sleep (N sleeps of 10 ms), getppid (N calls), probe
 * (probe_target(i, 1000) for i = 1..N, its address and the sum of its returns printed), loop
 * (7 runs of N getppid calls, each run's TSC ticks per call printed as tests/user/getppid_loop.c
 * prints them: under -icount, guest instructions; `make bench` reads them).
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINKS 8

static void marker(const char *s)
{
	int fd = open("/sys/kernel/tracing/trace_marker", O_WRONLY);

	if (fd >= 0) {
		write(fd, s, strlen(s));
		close(fd);
	}
}

static inline unsigned long long rdtsc(void)
{
	unsigned int lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (unsigned long long)hi << 32 | lo;
}

static void loop(int n)
{
	for (int run = 0; run < 7; run++) {
		unsigned long long t0 = rdtsc(), t1;
		for (int i = 0; i < n; i++)
			syscall(SYS_getppid);
		t1 = rdtsc();
		printf("bpfload run=%d n=%d tsc_per_call=%.3f\n", run, n, (double)(t1 - t0) / n);
	}
}

/* uprobeargs.bpf.c's target: kept out of line and unspecialised (noipa) so that the symbol is the
 * code that runs with these arguments. */
__attribute__((noinline, noipa)) long probe_target(long a, long b)
{
	return a + b;
}

static void workload(const char *what, int n)
{
	char buf[256];
	long sum = 0;

	if (!strcmp(what, "loop")) {
		loop(n);
		return;
	}
	if (!strcmp(what, "probe")) {
		printf("probe_target 0x%lx\n", (unsigned long)probe_target);
		for (int i = 1; i <= n; i++)
			sum += probe_target(i, 1000);
		printf("probe_target returned %ld\n", sum);
		return;
	}
	for (int i = 0; i < n; i++) {
		if (!strcmp(what, "read")) {
			int fd = open("/proc/version", O_RDONLY);
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
		} else if (!strcmp(what, "sleep")) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		} else {
			syscall(SYS_getppid);
		}
	}
}

/* Every entry of a map whose keys are 4 or 8 bytes and values 8. */
static void dump_map(struct bpf_map *map)
{
	unsigned long long key = 0, next = 0, value;
	int fd = bpf_map__fd(map), ksz = bpf_map__key_size(map);
	void *prev = NULL;

	if (bpf_map__value_size(map) != 8 || (ksz != 4 && ksz != 8))
		return;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = ksz == 4 ? (unsigned int)next : next;
		if (!bpf_map_lookup_elem(fd, &next, &value) && value)
			printf("map %s %llu %llu\n", bpf_map__name(map), key, value);
		prev = &next;
	}
}

/* kprobe_events while attached, with how many read() calls that took: a kprobe program on
 * file_read() counts those too, before the window's first marker. */
static void print_kprobe_events(void)
{
	int fd = open("/sys/kernel/tracing/kprobe_events", O_RDONLY), reads = 0;
	char buf[4096], *line, *save = NULL;
	size_t len = 0;
	ssize_t n;

	while (fd >= 0 && len < sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len), reads++, n > 0))
		len += n;
	buf[len] = '\0';
	if (fd >= 0)
		close(fd);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		printf("kprobe_events %s\n", line);
	printf("kprobe_events_reads %d\n", reads);
}

struct ring_ctx {
	const char *name;
	long records;
};

/* switchring.bpf.c's struct switch_rec, as libbpf's callback hands it over. */
static int print_record(void *ctx, void *data, size_t size)
{
	const struct {
		int prev_pid, next_pid;
		char next_comm[16];
	} *r = data;
	struct ring_ctx *c = ctx;

	c->records++;
	if (size == sizeof(*r))
		printf("ring %s %d %d %.16s\n", c->name, r->prev_pid, r->next_pid, r->next_comm);
	return 0;
}

/* libbpf's reader of a BPF ring buffer (mmap of the map fd, epoll_wait on it), set up before the
 * programs run; NULL when the object has no such map. */
static struct ring_buffer *open_ring(struct bpf_object *obj, struct ring_ctx *c)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj)
	{
		if (bpf_map__type(map) != BPF_MAP_TYPE_RINGBUF)
			continue;
		c->name = bpf_map__name(map);
		return ring_buffer__new(bpf_map__fd(map), print_record, c, NULL);
	}
	return NULL;
}

/* Every record, until a poll of 100 ms finds none. */
static void drain_ring(struct ring_buffer *rb, struct ring_ctx *c)
{
	int polls = 0, n;

	while ((n = ring_buffer__poll(rb, 100)) > 0)
		polls++;
	printf("ring %s polls %d records %ld%s\n", c->name, polls, c->records,
	       n < 0 ? " error" : "");
	ring_buffer__free(rb);
}

int main(int argc, char **argv)
{
	struct ring_ctx ring_ctx = { 0 };
	struct ring_buffer *rb;
	struct bpf_link *links[MAX_LINKS];
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_map *map;
	int nlinks = 0, kprobes = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: bpfload OBJECT read|sleep|getppid|probe|loop N\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "bpfload: cannot load %s\n", argv[1]);
		return 1;
	}
	rb = open_ring(obj, &ring_ctx);
	bpf_object__for_each_program(prog, obj)
	{
		/* a bare SEC("tracepoint") names nothing to attach to: a tail call's target */
		if (!strchr(bpf_program__section_name(prog), '/'))
			continue;
		links[nlinks] = bpf_program__attach(prog);
		if (!links[nlinks]) {
			fprintf(stderr, "bpfload: cannot attach %s\n", bpf_program__name(prog));
			return 1;
		}
		kprobes += bpf_program__type(prog) == BPF_PROG_TYPE_KPROBE;
		nlinks++;
	}
	printf("pid %d\n", getpid());
	/* libbpf hands the object's BTF to the kernel when BPF_BTF_LOAD takes its probe blobs */
	printf("btf %s\n", bpf_object__btf_fd(obj) >= 0 ? "loaded" : "not loaded");
	if (kprobes) /* a tracepoint program's counts stay as they were: no extra switches */
		print_kprobe_events();
	fflush(stdout);
	marker("bpfload: attached\n");
	workload(argv[2], atoi(argv[3]));
	marker("bpfload: detaching\n");
	while (nlinks)
		bpf_link__destroy(links[--nlinks]);
	if (rb)
		drain_ring(rb, &ring_ctx);
	bpf_object__for_each_map(map, obj) dump_map(map);
	bpf_object__close(obj);
	return 0;
}
