/* tracee: a program whose system calls and functions the tracing tests know in advance.
 *
 *   tracee                 write(1, "tracee\n", 7), getppid(), a known failing close(), then
 *                          uprobe_target() three times; exits 0 if their sum is right
 *   tracee fork N          N children, each exec'ing /tests/hello; waits for all
 */
#include "ulib.h"

/* Out of line, with known arguments (rdi, rsi) and result (rax): a place for probes on user code
 * (uprobes are not built yet; the exit status checks the sum). */
__attribute__((noinline, used)) long uprobe_target(long a, const char *s)
{
	__asm__ volatile("" ::: "memory");
	return a + (long)strlen(s);
}

static long atol_(const char *s)
{
	long v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + *s++ - '0';
	return v;
}

static int forks(long n)
{
	static char *const argv[] = { "/tests/hello", 0 };
	int status;

	for (long i = 0; i < n; i++)
		if (sys0(NR_fork) == 0) {
			sys3(NR_execve, argv[0], argv, 0);
			exit_group(127);
		}
	for (long i = 0; i < n; i++)
		sys4(NR_wait4, -1, &status, 0, 0);
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	long sum = 0;

	if (argc > 2 && !strcmp(argv[1], "fork"))
		return forks(atol_(argv[2]));
	if (argc > 1)
		return 0;
	sys3(NR_write, 1, "tracee\n", 7);
	sys0(NR_getppid);
	sys1(NR_close, 1000); /* -EBADF: 0xfffffffffffffff7 in sys_exit_close */
	for (int i = 1; i <= 3; i++)
		sum += uprobe_target(i * 10, "probe me");
	return sum == 84 ? 0 : 1;
}
