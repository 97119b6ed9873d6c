/* Deciding when an allocation fails on purpose: Linux's should_fail() and the task's fail-nth. */
#include "kernel/fault_inject.h"
#include "kernel/percpu.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"

#define FAULT_ATTR_INIT(n)                                                                         \
	{                                                                                          \
		.name = n, .interval = 1, .times = 1, .verbose = 2, .seed = 1, .rand = 1,          \
		.lock = SPINLOCK_INIT                                                              \
	}

/* Linux's defaults: probability 0 (off), interval 1, times 1, verbose 2. */
struct fault_attr failslab = FAULT_ATTR_INIT("failslab");
struct fault_attr fail_page_alloc = FAULT_ATTR_INIT("fail_page_alloc");
struct fault_attr fail_execmem = FAULT_ATTR_INIT("fail_execmem");

/*
 * xorshift64*: the same seed gives the same sequence of failures on every run, on every machine,
 * whatever the clock says (Linux draws from get_random_u32(), which a test cannot replay).
 */
static unsigned long draw_percent(struct fault_attr *attr)
{
	u64 x = attr->rand ? attr->rand : 1;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	attr->rand = x;
	return (unsigned long)((x * 0x2545f4914f6cdd1dULL) >> 33) % 100;
}

/* times: as it was when the failure was decided (Linux prints it before counting it down). */
static void fail_dump(struct fault_attr *attr, long times, unsigned long caller)
{
	if (!attr->verbose)
		return;
	pr_notice("FAULT_INJECTION: forcing a failure.\n"
		  "name %s, interval %lu, probability %lu, space %ld, times %ld\n",
		  attr->name, attr->interval, attr->probability, attr->space, times);
	if (attr->verbose > 1)
		pr_notice("caller %pS pid %d\n", (void *)caller, current ? current->pid : -1);
}

/*
 * fail-nth belongs to the task that armed it and counts only what that task asks for itself:
 * not an interrupt that happens to arrive while it runs (Linux's in_task()).
 */
static bool fail_nth_fires(bool *armed)
{
	struct percpu *c = this_cpu();
	struct task *t = c->curr;
	unsigned int n;

	*armed = false;
	if (!t || c->irq_depth || c->nmi_depth)
		return false;
	n = READ_ONCE(t->fail_nth);
	if (!n)
		return false;
	*armed = true;
	WRITE_ONCE(t->fail_nth, n - 1);
	return n == 1;
}

/* The fault_attr knobs, under the attr's lock (interrupts and other CPUs allocate too). */
static bool attr_fires(struct fault_attr *attr, size_t size, long *times)
{
	bool fail = false;
	unsigned long flags;

	if (!READ_ONCE(attr->probability) || !READ_ONCE(attr->times))
		return false;
	flags = spin_lock_irqsave(&attr->lock);
	if (!attr->times)
		goto out;
	if (attr->space > (long)size) {
		attr->space -= size;
		goto out;
	}
	if (attr->interval > 1 && ++attr->count % attr->interval)
		goto out;
	if (draw_percent(attr) >= attr->probability)
		goto out;
	*times = attr->times;
	if (attr->times > 0)
		attr->times--;
	fail = true;
out:
	spin_unlock_irqrestore(&attr->lock, flags);
	return fail;
}

bool should_fail(struct fault_attr *attr, size_t size, unsigned long caller)
{
	long times = READ_ONCE(attr->times);
	bool armed, fail = fail_nth_fires(&armed);

	if (!armed)
		fail = attr_fires(attr, size, &times);
	if (fail) {
		__atomic_fetch_add(&attr->injected, 1, __ATOMIC_RELAXED);
		fail_dump(attr, times, caller);
	}
	return fail;
}
