/* Spinlocks: a test-and-set word; the _irqsave forms also keep this CPU's interrupts away. */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include "lib/types.h"
#include "arch/x86/cpu.h"
#include "kernel/percpu.h"
#include "kernel/locking/lockdep.h"

typedef struct {
	volatile u32 locked;
	struct lockdep_map dep_map; /* the validator's (kernel/locking/lockdep.c), if built in */
} spinlock_t;

/* A lock in a static variable: the validator keys it by its own address. */
#define SPINLOCK_INIT                                                                              \
	{                                                                                          \
		.locked = 0                                                                        \
	}
#define DEFINE_SPINLOCK(x)                                                                         \
	spinlock_t x = { .locked = 0, .dep_map = LOCKDEP_MAP_INIT(#x, LD_WAIT_SPIN) }

/*
 * A lock in memory allocated at run time: every lock set up here is one class for the validator,
 * as Linux's spin_lock_init() (the static key below is made once per place in the code).
 */
#ifdef CONFIG_LOCKDEP
#define spin_lock_init(l)                                                                          \
	do {                                                                                       \
		static struct lock_class_key __key;                                                \
		(l)->locked = 0;                                                                   \
		lockdep_init_map(&(l)->dep_map, #l, &__key, LD_WAIT_SPIN);                         \
	} while (0)
#else
#define spin_lock_init(l) ((l)->locked = 0)
#endif

/* One instruction on this CPU's count: an interrupt between it and the lock word nests cleanly. */
static __always_inline void spinlocks_held_add(int n)
{
	__asm__ volatile("addl %0, %%gs:%c1"
			 :
			 : "ri"(n), "i"(__builtin_offsetof(struct percpu, spinlocks_held))
			 : "memory", "cc");
}

/* The lock word alone, which the validator never sees (the validator's own lock is one). */
static __always_inline bool arch_spin_trylock(volatile u32 *word)
{
	return !__atomic_exchange_n(word, 1, __ATOMIC_ACQUIRE);
}

static __always_inline bool spin_trylock(spinlock_t *l)
{
	if (!arch_spin_trylock(&l->locked))
		return false;
	spinlocks_held_add(1);
	lock_acquire(&l->dep_map, 0, 1, _THIS_IP_);
	return true;
}

/* Told to the validator before the wait: a lock order that can deadlock is reported, not hung on. */
static __always_inline void spin_lock_nested(spinlock_t *l, unsigned int subclass)
{
	lock_acquire(&l->dep_map, subclass, 0, _THIS_IP_);
	/* Spin on a plain read so waiting CPUs do not fight over the cache line. */
	while (!arch_spin_trylock(&l->locked))
		while (READ_ONCE(l->locked))
			cpu_relax();
	spinlocks_held_add(1);
}

static __always_inline void spin_lock(spinlock_t *l)
{
	spin_lock_nested(l, 0);
}

static __always_inline void spin_unlock(spinlock_t *l)
{
	lock_release(&l->dep_map, _THIS_IP_);
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
