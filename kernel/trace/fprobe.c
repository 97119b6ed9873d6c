/* fprobe: "a simplified probe interface built on ftrace" (Linux's words): one registration
 * puts an entry handler, and an exit handler if wanted, on any number of functions.
 *
 *   register_fprobe(&fp, "compute_*", NULL)
 *      fp.ops: an ftrace_ops (SAVE_REGS) filtered on compute_*: every site calls fprobe_handler()
 *      fp.rethook: a pool of return-hook instances (2 per CPU per function, as Linux sizes it)
 *
 *   a call of compute_square      fprobe_handler(ip, parent, ops, regs):  recursion guard, the
 *                                 return address on the stack swapped for kretprobe_trampoline,
 *                                 ip kept in the instance; entry_handler(fp, ip, regs, data)
 *   its return                    the trampoline: exit_handler(fp, ip, regs, data), back to
 *                                 the caller (data: the instance's entry_data_size bytes)
 *
 * Why the kretprobe pool and not function_graph's shadow stack: our fgraph has one user (the
 * function_graph tracer, fgraph.c's graph_ops), and giving it several means a per-entry record of
 * which users hooked a call and a shadow stack shared between them (Linux 6.9's fgraph rework);
 * the kretprobe pool already is what Linux's rethook was cut out of (a per-task list of return
 * hooks, the trampoline, the flush at task exit), so an fprobe only needs its entry half. The
 * cost: one instance per open call, taken from a fixed pool (a full pool is counted in nmissed).
 *
 * Linux: kernel/trace/fprobe.c (fprobe_handler(), fprobe_exit_handler(), fprobe_init_rethook(),
 * register_fprobe(), register_fprobe_ips(), register_fprobe_syms(), unregister_fprobe()),
 * kernel/trace/rethook.c; samples/fprobe/fprobe_example.c (ours: the fprobe self-tests).
 */
#include "kernel/trace/fprobe.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/kallsyms.h"
#include "kernel/smp.h"
#include "lib/errno.h"
#include "lib/string.h"

/* What a return hook remembers of its call: the function's entry address, whether the entry
 * handler asked for no exit handler, and the entry handler's data for the exit handler. */
struct fprobe_rethook_node {
	unsigned long entry_ip;
	bool skip;
	unsigned long data[];
};

static void fprobe_handler(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *ops,
			   struct pt_regs *regs)
{
	struct fprobe *fp = container_of(ops, struct fprobe, ops);
	struct fprobe_rethook_node *node = NULL;
	struct kretprobe_instance *ri;
	unsigned long flags;
	int bit, ret = 0;

	if (!regs || fprobe_disabled(fp))
		return;
	bit = ftrace_test_recursion_trylock();
	if (bit < 0) {
		__atomic_add_fetch(&fp->nmissed, 1, __ATOMIC_RELAXED);
		return;
	}
	if (fp->exit_handler) {
		/* Off: the instance goes on this task's list, which an interrupt must see whole. */
		flags = local_irq_save();
		ri = kretprobe_hook_return(&fp->rethook, regs);
		local_irq_restore(flags);
		if (!ri) { /* as Linux: no return hook, neither handler */
			__atomic_add_fetch(&fp->nmissed, 1, __ATOMIC_RELAXED);
			goto out;
		}
		node = (struct fprobe_rethook_node *)ri->data;
		node->entry_ip = ip;
		node->skip = false;
	}
	if (fp->entry_handler)
		ret = fp->entry_handler(fp, ip, regs,
					node && fp->entry_data_size ? node->data : NULL);
	/* Hooked already (Linux hooks after the handler): the return passes by, unseen. */
	if (node && ret)
		node->skip = true;
out:
	ftrace_test_recursion_unlock(bit);
}

/* The trampoline's handler: the function returned, regs->ax is its value. */
static int fprobe_exit_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct fprobe_rethook_node *node = (struct fprobe_rethook_node *)ri->data;
	struct kretprobe *rh = get_kretprobe(ri);
	struct fprobe *fp;

	if (!rh || node->skip)
		return 0;
	fp = container_of(rh, struct fprobe, rethook);
	if (!fprobe_disabled(fp))
		fp->exit_handler(fp, node->entry_ip, regs, fp->entry_data_size ? node->data : NULL);
	return 0;
}

/* The ops is filtered already: the return hook's pool, then the ops goes live. */
static int fprobe_register(struct fprobe *fp, int nr_funcs)
{
	int ret;

	fp->nmissed = 0;
	if (fp->exit_handler) {
		memset(&fp->rethook, 0, sizeof(fp->rethook));
		/* Linux's fprobe_init_rethook(): two open calls per CPU per function */
		fp->rethook.maxactive = MIN(nr_funcs * 2 * num_online_cpus(), 4096);
		fp->rethook.handler = fprobe_exit_handler;
		fp->rethook.data_size = sizeof(struct fprobe_rethook_node) + fp->entry_data_size;
		ret = kretprobe_alloc_pool(&fp->rethook);
		if (ret)
			return ret;
	}
	ret = register_ftrace_function(&fp->ops);
	if (ret)
		kretprobe_release_pool(&fp->rethook);
	return ret;
}

static void fprobe_init_ops(struct fprobe *fp)
{
	fp->ops.func = fprobe_handler;
	fp->ops.name = "fprobe";
	fp->ops.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_RECURSION;
}

int register_fprobe(struct fprobe *fp, const char *filter, const char *notfilter)
{
	int ret;

	if (!fp || !filter)
		return -EINVAL;
	fprobe_init_ops(fp);
	ret = ftrace_set_filter(&fp->ops, filter, true);
	if (!ret && !fp->ops.local_hash.filter_hash)
		ret = -EINVAL;
	if (!ret && notfilter)
		ret = ftrace_set_notrace(&fp->ops, notfilter, true);
	if (!ret && !fp->ops.local_hash.filter_hash->count)
		ret = -EINVAL; /* an empty filter would mean every function */
	if (ret)
		return ret;
	/* Linux sizes the pool by the functions the filter matched */
	return fprobe_register(fp, fp->ops.local_hash.filter_hash->count);
}

int register_fprobe_ips(struct fprobe *fp, unsigned long *addrs, int num)
{
	int ret = 0;

	if (!fp || !addrs || num <= 0)
		return -EINVAL;
	fprobe_init_ops(fp);
	for (int i = 0; i < num && !ret; i++)
		ret = ftrace_set_filter_ip(&fp->ops, addrs[i], false, i == 0);
	return ret ? ret : fprobe_register(fp, num);
}

int register_fprobe_syms(struct fprobe *fp, const char **syms, int num)
{
	unsigned long addrs[64];

	if (!fp || !syms || num <= 0 || num > (int)ARRAY_SIZE(addrs))
		return -EINVAL;
	for (int i = 0; i < num; i++) {
		addrs[i] = kallsyms_lookup_name(syms[i]);
		if (!addrs[i])
			return -ENOENT;
	}
	return register_fprobe_ips(fp, addrs, num);
}

int unregister_fprobe(struct fprobe *fp)
{
	int ret;

	if (!fp || !(fp->ops.flags & FTRACE_OPS_FL_ENABLED))
		return -EINVAL;
	ret = unregister_ftrace_function(&fp->ops); /* no entry handler runs after this */
	if (ret)
		return ret;
	if (fp->exit_handler)
		kretprobe_release_pool(&fp->rethook);
	/* Linux's ftrace_free_filter(): the ops is off every site and its callers are gone */
	free_ftrace_hash(fp->ops.local_hash.filter_hash);
	free_ftrace_hash(fp->ops.local_hash.notrace_hash);
	fp->ops.local_hash.filter_hash = fp->ops.local_hash.notrace_hash = NULL;
	return 0;
}
