/*
 * procstat: /proc/<pid>/stat and /proc/<pid>/task/<tid>/stat field by field against what the
 * program knows of itself (ids, terminal, threads, layout, signals, scheduling), counters that
 * must grow when it works (utime by spinning until it does, minflt by touching new pages, vsize
 * by mmap, cutime by a child that spins), a stopped child's state, and getdents64 of /proc and
 * of task/. One check a line, "PASS n/m" last (tests/integration/test_procstat.py runs it).
 */
#include "usignal.h"
#include "uthread.h"

#define NR_setpgid 109
#define NR_getpgrp 111
#define NR_getsid 124
#define TIOCGPGRP 0x540F
#define NFIELDS 52
/* 1-based field numbers of Linux's proc(5). */
enum {
	F_PID = 1,
	F_STATE = 3,
	F_PPID,
	F_PGRP,
	F_SESSION,
	F_TTY_NR,
	F_TPGID,
	F_FLAGS,
	F_MINFLT,
	F_UTIME = 14,
	F_CUTIME = 16,
	F_PRIORITY = 18,
	F_NICE,
	F_NUM_THREADS,
	F_VSIZE = 23,
	F_RSS,
	F_STARTCODE = 26,
	F_ENDCODE,
	F_STARTSTACK,
	F_SIGNAL = 31,
	F_BLOCKED,
	F_SIGIGNORE,
	F_SIGCATCH,
	F_WCHAN,
	F_EXIT_SIGNAL = 38,
	F_RT_PRIORITY = 40,
	F_POLICY,
	F_START_DATA = 45,
	F_END_DATA,
	F_START_BRK,
	F_EXIT_CODE = 52,
};

static long field[NFIELDS + 1];
static int nfields;
static char state;
static long data_word = 1; /* in .data: between start_data and end_data */
static struct thread th[2];
static int stop_word;

/* A decimal with its sign (Linux prints -1 for tpgid and a thread's exit_signal). */
static long signed_atol(const char *s)
{
	return *s == '-' ? -atol(s + 1) : atol(s);
}

/* Reads path's stat line into field[] (the state letter into state): the count of fields. */
static int read_stat(const char *path)
{
	char buf[1024], *p;
	long fd = sys2(NR_open, path, 0), n;

	nfields = 0;
	if (fd < 0)
		return 0;
	n = sys3(NR_read, fd, buf, sizeof(buf) - 1);
	sys1(NR_close, fd);
	buf[n > 0 ? n : 0] = 0;
	field[F_PID] = atol(buf);
	if (!(p = (char *)strstr(buf, ") ")))
		return 0;
	state = p[2];
	p += 4;
	nfields = 3;
	while (*p && *p != '\n' && nfields < NFIELDS) {
		field[++nfields] = signed_atol(p);
		while (*p && *p != ' ' && *p != '\n')
			p++;
		if (*p == ' ')
			p++;
	}
	return nfields;
}

static char *stat_path(char *p, long pid, long tid)
{
	char *s = p;

	memcpy(p, "/proc/", 6);
	p = put_dec(p + 6, pid);
	if (tid) {
		memcpy(p, "/task/", 6);
		p = put_dec(p + 6, tid);
	}
	memcpy(p, "/stat", 6);
	return s;
}

static int waiter(void *arg)
{
	while (!__atomic_load_n(&stop_word, __ATOMIC_ACQUIRE))
		futex(&stop_word, FUTEX_WAIT, 0, 0, 0, 0);
	return 0;
}

/* Spins until the stat file's utime has grown by 2 ticks (bounded by turns, not by time). */
static long spin_for_utime(const char *path)
{
	long start;

	read_stat(path);
	start = field[F_UTIME];
	for (long turn = 0; turn < 200000; turn++) {
		for (volatile long i = 0; i < 20000; i++)
			;
		if (read_stat(path) && field[F_UTIME] >= start + 2)
			break;
	}
	return field[F_UTIME] - start;
}

static void test_self(void)
{
	long pid = sys0(NR_getpid), pgrp;
	int fg = -1;
	char path[64];
	int local;

	stat_path(path, pid, 0);
	check("/proc/<pid>/stat has Linux 6.1's 52 fields", read_stat(path), NFIELDS);
	check("pid", field[F_PID], pid);
	check("state R (reading it)", state, 'R');
	check("ppid", field[F_PPID], sys0(NR_getppid));
	check("pgrp", field[F_PGRP], pgrp = sys0(NR_getpgrp));
	check("session", field[F_SESSION], sys1(NR_getsid, 0));
	if (sys3(NR_ioctl, 0, TIOCGPGRP, &fg) == 0) {
		check("tty_nr: the console, ttyS0 (4, 64)", field[F_TTY_NR], (4 << 8) | 64);
		check("tpgid: the console's foreground group", field[F_TPGID], fg);
	} else {
		check("tty_nr: no controlling terminal", field[F_TTY_NR], 0);
		check("tpgid: -1", field[F_TPGID], -1);
	}
	check("flags: not a kernel thread", field[F_FLAGS] & 0x00200000, 0);
	check("priority 20, nice 0", field[F_PRIORITY] * 100 + field[F_NICE], 2000);
	check("num_threads 3", field[F_NUM_THREADS], 3);
	check("main lies in startcode..endcode",
	      field[F_STARTCODE] <= (long)main && (long)main < field[F_ENDCODE], 1);
	check("a local lies below startstack", (long)&local < field[F_STARTSTACK], 1);
	check("a .data word lies in start_data..end_data",
	      field[F_START_DATA] <= (long)&data_word && (long)&data_word < field[F_END_DATA], 1);
	check("start_brk is where brk began", field[F_START_BRK] <= sys1(NR_brk, 0), 1);
	check("rss counts pages", field[F_RSS] > 0, 1);
	check("wchan 0 while running", field[F_WCHAN], 0);
	check("exit_signal SIGCHLD", field[F_EXIT_SIGNAL], SIGCHLD);
	check("rt_priority 0, policy SCHED_NORMAL", field[F_RT_PRIORITY] + field[F_POLICY], 0);
	check("exit_code 0 while alive", field[F_EXIT_CODE], 0);
	check("blocked: SIGUSR1", field[F_BLOCKED], BIT(SIGUSR1));
	check("sigignore: SIGUSR2", field[F_SIGIGNORE], BIT(SIGUSR2));
	check("sigcatch: SIGTERM", field[F_SIGCATCH], BIT(SIGTERM));
	check("signal: none pending", field[F_SIGNAL], 0);
	check("/proc/self/stat is the same process", read_stat("/proc/self/stat") &&
							     field[F_PID] == pid,
	      1);
}

static void test_threads(void)
{
	long pid = sys0(NR_getpid);
	char path[64];

	stat_path(path, pid, th[1].tid);
	check("task/<tid>/stat has 52 fields", read_stat(path), NFIELDS);
	check("...its pid is the thread's", field[F_PID], th[1].tid);
	check("...exit_signal -1, a thread's", field[F_EXIT_SIGNAL], -1);
	check("...state S, asleep in futex", state, 'S');
	check("...wchan 1, not running", field[F_WCHAN], 1);
	check("...num_threads 3", field[F_NUM_THREADS], 3);
}

static void test_counters(void)
{
	long pid = sys0(NR_getpid), vsize, minflt;
	char path[64], *area;

	stat_path(path, pid, 0);
	check("utime grows while we spin", spin_for_utime(path) >= 2, 1);
	read_stat(path);
	vsize = field[F_VSIZE];
	minflt = field[F_MINFLT];
	area = (char *)sys6(NR_mmap, 0, 64 * 4096, 3, 0x22, -1, 0);
	read_stat(path);
	check("vsize grows by the mapping, 256 KiB", field[F_VSIZE] - vsize, 64 * 4096);
	for (int i = 0; i < 64; i++)
		area[i * 4096] = 1;
	read_stat(path);
	check("minflt grows by a page fault a page", field[F_MINFLT] - minflt >= 64, 1);
	sys2(NR_munmap, area, 64 * 4096);
	read_stat(path);
	check("munmap gives the size back", field[F_VSIZE], vsize);
}

/* A child that spins until its own utime has grown, then exits: its time becomes our cutime. */
static void test_children(void)
{
	long pid = sys0(NR_getpid), child, cutime;
	char path[64];
	int status;

	stat_path(path, pid, 0);
	read_stat(path);
	cutime = field[F_CUTIME];
	if (!(child = sys0(NR_fork))) {
		char own[64];
		exit_group(spin_for_utime(stat_path(own, sys0(NR_getpid), 0)) >= 2 ? 0 : 1);
	}
	sys4(NR_wait4, child, &status, 0, 0);
	check("the child spun 2 ticks", status, 0);
	read_stat(path);
	check("cutime took its time", field[F_CUTIME] - cutime >= 2, 1);

	if (!(child = sys0(NR_fork))) {
		sys2(NR_setpgid, 0, 0);
		for (;;)
			sys0(NR_pause);
	}
	sys2(NR_kill, child, SIGSTOP);
	sys4(NR_wait4, child, &status, WUNTRACED, 0);
	read_stat(stat_path(path, child, 0));
	check("a stopped child: state T", state, 'T');
	check("...wchan 1", field[F_WCHAN], 1);
	check("...its ppid us", field[F_PPID], pid);
	sys2(NR_kill, child, SIGKILL);
	sys4(NR_wait4, child, &status, 0, 0);
}

/* The names getdents64 gives for path that are numbers (all of them in *all, if asked), read
 * size bytes at a time, and whether want is among them. */
static int list_names(const char *path, long want, int *count, int *all, long size)
{
	char buf[2048];
	long fd = sys3(NR_open, path, 0x10000 /* O_DIRECTORY */, 0), n;
	int found = 0, every = 0;

	*count = 0;
	if (fd < 0)
		return -1;
	while ((n = sys3(NR_getdents64, fd, buf, size)) > 0)
		for (long off = 0; off < n;) {
			unsigned short reclen = *(unsigned short *)(buf + off + 16);
			const char *name = buf + off + 19;
			every++;
			if (name[0] >= '1' && name[0] <= '9') {
				(*count)++;
				found |= atol(name) == want;
			}
			off += reclen;
		}
	sys1(NR_close, fd);
	if (all)
		*all = every;
	return found;
}

static int list_pids(const char *path, long want, int *count)
{
	return list_names(path, want, count, 0, 2048);
}

static void test_readdir(void)
{
	long pid = sys0(NR_getpid);
	char task[32], *p = task;
	int count;

	memcpy(p, "/proc/", 6);
	memcpy(put_dec(p + 6, pid), "/task", 6);
	check("getdents64 of /proc lists our pid", list_pids("/proc", pid, &count), 1);
	check("...and not our threads' tids", list_pids("/proc", th[0].tid, &count), 0);
	check("getdents64 of /proc/<pid>/task lists a thread", list_pids(task, th[0].tid, &count), 1);
	check("...and the main one", list_pids(task, pid, &count), 1);
	check("...three in all", count, 3);
	{
		int all_big, all_small, pids_small;

		list_names("/proc", pid, &count, &all_big, 2048);
		check("a 40-byte buffer, one entry a call, lists the same /proc",
		      list_names("/proc", pid, &pids_small, &all_small, 40) == 1 &&
			      all_small == all_big && pids_small == count,
		      1);
	}
}

static void on_term(int sig)
{
}

int main(int argc, char **argv, char **envp)
{
	setmask(SIG_BLOCK, BIT(SIGUSR1), 0);
	sigact(SIGUSR2, SIG_IGN, 0, 0);
	sigact(SIGTERM, on_term, 0, 0);
	spawn(&th[0], waiter, 0);
	spawn(&th[1], waiter, 0);
	for (int i = 0; i < 2000 && task_status_field(0, th[1].tid, "\nState:\t") != 'S'; i++)
		sys0(NR_sched_yield);
	test_self();
	test_threads();
	test_readdir();
	test_counters();
	test_children();
	__atomic_store_n(&stop_word, 1, __ATOMIC_RELEASE);
	futex(&stop_word, FUTEX_WAKE, 100, 0, 0, 0);
	join(&th[0]);
	join(&th[1]);
	return check_summary();
}
