/*
 * perftest: perf_event_open(2) as Linux answers it: the attr size handshake, bad attrs refused
 * with Linux's errno, counting a tracepoint with the ioctls and read_format, a group, samples in
 * the mmap'ed ring with their RAW record, SET_FILTER, and perf_event_paranoid as uid 1000. One
 * check a line, "PASS n/m" last (tests/integration/test_perf_events.py runs it). The same binary
 * runs on Debian's Linux 6.1 (linux-peer) with the same answers, but for the uid 1000 child:
 * Debian's perf_event_paranoid is 3 there, which refuses a user everything.
 */
#include "uperf.h"

#define E2BIG 7
#define EBADF 9
#define EACCES 13
#define EFAULT 14
#define ENODEV 19
#define EINVAL 22
#define ENOSPC 28
#define ENOENT 2
#define ESRCH 3
#define EEXIST 17

static long sched_switch_id, getppid_id;

static void attr_init(struct perf_event_attr *a, u32 type, u64 config)
{
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->size = sizeof(*a);
	a->config = config;
}

static long close_ret(long fd)
{
	if (fd >= 0)
		sys1(NR_close, fd);
	return fd >= 0 ? 0 : fd;
}

/* Every published size opens; a bigger attr opens only with a zero tail. */
static void test_sizes(void)
{
	static const u32 sizes[] = { 0, 64, 72, 80, 96, 104, 112, 120, 128 };
	unsigned char big[256];
	struct perf_event_attr *a = (void *)big;

	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		attr_init(a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
		a->size = sizes[i];
		check("size VER0..VER7 opens", close_ret(perf_event_open(a, 0, -1, -1, 0)), 0);
	}
	memset(big, 0, sizeof(big));
	attr_init(a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a->size = 200;
	check("size 200, zero tail: opens", close_ret(perf_event_open(a, 0, -1, -1, 0)), 0);
	big[190] = 1;
	check("size 200, non-zero tail: E2BIG", perf_event_open(a, 0, -1, -1, 0), -E2BIG);
	check("E2BIG writes our size back", a->size, 128);
	a->size = 32;
	check("size 32: E2BIG", perf_event_open(a, 0, -1, -1, 0), -E2BIG);
	check("perf_event_open(NULL): EFAULT", perf_event_open(0, 0, -1, -1, 0), -EFAULT);
}

static void test_bad_attrs(void)
{
	struct perf_event_attr a;

	attr_init(&a, 42, 0);
	check("unknown type: ENOENT", perf_event_open(&a, 0, -1, -1, 0), -ENOENT);
	attr_init(&a, PERF_TYPE_SOFTWARE, 99);
	check("unknown software config: ENOENT", perf_event_open(&a, 0, -1, -1, 0), -ENOENT);
	attr_init(&a, PERF_TYPE_TRACEPOINT, 65000);
	check("tracepoint id nobody has: EINVAL", perf_event_open(&a, 0, -1, -1, 0), -EINVAL);
	attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	check("pid -1 and cpu -1: EINVAL", perf_event_open(&a, -1, -1, -1, 0), -EINVAL);
	check("flags 0x100: EINVAL", perf_event_open(&a, 0, -1, -1, 0x100), -EINVAL);
	check("cpu 4096: EINVAL", perf_event_open(&a, 0, 4096, -1, 0), -EINVAL);
	check("cpu 7 (not in the machine): EINVAL", perf_event_open(&a, 0, 7, -1, 0), -EINVAL);
	check("pid 99999: ESRCH", perf_event_open(&a, 99999, -1, -1, 0), -ESRCH);
	check("group_fd 63 (not open): EBADF", perf_event_open(&a, 0, -1, 63, 0), -EBADF);
	check("group_fd stdout (not perf): EBADF", perf_event_open(&a, 0, -1, 1, 0), -EBADF);
	a.sample_type = 1ULL << 40;
	check("sample_type bit 40: EINVAL", perf_event_open(&a, 0, -1, -1, 0), -EINVAL);
	attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.read_format = 1ULL << 20;
	check("read_format bit 20: EINVAL", perf_event_open(&a, 0, -1, -1, 0), -EINVAL);
	attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	a.flags = ATTR_FREQ;
	a.sample_period = 1000000000;
	check("sample_freq 1e9: EINVAL", perf_event_open(&a, 0, -1, -1, 0), -EINVAL);
	a.flags = 1ULL << 38; /* __reserved_1 */
	a.sample_period = 0;
	check("reserved bit: EINVAL", perf_event_open(&a, 0, -1, -1, 0), -EINVAL);
}

/* getppid's syscall tracepoint, counted around a known number of calls. */
static void test_counting(void)
{
	struct perf_event_attr a;
	u64 v[8], id = 0;
	long fd, n;

	attr_init(&a, PERF_TYPE_TRACEPOINT, getppid_id);
	a.flags = ATTR_DISABLED;
	a.read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_LOST;
	fd = perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	check("open sys_enter_getppid", fd >= 0, 1);
	for (int i = 0; i < 5; i++)
		sys0(NR_getppid);
	n = sys3(NR_read, fd, v, sizeof(v));
	check("read: value, enabled, id, lost", n, 32);
	check("disabled: 0 counted", v[0], 0);
	sys3(NR_ioctl, fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 7; i++)
		sys0(NR_getppid);
	sys3(NR_ioctl, fd, PERF_EVENT_IOC_DISABLE, 0);
	sys0(NR_getppid);
	sys3(NR_read, fd, v, sizeof(v));
	check("enabled for 7 calls: 7", v[0], 7);
	check("time_enabled > 0", v[1] > 0, 1);
	check("IOC_ID", sys3(NR_ioctl, fd, PERF_EVENT_IOC_ID, &id), 0);
	check("read's id is IOC_ID's", v[2], id);
	check("read into 8 bytes: ENOSPC", sys3(NR_read, fd, v, 8), -ENOSPC);
	sys3(NR_ioctl, fd, PERF_EVENT_IOC_RESET, 0);
	sys3(NR_read, fd, v, sizeof(v));
	check("RESET: 0", v[0], 0);
	check("unknown ioctl: ENOTTY", sys3(NR_ioctl, fd, 0x2499, 0), -25);
	check("SET_FILTER with a syntax error: EINVAL",
	      sys3(NR_ioctl, fd, PERF_EVENT_IOC_SET_FILTER, "common_pid !="), -EINVAL);
	check("SET_FILTER on a bad field: EINVAL",
	      sys3(NR_ioctl, fd, PERF_EVENT_IOC_SET_FILTER, "nosuchfield == 1"), -EINVAL);
	sys1(NR_close, fd);
}

/* page-faults on ourselves: each page of a fresh anonymous area faults once when first touched. */
static void test_page_faults(void)
{
	struct perf_event_attr a;
	u64 v = 0;
	long fd;
	char *p;

	attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	fd = perf_event_open(&a, 0, -1, -1, 0);
	p = (char *)sys6(NR_mmap, 0, 8 * 4096, 3, 0x22, -1, 0);
	sys3(NR_ioctl, fd, PERF_EVENT_IOC_RESET, 0);
	for (int i = 0; i < 8; i++)
		p[i * 4096] = 1;
	for (int i = 0; i < 8; i++)
		p[i * 4096 + 1] = 2; /* present now: no fault */
	sys3(NR_read, fd, &v, sizeof(v));
	check("8 fresh pages touched: 8 page-faults", v, 8);
	sys2(NR_munmap, p, 8 * 4096);
	sys1(NR_close, fd);
}

/* A leader and a member read together with PERF_FORMAT_GROUP. */
static void test_group(void)
{
	struct perf_event_attr a;
	u64 v[8];
	long lead, member;

	attr_init(&a, PERF_TYPE_TRACEPOINT, getppid_id);
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	lead = perf_event_open(&a, 0, -1, -1, 0);
	attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	member = perf_event_open(&a, 0, -1, lead, 0);
	check("group member opens", member >= 0, 1);
	for (int i = 0; i < 3; i++)
		sys0(NR_getppid);
	check("group read: nr, 2 x {value, id}", sys3(NR_read, lead, v, sizeof(v)), 40);
	check("group nr", v[0], 2);
	check("leader counted 3", v[1], 3);
	sys1(NR_close, member);
	sys1(NR_close, lead);
}

/* Samples of sched_switch into the ring: header, the fields asked for, the RAW record. */
static void test_sampling(void)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *mp;
	long fd, ring, samples = 0, lost = 0, bad = 0, fil;
	u64 head, tail;
	long ts[2] = { 0, 20 * 1000 * 1000 };

	attr_init(&a, PERF_TYPE_TRACEPOINT, sched_switch_id);
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	fd = perf_event_open(&a, -1, 0, -1, 0);
	check("sched_switch on cpu 0 opens", fd >= 0, 1);
	check("mmap of 4 pages (not 1 + 2^n): EINVAL",
	      sys6(NR_mmap, 0, 4 * 4096, 3, 1, fd, 0), -EINVAL);
	ring = sys6(NR_mmap, 0, 5 * 4096, 3, 1, fd, 0);
	check("mmap 1 + 4 pages", ring > 0, 1);
	check("MAP_PRIVATE of a perf fd: EINVAL", sys6(NR_mmap, 0, 5 * 4096, 3, 2, fd, 0), -EINVAL);
	mp = (void *)ring;
	check("data_offset", mp->data_offset, 4096);
	check("data_size", mp->data_size, 4 * 4096);
	check("a second mapping of another size: EINVAL",
	      sys6(NR_mmap, 0, 3 * 4096, 3, 1, fd, 0), -EINVAL);
	for (int i = 0; i < 4; i++)
		sys2(NR_nanosleep, ts, 0);
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	for (tail = mp->data_tail; tail < head;) {
		struct perf_event_header *h = (void *)(ring + 4096 + (tail & (4 * 4096 - 1)));
		if (h->type == PERF_RECORD_SAMPLE) {
			u64 *p = (u64 *)(h + 1);
			u32 raw_size = *(u32 *)(p + 5);
			unsigned short common_type = *(unsigned short *)((char *)(p + 5) + 4);
			/* ip, pid|tid, time, cpu, period, raw */
			bad += p[0] < 0xffff800000000000ULL || (p[3] & 0xffffffff) != 0 || p[4] != 1 ||
			       common_type != sched_switch_id || raw_size < 8 ||
			       (raw_size + 4) % 8;
			samples++;
		} else if (h->type == PERF_RECORD_LOST) {
			lost++;
		}
		if (!h->size)
			break;
		tail += h->size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	check("samples of 4 sleeps: at least 4", samples >= 4, 1);
	check("every sample well formed (kernel ip, cpu 0, period 1, RAW is the event)", bad, 0);
	check("no LOST record", lost, 0);
	check("SET_FILTER prev_pid == 99999",
	      sys3(NR_ioctl, fd, PERF_EVENT_IOC_SET_FILTER, "prev_pid == 99999"), 0);
	sys3(NR_ioctl, fd, PERF_EVENT_IOC_RESET, 0);
	for (int i = 0; i < 2; i++)
		sys2(NR_nanosleep, ts, 0);
	{
		u64 v = 1;
		sys3(NR_read, fd, &v, sizeof(v));
		check("filtered out: 0 counted", v, 0);
	}
	fil = sys3(NR_ioctl, fd, PERF_EVENT_IOC_SET_FILTER, "prev_pid != 1");
	check("SET_FILTER a second time: EEXIST", fil, -EEXIST);
	check("munmap", sys2(NR_munmap, ring, 5 * 4096), 0);
	sys1(NR_close, fd);
}

enum { NR_epoll_wait = 232, NR_epoll_ctl = 233, NR_epoll_create1 = 291 };
#define EPOLLIN 0x001
#define EPOLLET (1U << 31)

/* How many samples wake an edge-triggered epoll set, counted by epoll_wait's answers. */
static long et_reports(long ep, int getppids)
{
	struct {
		u32 events;
		u64 data;
	} __attribute__((packed)) ev;
	long n = 0;

	for (int i = 0; i < getppids; i++) {
		sys0(NR_getppid);
		n += sys4(NR_epoll_wait, ep, &ev, 1, 0);
	}
	return n;
}

/* A sample wakes the reader every wakeup_events samples, else when the head passes half the ring
 * (Linux's default watermark); an EPOLLET set reports exactly those wake-ups. */
static void test_wakeups(void)
{
	struct perf_event_attr a;
	struct {
		u32 events;
		u64 data;
	} __attribute__((packed)) ev = { EPOLLIN | EPOLLET, 0 };
	long ep = sys1(NR_epoll_create1, 0), fd, ring;

	for (int w = 1; w >= 0; w--) {
		attr_init(&a, PERF_TYPE_TRACEPOINT, getppid_id);
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_RAW;
		a.wakeup_events = w;
		fd = perf_event_open(&a, 0, -1, -1, 0);
		ring = sys6(NR_mmap, 0, 5 * 4096, 3, 1, fd, 0);
		check("sys_enter_getppid sampled into 4 pages, in an EPOLLET set",
		      fd >= 0 && ring > 0 && !sys4(NR_epoll_ctl, ep, 1, fd, &ev), 1);
		if (w)
			check("  wakeup_events 1: 3 samples, 3 wake-ups", et_reports(ep, 3), 3);
		else
			check("  wakeup_events 0: none in 3 samples, below the watermark",
			      et_reports(ep, 3), 0);
		if (!w) /* 8 KiB of samples of 24 bytes: one wake-up as the head passes 8192 */
			check("  one in 400 more, at half the ring", et_reports(ep, 400), 1);
		sys2(NR_munmap, ring, 5 * 4096);
		sys1(NR_close, fd);
	}
	sys1(NR_close, ep);
}

/* As uid 1000 with perf_event_paranoid 2: its own user space only. */
static void test_paranoid(void)
{
	struct perf_event_attr a;
	int status = -1;
	long pid = sys0(NR_fork);

	if (pid == 0) {
		checks = failed = 0;
		sys3(NR_setresgid, 1000, 1000, 1000);
		sys3(NR_setresuid, 1000, 1000, 1000);
		attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
		check("uid 1000: kernel counting: EACCES", perf_event_open(&a, 0, -1, -1, 0),
		      -EACCES);
		a.flags = ATTR_EXCLUDE_KERNEL;
		check("uid 1000: own task, user only: opens",
		      close_ret(perf_event_open(&a, 0, -1, -1, 0)), 0);
		check("uid 1000: cpu-wide: EACCES", perf_event_open(&a, -1, 0, -1, 0), -EACCES);
		check("uid 1000: root's task (pid 1): EACCES", perf_event_open(&a, 1, -1, -1, 0),
		      -EACCES);
		attr_init(&a, PERF_TYPE_TRACEPOINT, sched_switch_id);
		check("uid 1000: tracepoint: EACCES", perf_event_open(&a, 0, -1, -1, 0), -EACCES);
		exit_group(failed ? 1 : 0);
	}
	sys4(NR_wait4, pid, &status, 0, 0);
	check("uid 1000 child: all refusals as Linux's", status, 0);
}

int main(int argc, char **argv, char **envp)
{
	sched_switch_id = tracepoint_id("sched/sched_switch");
	getppid_id = tracepoint_id("syscalls/sys_enter_getppid");
	check("sched_switch has an id", sched_switch_id > 0, 1);
	test_sizes();
	test_bad_attrs();
	test_counting();
	test_page_faults();
	test_group();
	test_sampling();
	test_wakeups();
	test_paranoid();
	return check_summary();
}
