/* Benchmarks of the locks: an uncontended lock and unlock, spinlock and mutex, with the lock
 * validator's hooks in them when it is built in (docs/26-lockdep.md; `make LOCKDEP=0` without). */
#include "kernel/bench/bench.h"
#include "kernel/locking/mutex.h"
#include "kernel/printk/printk.h"
#include "kernel/spinlock.h"

static DEFINE_SPINLOCK(bench_spinlock);
static DEFINE_MUTEX(bench_mutex);

#ifdef CONFIG_LOCKDEP
#define VALIDATOR "validator on"
#else
#define VALIDATOR "no validator"
#endif

notrace noinline int bench_spin_pair(int x)
{
	SAME_FRAME();
	spin_lock(&bench_spinlock);
	spin_unlock(&bench_spinlock);
	return x + 1;
}

notrace noinline int bench_mutex_pair(int x)
{
	SAME_FRAME();
	mutex_lock(&bench_mutex);
	mutex_unlock(&bench_mutex);
	return x + 1;
}

void bench_locking(u64 baseline)
{
	cprintf("\n");
	bench_row("spin_lock + spin_unlock (" VALIDATOR ")", bench_per_call(bench_spin_pair),
		  baseline);
	bench_row("mutex_lock + mutex_unlock (" VALIDATOR ")", bench_per_call(bench_mutex_pair),
		  baseline);
}
