/* The spin lock entry points, out of line and traceable under Linux's names (kernel/spinlock.h). */
#include "kernel/spinlock.h"

/*
 * Built with -pg like any traced file: each has its fentry site, so `*pin*lock` and `*try*lock`
 * match in set_ftrace_filter. The ip given to the validator is our caller's, so its reports name
 * the code that took the lock, not this file. The _irq forms turn interrupts off before the lock
 * and back on after the unlock through local_irq_*(), whose hooks tell the latency tracers that a
 * section with interrupts off starts or ends here, as Linux's irqsoff names _raw_spin_lock_irqsave.
 */

bool _raw_spin_trylock(spinlock_t *l)
{
	return __raw_spin_trylock(l, _RET_IP_);
}

void _raw_spin_lock(spinlock_t *l)
{
	__raw_spin_lock(l, 0, _RET_IP_);
}

/* Linux has it only with the validator; ours is always here, the subclass then unused. */
void _raw_spin_lock_nested(spinlock_t *l, unsigned int subclass)
{
	__raw_spin_lock(l, subclass, _RET_IP_);
}

void _raw_spin_unlock(spinlock_t *l)
{
	__raw_spin_unlock(l, _RET_IP_);
}

unsigned long _raw_spin_lock_irqsave(spinlock_t *l)
{
	unsigned long flags = local_irq_save();

	__raw_spin_lock(l, 0, _RET_IP_);
	return flags;
}

void _raw_spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
	__raw_spin_unlock(l, _RET_IP_);
	local_irq_restore(flags);
}

void _raw_spin_lock_irq(spinlock_t *l)
{
	local_irq_disable();
	__raw_spin_lock(l, 0, _RET_IP_);
}

void _raw_spin_unlock_irq(spinlock_t *l)
{
	__raw_spin_unlock(l, _RET_IP_);
	local_irq_enable();
}
