/*
 * jobstop: job control's stop of a whole process. A child of three threads (one spinning, one
 * yielding, one sleeping in nanosleep) counts in shared memory; SIGSTOP to it stops every thread
 * (their counters stand still, each thread's State is T), the parent's wait4(WUNTRACED) sees
 * 0x137f once and its SIGCHLD says CLD_STOPPED; SIGCONT starts every counter again, wait4
 * (WCONTINUED) sees 0xffff once, SIGCHLD CLD_CONTINUED. A SIGTSTP sent to one thread stops all;
 * SIGKILL ends a stopped process; an orphaned group ignores SIGTSTP. Progress is judged by the
 * counters, never by time. One check a line, "PASS n/m" last (tests/integration/test_signals.py).
 */
#include "usignal.h"
#include "uthread.h"

#define NR_setpgid 109
#define NR_setsid 112
#define PROT_RW 3
#define MAP_SHARED_ANON 0x21
#define NTHREADS 3

/* Shared with the child: its threads' counters and tids. */
struct shared {
	volatile long count[NTHREADS];
	volatile long tid[NTHREADS];
	int go;
};

static struct shared *sh;
static struct thread th[2];
static volatile int chld_code, chld_status, chld_pid;

static void on_chld(int sig, struct siginfo *si, void *uc)
{
	chld_code = si->code;
	chld_status = si->chld.status;
	chld_pid = si->chld.pid;
}

static int yielder(void *arg)
{
	sh->tid[1] = sys0(NR_gettid);
	for (;;) {
		sh->count[1]++;
		sys0(NR_sched_yield);
	}
	return 0;
}

static int sleeper(void *arg)
{
	struct timespec ts = { 0, 1000000 };

	sh->tid[2] = sys0(NR_gettid);
	for (;;) {
		sh->count[2]++;
		sys2(NR_nanosleep, &ts, 0);
	}
	return 0;
}

/* The child: its own group (how: 0 setpgid, 1 setsid), three threads counting for ever. */
static long start_child(int how)
{
	long pid;

	memset(sh, 0, sizeof(*sh));
	if ((pid = sys0(NR_fork)))
		return pid;
	if (how)
		sys0(NR_setsid);
	else
		sys2(NR_setpgid, 0, 0);
	sh->tid[0] = sys0(NR_getpid);
	spawn(&th[0], yielder, 0);
	spawn(&th[1], sleeper, 0);
	for (;;)
		sh->count[0]++;
}

/* Every counter has moved past its value in from (or from 0 at the start). */
static int all_moved(const long *from)
{
	for (int i = 0; i < NTHREADS; i++)
		if (sh->count[i] <= from[i] || !sh->tid[i])
			return 0;
	return 1;
}

static int wait_moved(const long *from)
{
	for (int i = 0; i < 20000 && !all_moved(from); i++)
		sleep_ms(1);
	return all_moved(from);
}

static void snapshot(long *to)
{
	for (int i = 0; i < NTHREADS; i++)
		to[i] = sh->count[i];
}

/* How many of the child's threads /proc shows in state T. */
static int threads_stopped(long pid)
{
	int n = 0;

	for (int i = 0; i < NTHREADS; i++)
		n += task_status_field(pid, sh->tid[i], "\nState:\t") == 'T';
	return n;
}

static void test_stop_and_continue(void)
{
	long zero[NTHREADS] = { 0 }, at_stop[NTHREADS], later[NTHREADS], pid = start_child(0);
	int status = 0;

	check("the child's three threads count", wait_moved(zero), 1);
	chld_code = 0;
	check("kill(child, SIGSTOP)", sys2(NR_kill, pid, SIGSTOP), 0);
	check("wait4(WUNTRACED) reports it", sys4(NR_wait4, pid, &status, WUNTRACED, 0), pid);
	check("...as stopped by SIGSTOP: 0x137f", status, 0x137f);
	check("SIGCHLD came with CLD_STOPPED", chld_code, CLD_STOPPED);
	check("...si_status SIGSTOP", chld_status, SIGSTOP);
	check("...si_pid the child", chld_pid, pid);
	check("every thread is in state T", threads_stopped(pid), NTHREADS);
	snapshot(at_stop);
	sleep_ms(30); /* a thread still running would count meanwhile */
	snapshot(later);
	check("no counter moved while stopped", all_moved(at_stop) || later[0] != at_stop[0] ||
						later[1] != at_stop[1] || later[2] != at_stop[2], 0);
	check("the stop is reported once", sys4(NR_wait4, pid, &status, WUNTRACED | WNOHANG, 0), 0);
	chld_code = 0;
	check("kill(child, SIGCONT)", sys2(NR_kill, pid, SIGCONT), 0);
	check("wait4(WCONTINUED) reports it", sys4(NR_wait4, pid, &status, WCONTINUED, 0), pid);
	check("...as continued: 0xffff", status, 0xffff);
	check("SIGCHLD came with CLD_CONTINUED", chld_code, CLD_CONTINUED);
	check("every counter moves again", wait_moved(at_stop), 1);
	check("the continue is reported once", sys4(NR_wait4, pid, &status, WCONTINUED | WNOHANG, 0),
	      0);

	check("tgkill(SIGTSTP) to the sleeping thread", sys3(NR_tgkill, pid, sh->tid[2], SIGTSTP), 0);
	check("the whole process stops: 0x147f",
	      sys4(NR_wait4, pid, &status, WUNTRACED, 0) == pid ? status : -1, 0x147f);
	check("every thread is in state T", threads_stopped(pid), NTHREADS);
	check("SIGKILL to the stopped process", sys2(NR_kill, pid, SIGKILL), 0);
	check("wait4 reaps it killed by SIGKILL", sys4(NR_wait4, pid, &status, 0, 0) == pid ? status : -1,
	      SIGKILL);
}

/* A session of its own: its group has no parent in the session, so nobody could continue it. */
static void test_orphaned_group_ignores_tstp(void)
{
	long zero[NTHREADS] = { 0 }, after[NTHREADS], pid = start_child(1);
	int status = 0, i;

	check("a child leading its own session counts", wait_moved(zero), 1);
	check("kill(child, SIGTSTP)", sys2(NR_kill, pid, SIGTSTP), 0);
	for (i = 0; i < 20000 && status_field(pid, "\nShdPnd:\t") != 0; i++)
		sleep_ms(1);
	check("the child took it", status_field(pid, "\nShdPnd:\t"), 0);
	snapshot(after);
	check("its threads count on", wait_moved(after), 1);
	check("no stop to report", sys4(NR_wait4, pid, &status, WUNTRACED | WNOHANG, 0), 0);
	sys2(NR_kill, pid, SIGSTOP);
	check("SIGSTOP still stops it: 0x137f",
	      sys4(NR_wait4, pid, &status, WUNTRACED, 0) == pid ? status : -1, 0x137f);
	sys2(NR_kill, pid, SIGKILL);
	check("then SIGKILL ends it", sys4(NR_wait4, pid, &status, 0, 0) == pid ? status : -1, SIGKILL);
}

int main(int argc, char **argv, char **envp)
{
	sh = (struct shared *)sys6(NR_mmap, 0, 4096, PROT_RW, MAP_SHARED_ANON, -1, 0);
	sigact(SIGCHLD, on_chld, SA_SIGINFO | SA_RESTART, 0);
	test_stop_and_continue();
	test_orphaned_group_ignores_tstp();
	return check_summary();
}
