/*
 * ringbuf: a BPF ring buffer map from a program, raw, as libbpf's ring_buffer__poll() uses one: a
 * raw tracepoint program on sys_enter reserves and submits (or discards) a record for each
 * getppid (getpid) of this process and bpf_ringbuf_output()s one for each getuid; the records
 * are read through the mmap()ed consumer and producer pages, with epoll to sleep until one comes.
 * Also: the map's, mmap()'s, the verifier's and epoll's refusals, and epoll on pipes and perf
 * events. One check a line, "PASS n/m" last (tests/integration/test_bpf.py runs it).
 * `ringbuf lab` is chapter 23's lab instead: a few records, each header shown as the reader sees it.
 * `ringbuf wake`: a child sleeps in epoll_wait on the ring, then one getppid makes one record; it
 * prints the child's pid, and test_bpf.py reads in the trace what woke it (sched_switch on).
 */
#include "bpf_sys.h"
#include "uperf.h"

enum { NR_epoll_create = 213, NR_epoll_wait = 232, NR_epoll_ctl = 233, NR_epoll_pwait = 281 };
enum { NR_epoll_create1 = 291 };
#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_SHARED 1
#define MAP_PRIVATE 2
#define PAGE 4096L
#define EPOLLIN 0x001
#define EPOLLOUT 0x004
#define EPOLLHUP 0x010
#define EPOLLONESHOT (1U << 30)
#define EPOLLET (1U << 31)
#define EPOLL_CTL_ADD 1
#define EPOLL_CTL_DEL 2
#define EPOLL_CTL_MOD 3
#define RING_SIZE 4096 /* one data page: records wrap often */

struct epoll_event {
	unsigned int events;
	unsigned long data;
} __attribute__((packed));

static char log_buf[16384];
static long pid;

/* The reader's view, as libbpf's struct ring: positions in their own pages, data mapped twice. */
struct ring {
	unsigned long *consumer_pos, *producer_pos;
	unsigned char *data;
	unsigned long mask;
};

struct seen {
	long records, discarded, bad, wrapped, last_nr, last_len;
	unsigned long first_pg_off, last_value, last_pid_tgid;
};

static long mmap_(long len, long prot, long flags, long fd, long off)
{
	return sys6(NR_mmap, 0, len, prot, flags, fd, off);
}

static int ring_map(struct ring *r, long fd)
{
	long cons = mmap_(PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	long prod = mmap_(PAGE + 2 * RING_SIZE, PROT_READ, MAP_SHARED, fd, PAGE);

	if (cons < 0 || prod < 0)
		return -1;
	r->consumer_pos = (unsigned long *)cons;
	r->producer_pos = (unsigned long *)prod;
	r->data = (unsigned char *)prod + PAGE;
	r->mask = RING_SIZE - 1;
	return 0;
}

/* libbpf's ringbuf_process_ring(): every committed record up to producer_pos, a busy one stops. */
static void consume(struct ring *r, struct seen *s)
{
	unsigned long cons = __atomic_load_n(r->consumer_pos, __ATOMIC_ACQUIRE);
	unsigned long prod = __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE);

	while (cons < prod) {
		unsigned int *hdr = (unsigned int *)(r->data + (cons & r->mask));
		unsigned int len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);
		unsigned int size = len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
		unsigned long *body = (unsigned long *)(hdr + 2);

		if (len & BPF_RINGBUF_BUSY_BIT)
			break;
		if (!s->records && !s->discarded)
			s->first_pg_off = hdr[1];
		if ((cons & r->mask) + BPF_RINGBUF_HDR_SZ + size > RING_SIZE)
			s->wrapped++; /* read whole through the second mapping */
		if (len & BPF_RINGBUF_DISCARD_BIT) {
			s->discarded++;
			s->bad += size != 16 || body[0] != 39;
		} else {
			s->records++;
			s->last_len = size;
			s->last_value = body[0];
			if (size == 16) {
				s->last_pid_tgid = body[1];
				s->bad += body[0] != 110 || (long)(body[1] >> 32) != pid;
			}
		}
		cons += (BPF_RINGBUF_HDR_SZ + size + 7) & ~7UL;
		__atomic_store_n(r->consumer_pos, cons, __ATOMIC_RELEASE);
	}
}

static void calls(int nr, int n)
{
	for (int i = 0; i < n; i++)
		sys0(nr);
}

static long epoll_wait_(long epfd, struct epoll_event *ev, int max, int timeout)
{
	return sys4(NR_epoll_wait, epfd, ev, max, timeout);
}

static long epoll_ctl_(long epfd, int op, long fd, unsigned int events, unsigned long data)
{
	struct epoll_event ev = { events, data };

	return sys4(NR_epoll_ctl, epfd, op, fd, &ev);
}

/* sys_enter: getppid (110) -> reserve, fill, submit; getpid (39) -> reserve, fill, discard;
 * getuid (102) -> ringbuf_output of the ring's size from bpf_ringbuf_query(); this tgid only. */
static long load_producer(long ring)
{
	struct bpf_insn p[] = {
		MOV64_REG(6, 1),
		LDX(BPF_DW, 7, 6, 8), /* the system call's number */
		CALL(BPF_FUNC_get_current_pid_tgid),
		MOV64_REG(8, 0),
		ALU64_IMM(BPF_RSH, 0, 32),
		JMP_IMM(BPF_JNE, 0, pid, 31),
		JMP_IMM(BPF_JEQ, 7, 102, 18),
		JMP_IMM(BPF_JEQ, 7, 110, 2),
		JMP_IMM(BPF_JEQ, 7, 39, 1),
		JA(27),
		LD_MAP(1), /* 10: reserve */
		MOV64_IMM(2, 16),
		MOV64_IMM(3, 0),
		CALL(BPF_FUNC_ringbuf_reserve),
		JMP_IMM(BPF_JEQ, 0, 0, 21),
		STX(BPF_DW, 0, 7, 0),
		STX(BPF_DW, 0, 8, 8),
		MOV64_REG(1, 0),
		MOV64_IMM(2, 0),
		JMP_IMM(BPF_JEQ, 7, 39, 2),
		CALL(BPF_FUNC_ringbuf_submit),
		JA(14),
		CALL(BPF_FUNC_ringbuf_discard), /* 23 */
		JA(12),
		LD_MAP(1), /* 25: output */
		MOV64_IMM(2, BPF_RB_RING_SIZE),
		CALL(BPF_FUNC_ringbuf_query),
		STX(BPF_DW, 10, 0, -8),
		LD_MAP(1),
		MOV64_REG(2, 10),
		ALU64_IMM(BPF_ADD, 2, -8),
		MOV64_IMM(3, 8),
		MOV64_IMM(4, 0),
		CALL(BPF_FUNC_ringbuf_output),
		MOV64_IMM(0, 0), /* 37: exit */
		EXIT,
	};
	long fd = bpf_prog_load_log(BPF_PROG_TYPE_RAW_TRACEPOINT, p, sizeof(p) / sizeof(p[0]), ring,
				    "ringbuf_test", 1, log_buf, sizeof(log_buf));

	if (fd < 0)
		put_str(log_buf);
	return fd;
}

/* A program the verifier must refuse with errno err and a log line containing line. */
static void refused(const char *name, struct bpf_insn *p, int n, long map, long err,
		    const char *line)
{
	long r = bpf_prog_load_log(BPF_PROG_TYPE_KPROBE, p, n, map, 0, 1, log_buf, sizeof(log_buf));

	check(name, r, err);
	check(line, strstr(log_buf, line) != 0, 1);
	if (r >= 0)
		sys1(NR_close, r);
}

#define RESERVE8 LD_MAP(1), MOV64_IMM(2, 8), MOV64_IMM(3, 0), CALL(BPF_FUNC_ringbuf_reserve)
#define PROG(...) (struct bpf_insn[]){ __VA_ARGS__ }, sizeof((struct bpf_insn[]){ __VA_ARGS__ }) / 8

static void test_verifier(long ring, long hash)
{
	refused("reserved and never submitted: EINVAL",
		PROG(RESERVE8, JMP_IMM(BPF_JEQ, 0, 0, 0), MOV64_IMM(0, 0), EXIT), ring, -EINVAL,
		"Unreleased reference id=");
	refused("reserved memory written before its NULL check: EACCES",
		PROG(RESERVE8, ST(BPF_DW, 0, 0, 1), MOV64_IMM(0, 0), EXIT), ring, -EACCES,
		"R0 invalid mem access 'alloc_mem_or_null'");
	refused("a write past the reserved 8 bytes: EACCES",
		PROG(RESERVE8, JMP_IMM(BPF_JEQ, 0, 0, 4), ST(BPF_DW, 0, 8, 1), MOV64_REG(1, 0),
		     MOV64_IMM(2, 0), CALL(BPF_FUNC_ringbuf_submit), MOV64_IMM(0, 0), EXIT),
		ring, -EACCES, "invalid access to memory");
	refused("submitted twice: EACCES",
		PROG(RESERVE8, JMP_IMM(BPF_JEQ, 0, 0, 6), MOV64_REG(6, 0), MOV64_REG(1, 0),
		     MOV64_IMM(2, 0), CALL(BPF_FUNC_ringbuf_submit), MOV64_REG(1, 6),
		     CALL(BPF_FUNC_ringbuf_submit), MOV64_IMM(0, 0), EXIT),
		ring, -EACCES, "R1 type=scalar expected=alloc_mem");
	refused("a size that is not a constant: EACCES",
		PROG(CALL(BPF_FUNC_get_smp_processor_id), MOV64_REG(2, 0), LD_MAP(1),
		     MOV64_IMM(3, 0), CALL(BPF_FUNC_ringbuf_reserve), MOV64_IMM(0, 0), EXIT),
		ring, -EACCES, "R2 is not a known constant");
	refused("ringbuf_output into a hash map: EINVAL",
		PROG(ST(BPF_DW, 10, -8, 0), LD_MAP(1), MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -8),
		     MOV64_IMM(3, 8), MOV64_IMM(4, 0), CALL(BPF_FUNC_ringbuf_output),
		     MOV64_IMM(0, 0), EXIT),
		hash, -EINVAL, "cannot pass map_type 1 into func bpf_ringbuf_output#130");
}

static void test_map_and_mmap(long fd, struct ring *r)
{
	union bpf_attr a;
	long key = 0, value, cons, prod;

	check("ringbuf of 3 pages (not a power of 2): EINVAL",
	      bpf_map_create(BPF_MAP_TYPE_RINGBUF, 0, 0, 3 * PAGE), -EINVAL);
	check("ringbuf of 2048 bytes (not whole pages): EINVAL",
	      bpf_map_create(BPF_MAP_TYPE_RINGBUF, 0, 0, 2048), -EINVAL);
	check("ringbuf with a key: EINVAL", bpf_map_create(BPF_MAP_TYPE_RINGBUF, 4, 0, PAGE),
	      -EINVAL);
	check("ringbuf with a value: EINVAL", bpf_map_create(BPF_MAP_TYPE_RINGBUF, 0, 8, PAGE),
	      -EINVAL);
	check("ringbuf of 32 MiB: E2BIG", bpf_map_create(BPF_MAP_TYPE_RINGBUF, 0, 0, 32 << 20),
	      -E2BIG);
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_RINGBUF;
	a.max_entries = PAGE;
	a.map_flags = 1;
	check("ringbuf with map_flags: EINVAL", sys_bpf(BPF_MAP_CREATE, &a, sizeof(a)), -EINVAL);
	check("lookup in a ringbuf: EINVAL", bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, fd, &key, &value, 0),
	      -EINVAL);
	check("producer page mapped writable: EPERM",
	      mmap_(PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, PAGE), -EPERM);
	check("two pages mapped writable: EPERM",
	      mmap_(2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), -EPERM);
	check("past the data's second copy: EINVAL",
	      mmap_(PAGE + 3 * RING_SIZE, PROT_READ, MAP_SHARED, fd, PAGE), -EINVAL);
	check("MAP_PRIVATE: EINVAL", mmap_(PAGE, PROT_READ, MAP_PRIVATE, fd, 0), -EINVAL);
	check("a hash map's fd mapped: ENOTSUPP (524)",
	      mmap_(PAGE, PROT_READ, MAP_SHARED, bpf_map_create(BPF_MAP_TYPE_HASH, 4, 8, 4), 0),
	      -524);
	check("consumer page RW and producer + data twice RO map", ring_map(r, fd), 0);
	check("the producer side stays read-only: mprotect EACCES",
	      sys3(NR_mprotect, r->producer_pos, PAGE, PROT_READ | PROT_WRITE), -EACCES);
	cons = *r->consumer_pos;
	prod = *r->producer_pos;
	check("a new ring: consumer_pos 0", cons, 0);
	check("a new ring: producer_pos 0", prod, 0);
	check("data pages mapped twice: the same bytes", r->data[0] == r->data[RING_SIZE], 1);
}

/* Records produced and read with epoll and mmap, in the interpreter or the JIT. */
static void test_records(long fd, struct ring *r, const char *mode)
{
	struct epoll_event ev[4];
	struct seen s;
	long epfd = sys1(NR_epoll_create1, 0);

	put_str(mode);
	put_str("\n");
	check("epoll_create1", epfd >= 0, 1);
	check("epoll_ctl ADD the ring", epoll_ctl_(epfd, EPOLL_CTL_ADD, fd, EPOLLIN, 0x1234), 0);
	check("empty ring: epoll_wait(0) finds none", epoll_wait_(epfd, ev, 4, 0), 0);
	calls(NR_getppid, 3);
	check("three getppid: epoll_wait says the ring is ready", epoll_wait_(epfd, ev, 4, 0), 1);
	check("  EPOLLIN", ev[0].events, EPOLLIN);
	check("  with the data given to EPOLL_CTL_ADD", ev[0].data, 0x1234);
	memset(&s, 0, sizeof(s));
	consume(r, &s);
	check("  three records read", s.records, 3);
	check("  each 16 bytes: getppid's number and our pid", s.bad, 0);
	check("  a record's pg_off counts pages from the ring's start (data at 3)",
	      s.first_pg_off >= 3 && s.first_pg_off < 4, 1);
	check("all read: epoll_wait(0) finds none", epoll_wait_(epfd, ev, 4, 0), 0);
	memset(&s, 0, sizeof(s));
	calls(NR_getpid, 2);
	consume(r, &s);
	check("two getpid: two discarded records, none delivered", s.discarded * 10 + s.records,
	      20);
	memset(&s, 0, sizeof(s));
	sys0(NR_getuid);
	consume(r, &s);
	check("getuid: one ringbuf_output record of 8 bytes", s.records * 100 + s.last_len, 108);
	check("  holding bpf_ringbuf_query(BPF_RB_RING_SIZE)", s.last_value, RING_SIZE);
	memset(&s, 0, sizeof(s));
	for (int round = 0; round < 40; round++) {
		calls(NR_getppid, 10);
		consume(r, &s);
	}
	check("400 records in 40 rounds, every one read", s.records, 400);
	check("  all well formed", s.bad, 0);
	check("  some straddled the data's end, read whole", s.wrapped > 0, 1);
	memset(&s, 0, sizeof(s));
	calls(NR_getppid, 300);
	consume(r, &s);
	check("300 getppid unread: the ring holds (4096 - 1) / 24 = 170 records", s.records, 170);
	check("producer_pos == consumer_pos after reading", *r->producer_pos == *r->consumer_pos,
	      1);
	sys1(NR_close, epfd);
}

/* A child sleeps in epoll_wait while this process sleeps 100 ms, then makes one record. */
static void test_sleep_until_data(long fd)
{
	struct timespec_ {
		long s, ns;
	} t = { 0, 100000000 };
	long child = sys0(NR_fork);
	int status = -1;

	if (!child) {
		struct epoll_event ev;
		struct ring r;
		struct seen s;
		long epfd = sys1(NR_epoll_create1, 0), n;

		memset(&s, 0, sizeof(s));
		if (ring_map(&r, fd) || epoll_ctl_(epfd, EPOLL_CTL_ADD, fd, EPOLLIN, 7))
			exit_group(2);
		n = epoll_wait_(epfd, &ev, 1, 10000);
		consume(&r, &s);
		exit_group(n == 1 && ev.data == 7 && s.records == 1 && !s.bad ? 0 : 1);
	}
	sys2(NR_nanosleep, &t, 0);
	sys0(NR_getppid);
	sys4(NR_wait4, child, &status, 0, 0);
	check("a child asleep in epoll_wait wakes for the record and reads it", status, 0);
}

static void test_epoll_bad_input(long ring)
{
	long epfd = sys1(NR_epoll_create1, 0), ep2 = sys1(NR_epoll_create1, 0);
	long file = sys3(NR_open, "/tests/ringbuf", 0, 0);
	struct epoll_event ev;
	unsigned long set = 0;

	check("epoll_create1(1): EINVAL", sys1(NR_epoll_create1, 1), -EINVAL);
	check("epoll_create(0): EINVAL", sys1(NR_epoll_create, 0), -EINVAL);
	check("epoll_ctl on a bad epfd: EBADF", epoll_ctl_(60, EPOLL_CTL_ADD, ring, EPOLLIN, 0),
	      -EBADF);
	check("epoll_ctl of a bad fd: EBADF", epoll_ctl_(epfd, EPOLL_CTL_ADD, 60, EPOLLIN, 0),
	      -EBADF);
	check("epoll_ctl on a map fd as epfd: EINVAL",
	      epoll_ctl_(ring, EPOLL_CTL_ADD, epfd, EPOLLIN, 0), -EINVAL);
	check("epoll_ctl of the epfd itself: EINVAL",
	      epoll_ctl_(epfd, EPOLL_CTL_ADD, epfd, EPOLLIN, 0), -EINVAL);
	check("epoll_ctl of a regular file: EPERM",
	      epoll_ctl_(epfd, EPOLL_CTL_ADD, file, EPOLLIN, 0), -EPERM);
	check("epoll_ctl op 9: EINVAL", epoll_ctl_(epfd, 9, ring, EPOLLIN, 0), -EINVAL);
	check("MOD of an fd not in the set: ENOENT",
	      epoll_ctl_(epfd, EPOLL_CTL_MOD, ring, EPOLLIN, 0), -ENOENT);
	check("DEL of an fd not in the set: ENOENT",
	      epoll_ctl_(epfd, EPOLL_CTL_DEL, ring, EPOLLIN, 0), -ENOENT);
	check("ADD", epoll_ctl_(epfd, EPOLL_CTL_ADD, ring, EPOLLIN, 0), 0);
	check("ADD again: EEXIST", epoll_ctl_(epfd, EPOLL_CTL_ADD, ring, EPOLLIN, 0), -EEXIST);
	check("ADD with a bad event pointer: EFAULT",
	      sys4(NR_epoll_ctl, epfd, EPOLL_CTL_MOD, ring, 8), -EFAULT);
	check("an epoll set inside another", epoll_ctl_(ep2, EPOLL_CTL_ADD, epfd, EPOLLIN, 0), 0);
	check("and that one inside the first: ELOOP",
	      epoll_ctl_(epfd, EPOLL_CTL_ADD, ep2, EPOLLIN, 0), -ELOOP);
	check("epoll_wait maxevents 0: EINVAL", epoll_wait_(epfd, &ev, 0, 0), -EINVAL);
	check("epoll_wait into kernel memory: EFAULT",
	      epoll_wait_(epfd, (void *)0xffff888000000000UL, 1, 0), -EFAULT);
	check("epoll_wait on a map fd: EINVAL", epoll_wait_(ring, &ev, 1, 0), -EINVAL);
	check("epoll_pwait with a 4-byte sigset: EINVAL",
	      sys6(NR_epoll_pwait, epfd, &ev, 1, 0, &set, 4), -EINVAL);
	check("epoll_pwait with a sigset", sys6(NR_epoll_pwait, epfd, &ev, 1, 0, &set, 8), 0);
	check("DEL", epoll_ctl_(epfd, EPOLL_CTL_DEL, ring, 0, 0), 0);
	sys1(NR_close, file);
	sys1(NR_close, ep2);
	sys1(NR_close, epfd);
}

static void test_epoll_pipe_and_perf(void)
{
	struct perf_event_attr a;
	struct epoll_event ev[2];
	long epfd = sys1(NR_epoll_create1, 0), perf, ring;
	int fds[2];
	char c = 'x';

	sys2(NR_pipe2, fds, 0);
	check("pipe: ADD the read end", epoll_ctl_(epfd, EPOLL_CTL_ADD, fds[0], EPOLLIN, 1), 0);
	check("  empty: none ready", epoll_wait_(epfd, ev, 2, 0), 0);
	sys3(NR_write, fds[1], &c, 1);
	check("  a byte written: ready", epoll_wait_(epfd, ev, 2, 0), 1);
	check("  EPOLLIN", ev[0].events, EPOLLIN);
	check("MOD the read end to EPOLLIN | EPOLLET",
	      epoll_ctl_(epfd, EPOLL_CTL_MOD, fds[0], EPOLLIN | EPOLLET, 1), 0);
	check("  ready: reported once", epoll_wait_(epfd, ev, 2, 0), 1);
	check("  then not, the byte still unread", epoll_wait_(epfd, ev, 2, 0), 0);
	sys3(NR_write, fds[1], &c, 1);
	check("  a second byte arrives: reported once more", epoll_wait_(epfd, ev, 2, 0), 1);
	check("  and not again", epoll_wait_(epfd, ev, 2, 0), 0);
	check("MOD it back to EPOLLIN", epoll_ctl_(epfd, EPOLL_CTL_MOD, fds[0], EPOLLIN, 1), 0);
	check("ADD the write end, EPOLLOUT | EPOLLET",
	      epoll_ctl_(epfd, EPOLL_CTL_ADD, fds[1], EPOLLOUT | EPOLLET, 2), 0);
	check("  both ready", epoll_wait_(epfd, ev, 2, 0), 2);
	check("  EPOLLET: the write end not again until it changes", epoll_wait_(epfd, ev, 2, 0),
	      1);
	check("MOD the read end to EPOLLONESHOT",
	      epoll_ctl_(epfd, EPOLL_CTL_MOD, fds[0], EPOLLIN | EPOLLONESHOT, 1), 0);
	check("  reported once", epoll_wait_(epfd, ev, 2, 0), 1);
	check("  then not", epoll_wait_(epfd, ev, 2, 0), 0);
	check("  MOD arms it again", epoll_ctl_(epfd, EPOLL_CTL_MOD, fds[0], EPOLLIN, 1), 0);
	sys1(NR_close, fds[1]);
	check("  write end closed: it leaves the set; the read end ready",
	      epoll_wait_(epfd, ev, 2, 0), 1);
	check("  EPOLLIN | EPOLLHUP", ev[0].events, EPOLLIN | EPOLLHUP);
	sys1(NR_close, fds[0]);
	check("  read end closed: the set is empty", epoll_wait_(epfd, ev, 2, 0), 0);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = tracepoint_id("syscalls/sys_enter_getppid");
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW;
	perf = perf_event_open(&a, 0, -1, -1, 0);
	check("perf event on sys_enter_getppid", perf >= 0, 1);
	check("  ADD", epoll_ctl_(epfd, EPOLL_CTL_ADD, perf, EPOLLIN, 3), 0);
	check("  no ring yet: EPOLLHUP", epoll_wait_(epfd, ev, 2, 0) * 100 + ev[0].events,
	      100 + EPOLLHUP);
	ring = mmap_(2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, perf, 0);
	check("  ring mapped", ring > 0, 1);
	check("  nothing sampled: none ready", epoll_wait_(epfd, ev, 2, 0), 0);
	sys0(NR_getppid);
	check("  a getppid sampled: EPOLLIN", epoll_wait_(epfd, ev, 2, 0) * 100 + ev[0].events,
	      100 + EPOLLIN);
	sys1(NR_close, perf);
	sys1(NR_close, epfd);
}

static void put_kv(const char *k, long v)
{
	put_str(k);
	put_num(v);
}

/* Chapter 23's lab: three getppid and a getpid, the ring's positions and each record's header. */
static int lab(long ring)
{
	struct epoll_event ev;
	struct ring r;
	long epfd = sys1(NR_epoll_create1, 0), prog = load_producer(ring), link;
	unsigned long cons;

	link = bpf_raw_tp_open("sys_enter", prog);
	if (ring < 0 || prog < 0 || link < 0 || ring_map(&r, ring))
		return 1;
	epoll_ctl_(epfd, EPOLL_CTL_ADD, ring, EPOLLIN, 0x1234);
	put_kv("epoll_wait on the empty ring: ", epoll_wait_(epfd, &ev, 1, 0));
	calls(NR_getppid, 3);
	sys0(NR_getpid);
	put_kv("\nthree getppid and a getpid, then epoll_wait: ", epoll_wait_(epfd, &ev, 1, 0));
	put_str(ev.events == EPOLLIN ? " EPOLLIN data 0x" : " ? data 0x");
	put_hex(ev.data);
	put_kv("\nconsumer_pos ", *r.consumer_pos);
	put_kv(" producer_pos ", *r.producer_pos);
	for (cons = *r.consumer_pos; cons < *r.producer_pos;) {
		unsigned int *hdr = (unsigned int *)(r.data + (cons & r.mask));
		unsigned long *body = (unsigned long *)(hdr + 2);
		unsigned int size = hdr[0] & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);

		put_kv("\nrecord at ", cons & r.mask);
		put_str(": len 0x");
		put_hex(hdr[0]);
		put_kv(" pg_off ", hdr[1]);
		put_kv(" | nr ", body[0]);
		put_kv(" tgid ", body[1] >> 32);
		put_str(hdr[0] & BPF_RINGBUF_DISCARD_BIT ? " (discarded)" : "");
		cons += (BPF_RINGBUF_HDR_SZ + size + 7) & ~7UL;
	}
	__atomic_store_n(r.consumer_pos, cons, __ATOMIC_RELEASE);
	put_kv("\nread: consumer_pos ", *r.consumer_pos);
	put_kv(", epoll_wait: ", epoll_wait_(epfd, &ev, 1, 0));
	put_str("\n");
	return 0;
}

/* Reads trace_pipe on (from *n) until it holds needle; not `trace`, whose reading pauses recording. */
static char pipe_buf[1 << 18];

static void pipe_until(long fd, long *n, const char *needle)
{
	long r;

	while (!strstr(pipe_buf, needle) && *n < (long)sizeof(pipe_buf) - 1 &&
	       (r = sys3(NR_read, fd, pipe_buf + *n, sizeof(pipe_buf) - 1 - *n)) > 0) {
		*n += r;
		pipe_buf[*n] = 0;
	}
}

/* One record for a reader already asleep in epoll_wait, which the trace says (its sched_switch
 * with prev_state=S), never a delay. The trace is printed for test_bpf.py, which reads in it what
 * woke the reader. */
static int wake(long ring)
{
	long prog = load_producer(ring), link = bpf_raw_tp_open("sys_enter", prog), child, n = 0;
	long tp = sys3(NR_open, "/sys/kernel/tracing/trace_pipe", 0, 0), l = 0, i = 10;
	char asleep[64] = " prev_pid=", digits[20];
	int status = -1;

	if (ring < 0 || prog < 0 || link < 0 || tp < 0)
		return 1;
	child = sys0(NR_fork);
	if (!child) {
		struct epoll_event ev;
		struct ring r;
		struct seen s;
		long epfd = sys1(NR_epoll_create1, 0), got;

		memset(&s, 0, sizeof(s));
		if (ring_map(&r, ring) || epoll_ctl_(epfd, EPOLL_CTL_ADD, ring, EPOLLIN, 7))
			exit_group(2);
		got = epoll_wait_(epfd, &ev, 1, -1);
		consume(&r, &s);
		exit_group(got == 1 && ev.data == 7 && s.records == 1 ? 0 : 1);
	}
	for (long c = child; c; c /= 10)
		digits[l++] = '0' + c % 10;
	while (l)
		asleep[i++] = digits[--l];
	memcpy(asleep + i, " prev_prio=120 prev_state=S ", 29);
	pipe_until(tp, &n, asleep);
	sys0(NR_getppid);
	sys4(NR_wait4, child, &status, 0, 0);
	pipe_until(tp, &n, " sys_getppid -> ");
	put_str(pipe_buf);
	put_kv("reader ", child);
	put_kv(" of ", pid);
	put_kv(" woke for the record: ", status == 0);
	put_str("\n");
	return 0;
}

static int set_jit(const char *v)
{
	long fd = sys3(NR_open, "/proc/sys/net/core/bpf_jit_enable", 1, 0);

	if (fd < 0)
		return -1;
	sys3(NR_write, fd, v, 1);
	sys1(NR_close, fd);
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	long ring = bpf_map_create(BPF_MAP_TYPE_RINGBUF, 0, 0, RING_SIZE), prog, link;
	long hash = bpf_map_create(BPF_MAP_TYPE_HASH, 4, 8, 4);
	struct ring r;

	pid = sys0(NR_getpid);
	if (argc > 1 && !strcmp(argv[1], "lab"))
		return lab(ring);
	if (argc > 1 && !strcmp(argv[1], "wake"))
		return wake(ring);
	check("a ringbuf of one page", ring >= 0, 1);
	memset(&r, 0, sizeof(r));
	test_map_and_mmap(ring, &r);
	if (!r.data)
		return check_summary(); /* nothing to read records through */
	test_verifier(ring, hash);
	for (int jit = 1; jit >= 0; jit--) {
		set_jit(jit ? "1" : "0");
		prog = load_producer(ring);
		check("the producer program loads", prog >= 0, 1);
		link = bpf_raw_tp_open("sys_enter", prog);
		check("attached to sys_enter", link >= 0, 1);
		test_records(ring, &r, jit ? "# JIT" : "# interpreter");
		if (jit)
			test_sleep_until_data(ring);
		sys1(NR_close, link);
		sys1(NR_close, prog);
	}
	set_jit("1");
	test_epoll_bad_input(ring);
	test_epoll_pipe_and_perf();
	sys1(NR_close, ring);
	sys2(NR_munmap, r.consumer_pos, PAGE);
	sys2(NR_munmap, r.producer_pos, PAGE + 2 * RING_SIZE);
	return check_summary();
}
