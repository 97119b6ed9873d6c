/* fprobe (kernel/trace/fprobe.c): handlers at the entry and the exit of many functions at once. */
#ifndef KERNEL_TRACE_FPROBE_H
#define KERNEL_TRACE_FPROBE_H

#include "kernel/kprobes.h"
#include "kernel/trace/ftrace.h"

#define FPROBE_FL_DISABLED 1U /* registered, handlers not called (Linux's fprobe.h) */

/*
 * Linux 6.1's struct fprobe: ops is an ftrace_ops on every function the filter names, rethook
 * the return hook (ours: a kretprobe's instance pool with no kprobe). entry_handler runs at a
 * function's entry with its registers (regs->sp at the return address); exit_handler at its
 * return (regs->ax the return value), both told the function's entry address. nmissed counts
 * the calls whose handlers did not run: recursion, or no free return-hook instance.
 */
struct fprobe {
	struct ftrace_ops ops;
	unsigned long nmissed;
	unsigned int flags;
	struct kretprobe rethook;
	void (*entry_handler)(struct fprobe *fp, unsigned long entry_ip, struct pt_regs *regs);
	void (*exit_handler)(struct fprobe *fp, unsigned long entry_ip, struct pt_regs *regs);
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
