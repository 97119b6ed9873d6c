/* The control files of kprobes, as Linux's debugfs has them:
 *
 *   /sys/kernel/debug/kprobes/list        every probe: address, k or r, symbol+offset, [state]
 *   /sys/kernel/debug/kprobes/enabled     1, or 0: every probe disarmed, all still registered
 *   /sys/kernel/debug/kprobes/blacklist   the functions no probe may enter, one range a line
 *   /proc/sys/debug/kprobes-optimization  1, or 0: every site stays (or goes back to) an int3
 */
#include "kernel/kprobes_internal.h"
#include "kernel/fs/tracefs.h"
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/trace/ftrace.h"
#include "lib/ctype.h"
#include "lib/errno.h"
#include "lib/string.h"

static int list_show(struct seq_file *m, struct fnode *f)
{
	kprobes_list_show(m);
	return 0;
}

static int enabled_show(struct seq_file *m, struct fnode *f)
{
	seq_printf(m, "%d\n", !kprobes_all_disarmed);
	return 0;
}

/*
 * The words Linux's kstrtobool() takes, which is what its write_enabled_file_bool() reads: the
 * first character decides (1 y t yes, 0 n f no, either case), two for "on" and "off". Kept here:
 * a general kstrtobool() in lib/ is exercise 16.4's to write.
 */
static int enabled_word(const char *s, bool *on)
{
	char c = tolower(s[0]), c2 = c ? tolower(s[1]) : 0;

	if (c == 'o' && (c2 == 'n' || c2 == 'f')) {
		*on = c2 == 'n';
		return 0;
	}
	if (s[0] && strchr("1yt", c)) {
		*on = true;
		return 0;
	}
	if (s[0] && strchr("0nf", c)) {
		*on = false;
		return 0;
	}
	return -EINVAL;
}

/* Linux's write_enabled_file_bool(): the same answer twice changes nothing. */
static int enabled_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char text[16];
	bool on;

	if (fs_write_text(text, sizeof(text), buf, len) || enabled_word(text, &on))
		return -EINVAL;
	if (on == !kprobes_all_disarmed)
		return 0;
	if (on) {
		int err = arm_all_kprobes();

		pr_info("kprobes: Kprobes globally enabled\n");
		return err;
	}
	disarm_all_kprobes();
	pr_info("kprobes: Kprobes globally disabled\n");
	return 0;
}

/*
 * Linux lists its NOKPROBE_SYMBOL functions and kprobes-free sections. Our rule is one: a
 * function without an fentry site (notrace: the tracer, the patcher, the entry path, lib/,
 * kprobes itself) is refused by register_kprobe(), so those are the list, in address order.
 */
static int blacklist_show(struct seq_file *m, struct fnode *f)
{
	for (unsigned long i = 0; i < kallsyms_count(); i++) {
		unsigned long addr, size, off;
		char type = kallsyms_type_at(i);

		kallsyms_name_at(i, &addr);
		if ((type != 't' && type != 'T') || !is_kernel_text(addr) ||
		    !kallsyms_lookup(addr, &size, &off) || off || !size || ftrace_lookup_ip(addr))
			continue;
		seq_printf(m, "0x%016lx-0x%016lx\t%ps\n", addr, addr + size, (void *)addr);
	}
	return 0;
}

#define D "/sys/kernel/debug/kprobes/"
static const struct tracefs_ulong optimization = { .value = &kprobes_optimization,
						   .max = 1,
						   .set = kprobes_optimization_set };
static const struct tracefs_file kprobes_files[] = {
	TRACEFS_FILE(D "list", list_show, NULL),
	TRACEFS_FILE(D "enabled", enabled_show, enabled_write),
	TRACEFS_FILE(D "blacklist", blacklist_show, NULL),
	TRACEFS_ULONG("/proc/sys/debug/kprobes-optimization", &optimization),
};

void kprobes_files_init(void)
{
	tracefs_create_files(NULL, kprobes_files, ARRAY_SIZE(kprobes_files));
}
