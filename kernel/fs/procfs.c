/* /proc: version, cmdline, uptime, meminfo, and the one tunable sys/kernel/printk, in Linux's formats. */
#include "kernel/fs/procfs.h"
#include "arch/x86/paging.h"
#include "kernel/fs/tracefs.h"
#include "kernel/kallsyms.h"
#include "kernel/locking/lockdep.h"
#include "kernel/mm/mm.h"
#include "kernel/multiboot.h"
#include "kernel/printk/printk.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/string.h"

const char linux_banner[] = "ftrace-os version " FTRACE_OS_VERSION " (" FTRACE_OS_BUILDER
			    ") (gcc " __VERSION__ ") #1 SMP\n";

/* /proc/version's format, under Linux's name: the sysname, release and version of uname(2) go
 * round the build's fixed words, and a probe can read the format itself (`@linux_proc_banner`). */
const char linux_proc_banner[] = "%s version %s (" FTRACE_OS_BUILDER ") (gcc " __VERSION__ ") %s\n";

static int version_show(struct seq_file *m, struct fnode *f)
{
	(void)f;
	seq_printf(m, linux_proc_banner, "ftrace-os", FTRACE_OS_VERSION, "#1 SMP");
	return 0;
}

static int cmdline_show(struct seq_file *m, struct fnode *f)
{
	(void)f;
	seq_printf(m, "%s\n", boot_info.cmdline);
	return 0;
}

static int uptime_show(struct seq_file *m, struct fnode *f)
{
	u64 cs = ktime_get_ns() / 10000000ULL; /* hundredths, as Linux prints */
	(void)f;
	seq_printf(m, "%llu.%02llu 0.00\n", cs / 100, cs % 100);
	return 0;
}

static void meminfo_line(struct seq_file *m, const char *label, u64 kb)
{
	seq_printf(m, "%-16s%8llu kB\n", label, kb);
}

static u64 kb_of(enum page_user user)
{
	return pages_used_by(user) * (PAGE_SIZE / 1024);
}

/*
 * Linux's lines first (Slab is the pages kmalloc holds, as Linux counts its slab caches; the bytes
 * its objects use are in /proc/slabinfo), then ours: every frame in use is in exactly one line
 * from Slab on, so MemTotal - MemFree is their sum.
 */
int meminfo_show(struct seq_file *m, struct fnode *f)
{
	(void)f;
	meminfo_line(m, "MemTotal:", pages_total() * (PAGE_SIZE / 1024));
	meminfo_line(m, "MemFree:", pages_free() * (PAGE_SIZE / 1024));
	meminfo_line(m, "KernelImage:", ((unsigned long)_end - (unsigned long)_text) / 1024);
	meminfo_line(m, "Slab:", kb_of(PAGE_USER_SLAB));
	meminfo_line(m, "SUnreclaim:", kb_of(PAGE_USER_SLAB));
	meminfo_line(m, "KernelStack:", kb_of(PAGE_USER_STACK));
	meminfo_line(m, "PageTables:", kb_of(PAGE_USER_PAGETABLE));
	meminfo_line(m, "Execmem:", kb_of(PAGE_USER_EXECMEM));
	meminfo_line(m, "TraceBuffers:", kb_of(PAGE_USER_TRACE));
	meminfo_line(m, "FtraceRecords:", kb_of(PAGE_USER_FTRACE));
	meminfo_line(m, "Shmem:", kb_of(PAGE_USER_SHMEM));
	meminfo_line(m, "Reserved:", kb_of(PAGE_USER_RESERVED));
	meminfo_line(m, "OtherPages:", kb_of(PAGE_USER_OTHER));
	return 0;
}

/* Every symbol in address order, as Linux prints them to root (addresses not hidden). */
static int kallsyms_show(struct seq_file *m, struct fnode *f)
{
	for (unsigned long i = 0; i < kallsyms_count(); i++) {
		unsigned long addr;
		const char *name = kallsyms_name_at(i, &addr);
		seq_printf(m, "%016lx %c %s\n", addr, kallsyms_type_at(i), name);
	}
	return 0;
}

static int printk_show(struct seq_file *m, struct fnode *f)
{
	(void)f;
	seq_printf(m, "%d\t%d\t%d\t%d\n", console_loglevel, default_message_loglevel,
		   minimum_console_loglevel, default_console_loglevel);
	return 0;
}

/* Up to four levels, each 0..7, whitespace separated; all are checked before any is set. */
static int printk_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	int *targets[4] = { &console_loglevel, &default_message_loglevel, &minimum_console_loglevel,
			    &default_console_loglevel };
	int vals[4], n = 0;
	char tmp[64], *p = tmp, *tok;

	(void)f;
	(void)flags;
	if (len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	while ((tok = strsep(&p, " \t\n")) != NULL) {
		unsigned long v;
		if (!*tok)
			continue;
		if (n == 4 || kstrtoul(tok, 10, &v) || v > 7)
			return -EINVAL;
		vals[n++] = v;
	}
	if (!n)
		return -EINVAL;
	for (int i = 0; i < n; i++)
		*targets[i] = vals[i];
	return 0;
}

static const struct tracefs_file proc_files[] = {
	TRACEFS_FILE("/proc/version", version_show, NULL),
	TRACEFS_FILE("/proc/cmdline", cmdline_show, NULL),
	TRACEFS_FILE("/proc/uptime", uptime_show, NULL),
	TRACEFS_FILE("/proc/meminfo", meminfo_show, NULL),
	TRACEFS_FILE("/proc/kallsyms", kallsyms_show, NULL),
	TRACEFS_FILE("/proc/sys/kernel/printk", printk_show, printk_write),
};

void procfs_init(void)
{
	if (tracefs_create_files(NULL, proc_files, ARRAY_SIZE(proc_files)))
		return;
	slabinfo_init();
	proc_pid_init();
	proc_base_init();
#ifdef CONFIG_LOCKDEP
	lockdep_proc_init();
#endif
}
