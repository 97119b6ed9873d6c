/*
 * cyclictest LOOPS INTERVAL_US: a stand-in for the rt-tests program of that name, as small as a
 * wakeup-latency lab needs. It sleeps INTERVAL_US microseconds LOOPS times, so the scheduler wakes
 * it (sched_waking) and switches to it (sched_switch) once per loop, under the comm "cyclictest"
 * that Linux's histogram.rst recipes filter on. It measures nothing itself: the hist triggers do.
 */
#include "ulib.h"

int main(int argc, char **argv, char **envp)
{
	long loops = argc > 1 ? atol(argv[1]) : 10, us = argc > 2 ? atol(argv[2]) : 1000;
	struct {
		long sec, nsec;
	} ts = { us / 1000000, us % 1000000 * 1000 };

	for (long i = 0; i < loops; i++)
		if (sys2(NR_nanosleep, (long)&ts, 0) < 0)
			return 1;
	put_str("cyclictest: ");
	put_num(loops);
	put_str(" wakeups\n");
	return 0;
}
