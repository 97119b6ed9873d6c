/*
 * sigshared: the process's pending set (Linux's signal->shared_pending) seen from threads: kill()
 * reaches the one thread that does not block it, waits in the process's set while all block it
 * and goes to the first that unblocks it; rt_sigpending and ShdPnd show it from every thread; a
 * fatal SIGTERM ends every thread. One check a line, "PASS n/m" last (tests/integration/
 * test_threads.py runs it).
 */
#include "usignal.h"
#include "uthread.h"

#define USR1 BIT(SIGUSR1)

static struct thread t1, t2, t3;
static volatile long handler_tid;
static int ready_count, go_word, stop_word;
static long pending_seen;

static void on_usr1(int sig)
{
	handler_tid = sys0(NR_gettid);
}

static unsigned long sigpending(void)
{
	unsigned long set = ~0UL;

	sys2(NR_rt_sigpending, &set, 8);
	return set;
}

/* Sleeps on word until it is nonzero. */
static void wait_word(int *word)
{
	while (!__atomic_load_n(word, __ATOMIC_ACQUIRE))
		futex(word, FUTEX_WAIT, 0, 0, 0, 0);
}

static void set_word(int *word)
{
	__atomic_store_n(word, 1, __ATOMIC_RELEASE);
	futex(word, FUTEX_WAKE, 100, 0, 0, 0);
}

static void wait_handler(void)
{
	for (int i = 0; i < 400 && !handler_tid; i++)
		sleep_ms(5);
}

/* Blocks nothing more than it inherited, says it is ready, sleeps until stop_word. */
static int blocker(void *arg)
{
	__atomic_fetch_add(&ready_count, 1, __ATOMIC_RELEASE);
	wait_word(&stop_word);
	return 0;
}

/* Unblocks SIGUSR1 (the only thread that does), says so, sleeps until stop_word. */
static int taker(void *arg)
{
	setmask(SIG_UNBLOCK, USR1, 0);
	__atomic_fetch_add(&ready_count, 1, __ATOMIC_RELEASE);
	wait_word(&stop_word);
	return 0;
}

/* Waits for go_word with SIGUSR1 blocked, reads sigpending, then unblocks it. */
static int late_taker(void *arg)
{
	__atomic_fetch_add(&ready_count, 1, __ATOMIC_RELEASE);
	wait_word(&go_word);
	pending_seen = sigpending();
	setmask(SIG_UNBLOCK, USR1, 0);
	wait_word(&stop_word);
	return 0;
}

static void start(int (*a)(void *), int (*b)(void *))
{
	ready_count = go_word = stop_word = 0;
	spawn(&t1, a, 0);
	spawn(&t2, b, 0);
	while (__atomic_load_n(&ready_count, __ATOMIC_ACQUIRE) < 2)
		sleep_ms(2);
}

static void stop(void)
{
	set_word(&stop_word);
	join(&t1);
	join(&t2);
}

/* Main and one thread block SIGUSR1, a second thread does not: kill() finds it. */
static void test_kill_reaches_the_one_thread(void)
{
	start(blocker, taker);
	handler_tid = 0;
	check("kill to a process whose one unblocking thread is not the main one",
	      sys2(NR_kill, sys0(NR_getpid), SIGUSR1), 0);
	wait_handler();
	check("the thread that does not block it ran the handler", handler_tid, t2.tid);
	check("nothing is left pending", sigpending(), 0);
	stop();
}

/* Every thread blocks it: it waits in the process's set, seen from both, until one unblocks. */
static void test_pending_until_unblocked(void)
{
	long pid = sys0(NR_getpid);

	start(blocker, late_taker);
	handler_tid = 0;
	check("kill while every thread blocks SIGUSR1", sys2(NR_kill, pid, SIGUSR1), 0);
	sleep_ms(20);
	check("no handler ran", handler_tid, 0);
	check("rt_sigpending in the main thread shows it", sigpending(), USR1);
	/* status prints 16 hex digits: read as decimal, SIGUSR1's 0x200 is 200 */
	check("ShdPnd of the process shows it", status_field(pid, "\nShdPnd:\t"), 200);
	check("...and not the main thread's own SigPnd", status_field(pid, "\nSigPnd:\t"), 0);
	check("ShdPnd of another thread is the same set", status_field(t1.tid, "\nShdPnd:\t"), 200);
	set_word(&go_word);
	wait_handler();
	check("rt_sigpending in the other thread showed it", pending_seen, USR1);
	check("the first thread to unblock it took it", handler_tid, t2.tid);
	check("the main thread sees it gone", sigpending(), 0);
	check("ShdPnd is empty again", status_field(pid, "\nShdPnd:\t"), 0);
	stop();
}

/* tgkill is the thread's own: the main thread's SigPnd, not the process's set. */
static void test_tgkill_is_the_threads(void)
{
	long pid = sys0(NR_getpid);

	check("tgkill to the main thread, which blocks it", sys3(NR_tgkill, pid, pid, SIGUSR1), 0);
	check("its own SigPnd shows it", status_field(pid, "\nSigPnd:\t"), 200);
	check("ShdPnd does not", status_field(pid, "\nShdPnd:\t"), 0);
	handler_tid = 0;
	setmask(SIG_UNBLOCK, USR1, 0);
	check("unblocked, the main thread took it", handler_tid, pid);
	setmask(SIG_BLOCK, USR1, 0);
}

/* Unblocks SIGTERM, whose default action ends the process, and sleeps. */
static int term_taker(void *arg)
{
	setmask(SIG_UNBLOCK, BIT(SIGTERM), 0);
	__atomic_fetch_add(&ready_count, 1, __ATOMIC_RELEASE);
	wait_word(&stop_word);
	return 0;
}

/* SIGTERM's default ends the process: every thread, though only a non-main one can take it. */
static void test_fatal_ends_every_thread(void)
{
	int ready[2], status = -1;
	long pid;
	char c;

	sys1(NR_pipe, ready);
	if (!(pid = sys0(NR_fork))) {
		ready_count = stop_word = 0;
		setmask(SIG_BLOCK, BIT(SIGTERM), 0);
		spawn(&t1, blocker, 0);
		spawn(&t3, blocker, 0);
		spawn(&t2, term_taker, 0);
		while (__atomic_load_n(&ready_count, __ATOMIC_ACQUIRE) < 3)
			sleep_ms(2);
		sys3(NR_write, ready[1], "r", 1);
		wait_word(&stop_word); /* forever: SIGTERM must end us */
		exit_group(1);
	}
	sys3(NR_read, ready[0], &c, 1);
	check("kill -TERM to a process of four threads, the main one blocking it",
	      sys2(NR_kill, pid, SIGTERM), 0);
	sys4(NR_wait4, pid, &status, 0, 0);
	check("every thread ended: wait4 reaps it, killed by SIGTERM", status, SIGTERM);
	check("the process is gone", sys2(NR_kill, pid, 0), -3 /* -ESRCH */);
	sys1(NR_close, ready[0]);
	sys1(NR_close, ready[1]);
}

int main(int argc, char **argv, char **envp)
{
	sigact(SIGUSR1, on_usr1, 0, 0);
	setmask(SIG_BLOCK, USR1, 0); /* every thread spawned from here inherits it */
	test_kill_reaches_the_one_thread();
	test_pending_until_unblocked();
	test_tgkill_is_the_threads();
	test_fatal_ends_every_thread();
	return check_summary();
}
