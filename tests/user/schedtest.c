/* schedtest: the scheduling system calls with good and bad arguments, Linux's errnos, and that a
 * refused call changes nothing (tests/integration/test_sched.py runs it as root). */
#include "ulib.h"
#include "sched_attr.h"

enum { NR_setparam = 142, NR_getparam = 143, NR_setscheduler = 144, NR_getscheduler = 145,
       NR_prio_max = 146, NR_prio_min = 147, NR_rr_interval = 148, NR_setaffinity = 203,
       NR_getaffinity = 204, NR_setattr = 314, NR_getattr = 315 };
enum { EPERM = 1, ESRCH = 3, E2BIG = 7, EFAULT = 14, EBUSY = 16, EINVAL = 22, EOPNOTSUPP = 95 };

#define BAD ((void *)0xffff800000001000UL) /* a kernel address: EFAULT, never a read */

static void state_is(const char *name, long policy, long prio)
{
	int p = -1;

	check(name, sys1(NR_getscheduler, 0), policy);
	sys2(NR_getparam, 0, &p);
	check(name, p, prio);
}

static void limits(void)
{
	check("max FIFO", sys1(NR_prio_max, 1), 99);
	check("min RR", sys1(NR_prio_min, 2), 1);
	check("max NORMAL", sys1(NR_prio_max, 0), 0);
	check("max DEADLINE", sys1(NR_prio_max, 6), 0);
	check("max bad policy", sys1(NR_prio_max, 4), -EINVAL);
	check("min bad policy", sys1(NR_prio_min, -1), -EINVAL);
}

static void setscheduler(void)
{
	int prio = 5;
	long ts[2] = { -1, -1 };

	check("setscheduler FIFO 5", sys3(NR_setscheduler, 0, 1, &prio), 0);
	state_is("now FIFO 5", 1, 5);
	check("rr_interval FIFO", sys2(NR_rr_interval, 0, ts), 0);
	check("FIFO slice 0", ts[0] * 1000000000L + ts[1], 0);
	prio = 100;
	check("prio 100", sys3(NR_setscheduler, 0, 1, &prio), -EINVAL);
	prio = 0;
	check("FIFO prio 0", sys3(NR_setscheduler, 0, 1, &prio), -EINVAL);
	prio = 3;
	check("NORMAL prio 3", sys3(NR_setscheduler, 0, 0, &prio), -EINVAL);
	check("policy 4", sys3(NR_setscheduler, 0, 4, &prio), -EINVAL);
	check("policy -1", sys3(NR_setscheduler, 0, -1, &prio), -EINVAL);
	check("NULL param", sys3(NR_setscheduler, 0, 1, 0), -EINVAL);
	check("bad param", sys3(NR_setscheduler, 0, 1, BAD), -EFAULT);
	check("pid -1", sys3(NR_setscheduler, -1, 1, &prio), -EINVAL);
	check("no such pid", sys3(NR_setscheduler, 99999, 1, &prio), -ESRCH);
	state_is("still FIFO 5", 1, 5);
	prio = 7;
	check("setparam 7", sys2(NR_setparam, 0, &prio), 0);
	state_is("now FIFO 7", 1, 7);
	prio = 0;
	check("setparam 0 on FIFO", sys2(NR_setparam, 0, &prio), -EINVAL);
	check("getparam bad", sys2(NR_getparam, 0, BAD), -EFAULT);
	check("getparam NULL", sys2(NR_getparam, 0, 0), -EINVAL);
	check("getscheduler -1", sys1(NR_getscheduler, -1), -EINVAL);
	prio = 20;
	check("RR 20", sys3(NR_setscheduler, 0, 2, &prio), 0);
	check("rr_interval RR", sys2(NR_rr_interval, 0, ts), 0);
	check("RR slice 100 ms", ts[0] * 1000000000L + ts[1], 100000000);
	check("rr_interval bad", sys2(NR_rr_interval, 0, BAD), -EFAULT);
	prio = 0;
	check("back to NORMAL", sys3(NR_setscheduler, 0, 0x40000000, &prio), 0);
	check("reset-on-fork shown", sys1(NR_getscheduler, 0), 0x40000000);
	check("NORMAL again", sys3(NR_setscheduler, 0, 0, &prio), 0);
	state_is("NORMAL 0", 0, 0);
}

static void setattr(void)
{
	struct sched_attr a = { .size = sizeof(a), .sched_policy = 6, .sched_runtime = 2000000,
				.sched_deadline = 10000000, .sched_period = 10000000 };
	unsigned char big[80];
	struct sched_attr *b = (void *)big;

	check("setattr DEADLINE 2/10 ms", sys3(NR_setattr, 0, &a, 0), 0);
	memset(&a, 0xff, sizeof(a));
	check("getattr", sys4(NR_getattr, 0, &a, sizeof(a), 0), 0);
	check("getattr size", a.size, sizeof(a));
	check("getattr policy", a.sched_policy, 6);
	check("getattr runtime", a.sched_runtime, 2000000);
	check("getattr period", a.sched_period, 10000000);
	check("getscheduler DEADLINE", sys1(NR_getscheduler, 0), 6);
	check("getattr flags", sys4(NR_getattr, 0, &a, sizeof(a), 1), -EINVAL);
	check("getattr small", sys4(NR_getattr, 0, &a, 40, 0), -EINVAL);
	check("getattr bad", sys4(NR_getattr, 0, BAD, sizeof(a), 0), -EFAULT);

	a = (struct sched_attr){ .size = sizeof(a), .sched_policy = 6, .sched_runtime = 20000000,
				 .sched_deadline = 10000000, .sched_period = 10000000 };
	check("runtime > deadline", sys3(NR_setattr, 0, &a, 0), -EINVAL);
	a.sched_runtime = 500;
	check("runtime < 1024 ns", sys3(NR_setattr, 0, &a, 0), -EINVAL);
	a.sched_runtime = 9900000;
	a.sched_period = 10000000;
	a.sched_deadline = 10000000;
	check("99% refused by admission", sys3(NR_setattr, 0, &a, 0), -EBUSY);
	a.sched_period = 50000;
	a.sched_deadline = a.sched_runtime = 40000;
	check("period under 100 us", sys3(NR_setattr, 0, &a, 0), -EINVAL);
	a = (struct sched_attr){ .size = 30, .sched_policy = 1, .sched_priority = 5 };
	check("size 30: E2BIG", sys3(NR_setattr, 0, &a, 0), -E2BIG);
	check("size written back", a.size, sizeof(a));
	memset(big, 0, sizeof(big));
	*b = (struct sched_attr){ .size = sizeof(big), .sched_policy = 1, .sched_priority = 5 };
	big[70] = 1;
	check("unknown tail nonzero: E2BIG", sys3(NR_setattr, 0, b, 0), -E2BIG);
	check("size written back again", b->size, sizeof(a));
	a = (struct sched_attr){ .size = sizeof(a), .sched_policy = 1, .sched_priority = 5,
				 .sched_flags = 0x20 };
	check("util clamp", sys3(NR_setattr, 0, &a, 0), -EOPNOTSUPP);
	check("setattr flags arg", sys3(NR_setattr, 0, &a, 1), -EINVAL);
	check("setattr bad ptr", sys3(NR_setattr, 0, BAD, 0), -EFAULT);
	check("setattr NULL", sys3(NR_setattr, 0, 0, 0), -EINVAL);
	check("still DEADLINE", sys1(NR_getscheduler, 0), 6);
	a = (struct sched_attr){ .size = sizeof(a), .sched_policy = 0 };
	check("back to NORMAL", sys3(NR_setattr, 0, &a, 0), 0);
	check("NORMAL", sys1(NR_getscheduler, 0), 0);
}

static void affinity(void)
{
	unsigned long m = 0, one, got = 0, none = 0;

	check("getaffinity", sys3(NR_getaffinity, 0, sizeof(m), &m), sizeof(m));
	check("some CPU", m != 0, 1);
	/* Down to one CPU and back: what getaffinity reads is what setaffinity wrote. */
	one = m & -m;
	check("setaffinity one", sys3(NR_setaffinity, 0, sizeof(one), &one), 0);
	check("getaffinity one", sys3(NR_getaffinity, 0, sizeof(got), &got), sizeof(got));
	check("that CPU", got == one, 1);
	check("setaffinity none", sys3(NR_setaffinity, 0, sizeof(none), &none), -EINVAL);
	check("setaffinity same", sys3(NR_setaffinity, 0, sizeof(m), &m), 0);
	check("getaffinity len 4", sys3(NR_getaffinity, 0, 4, &m), -EINVAL);
	check("getaffinity bad", sys3(NR_getaffinity, 0, sizeof(m), BAD), -EFAULT);
	check("setaffinity bad", sys3(NR_setaffinity, 0, sizeof(m), BAD), -EFAULT);
}

int main(int argc, char **argv, char **envp)
{
	limits();
	setscheduler();
	setattr();
	affinity();
	return check_summary();
}
