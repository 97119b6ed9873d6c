/* What ftrace_ops.c (registration) and ftrace_update.c (the sites follow) share, and nobody else. */
#ifndef KERNEL_TRACE_FTRACE_INTERNAL_H
#define KERNEL_TRACE_FTRACE_INTERNAL_H

#include "kernel/trace/ftrace.h"
#include "kernel/locking/mutex.h"

/* Every registered ops, newest first; changed only under ftrace_lock, read by callbacks lock-free. */
extern struct ftrace_ops *ftrace_ops_list;
/* One update at a time: whoever changes which ops are live, or what they want. */
extern struct mutex ftrace_lock;

/* Recounts every record from the live ops and patches the sites that differ. Under ftrace_lock. */
int ftrace_update(void);
/* Opens ftrace_patch_batch (-EBUSY: the patcher's observer holds a batch), then takes ftrace_lock
 * and makes ftrace_update_seq odd; the unlock undoes all three. */
int ftrace_lock_update(void);
void ftrace_unlock_update(void);

#endif
