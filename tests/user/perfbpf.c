/*
 * perfbpf: BPF programs on perf events, as libbpf attaches them: a tracepoint program and a kprobe
 * program through PERF_EVENT_IOC_SET_BPF, one through BPF_LINK_CREATE, the errors Linux gives
 * (wrong type, a second program, not a program), bpf_perf_event_output() into a bpf-output
 * event's ring, and a BPF_PROG_TYPE_PERF_EVENT program at a cpu-clock event's samples. One check a line, "PASS n/m" last (tests/integration/test_perf_events.py runs it).
 */
#include "bpf_sys.h"

enum { NR_perf_event_open = 298 };

#define PERF_TYPE_SOFTWARE 1
#define PERF_TYPE_TRACEPOINT 2
#define PERF_COUNT_SW_BPF_OUTPUT 10
#define PERF_SAMPLE_RAW (1U << 10)
#define PERF_EVENT_IOC_SET_BPF 0x40042408
#define PERF_RECORD_SAMPLE 9

/* Linux's perf_event_attr up to config2 (VER1, 72 bytes): all these tests need. */
struct attr {
	unsigned int type, size;
	unsigned long config, sample_period, sample_type, read_format, flags;
	unsigned int wakeup_events, bp_type;
	unsigned long config1, config2;
};

static long perf_open(unsigned int type, unsigned long config, long pid, long cpu,
		      unsigned long sample_type)
{
	struct attr a;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.size = sizeof(a);
	a.config = config;
	a.sample_period = sample_type ? 1 : 0;
	a.sample_type = sample_type;
	return sys6(NR_perf_event_open, &a, pid, cpu, -1, 0, 0);
}

static long read_id(const char *path)
{
	char buf[16];
	long fd = sys3(NR_open, path, 0, 0), n, v = 0;

	if (fd < 0)
		return -1;
	n = sys3(NR_read, fd, buf, sizeof(buf));
	sys1(NR_close, fd);
	for (long i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
		v = v * 10 + buf[i] - '0';
	return v;
}

static long write_file(const char *path, const char *s)
{
	long fd = sys3(NR_open, path, 1 | 0x400, 0), n;

	if (fd < 0)
		return fd;
	n = sys3(NR_write, fd, s, strlen(s));
	sys1(NR_close, fd);
	return n;
}

static long load(int type, struct bpf_insn *insns, int n, long map_fd)
{
	return bpf_prog_load_log(type, insns, n, map_fd, 0, 0, 0, 0);
}

/* Adds 1 to element 0 of an array map of u64, and returns ret (0: the hit is dropped). */
static long counting_prog(int type, long map, int ret)
{
	struct bpf_insn p[] = {
		LOOKUP_SLOT(0),	       JMP_IMM(BPF_JEQ, 0, 0, 2), MOV64_IMM(1, 1),
		ATOMIC_ADD64(0, 1, 0), MOV64_IMM(0, ret),	  EXIT,
	};
	return load(type, p, sizeof(p) / sizeof(p[0]), map);
}

/* A value at slot key of an array map of u64 (~0 if the lookup fails). */
static unsigned long slot(long map, int key)
{
	unsigned long v = ~0UL;

	bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, map, &key, &v, 0);
	return v;
}

static unsigned long slot0(long map)
{
	return slot(map, 0);
}

static void getppid_n(int n)
{
	for (int i = 0; i < n; i++)
		sys0(NR_getppid);
}

static void test_set_bpf(long tp_id, long kp_id)
{
	long map = bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1),
	     kmap = bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
	long tp_prog = counting_prog(BPF_PROG_TYPE_TRACEPOINT, map, 1);
	long kp_prog = counting_prog(BPF_PROG_TYPE_KPROBE, kmap, 1);
	long tp = perf_open(PERF_TYPE_TRACEPOINT, tp_id, -1, 0, 0);
	long kp = perf_open(PERF_TYPE_TRACEPOINT, kp_id, -1, 0, 0);

	check("tracepoint and kprobe programs load", tp_prog >= 0 && kp_prog >= 0, 1);
	check("perf events on both open", tp >= 0 && kp >= 0, 1);
	check("SET_BPF: a kprobe program on a tracepoint: EINVAL",
	      sys3(NR_ioctl, tp, PERF_EVENT_IOC_SET_BPF, kp_prog), -EINVAL);
	check("SET_BPF: a tracepoint program on a kprobe event: EINVAL",
	      sys3(NR_ioctl, kp, PERF_EVENT_IOC_SET_BPF, tp_prog), -EINVAL);
	check("SET_BPF: an fd that is not a program: EINVAL",
	      sys3(NR_ioctl, tp, PERF_EVENT_IOC_SET_BPF, 1), -EINVAL);
	check("SET_BPF: an fd not open: EBADF", sys3(NR_ioctl, tp, PERF_EVENT_IOC_SET_BPF, 60),
	      -EBADF);
	check("SET_BPF tracepoint program", sys3(NR_ioctl, tp, PERF_EVENT_IOC_SET_BPF, tp_prog), 0);
	check("SET_BPF kprobe program", sys3(NR_ioctl, kp, PERF_EVENT_IOC_SET_BPF, kp_prog), 0);
	check("SET_BPF twice: EEXIST", sys3(NR_ioctl, tp, PERF_EVENT_IOC_SET_BPF, tp_prog),
	      -EEXIST);
	getppid_n(25);
	check("the tracepoint program ran once per getppid", slot0(map), 25);
	check("the kprobe program ran once per getppid", slot0(kmap), 25);
	sys1(NR_close, tp);
	sys1(NR_close, kp);
	getppid_n(5);
	check("closed: the programs run no more", slot0(map) == 25 && slot0(kmap) == 25, 1);
	sys1(NR_close, tp_prog);
	sys1(NR_close, kp_prog);
	sys1(NR_close, map);
	sys1(NR_close, kmap);
}

/* A program that returns 0 drops the hit: the perf event's own count stays 0. */
static void test_filtering_prog(long tp_id)
{
	long map = bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
	long prog = counting_prog(BPF_PROG_TYPE_TRACEPOINT, map, 0);
	long fd = perf_open(PERF_TYPE_TRACEPOINT, tp_id, 0, -1, 0);
	unsigned long count = ~0UL;

	sys3(NR_ioctl, fd, PERF_EVENT_IOC_SET_BPF, prog);
	getppid_n(10);
	sys3(NR_read, fd, &count, sizeof(count));
	check("a program returning 0: ran 10 times", slot0(map), 10);
	check("... and the perf event counted none", count, 0);
	sys1(NR_close, fd);
	sys1(NR_close, prog);
	sys1(NR_close, map);
}

static void test_link(long tp_id)
{
	long map = bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
	long prog = counting_prog(BPF_PROG_TYPE_TRACEPOINT, map, 1);
	long fd = perf_open(PERF_TYPE_TRACEPOINT, tp_id, -1, 0, 0), link;
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = prog;
	a.link_create.target_fd = -1;
	a.link_create.attach_type = BPF_PERF_EVENT;
	check("LINK_CREATE on fd -1: EBADF (libbpf's probe for perf links)",
	      sys_bpf(BPF_LINK_CREATE, &a, sizeof(a)), -EBADF);
	a.link_create.target_fd = fd;
	link = sys_bpf(BPF_LINK_CREATE, &a, sizeof(a));
	check("LINK_CREATE BPF_PERF_EVENT", link >= 0, 1);
	sys1(NR_close, fd); /* the link keeps the event */
	getppid_n(7);
	check("the linked program ran 7 times", slot0(map), 7);
	sys1(NR_close, link);
	getppid_n(3);
	check("link closed: detached", slot0(map), 7);
	sys1(NR_close, prog);
	sys1(NR_close, map);
}

/* bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &v, 8) into the CPU's bpf-output event. */
static void test_output(long tp_id)
{
	long events = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, 8), out[8], rings[8];
	long tp = perf_open(PERF_TYPE_TRACEPOINT, tp_id, -1, 0, 0), prog, found = 0;
	struct bpf_insn p[] = {
		MOV64_IMM(2, 0x1234),
		STX(BPF_DW, 10, 2, -8),
		MOV64_REG(4, 10),
		ALU64_IMM(BPF_ADD, 4, -8),
		LD_MAP(2),
		INSN(BPF_LD | BPF_DW | BPF_IMM, 3, 0, 0, -1),
		INSN(0, 0, 0, 0, 0),
		MOV64_IMM(5, 8),
		CALL(BPF_FUNC_perf_event_output),
		MOV64_IMM(0, 1),
		EXIT,
	};
	int ncpu = 0;

	for (int cpu = 0; cpu < 8; cpu++) {
		out[cpu] = perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT, -1, cpu,
				     PERF_SAMPLE_RAW);
		if (out[cpu] < 0)
			break;
		rings[cpu] = sys6(NR_mmap, 0, 2 * 4096, 3, 1, out[cpu], 0);
		bpf_map_cmd(BPF_MAP_UPDATE_ELEM, events, &cpu, &out[cpu], 0);
		ncpu++;
	}
	check("a bpf-output event per CPU", ncpu > 0, 1);
	prog = load(BPF_PROG_TYPE_TRACEPOINT, p, sizeof(p) / sizeof(p[0]), events);
	check("a program calling bpf_perf_event_output loads", prog >= 0, 1);
	check("SET_BPF", sys3(NR_ioctl, tp, PERF_EVENT_IOC_SET_BPF, prog), 0);
	getppid_n(4);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		unsigned long head = *(volatile unsigned long *)(rings[cpu] + 1024), tail = 0;
		while (tail < head) {
			unsigned char *r = (unsigned char *)rings[cpu] + 4096 + tail;
			unsigned short size = *(unsigned short *)(r + 6);
			if (*(unsigned int *)r == PERF_RECORD_SAMPLE &&
			    *(unsigned int *)(r + 8) >= 8 && *(unsigned long *)(r + 12) == 0x1234)
				found++;
			tail += size ? size : head;
		}
	}
	check("4 samples carry the program's 8 bytes", found, 4);
	sys1(NR_close, tp);
	sys1(NR_close, prog);
	for (int cpu = 0; cpu < ncpu; cpu++)
		sys1(NR_close, out[cpu]);
	sys1(NR_close, events);
}

/*
 * BPF_PROG_TYPE_PERF_EVENT on a cpu-clock event sampling this task: the program counts its runs
 * in slot 0 and copies ctx->sample_period (struct bpf_perf_event_data: after Linux's 168-byte
 * pt_regs) to slot 1 and ctx->regs.ip to slot 2.
 */
static void test_perf_event_prog(long tp_id)
{
	long map = bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 3), prog, kp_prog, fd, tp;
	struct bpf_insn p[] = {
		MOV64_REG(6, 1),
		LOOKUP_SLOT(0),
		JMP_IMM(BPF_JEQ, 0, 0, 2),
		MOV64_IMM(1, 1),
		ATOMIC_ADD64(0, 1, 0),
		LOOKUP_SLOT(1),
		JMP_IMM(BPF_JEQ, 0, 0, 2),
		LDX(BPF_DW, 1, 6, 168),
		STX(BPF_DW, 0, 1, 0),
		LOOKUP_SLOT(2),
		JMP_IMM(BPF_JEQ, 0, 0, 2),
		LDX(BPF_DW, 1, 6, 128),
		STX(BPF_DW, 0, 1, 0),
		MOV64_IMM(0, 1),
		EXIT,
	};
	struct attr a;
	volatile unsigned long spin = 0;

	prog = load(BPF_PROG_TYPE_PERF_EVENT, p, sizeof(p) / sizeof(p[0]), map);
	kp_prog = counting_prog(BPF_PROG_TYPE_KPROBE, map, 1);
	check("a perf_event program reading sample_period (offset 168) loads", prog >= 0, 1);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = 0; /* PERF_COUNT_SW_CPU_CLOCK */
	a.sample_period = 1000000;
	fd = sys6(NR_perf_event_open, &a, 0, -1, -1, 0, 0);
	tp = perf_open(PERF_TYPE_TRACEPOINT, tp_id, -1, 0, 0);
	check("cpu-clock sampling this task opens", fd >= 0, 1);
	check("SET_BPF: a kprobe program on cpu-clock: EINVAL",
	      sys3(NR_ioctl, fd, PERF_EVENT_IOC_SET_BPF, kp_prog), -EINVAL);
	check("SET_BPF: a perf_event program on a tracepoint: EINVAL",
	      sys3(NR_ioctl, tp, PERF_EVENT_IOC_SET_BPF, prog), -EINVAL);
	check("SET_BPF: the perf_event program on cpu-clock",
	      sys3(NR_ioctl, fd, PERF_EVENT_IOC_SET_BPF, prog), 0);
	/* spin in ring 3 until the clock has sampled us 3 times (no bound on time, only on work) */
	for (long i = 0; i < 4000 && slot(map, 0) < 3; i++)
		for (int j = 0; j < 100000; j++)
			spin++;
	check("the program ran at the samples", slot(map, 0) >= 3, 1);
	check("ctx->sample_period is the attr's", slot(map, 1), 1000000);
	check("ctx->regs.ip is where the task was", slot(map, 2) != 0, 1);
	sys1(NR_close, fd);
	sys1(NR_close, tp);
	sys1(NR_close, prog);
	sys1(NR_close, kp_prog);
	sys1(NR_close, map);
}

int main(int argc, char **argv, char **envp)
{
	long tp_id = read_id("/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id"), kp_id;

	check("kprobe event on __x64_sys_getppid",
	      write_file("/sys/kernel/tracing/kprobe_events",
			 "p:perfbpf/getppid __x64_sys_getppid\n") > 0,
	      1);
	kp_id = read_id("/sys/kernel/tracing/events/perfbpf/getppid/id");
	check("ids read", tp_id > 0 && kp_id > 0, 1);
	test_set_bpf(tp_id, kp_id);
	test_filtering_prog(tp_id);
	test_link(tp_id);
	test_output(tp_id);
	test_perf_event_prog(tp_id);
	write_file("/sys/kernel/tracing/kprobe_events", "-:perfbpf/getppid\n");
	return check_summary();
}
