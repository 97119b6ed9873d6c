/* tracee: a program whose system calls and functions the tracing tests know in advance.
 *
 *   tracee                 write(1, "tracee\n", 7), getppid(), a known failing close(), then
 *                          uprobe_target() three times; exits 0 if their sum is right
 *   tracee fork N          N children, each exec'ing /tests/hello; waits for all
 *   tracee peek            prints the first byte of uprobe_target() as it reads in its own text
 *                          ("53", push %rbx; "cc" while a uprobe is on it)
 *   tracee loop N REPS     REPS runs of N calls of loop_function() (one getppid each), each run's
 *                          guest instructions per call as getppid_loop prints them (-icount)
 *   tracee enable FILE     forks a child that sleeps 200 ms; writes "1" to FILE (an event's enable),
 *                          then both call uprobe_target(7, "late") and peek: two processes that were
 *                          running before the probe was registered
 *   tracee sem [FILE]      writes "1" to FILE first if given; prints tracee_semaphore, and calls
 *                          uprobe_target(5, "sem") only if it is not 0, as a USDT probe site does
 *   tracee show FILE       calls uprobe_target(2, "show"), then copies FILE (a `trace`) to stdout:
 *                          read while the process lives, so sym-userobj finds its mappings
 */
#include "ulib.h"

/* Out of line, with known arguments (rdi, rsi) and result (rax): a place for probes on user code
 * (uprobes are not built yet; the exit status checks the sum). */
__attribute__((noinline, used)) long uprobe_target(long a, const char *s)
{
	__asm__ volatile("" ::: "memory");
	return a + (long)strlen(s);
}

/* A USDT semaphore: a uprobe defined with its file offset as `(REF_CTR_OFFSET)` counts itself in
 * here while it is installed in this process. In .probes, as <sys/sdt.h> puts them: file bytes in
 * the writable data segment, not .bss. */
__attribute__((section(".probes"), used)) volatile unsigned short tracee_semaphore = 0;

/* The loop's function, for a uprobe on its first instruction in the benchmark. */
__attribute__((noinline, used)) long loop_function(void)
{
	return sys0(NR_getppid);
}

static unsigned long rdtsc(void)
{
	unsigned int lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return (unsigned long)hi << 32 | lo;
}

static void loop(long n, long reps)
{
	for (long r = 0; r < reps; r++) {
		unsigned long t0 = rdtsc(), per1000;

		for (long i = 0; i < n; i++)
			loop_function();
		per1000 = (rdtsc() - t0) * 1000 / n;
		put_str("tracee loop run=");
		put_num(r);
		put_str(" n=");
		put_num(n);
		put_str(" tsc_per_call=");
		put_num(per1000 / 1000);
		put_str(per1000 % 1000 < 100 ? (per1000 % 1000 < 10 ? ".00" : ".0") : ".");
		put_num(per1000 % 1000);
		put_str("\n");
	}
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

static void peek(void)
{
	unsigned char b = *(volatile unsigned char *)uprobe_target;

	put_str("uprobe_target[0] = ");
	put_str((const char[]){ "0123456789abcdef"[b >> 4], "0123456789abcdef"[b & 15], '\n', 0 });
}

static int semaphore(const char *file)
{
	long fd = file ? sys3(NR_open, file, 1 /* O_WRONLY */, 0) : 0;
	unsigned short v;

	if (fd < 0 || (file && sys3(NR_write, fd, "1\n", 2) != 2))
		return 2;
	if (file)
		sys1(NR_close, fd);
	v = tracee_semaphore;
	put_str("tracee_semaphore = ");
	put_num(v);
	put_str("\n");
	if (v && uprobe_target(5, "sem") != 8)
		return 1;
	return 0;
}

static int enable_then_call(const char *file)
{
	static const long ts[2] = { 0, 200000000 };
	long child = sys0(NR_fork), fd;
	int status = 0;

	if (child == 0) {
		sys2(NR_nanosleep, ts, 0);
		peek();
		exit_group(uprobe_target(7, "late") == 11 ? 0 : 1);
	}
	fd = sys3(NR_open, file, 1 /* O_WRONLY */, 0);
	if (fd < 0 || sys3(NR_write, fd, "1\n", 2) != 2)
		return 2;
	sys1(NR_close, fd);
	peek();
	if (uprobe_target(7, "late") != 11)
		return 1;
	sys4(NR_wait4, child, &status, 0, 0);
	return status >> 8;
}

static int call_then_show(const char *file)
{
	char buf[512];
	long fd, n;

	if (uprobe_target(2, "show") != 6 || (fd = sys3(NR_open, file, 0 /* O_RDONLY */, 0)) < 0)
		return 1;
	while ((n = sys3(NR_read, fd, buf, sizeof(buf))) > 0)
		sys3(NR_write, 1, buf, n);
	sys1(NR_close, fd);
	return n < 0;
}

int main(int argc, char **argv, char **envp)
{
	long sum = 0;

	if (argc > 2 && !strcmp(argv[1], "fork"))
		return forks(atol(argv[2]));
	if (argc > 3 && !strcmp(argv[1], "loop"))
		loop(atol(argv[2]) > 0 ? atol(argv[2]) : 1, atol(argv[3]));
	if (argc > 1 && !strcmp(argv[1], "peek"))
		peek();
	if (argc > 1 && !strcmp(argv[1], "sem"))
		return semaphore(argc > 2 ? argv[2] : 0);
	if (argc > 2 && !strcmp(argv[1], "show"))
		return call_then_show(argv[2]);
	if (argc > 2 && !strcmp(argv[1], "enable"))
		return enable_then_call(argv[2]);
	if (argc > 1)
		return 0;
	sys3(NR_write, 1, "tracee\n", 7);
	sys0(NR_getppid);
	sys1(NR_close, 1000); /* -EBADF: 0xfffffffffffffff7 in sys_exit_close */
	for (int i = 1; i <= 3; i++)
		sum += uprobe_target(i * 10, "probe me");
	return sum == 84 ? 0 : 1;
}
