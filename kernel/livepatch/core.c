/* Live patching through ftrace: an ops with SAVE_REGS | IPMODIFY whose callback moves the saved ip.
 *
 *   P: call demo_greeting
 *        demo_greeting: call <ops trampoline>     (the fentry site, patched live)
 *                         klp_ftrace_handler: regs->ip = demo_greeting_fixed
 *                       ret  -> demo_greeting_fixed, with P's return address on the stack:
 *        demo_greeting_fixed runs instead, and returns straight to P
 *
 *   /sys/kernel/tracing/livepatch_enable   ours (Linux: /sys/kernel/livepatch/<patch>/enabled)
 *       echo PATCH > livepatch_enable       switch a patch on (`>>` too)
 *       echo '!PATCH' >> livepatch_enable   switch it off
 *       echo > livepatch_enable             switch every patch off
 *
 * Two patches replacing one function are two IPMODIFY ops on it: the second is refused (EBUSY).
 * Each call takes whichever version the site points to at that instant; Linux's per-task
 * consistency model (a task switches only at a safe point of its own) is not built here.
 */
#include "kernel/livepatch/livepatch.h"
#include "arch/x86/text_patch.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/tracefs.h"
#include "kernel/kallsyms.h"
#include "kernel/printk/printk.h"
#include "kernel/trace/ftrace.h"
#include "lib/errno.h"
#include "lib/string.h"

struct klp_patch {
	const char *name;     /* what is written to livepatch_enable */
	const char *old_name; /* the function replaced */
	const char *(*new_func)(void);
	const char *new_name;
	struct ftrace_ops ops;
	bool enabled;
};

static struct klp_patch patches[] = {
	{ .name = "demo_greeting",
	  .old_name = "demo_greeting",
	  .new_func = demo_greeting_fixed,
	  .new_name = "demo_greeting_fixed" },
	{ .name = "demo_greeting_shout",
	  .old_name = "demo_greeting",
	  .new_func = demo_greeting_shout,
	  .new_name = "demo_greeting_shout" },
};

/* Runs in the function's trampoline, before the function's first instruction after the site. */
static void klp_ftrace_handler(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			       struct pt_regs *regs)
{
	struct klp_patch *p = op->private;

	regs->ip = (unsigned long)p->new_func;
}

/* Why register_ftrace_function() said EBUSY, in words. */
static const char *klp_busy_reason(unsigned long ip)
{
	if (!ftrace_enabled)
		return "cannot be patched: ftrace is switched off (ftrace_enabled is 0)";
	if (ftrace_find_rec_direct(ip))
		return "has a direct call attached";
	return "is already modified by another ftrace ops (IPMODIFY)";
}

static int klp_enable_patch(struct klp_patch *p)
{
	unsigned long ip = kallsyms_lookup_name(p->old_name);
	int err;

	if (p->enabled)
		return 0;
	if (!ip || !ftrace_lookup_ip(ip))
		return -ENOENT;
	p->ops.name = p->name;
	p->ops.func = klp_ftrace_handler;
	p->ops.private = p;
	/* PERMANENT: as in Linux, ftrace_enabled cannot be switched off under a live patch. */
	p->ops.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_RECURSION |
		       FTRACE_OPS_FL_PERMANENT;
	err = ftrace_set_filter_ip(&p->ops, ip, false, true);
	if (!err) {
		err = register_ftrace_function(&p->ops);
		/* refused: hold no filter, as a disabled patch holds none (or, out of memory,
		 * the one ip, which the next enable replaces) */
		if (err && ftrace_set_filter_ip(&p->ops, ip, true, false))
			pr_warn("livepatch: %s: its filter keeps %s: no memory\n", p->name,
				p->old_name);
	}
	if (err == -EBUSY && !text_patch_busy()) /* not the patcher's refusal: say whose site */
		pr_err("livepatch: %s: %s %s\n", p->name, p->old_name, klp_busy_reason(ip));
	if (!err) {
		p->enabled = true;
		pr_info("livepatch: enabling patch '%s': %s -> %s\n", p->name, p->old_name,
			p->new_name);
	}
	return err;
}

static int klp_disable_patch(struct klp_patch *p)
{
	int err;

	if (!p->enabled)
		return 0;
	err = unregister_ftrace_function(&p->ops);
	if (!err) {
		/* Drop the one-function filter too (it is made again on enable): a disabled patch
		 * holds no memory, as Linux's klp_unpatch_func() frees its ops. */
		if (ftrace_set_filter_ip(&p->ops, kallsyms_lookup_name(p->old_name), true, false))
			pr_warn("livepatch: %s: its filter keeps %s: no memory\n", p->name,
				p->old_name);
		p->enabled = false;
		pr_info("livepatch: '%s': patch disabled\n", p->name);
	}
	return err;
}

static int livepatch_show(struct seq_file *m, struct fnode *f)
{
	seq_printf(m, "# %-20s %-16s %-22s %s\n", "patch", "function", "replacement", "state");
	for (size_t i = 0; i < ARRAY_SIZE(patches); i++)
		seq_printf(m, "  %-20s %-16s %-22s %s\n", patches[i].name, patches[i].old_name,
			   patches[i].new_name, patches[i].enabled ? "enabled" : "disabled");
	return 0;
}

static struct klp_patch *klp_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(patches); i++)
		if (!strcmp(patches[i].name, name))
			return &patches[i];
	return NULL;
}

static int livepatch_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char text[64];
	struct klp_patch *p;
	int err = 0;

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	if (!text[0]) {
		for (size_t i = 0; i < ARRAY_SIZE(patches) && !err; i++)
			err = klp_disable_patch(&patches[i]);
		return err;
	}
	p = klp_find(text[0] == '!' ? text + 1 : text);
	if (!p)
		return -EINVAL;
	return text[0] == '!' ? klp_disable_patch(p) : klp_enable_patch(p);
}

static const struct tracefs_file livepatch_file =
	TRACEFS_FILE("/sys/kernel/tracing/livepatch_enable", livepatch_show, livepatch_write);

void klp_init(void)
{
	tracefs_create_files(NULL, &livepatch_file, 1);
}
