/* Fault injection for the allocators: Linux's fault_attr knobs, and the per-task fail-nth count. */
#ifndef KERNEL_FAULT_INJECT_H
#define KERNEL_FAULT_INJECT_H

#include "lib/types.h"
#include "kernel/spinlock.h"

/*
 * One kind of call that can be made to fail (failslab, fail_page_alloc, fail_execmem), tuned
 * through /sys/kernel/debug/<name>/. A call fails when all of these agree, in this order:
 * times != 0, the first `space` bytes have gone by, this is the interval-th call, and the
 * PRNG (seeded by `seed`, so a run repeats) draws below `probability` percent.
 */
struct fault_attr {
	const char *name;
	unsigned long probability; /* percent, 0 = never */
	unsigned long interval;	   /* only every interval-th call may fail */
	long times;		   /* failures left; -1 = no limit */
	long space;		   /* bytes let through before failing starts */
	unsigned long verbose;	   /* 0 quiet, 1 one line per failure, 2 also the caller */
	unsigned long count;	   /* calls seen while interval > 1 */
	u64 seed, rand;
	unsigned long injected; /* failures forced so far, by any means (shown as `injected`) */
	spinlock_t lock;
};

extern struct fault_attr failslab, fail_page_alloc, fail_execmem;

/*
 * Whether this call (asking for size bytes, from caller) must fail. Counts down the current
 * task's fail-nth first: while it is armed, only it decides, as in Linux.
 */
bool should_fail(struct fault_attr *attr, size_t size, unsigned long caller);

/* /sys/kernel/debug/{failslab,fail_page_alloc,fail_execmem}/ and /proc/self/fail-nth. */
void fault_inject_files_init(void);

#endif
