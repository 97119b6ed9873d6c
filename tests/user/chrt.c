/* chrt: util-linux's command line for a task's scheduling class (Debian's busybox-static lacks it).
 *
 *   chrt [-f|-r|-o|-b|-i|-d] [-R] [-T ns -D ns -P ns] PRIO CMD [ARG...]   run CMD in that class
 *   chrt [policy options] -p PRIO PID                                     change a running task
 *   chrt -p PID                                                           show its class
 *   chrt -m                                                               each policy's priorities
 *
 * As util-linux's: the default policy is SCHED_RR, -d goes through sched_setattr(2), -R sets
 * SCHED_RESET_ON_FORK; errors are printed and exit 1.
 */
#include "ulib.h"
#include "sched_attr.h"

enum { NR_sched_setscheduler = 144, NR_sched_getscheduler = 145, NR_sched_getparam = 143,
       NR_sched_get_priority_max = 146, NR_sched_get_priority_min = 147,
       NR_sched_setattr = 314 };

static const char *const names[] = { "SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_BATCH",
				     "SCHED_ISO",   "SCHED_IDLE", "SCHED_DEADLINE" };

static int fail(const char *what, long err)
{
	puts_fd(2, "chrt: ");
	puts_fd(2, what);
	if (err) {
		puts_fd(2, ": errno ");
		put_num(-err);
	}
	puts_fd(2, "\n");
	return 1;
}

static int show(long pid)
{
	long pol = sys1(NR_sched_getscheduler, pid);
	int prio = 0;

	if (pol < 0 || sys2(NR_sched_getparam, pid, &prio) < 0)
		return fail("failed to get pid's policy", pol < 0 ? pol : 0);
	put_str("pid ");
	put_num(pid);
	put_str("'s current scheduling policy: ");
	put_str(names[pol & 7]);
	if (pol & 0x40000000)
		put_str("|SCHED_RESET_ON_FORK");
	put_str("\npid ");
	put_num(pid);
	put_str("'s current scheduling priority: ");
	put_num(prio);
	put_str("\n");
	return 0;
}

static int show_limits(void)
{
	static const int pols[] = { 0, 1, 2, 3, 5, 6 };

	for (int i = 0; i < 6; i++) {
		put_str(names[pols[i]]);
		put_str(" min/max priority\t: ");
		put_num(sys1(NR_sched_get_priority_min, pols[i]));
		put_str("/");
		put_num(sys1(NR_sched_get_priority_max, pols[i]));
		put_str("\n");
	}
	return 0;
}

/* execvp's search, over the directories the initramfs has. */
static void exec_cmd(char **argv, char **envp)
{
	static const char *const dirs[] = { "/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/", "/tests/" };
	char path[256];

	for (const char *p = argv[0]; *p; p++)
		if (*p == '/') {
			sys3(NR_execve, argv[0], argv, envp);
			return;
		}
	for (int i = 0; i < 5; i++) {
		size_t d = strlen(dirs[i]), n = strlen(argv[0]);
		if (d + n >= sizeof(path))
			continue;
		memcpy(path, dirs[i], d);
		memcpy(path + d, argv[0], n + 1);
		sys3(NR_execve, path, argv, envp);
	}
}

int main(int argc, char **argv, char **envp)
{
	struct sched_attr a = { .size = sizeof(a), .sched_policy = 2 };
	int i = 1, pid_mode = 0;
	long err, pid = 0;

	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "-f") || !strcmp(o, "--fifo"))
			a.sched_policy = 1;
		else if (!strcmp(o, "-r") || !strcmp(o, "--rr"))
			a.sched_policy = 2;
		else if (!strcmp(o, "-o") || !strcmp(o, "--other"))
			a.sched_policy = 0;
		else if (!strcmp(o, "-b") || !strcmp(o, "--batch"))
			a.sched_policy = 3;
		else if (!strcmp(o, "-i") || !strcmp(o, "--idle"))
			a.sched_policy = 5;
		else if (!strcmp(o, "-d") || !strcmp(o, "--deadline"))
			a.sched_policy = 6;
		else if (!strcmp(o, "-R") || !strcmp(o, "--reset-on-fork"))
			a.sched_flags |= 1;
		else if (!strcmp(o, "-p") || !strcmp(o, "--pid"))
			pid_mode = 1;
		else if (!strcmp(o, "-m") || !strcmp(o, "--max"))
			return show_limits();
		else if ((!strcmp(o, "-T") || !strcmp(o, "--sched-runtime")) && i + 1 < argc)
			a.sched_runtime = atol(argv[++i]);
		else if ((!strcmp(o, "-D") || !strcmp(o, "--sched-deadline")) && i + 1 < argc)
			a.sched_deadline = atol(argv[++i]);
		else if ((!strcmp(o, "-P") || !strcmp(o, "--sched-period")) && i + 1 < argc)
			a.sched_period = atol(argv[++i]);
		else
			return fail("unknown option", 0);
	}
	if (pid_mode && argc - i == 1)
		return show(atol(argv[i]));
	if (argc - i < 2)
		return fail("usage: chrt [options] PRIO CMD [ARG...] | -p [PRIO] PID", 0);
	a.sched_priority = atol(argv[i++]);
	if (pid_mode)
		pid = atol(argv[i]);
	if (a.sched_policy == 6 || a.sched_flags)
		err = sys3(NR_sched_setattr, pid, &a, 0);
	else
		err = sys3(NR_sched_setscheduler, pid, a.sched_policy, &a.sched_priority);
	if (err < 0)
		return fail("failed to set pid's policy", err);
	if (pid_mode)
		return 0;
	exec_cmd(argv + i, envp);
	return fail("failed to execute", 0);
}
