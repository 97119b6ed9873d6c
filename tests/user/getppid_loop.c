/*
 * getppid_loop N REPS: N raw getppid() system calls in a loop, REPS times, each run's TSC ticks per
 * call printed. Booted under QEMU's -icount shift=0,sleep=off the guest TSC counts guest
 * instructions, so the figure is instructions per round trip (syscall, entry, handler, sysretq,
 * plus the loop's own few). The same binary runs unchanged on Linux, for the figure beside ours.
 */
#include "ulib.h"

static unsigned long rdtsc(void)
{
	unsigned int lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (unsigned long)hi << 32 | lo;
}

int main(int argc, char **argv, char **envp)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, reps = argc > 2 ? atol(argv[2]) : 5;

	if (n <= 0)
		n = 1;
	for (long r = 0; r < reps; r++) {
		unsigned long t0 = rdtsc(), t1, per1000;
		for (long i = 0; i < n; i++)
			sys0(NR_getppid);
		t1 = rdtsc();
		per1000 = (t1 - t0) * 1000 / n;
		put_str("getppid_loop run=");
		put_num(r);
		put_str(" n=");
		put_num(n);
		put_str(" tsc_per_call=");
		put_num(per1000 / 1000);
		put_str(".");
		put_str(per1000 % 1000 < 100 ? (per1000 % 1000 < 10 ? "00" : "0") : "");
		put_num(per1000 % 1000);
		put_str("\n");
	}
	return 0;
}
