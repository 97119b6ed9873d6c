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

/*
 * The bodies, inline. ip is where the lock is taken, for the validator's reports: the caller's
 * own address, whether the body is inlined into it or runs in kernel/locking/spinlock.c.
 */
static __always_inline bool __raw_spin_trylock(spinlock_t *l, unsigned long ip)
{
	if (!arch_spin_trylock(&l->locked))
		return false;
	spinlocks_held_add(1);
	lock_acquire(&l->dep_map, 0, 1, ip);
	return true;
}

/* Told to the validator before the wait: a lock order that can deadlock is reported, not hung on. */
static __always_inline void __raw_spin_lock(spinlock_t *l, unsigned int subclass, unsigned long ip)
{
	lock_acquire(&l->dep_map, subclass, 0, ip);
	/* Spin on a plain read so waiting CPUs do not fight over the cache line. */
	while (!arch_spin_trylock(&l->locked))
		while (READ_ONCE(l->locked))
			cpu_relax();
	spinlocks_held_add(1);
}

static __always_inline void __raw_spin_unlock(spinlock_t *l, unsigned long ip)
{
	lock_release(&l->dep_map, ip);
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	spinlocks_held_add(-1);
}

/*
 * Everywhere but in the code that must never be traced, a lock is taken by a call, as in Linux:
 * kernel/locking/spinlock.c holds _raw_spin_lock() and the rest, traceable functions that
 * set_ftrace_filter can name, and the _irq forms there run the latency tracers' interrupt hooks.
 *
 * The files built with TRACE_IRQFLAGS_RAW (the Makefile's NOTRACE_SRCS: the tracers and the ring
 * buffer, the patcher, stop_machine, the trap entry, kprobes, the validator) keep the bodies
 * inline instead. There a call into a traced function would trace the tracer's own lock (a
 * recursion each callback would have to refuse at a cost on every call), or, in the int3 handler
 * and the patcher, run into the very site being patched. Linux gets the same from noinstr code,
 * arch_spinlock_t in the ring buffer and the recursion bits; ours keeps both: the callbacks'
 * recursion bits (kernel/trace/ftrace_ops.c) still guard whatever else they reach.
 */
#ifdef TRACE_IRQFLAGS_RAW
#define spin_trylock(l) __raw_spin_trylock(l, _THIS_IP_)
#define spin_lock_nested(l, subclass) __raw_spin_lock(l, subclass, _THIS_IP_)
#define spin_lock(l) __raw_spin_lock(l, 0, _THIS_IP_)
#define spin_unlock(l) __raw_spin_unlock(l, _THIS_IP_)

static __always_inline unsigned long spin_lock_irqsave(spinlock_t *l)
{
	unsigned long flags = local_irq_save();
	__raw_spin_lock(l, 0, _THIS_IP_);
	return flags;
}

static __always_inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
	__raw_spin_unlock(l, _THIS_IP_);
	local_irq_restore(flags);
}

static __always_inline void spin_lock_irq(spinlock_t *l)
{
	local_irq_disable();
	__raw_spin_lock(l, 0, _THIS_IP_);
}

static __always_inline void spin_unlock_irq(spinlock_t *l)
{
	__raw_spin_unlock(l, _THIS_IP_);
	local_irq_enable();
}
#else
bool _raw_spin_trylock(spinlock_t *l);
void _raw_spin_lock(spinlock_t *l);
void _raw_spin_lock_nested(spinlock_t *l, unsigned int subclass);
void _raw_spin_unlock(spinlock_t *l);
unsigned long _raw_spin_lock_irqsave(spinlock_t *l);
void _raw_spin_unlock_irqrestore(spinlock_t *l, unsigned long flags);
void _raw_spin_lock_irq(spinlock_t *l);
void _raw_spin_unlock_irq(spinlock_t *l);

#define spin_trylock(l) _raw_spin_trylock(l)
#define spin_lock_nested(l, subclass) _raw_spin_lock_nested(l, subclass)
#define spin_lock(l) _raw_spin_lock(l)
#define spin_unlock(l) _raw_spin_unlock(l)
#define spin_lock_irqsave(l) _raw_spin_lock_irqsave(l)
#define spin_unlock_irqrestore(l, flags) _raw_spin_unlock_irqrestore(l, flags)
#define spin_lock_irq(l) _raw_spin_lock_irq(l)
#define spin_unlock_irq(l) _raw_spin_unlock_irq(l)
#endif

#endif
