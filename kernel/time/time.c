/*
 * Time for programs: clock_gettime, gettimeofday, nanosleep (Linux: kernel/time/). Every clock
 * reads the TSC-based time since boot: there is no RTC reading, so CLOCK_REALTIME starts at the
 * epoch when the machine boots (a program sees 1970), which is said so in docs/17.
 */
#include "kernel/sched/sched.h"
#include "kernel/signal.h"
#include "kernel/syscalls.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID 3
#define CLOCK_MONOTONIC_RAW 4
#define CLOCK_REALTIME_COARSE 5
#define CLOCK_MONOTONIC_COARSE 6
#define CLOCK_BOOTTIME 7
#define TIMER_ABSTIME 0x1

struct timespec64 {
	s64 tv_sec;
	long tv_nsec;
};

struct timeval {
	s64 tv_sec;
	long tv_usec;
};

static bool clock_valid(int which)
{
	return which >= CLOCK_REALTIME && which <= CLOCK_BOOTTIME;
}

/* CPU-time clocks: the time since the task started (it is not charged per tick yet). */
static u64 clock_ns(int which)
{
	if (which == CLOCK_PROCESS_CPUTIME_ID || which == CLOCK_THREAD_CPUTIME_ID)
		return ktime_get_ns() - current->start_ns;
	return ktime_get_ns();
}

SYSCALL_DEFINE2(clock_gettime, int, which, struct timespec64 __user *, tp)
{
	u64 ns;
	struct timespec64 ts;

	if (!clock_valid(which))
		return -EINVAL;
	ns = clock_ns(which);
	ts.tv_sec = ns / NSEC_PER_SEC;
	ts.tv_nsec = ns % NSEC_PER_SEC;
	return copy_to_user(tp, &ts, sizeof(ts)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(gettimeofday, struct timeval __user *, tv, void __user *, tz)
{
	u64 ns = ktime_get_ns();
	struct timeval t = { ns / NSEC_PER_SEC, (ns % NSEC_PER_SEC) / 1000 };
	u32 zone[2] = { 0, 0 }; /* struct timezone: UTC, no DST */

	if (tv && copy_to_user(tv, &t, sizeof(t)))
		return -EFAULT;
	if (tz && copy_to_user(tz, zone, sizeof(zone)))
		return -EFAULT;
	return 0;
}

/* Sleeps until the clock reads `until` (ns): 0, or -ERESTARTNOHAND if a signal came first, with
 * the time left in *left: -EINTR for a handler, else the call again (from the start: Linux's
 * restart_block, which resumes with the time left, is not built). Whole ticks: msleep's. */
static long sleep_until(u64 until, u64 *left)
{
	while (ktime_get_ns() < until) {
		u64 ns = until - ktime_get_ns();
		if (fatal_signal_pending(current)) {
			*left = ns;
			return -ERESTARTNOHAND;
		}
		msleep_interruptible(ns / 1000000 ? ns / 1000000 : 1);
	}
	return 0;
}

static long do_nanosleep(int which, int flags, const struct timespec64 __user *rqtp,
			 struct timespec64 __user *rmtp)
{
	struct timespec64 t;
	u64 until, left = 0;
	long err;

	if (copy_from_user(&t, rqtp, sizeof(t)))
		return -EFAULT;
	if (t.tv_sec < 0 || t.tv_nsec < 0 || t.tv_nsec >= (long)NSEC_PER_SEC)
		return -EINVAL;
	if ((u64)t.tv_sec > 1000000000ULL * 100)
		t.tv_sec =
			1000000000LL * 100; /* a century is forever enough, and cannot overflow */
	until = t.tv_sec * NSEC_PER_SEC + t.tv_nsec;
	if (!(flags & TIMER_ABSTIME))
		until += clock_ns(which);
	err = sleep_until(until, &left);
	if (err && rmtp && !(flags & TIMER_ABSTIME)) {
		struct timespec64 r = { left / NSEC_PER_SEC, left % NSEC_PER_SEC };
		if (copy_to_user(rmtp, &r, sizeof(r)))
			return -EFAULT;
	}
	return err;
}

SYSCALL_DEFINE2(nanosleep, const struct timespec64 __user *, rqtp, struct timespec64 __user *, rmtp)
{
	return do_nanosleep(CLOCK_MONOTONIC, 0, rqtp, rmtp);
}

SYSCALL_DEFINE4(clock_nanosleep, int, which, int, flags, const struct timespec64 __user *, rqtp,
		struct timespec64 __user *, rmtp)
{
	if (!clock_valid(which) || which == CLOCK_THREAD_CPUTIME_ID)
		return -EINVAL;
	if (flags & ~TIMER_ABSTIME)
		return -EINVAL;
	return do_nanosleep(which, flags, rqtp, rmtp);
}
