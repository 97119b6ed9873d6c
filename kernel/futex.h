/* Futexes: sleeping on a user word until another thread wakes it (kernel/futex.c). */
#ifndef KERNEL_FUTEX_H
#define KERNEL_FUTEX_H

#include "lib/types.h"

struct mm_struct;

/* Wakes up to nr tasks waiting on uaddr in mm (nr <= 0: one, as Linux): how many it woke. The
 * exit of a CLONE_CHILD_CLEARTID thread calls it for its tid word (pthread_join's wait). */
int futex_wake(struct mm_struct *mm, unsigned long uaddr, int nr, u32 bitset);

/* The task leaves mm (exit, or execve's new program): the robust futexes it still holds are
 * marked FUTEX_OWNER_DIED, a waiter of each woken (set_robust_list's list), then its
 * clear_child_tid word is zeroed and a waiter woken (Linux's mm_release()). mm must be the
 * running one. */
struct task;
void mm_release(struct task *t, struct mm_struct *mm);

#define FUTEX_BITSET_MATCH_ANY 0xffffffffu

#endif
