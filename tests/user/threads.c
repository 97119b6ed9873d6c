/*
 * threads: clone() threads as pthread_create makes them, futexes, and the ends of a thread group,
 * one check a line and "PASS n/m" at the end (tests/integration/test_threads.py runs it). With
 * "trace" it only starts two threads that each wait on a futex and lets the trace show them.
 */
#include "usignal.h"
#include "uthread.h"

#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAIT_BITSET 9
#define FUTEX_CLOCK_REALTIME 256
#define ARCH_GET_FS 0x1003
#define EPERM 1
#define ESRCH 3
#define EBADF 9
#define EAGAIN 11
#define EFAULT 14
#define EINVAL 22
#define EPIPE 32
#define ENOSYS 38
#define ETIMEDOUT 110

static long now_ns(void)
{
	struct timespec ts;

	sys2(NR_clock_gettime, 1, &ts);
	return ts.sec * 1000000000L + ts.nsec;
}

static int wait_status(long pid)
{
	int status = -1;

	sys4(NR_wait4, pid, &status, 0, 0);
	return status;
}

/* --- what a thread sees ------------------------------------------------------------------- */

static struct thread t1, t2, t3;
static long seen_pid, seen_tid, seen_ppid, seen_fs;
static int shared_word;

static int report_ids(void *arg)
{
	seen_pid = sys0(NR_getpid);
	seen_tid = sys0(NR_gettid);
	seen_ppid = sys0(NR_getppid);
	sys2(NR_arch_prctl, ARCH_GET_FS, &seen_fs);
	shared_word = 42; /* the same memory as the creator's */
	return 0;
}

static void test_ids(void)
{
	long tid = spawn(&t1, report_ids, 0);

	check("clone returns the thread's id", tid > sys0(NR_getpid), 1);
	check("CLONE_PARENT_SETTID wrote it", t1.ptid, tid);
	join(&t1);
	check("CLONE_CHILD_CLEARTID zeroed the word at exit", t1.ctid, 0);
	check("getpid in the thread is the process's", seen_pid, sys0(NR_getpid));
	check("gettid in the thread is its own", seen_tid, tid);
	check("getppid in the thread is the process's parent", seen_ppid, sys0(NR_getppid));
	check("CLONE_SETTLS set its FS base", seen_fs, (long)&t1);
	check("the thread's store is in our memory", shared_word, 42);
	check("gettid of the leader is its pid", sys0(NR_gettid), sys0(NR_getpid));
}

/* --- futexes ------------------------------------------------------------------------------ */

static int futex_word, woken_count;

static int waker(void *arg)
{
	sleep_ms(20); /* the main thread is (most likely) asleep by now; if not, it sees 1 */
	__atomic_store_n(&futex_word, 1, __ATOMIC_RELEASE);
	woken_count = futex(&futex_word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, 0, 0);
	return 0;
}

static void test_futex_wait_wake(void)
{
	long ret = 0;

	futex_word = 0;
	woken_count = -1;
	spawn(&t1, waker, 0);
	while (!__atomic_load_n(&futex_word, __ATOMIC_ACQUIRE) && !ret)
		ret = futex(&futex_word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, 0, 0, 0);
	check("FUTEX_WAIT returns 0 when woken (or -EAGAIN if late)", ret == 0 || ret == -EAGAIN, 1);
	join(&t1);
	check("FUTEX_WAKE woke the waiter (or none if it was late)",
	      woken_count == 1 || (ret == -EAGAIN && woken_count == 0), 1);
	check("FUTEX_WAKE with nobody waiting", futex(&futex_word, FUTEX_WAKE, 1, 0, 0, 0), 0);
}

static void test_futex_errors(void)
{
	struct timespec t = { 0, 30 * 1000000L }, bad = { 0, 1000000000L };
	int w = 5;
	long start = now_ns(), ret;

	ret = futex(&w, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 5, &t, 0, 0);
	check("FUTEX_WAIT times out", ret, -ETIMEDOUT);
	check("...not before its 30 ms", now_ns() - start >= 30 * 1000000L, 1);
	check("FUTEX_WAIT on a changed word", futex(&w, FUTEX_WAIT, 4, 0, 0, 0), -EAGAIN);
	check("FUTEX_WAIT unaligned", futex((int *)((char *)&w + 1), FUTEX_WAIT, 5, 0, 0, 0),
	      -EINVAL);
	check("FUTEX_WAIT on NULL", futex(0, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, 0, 0, 0), -EFAULT);
	check("FUTEX_WAIT on a kernel address",
	      futex((int *)0xffffffff80000000UL, FUTEX_WAIT, 0, 0, 0, 0), -EFAULT);
	check("FUTEX_WAKE (shared) on unmapped memory", futex((int *)0x1000, FUTEX_WAKE, 1, 0, 0, 0),
	      -EFAULT);
	check("FUTEX_WAIT with tv_nsec 1e9", futex(&w, FUTEX_WAIT, 5, &bad, 0, 0), -EINVAL);
	check("FUTEX_WAIT with a bad timeout pointer",
	      futex(&w, FUTEX_WAIT, 5, (struct timespec *)8, 0, 0), -EFAULT);
	check("FUTEX_WAIT_BITSET with bitset 0", futex(&w, FUTEX_WAIT_BITSET, 5, 0, 0, 0), -EINVAL);
	check("FUTEX_WAIT with CLOCK_REALTIME", futex(&w, FUTEX_WAIT | FUTEX_CLOCK_REALTIME, 5, 0, 0, 0),
	      -ENOSYS);
	check("an unknown futex op", futex(&w, 99, 0, 0, 0, 0), -ENOSYS);
	check("FUTEX_CMP_REQUEUE on a changed word",
	      futex(&w, FUTEX_CMP_REQUEUE, 1, (struct timespec *)1, &futex_word, 4), -EAGAIN);
}

/* --- clone's rules -------------------------------------------------------------------------- */

static void test_clone_errors(void)
{
	check("CLONE_THREAD without CLONE_SIGHAND",
	      raw_clone(CLONE_VM | CLONE_THREAD, t1.stack + STACK_SIZE, 0, 0, 0), -EINVAL);
	check("CLONE_SIGHAND without CLONE_VM", raw_clone(CLONE_SIGHAND, t1.stack + STACK_SIZE, 0, 0, 0),
	      -EINVAL);
	check("tgkill with tgid 0", sys3(NR_tgkill, 0, sys0(NR_gettid), 0), -EINVAL);
	check("tgkill of a thread of another process", sys3(NR_tgkill, 1, sys0(NR_gettid), 0), -ESRCH);
}

/* --- signals: a thread-directed one, and a process-directed one another thread takes ---------- */

static volatile long handler_tid;

static void on_usr1(int sig)
{
	handler_tid = sys0(NR_gettid);
}

static int park_flag;

static int park(void *arg)
{
	while (!__atomic_load_n(&park_flag, __ATOMIC_ACQUIRE))
		futex(&park_flag, FUTEX_WAIT, 0, 0, 0, 0);
	return 0;
}

static void unpark(void)
{
	__atomic_store_n(&park_flag, 1, __ATOMIC_RELEASE);
	futex(&park_flag, FUTEX_WAKE, 100, 0, 0, 0);
}

static void test_signals(void)
{
	unsigned long old;
	long tid;

	park_flag = 0;
	sigact(SIGUSR1, on_usr1, 0, 0);
	tid = spawn(&t1, park, 0);
	handler_tid = 0;
	check("tgkill to the thread", sys3(NR_tgkill, sys0(NR_getpid), tid, SIGUSR1), 0);
	for (int i = 0; i < 200 && !handler_tid; i++)
		sleep_ms(5);
	check("its handler ran in that thread", handler_tid, tid);
	/* Blocked here, so the process's signal must go to the thread. */
	setmask(SIG_BLOCK, BIT(SIGUSR1), &old);
	handler_tid = 0;
	check("kill to the process", sys2(NR_kill, sys0(NR_getpid), SIGUSR1), 0);
	for (int i = 0; i < 200 && !handler_tid; i++)
		sleep_ms(5);
	check("a thread that does not block it took it", handler_tid, tid);
	setmask(SIG_SETMASK, old, 0);
	unpark();
	join(&t1);
}

/* --- a process's children belong to every thread ------------------------------------------- */

static long child_pid;
static int child_status;

static int reap(void *arg)
{
	child_status = wait_status(child_pid);
	return 0;
}

static void test_wait_from_thread(void)
{
	if (!(child_pid = sys0(NR_fork)))
		exit_group(4);
	spawn(&t1, reap, 0);
	join(&t1);
	check("a thread reaps the leader's child", child_status, 4 << 8);
}

/* --- an fd closed while another thread is inside read() on it ------------------------------ */

static int blocked_pipe[2];
static long blocked_ret;
static char blocked_buf[8];

static int blocked_read(void *arg)
{
	blocked_ret = sys3(NR_read, blocked_pipe[0], blocked_buf, sizeof(blocked_buf));
	return 0;
}

/*
 * Linux's answer: close() takes the fd out of the table, but the read that is inside the file
 * holds its own reference, so it still completes when the writer writes; the fd is EBADF from
 * then on, and the read end goes (a write sees no reader) only when that read lets it go.
 */
static void test_close_under_read(void)
{
	long tid;
	int i;

	sys1(NR_pipe, blocked_pipe);
	blocked_ret = -1;
	tid = spawn(&t1, blocked_read, 0);
	for (i = 0; i < 5000 && status_field(tid, "\nState:\t") != 'S'; i++)
		sleep_ms(1);
	check("the reader sleeps in read() on the pipe", status_field(tid, "\nState:\t"), 'S');
	check("its /proc/<tid>/status: Pid", status_field(tid, "\nPid:\t"), tid);
	check("...Tgid, the process's", status_field(tid, "\nTgid:\t"), sys0(NR_getpid));
	check("...Threads", status_field(tid, "\nThreads:\t"), 2);
	check("/proc/<pid>/task/<tid>/status: the same thread",
	      task_status_field(sys0(NR_getpid), tid, "\nPid:\t"), tid);
	check("...and the leader's own", task_status_field(sys0(NR_getpid), sys0(NR_getpid), "\nPid:\t"),
	      sys0(NR_getpid));
	check("no task/<tid> for a thread of another process", task_status_field(1, tid, "\nPid:\t"),
	      -1);
	check("another thread closes that fd", sys1(NR_close, blocked_pipe[0]), 0);
	check("the fd is EBADF from then on", sys3(NR_read, blocked_pipe[0], blocked_buf, 1), -EBADF);
	check("the write finds the reader's file still open", sys3(NR_write, blocked_pipe[1], "hello", 5),
	      5);
	join(&t1);
	check("the blocked read completed with the bytes", blocked_ret, 5);
	check("...which are the writer's", memcmp_prefix(blocked_buf, "hello"), 0);
	sigact(SIGPIPE, SIG_IGN, 0, 0);
	check("once the read let it go, the read end is released", sys3(NR_write, blocked_pipe[1], "x", 1),
	      -EPIPE);
	sigact(SIGPIPE, SIG_DFL, 0, 0);
	sys1(NR_close, blocked_pipe[1]);
}

/* --- the ends of a thread group ------------------------------------------------------------- */

static int exit_group_7(void *arg)
{
	sleep_ms(10);
	exit_group(7);
}

/* Two threads asleep on futexes forever, a third calls exit_group(7): the process ends. */
static void test_exit_group_kills_threads(void)
{
	long pid = sys0(NR_fork);

	if (!pid) {
		park_flag = 0;
		spawn(&t1, park, 0);
		spawn(&t2, park, 0);
		spawn(&t3, exit_group_7, 0);
		park(0);
		exit_group(1);
	}
	check("exit_group in a thread ends every thread, status 7", wait_status(pid), 7 << 8);
}

static int leader_gone[2], go_on[2];
static int leader_tid_word;

static int outlive_leader(void *arg)
{
	char c = 'L';
	int tid;

	while ((tid = __atomic_load_n(&leader_tid_word, __ATOMIC_ACQUIRE)) != 0)
		futex(&leader_tid_word, FUTEX_WAIT, tid, 0, 0, 0);
	sys3(NR_write, leader_gone[1], &c, 1);
	sys3(NR_read, go_on[0], &c, 1);
	sys1(NR_exit, 9);
	return 0;
}

/* The leader exit()s first: the process goes on in its thread, and its status is the leader's. */
static void test_leader_exits_first(void)
{
	char c = 0;
	long pid, early;

	sys1(NR_pipe, leader_gone);
	sys1(NR_pipe, go_on);
	if (!(pid = sys0(NR_fork))) {
		leader_tid_word = sys0(NR_gettid);
		sys1(NR_set_tid_address, &leader_tid_word);
		spawn(&t1, outlive_leader, 0);
		sys1(NR_exit, 3);
	}
	sys3(NR_read, leader_gone[0], &c, 1);
	check("the thread saw the leader's tid word cleared", c, 'L');
	early = sys4(NR_wait4, pid, 0, WNOHANG, 0);
	check("wait4 does not reap the leader while a thread lives", early, 0);
	check("kill(pid, 0) still finds the process", sys2(NR_kill, pid, 0), 0);
	sys3(NR_write, go_on[1], "g", 1);
	check("the process ends with its last thread, the leader's status", wait_status(pid),
	      3 << 8);
}

/* A thread's execve: the other threads go, the program runs with the process's pid. */
static int exec_hello(void *arg)
{
	char *argv[] = { "/tests/hello", "from-a-thread", 0 };
	char *envp[] = { 0 };

	sys3(NR_execve, argv[0], argv, envp);
	return 99;
}

/* A child process with a parked thread and one that runs fn (an execve): its wait status. */
static int exec_in_a_thread(int (*fn)(void *), long *pid)
{
	if (!(*pid = sys0(NR_fork))) {
		park_flag = 0;
		spawn(&t1, park, 0);
		spawn(&t2, fn, 0);
		park(0);
		exit_group(1);
	}
	return wait_status(*pid);
}

static void test_exec_from_thread(void)
{
	long pid;

	check("execve in a thread replaces the whole process", exec_in_a_thread(exec_hello, &pid), 0);
}

/* The program a thread's execve starts: its tid is the process's pid (status 0), as Linux's
 * de_thread() gives the leader's pid to the exec'ing thread. */
static int exec_ids(const char *want)
{
	return sys0(NR_gettid) == atol(want) && sys0(NR_getpid) == atol(want) ? 0 : 3;
}

static int exec_self(void *arg)
{
	char pid[24] = { 0 };
	char *argv[] = { "/tests/threads", "exec-ids", pid, 0 };
	char *envp[] = { 0 };

	*put_dec(pid, sys0(NR_getpid)) = 0;
	sys3(NR_execve, argv[0], argv, envp);
	return 99;
}

static void test_exec_takes_leader_pid(void)
{
	long pid;

	check("...and runs as the leader: its tid is the process's pid",
	      exec_in_a_thread(exec_self, &pid), 0);
	check("...which wait4 reaps under that pid", sys2(NR_kill, pid, 0), -ESRCH);
}

/* --- trace: two threads wait, one wakes them ------------------------------------------------ */

static int trace_word;

static int trace_waiter(void *arg)
{
	while (!__atomic_load_n(&trace_word, __ATOMIC_ACQUIRE))
		futex(&trace_word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, 0, 0, 0);
	return 0;
}

static int trace_run(void)
{
	spawn(&t1, trace_waiter, 0);
	spawn(&t2, trace_waiter, 0);
	put_str("threads ");
	put_num(t1.tid);
	put_str(" ");
	put_num(t2.tid);
	put_str("\n");
	sleep_ms(20);
	__atomic_store_n(&trace_word, 1, __ATOMIC_RELEASE);
	futex(&trace_word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 2, 0, 0, 0);
	join(&t1);
	join(&t2);
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	if (argc > 1 && !strcmp(argv[1], "trace"))
		return trace_run();
	if (argc > 2 && !strcmp(argv[1], "exec-ids"))
		return exec_ids(argv[2]);
	test_ids();
	test_futex_wait_wake();
	test_futex_errors();
	test_clone_errors();
	test_signals();
	test_wait_from_thread();
	test_close_under_read();
	test_exit_group_kills_threads();
	test_leader_exits_first();
	test_exec_from_thread();
	test_exec_takes_leader_pid();
	return check_summary();
}
