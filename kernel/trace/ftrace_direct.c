/* Direct calls: a call site that calls a custom trampoline straight, the way BPF trampolines attach.
 *
 *   alone on a site:      F: call direct_count_tramp         (FTRACE_FL_DIRECT_EN, no ftrace code)
 *   sharing it with ops:  F: call ftrace_regs_caller -> list -> other ops, call_direct_funcs
 *                         call_direct_funcs sets regs->orig_ax; ftrace_regs_caller then leaves
 *                         by `ret` into the direct trampoline, with the stack as the site left it
 *
 *   /sys/kernel/tracing/direct_count    ours: attach arch/x86/lab/direct_count.asm to one function
 */
#include "kernel/trace/ftrace.h"
#include "kernel/trace/ftrace_internal.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/tracefs.h"
#include "kernel/kallsyms.h"
#include "kernel/locking/mutex.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/spinlock.h"
#include "lib/errno.h"
#include "lib/string.h"

/* What the site would call if it were alone: ftrace_regs_caller leaves to it after the others. */
static void call_direct_funcs(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			      struct pt_regs *regs)
{
	if (regs)
		regs->orig_ax = op->direct_call;
}

int register_ftrace_direct(struct ftrace_ops *ops, unsigned long addr)
{
	if (ops->flags & FTRACE_OPS_FL_ENABLED)
		return -EBUSY;
	if (!addr || !ops->func_hash || ftrace_hash_empty(ops->func_hash->filter_hash))
		return -EINVAL; /* a direct call names its functions: never "all of them" */
	ops->func = call_direct_funcs;
	ops->direct_call = addr;
	ops->flags |= FTRACE_OPS_FL_DIRECT | FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_RECURSION;
	return register_ftrace_function(ops);
}

/* After it returns, no CPU is inside addr through ops: the caller may free it. Sleeps. */
int unregister_ftrace_direct(struct ftrace_ops *ops, unsigned long addr)
{
	int err;

	if (!(ops->flags & FTRACE_OPS_FL_DIRECT) || ops->direct_call != addr)
		return -EINVAL;
	err = unregister_ftrace_function(ops);
	if (!err)
		synchronize_rcu_tasks();
	return err;
}

/*
 * Points ops's sites at addr instead (Linux's modify_ftrace_direct()): each site goes from one
 * call to the other in one patch, so no call is missed meanwhile. The caller waits
 * (synchronize_rcu_tasks) before freeing the old code.
 */
int modify_ftrace_direct(struct ftrace_ops *ops, unsigned long addr)
{
	unsigned long old = ops->direct_call;
	int err;

	if (!addr || !(ops->flags & FTRACE_OPS_FL_DIRECT))
		return -EINVAL;
	err = ftrace_lock_update();
	if (err)
		return err;
	if (!(ops->flags & FTRACE_OPS_FL_ENABLED)) {
		err = -EINVAL;
	} else {
		WRITE_ONCE(ops->direct_call, addr);
		err = ftrace_update();
		if (err) { /* ftrace_bug said which site; the others go back */
			WRITE_ONCE(ops->direct_call, old);
			ftrace_update();
		}
	}
	ftrace_unlock_update();
	return err;
}

/* The demo: direct_count_tramp (NASM) counts the calls of one function. */
u64 direct_count_calls;
unsigned long direct_count_last_arg;
static struct ftrace_ops direct_count_ops = { .name = "direct_count" };
static unsigned long direct_count_ip; /* attached function, 0 if none */
static DEFINE_MUTEX(direct_lock);     /* one attach or detach at a time */

static int direct_count_show(struct seq_file *m, struct fnode *f)
{
	if (!direct_count_ip) {
		seq_puts(m, "# not attached: echo FUNCTION > direct_count\n");
		return 0;
	}
	seq_printf(m, "%ps calls=%llu last_arg=0x%lx via %ps\n", (void *)direct_count_ip,
		   READ_ONCE(direct_count_calls), READ_ONCE(direct_count_last_arg),
		   (void *)direct_count_ops.direct_call);
	return 0;
}

static int direct_count_attach(unsigned long ip)
{
	int err = ftrace_set_filter_ip(&direct_count_ops, ip, false, true);

	if (err)
		return err;
	WRITE_ONCE(direct_count_calls, 0);
	WRITE_ONCE(direct_count_last_arg, 0);
	err = register_ftrace_direct(&direct_count_ops, (unsigned long)direct_count_tramp);
	if (!err)
		direct_count_ip = ip;
	return err;
}

static int direct_count_detach(void)
{
	int err;

	if (!direct_count_ip)
		return 0;
	err = unregister_ftrace_direct(&direct_count_ops, (unsigned long)direct_count_tramp);
	if (!err) {
		/* Drop the one-function filter too (attach makes it again), as a disabled livepatch
		 * does: detached, the demo holds no memory. */
		if (ftrace_set_filter_ip(&direct_count_ops, direct_count_ip, true, false))
			pr_warn("direct_count: %ps stays in its unused filter: no memory\n",
				(void *)direct_count_ip);
		direct_count_ip = 0;
	}
	return err;
}

/* `echo FUNC > direct_count` attaches (moving it from where it was); an empty write detaches. */
static int direct_count_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char name[KSYM_NAME_LEN];
	unsigned long ip = 0, old;
	int err;

	if (fs_write_text(name, sizeof(name), buf, len))
		return -EINVAL;
	if (name[0]) {
		ip = kallsyms_lookup_name(name);
		if (!ip || !ftrace_lookup_ip(ip))
			return -EINVAL;
	}
	if (!mutex_trylock(&direct_lock))
		return -EBUSY;
	old = direct_count_ip;
	err = ip == old ? 0 : direct_count_detach();
	if (!err && ip && ip != old) {
		err = direct_count_attach(ip);
		if (err && old) /* refused (EBUSY: a livepatch owns it): put the old one back */
			direct_count_attach(old);
	}
	mutex_unlock(&direct_lock);
	return err;
}

static const struct tracefs_file direct_file =
	TRACEFS_FILE("/sys/kernel/tracing/direct_count", direct_count_show, direct_count_write);

void ftrace_direct_init(void)
{
	tracefs_create_files(NULL, &direct_file, 1);
}
