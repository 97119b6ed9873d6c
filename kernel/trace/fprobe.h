/* fprobe (kernel/trace/fprobe.c): handlers at the entry and the exit of many functions at once. */
#ifndef KERNEL_TRACE_FPROBE_H
#define KERNEL_TRACE_FPROBE_H

#include "kernel/kprobes.h"
#include "kernel/trace/ftrace.h"

#define FPROBE_FL_DISABLED 1U /* registered, handlers not called (Linux's fprobe.h) */

/*
 * Linux's struct fprobe (its handlers as 6.4 has them): ops is an ftrace_ops on every function
 * the filter names, rethook the return hook (ours: a kretprobe's instance pool with no kprobe).
 * entry_handler runs at a function's entry with its registers (regs->sp at the return address);
 * exit_handler at its return (regs->ax the return value), both told the function's entry
 * address. With an exit handler, each call gets entry_data_size bytes (entry_data: NULL if 0)
 * that the entry handler fills and the exit handler of the same call reads; an entry handler
 * that returns nonzero asks for no exit handler on that call. nmissed counts the calls whose
 * handlers did not run: recursion, or no free return-hook instance (then neither runs).
 */
struct fprobe {
	struct ftrace_ops ops;
	unsigned long nmissed;
	unsigned int flags;
	size_t entry_data_size;
	struct kretprobe rethook;
	int (*entry_handler)(struct fprobe *fp, unsigned long entry_ip, struct pt_regs *regs,
			     void *entry_data);
	void (*exit_handler)(struct fprobe *fp, unsigned long entry_ip, struct pt_regs *regs,
			     void *entry_data);
};

/* On every function filter matches (a glob list, as set_ftrace_filter takes it), except those
 * notfilter matches (NULL: none). 0, -EINVAL (nothing matched, a bad glob), -EBUSY, -ENOMEM. */
int register_fprobe(struct fprobe *fp, const char *filter, const char *notfilter);
/* On num function entry addresses; -EINVAL if one is no ftrace site. */
int register_fprobe_ips(struct fprobe *fp, unsigned long *addrs, int num);
/* On num functions by name; -ENOENT if one is unknown. */
int register_fprobe_syms(struct fprobe *fp, const char **syms, int num);
/* No handler runs after it returns; calls still open return normally. May sleep. */
int unregister_fprobe(struct fprobe *fp);

static inline bool fprobe_disabled(const struct fprobe *fp)
{
	return fp->flags & FPROBE_FL_DISABLED;
}

#endif
