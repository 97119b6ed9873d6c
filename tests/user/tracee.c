/* tracee: a program whose system calls and functions the tracing tests know in advance.
 *
 *   tracee                 write(1, "tracee\n", 7), getppid(), a known failing close(), then
 *                          uprobe_target() three times; exits 0
 *   tracee loop N          getppid() N times, between two rdtsc: "BENCH getppid n=N tsc=T"
 *                          (under -icount, T / N is guest instructions per call)
 *   tracee uloop N         the same loop calling getppid through loop_function() (a uprobe site)
 *   tracee fork N          N children, each exec'ing /tests/hello; waits for all
 */
#include "ulib.h"

#define NR_getppid_call 110

/* Kept out of line and in a fixed shape so a uprobe on its first byte sees the arguments in
 * rdi and rsi and a uretprobe sees the sum in rax. */
__attribute__((noinline, used)) long uprobe_target(long a, const char *s)
{
	__asm__ volatile("" ::: "memory");
	return a + (long)strlen(s);
}

__attribute__((noinline, used)) long loop_function(void)
{
	return sys0(NR_getppid_call);
}

static unsigned long rdtsc(void)
{
	unsigned int lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((unsigned long)hi << 32) | lo;
}

static long atol_(const char *s)
{
	long v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + *s++ - '0';
	return v;
}

static void bench(long n, int through_function)
{
	unsigned long t0, t1;

	t0 = rdtsc();
	if (through_function)
		for (long i = 0; i < n; i++)
			loop_function();
	else
		for (long i = 0; i < n; i++)
			sys0(NR_getppid_call);
	t1 = rdtsc();
	put_str("BENCH getppid n=");
	put_num(n);
	put_str(" tsc=");
	put_num(t1 - t0);
	put_str("\n");
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

	if (argc > 2 && !strcmp(argv[1], "loop"))
		bench(atol_(argv[2]), 0);
	else if (argc > 2 && !strcmp(argv[1], "uloop"))
		bench(atol_(argv[2]), 1);
	else if (argc > 2 && !strcmp(argv[1], "fork"))
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
