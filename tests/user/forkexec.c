/*
 * forkexec: fork, exec and wait4 as a shell uses them. Each child ends a known way and the parent
 * prints the wait status it reaps, so the test can hold each against Linux's encoding:
 * exit(N) -> N << 8, killed by signal S -> S.
 */
#include "ulib.h"

static long shared = 1;

static void report(const char *what, long pid, int status, long got)
{
	put_str(what);
	put_str(got == pid ? " status " : " wait4 failed ");
	put_hex(got == pid ? (unsigned long)status : (unsigned long)got);
	put_str("\n");
}

/* Forks a child that runs fn, then waits for it and reports its status. */
static void child_case(const char *what, void (*fn)(void))
{
	long pid = sys0(NR_fork);
	int status = -1;

	if (pid == 0) {
		fn();
		exit_group(99); /* not reached */
	}
	report(what, pid, status, sys4(NR_wait4, pid, &status, 0, 0));
}

static void exit_42(void)
{
	exit_group(42);
}

static void segfault(void)
{
	volatile long addr = 8;
	*(volatile int *)addr = 1;
}

static void exec_hello_fail(void)
{
	char *argv[] = { "hello", "fail", 0 };
	sys3(NR_execve, "/tests/hello", argv, 0);
}

static void exec_missing(void)
{
	char *argv[] = { "nope", 0 };
	exit_group(-sys3(NR_execve, "/tests/nope", argv, 0)); /* 2: ENOENT */
}

static void write_shared(void)
{
	shared = 2; /* the parent's copy must not change */
	exit_group(shared);
}

static void check_parent(void)
{
	long ppid = sys0(NR_getppid);
	exit_group(ppid == shared ? 0 : 1);
}

int main(int argc, char **argv, char **envp)
{
	long me = sys0(NR_getpid), pid;
	int status = -1;
	struct {
		long sec, nsec;
	} ts = { 0, 50000000 };

	child_case("exit(42)", exit_42);
	child_case("segfault", segfault);
	child_case("exec hello fail", exec_hello_fail);
	child_case("exec missing", exec_missing);
	child_case("write shared", write_shared);
	put_str(shared == 1 ? "parent memory untouched\n" : "parent memory changed\n");
	shared = me; /* the child compares its getppid() with this */
	child_case("getppid", check_parent);

	pid = sys0(NR_fork);
	if (pid == 0) {
		sys2(NR_nanosleep, &ts, 0);
		exit_group(7);
	}
	put_str(sys4(NR_wait4, pid, &status, 1, 0) == 0 ? "WNOHANG: still running\n"
							: "WNOHANG: wrong\n");
	report("sleeper", pid, status, sys4(NR_wait4, -1, &status, 0, 0));
	put_str(sys4(NR_wait4, -1, &status, 0, 0) == -10 ? "no children left: ECHILD\n"
							 : "children left\n");
	return 0;
}
