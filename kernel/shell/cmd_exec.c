/*
 * Running a program from the kernel shell: a command word with a slash in it is a path, as in any
 * Unix shell (`/bin/busybox echo hi`, `./prog` from the right directory). The program runs in the
 * foreground, its fds 0-2 on the console, while the shell waits; Ctrl-C sends it SIGINT.
 */
#include "kernel/shell/shell.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/signal.h"
#include "kernel/sys.h"
#include "lib/errno.h"
#include "lib/string.h"

#define WNOHANG 1

/* What bash prints when a foreground job dies of a signal (SIGINT and SIGPIPE: nothing). */
static const char *signal_message(int sig)
{
	switch (sig) {
	case SIGQUIT:
		return "Quit";
	case SIGILL:
		return "Illegal instruction";
	case SIGTRAP:
		return "Trace/breakpoint trap";
	case SIGABRT:
		return "Aborted";
	case SIGBUS:
		return "Bus error";
	case SIGFPE:
		return "Floating point exception";
	case SIGKILL:
		return "Killed";
	case SIGSEGV:
		return "Segmentation fault";
	case SIGTERM:
		return "Terminated";
	default:
		return NULL;
	}
}

/* Runs argv[0] with argv and waits: the shell's status, the exit code or 128 + the signal. */
int shell_run_program(int argc, char **argv)
{
	int pid = user_process_start(argv[0], (const char *const *)argv, shell_cwd), status;
	const char *msg;

	if (pid < 0) {
		cprintf("%s: %s\n", argv[0], strerror(pid));
		return 126;
	}
	while (kernel_wait4(pid, &status, WNOHANG) != pid) {
		if (shell_interrupted()) {
			struct task *t = find_task(pid);
			if (t)
				send_sig(SIGINT, t);
		}
		msleep(10);
	}
	if ((status & 0x7f) == 0)
		return (status >> 8) & 0xff;
	if ((msg = signal_message(status & 0x7f)))
		cprintf("%s\n", msg);
	return 128 + (status & 0x7f);
}
