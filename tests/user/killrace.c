/*
 * killrace: a child killed the moment it exists, as `sh -c 'sleep 30 & kill $!; wait $!'` does,
 * 2000 times (tests/integration/test_signals.py runs it). Each round forks or vforks a child
 * that sleeps for ever, before or after an exec (or that blocks SIGTERM across its exec and
 * unblocks it after: the signal stays pending through the exec, as Linux keeps it), and SIGTERMs it after a delay that sweeps across
 * the child's first steps (its first run, its exec, its entry into nanosleep). The parent then
 * waits as busybox ash's `wait` does: wait4 with WNOHANG, and sigsuspend until its SIGCHLD handler
 * ran. Two kernel bugs fail it: a SIGCHLD after which wait4 WNOHANG does not find the child yet (it
 * says so, "not ok"), and a kill slept through (the child sleeps on: the test's timeout ends it).
 */
#include "usignal.h"

enum {
	NR_vfork = 58,
};

static const char *const ways[] = { " fork: ", " vfork+exec: ", " fork+exec: ",
				    " fork+block+exec: " };
static volatile long chld_pid; /* the last SIGCHLD's si_pid */

static void on_chld(int sig, struct siginfo *si, void *uc)
{
	chld_pid = si->chld.pid;
}

/* What the child becomes: asleep for ever (a kill that is slept through hangs the test). */
static void __attribute__((noreturn)) sleep_forever(void)
{
	long ts[2] = { 100000, 0 };

	for (;;)
		sys2(NR_nanosleep, ts, 0);
}

static void exec_sleeper(const char *how)
{
	char *argv[] = { "killrace", (char *)how, 0 };

	sys3(NR_execve, "/tests/killrace", argv, 0);
	exit_group(99); /* the exec failed: the status says so */
}

/* Waits for pid as ash's waitproc(): 0 when reaped with status SIGTERM, else what went wrong. */
static const char *wait_like_ash(long pid, int *status)
{
	unsigned long old;
	const char *err = 0;
	long r;

	setmask(SIG_BLOCK, BIT(SIGCHLD), &old);
	for (;;) {
		int told = chld_pid == pid; /* its SIGCHLD ran the handler before this wait4 */
		r = sys4(NR_wait4, pid, status, WNOHANG, 0);
		if (r == pid)
			break;
		if (r != 0) {
			err = "wait4 failed";
			break;
		}
		if (told) {
			err = "SIGCHLD came, but wait4 WNOHANG did not find the child";
			break;
		}
		sys2(NR_rt_sigsuspend, &old, 8); /* SIGCHLD let in: its handler runs, then -EINTR */
	}
	setmask(SIG_SETMASK, old, 0);
	if (!err && *status != SIGTERM)
		err = "the status is not SIGTERM's";
	return err;
}

int main(int argc, char **argv, char **envp)
{
	long rounds = argc > 1 ? atol(argv[1]) : 0;
	int bad = 0;

	if (argc > 1 && !strcmp(argv[1], "sleep"))
		sleep_forever();
	if (argc > 1 && !strcmp(argv[1], "unblock")) {
		/* a SIGTERM kept pending across the exec ends us here */
		setmask(SIG_UNBLOCK, BIT(SIGTERM), 0);
		sleep_forever();
	}
	if (rounds <= 0)
		rounds = 2000;
	sigact(SIGCHLD, on_chld, SA_SIGINFO, 0);
	for (long i = 0; i < rounds; i++) {
		int way = i % 4, status = -1;
		long pid = sys0(way == 1 ? NR_vfork : NR_fork);
		const char *err;

		if (pid == 0) {
			if (way == 0)
				sleep_forever();
			if (way == 3)
				setmask(SIG_BLOCK, BIT(SIGTERM), 0);
			exec_sleeper(way == 3 ? "unblock" : "sleep");
		}
		/* 0 to about 30000 loop turns: before the child first runs, up to its sleep. */
		for (volatile long spin = (i / 4) * 300 % 30000; spin > 0; spin--)
			;
		if (sys2(NR_kill, pid, SIGTERM)) {
			err = "kill failed";
		} else {
			err = wait_like_ash(pid, &status);
		}
		if (err && bad++ < 10) {
			put_str("not ok round ");
			put_num(i);
			put_str(ways[way]);
			put_str(err);
			put_str(", status ");
			put_hex((unsigned long)status);
			put_str("\n");
		}
	}
	put_str(bad ? "FAIL " : "PASS ");
	put_num(rounds - bad);
	put_str("/");
	put_num(rounds);
	put_str("\n");
	return bad != 0;
}
