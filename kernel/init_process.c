/*
 * init= on the kernel command line (Linux: init/main.c, kernel_init()): the named program runs as
 * the first process, on the console, in place of the kernel shell; `make run INIT=/bin/sh` gives
 * busybox's shell. Unlike Linux, which leaves init without a controlling terminal (busybox's
 * cttyhack or getty gives one), it leads a session that owns the console, so job control and
 * Ctrl-C work at once. Its end is Linux's panic: nothing is left to run.
 */
#include "kernel/init_process.h"
#include "kernel/fs/fs.h"
#include "kernel/multiboot.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/signal.h"
#include "kernel/sys.h"
#include "lib/errno.h"
#include "lib/string.h"

static char init_path[128];

const char *init_from_cmdline(void)
{
	const char *p = boot_info.cmdline;

	while ((p = strstr(p, "init=")) != NULL) {
		if (p == boot_info.cmdline || p[-1] == ' ') {
			size_t n = 0;
			p += 5;
			while (p[n] && p[n] != ' ' && n < sizeof(init_path) - 1)
				n++;
			memcpy(init_path, p, n);
			init_path[n] = '\0';
			return n ? init_path : NULL;
		}
		p += 5;
	}
	return NULL;
}

void run_init_process(const char *path)
{
	const char *argv[] = { path, NULL };
	int status, pid;

	pr_info("Run %s as init process\n", path);
	pid = user_process_start(path, argv, fs_root());
	if (pid < 0)
		panic("Requested init %s failed (error %d).", path, pid);
	while (kernel_wait4(pid, &status, 0) != pid)
		;
	panic("Attempted to kill init! exitcode=0x%08x", status);
}
