/* Spinlocks: a test-and-set word; the _irqsave forms also keep this CPU's interrupts away. */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include "lib/types.h"
#include "arch/x86/cpu.h"
#include "kernel/percpu.h"

typedef struct {
	volatile u32 locked;
} spinlock_t;

#define SPINLOCK_INIT                                                                              \
	{                                                                                          \
		0                                                                                  \
	}
#define DEFINE_SPINLOCK(x) spinlock_t x = SPINLOCK_INIT

/* One instruction on this CPU's count: an interrupt between it and the lock word nests cleanly. */
static __always_inline void spinlocks_held_add(int n)
{
	__asm__ volatile("addl %0, %%gs:%c1"
			 :
			 : "ri"(n), "i"(__builtin_offsetof(struct percpu, spinlocks_held))
			 : "memory", "cc");
}

static __always_inline bool spin_trylock(spinlock_t *l)
{
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		return false;
	spinlocks_held_add(1);
	return true;
}

static __always_inline void spin_lock(spinlock_t *l)
{
	/* Spin on a plain read so waiting CPUs do not fight over the cache line. */
	while (!spin_trylock(l))
		while (READ_ONCE(l->locked))
			cpu_relax();
}

static __always_inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	spinlocks_held_add(-1);
}

static __always_inline unsigned long spin_lock_irqsave(spinlock_t *l)
{
	unsigned long flags = local_irq_save();
	spin_lock(l);
	return flags;
}

static __always_inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
	spin_unlock(l);
	local_irq_restore(flags);
}

#endif
