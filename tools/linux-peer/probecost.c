// probecost.c: a Linux 6.1 module putting one probe with an empty handler on getppid()'s function, for docs/18's Linux column.
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>

static char *kind = "kprobe";
module_param(kind, charp, 0);
static unsigned int offset;
module_param(offset, uint, 0);

static int pre(struct kprobe *p, struct pt_regs *regs) { return 0; }
static int ret_h(struct kretprobe_instance *ri, struct pt_regs *regs) { return 0; }
static void f_entry(struct fprobe *fp, unsigned long ip, struct pt_regs *regs, void *d) { }
static void f_exit(struct fprobe *fp, unsigned long ip, struct pt_regs *regs, void *d) { }
static void ops_func(unsigned long ip, unsigned long pip, struct ftrace_ops *op, struct ftrace_regs *fr) { }

static struct kprobe kp = { .symbol_name = "__x64_sys_getppid", .pre_handler = pre };
static struct kretprobe rp = { .kp.symbol_name = "__x64_sys_getppid", .handler = ret_h };
static struct fprobe fp = { .entry_handler = f_entry };
static struct ftrace_ops ops = { .func = ops_func };
static char sym[] = "__do_sys_getppid";

static int __init pc_init(void)
{
	int err = -EINVAL;

	if (!strcmp(kind, "kprobe")) {
		kp.offset = offset;
		err = register_kprobe(&kp);
	} else if (!strcmp(kind, "kretprobe")) {
		err = register_kretprobe(&rp);
	} else if (!strcmp(kind, "fprobe") || !strcmp(kind, "fprobe2")) {
		const char *syms[] = { sym };
		if (kind[6])
			fp.exit_handler = f_exit;
		err = register_fprobe_syms(&fp, syms, 1);
	} else if (!strcmp(kind, "ops")) {
		err = ftrace_set_filter(&ops, sym, strlen(sym), 1);
		if (!err)
			err = register_ftrace_function(&ops);
	}
	pr_info("probecost: %s +%u: %d\n", kind, offset, err);
	return err;
}

static void __exit pc_exit(void)
{
	if (!strcmp(kind, "kprobe"))
		unregister_kprobe(&kp);
	else if (!strcmp(kind, "kretprobe"))
		unregister_kretprobe(&rp);
	else if (!strncmp(kind, "fprobe", 6))
		unregister_fprobe(&fp);
	else if (!strcmp(kind, "ops"))
		unregister_ftrace_function(&ops);
}

module_init(pc_init);
module_exit(pc_exit);
MODULE_LICENSE("GPL");
