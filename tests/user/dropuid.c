/*
 * dropuid: what a process that gives up root may no longer do, as on Linux: tracefs (kprobe_events,
 * trace, current_tracer, at both paths) is EACCES, taking root back or signalling root's process
 * EPERM, mount EPERM; ordinary files and programs still work. One check a line, "PASS n/m" last
 * (tests/integration/test_signals.py::test_permissions runs it).
 */
#include "ulib.h"

enum {
	NR_kill = 62,
	NR_setuid = 105,
	NR_setresuid = 117,
	NR_getresuid = 118,
	NR_setresgid = 119,
	NR_mount = 165,
};

#define O_RDONLY 0
#define O_WRONLY 1
#define EPERM 1
#define EACCES 13

static long open_close(const char *path, int flags)
{
	long fd = sys3(NR_open, path, flags, 0);
	if (fd >= 0)
		sys1(NR_close, fd);
	return fd >= 0 ? 0 : fd;
}

int main(int argc, char **argv, char **envp)
{
	unsigned int r = 1, e = 1, s = 1;
	long root_child, pid;
	int status = -1;
	char st[144];

	check("root: kprobe_events writable", open_close("/sys/kernel/tracing/kprobe_events", O_WRONLY), 0);
	if (!(root_child = sys0(NR_fork))) {
		long ts[2] = { 1, 0 };
		sys2(NR_nanosleep, ts, 0);
		exit_group(0);
	}
	check("setresgid 1000", sys3(NR_setresgid, 1000, 1000, 1000), 0);
	check("setresuid 1000", sys3(NR_setresuid, 1000, 1000, 1000), 0);
	sys3(NR_getresuid, &r, &e, &s);
	check("getresuid 1000 1000 1000", r == 1000 && e == 1000 && s == 1000, 1);
	check("getuid", sys0(NR_getuid), 1000);
	check("kprobe_events: EACCES", open_close("/sys/kernel/tracing/kprobe_events", O_WRONLY), -EACCES);
	check("trace: EACCES", open_close("/sys/kernel/tracing/trace", O_RDONLY), -EACCES);
	check("debug/tracing/current_tracer: EACCES",
	      open_close("/sys/kernel/debug/tracing/current_tracer", O_WRONLY), -EACCES);
	check("stat in tracefs: EACCES", sys2(NR_stat, "/sys/kernel/tracing/trace", st), -EACCES);
	check("tracefs not listable: EACCES", open_close("/sys/kernel/tracing", O_RDONLY), -EACCES);
	check("setuid(0): EPERM", sys1(NR_setuid, 0), -EPERM);
	check("setresuid(0,0,0): EPERM", sys3(NR_setresuid, 0, 0, 0), -EPERM);
	check("kill root's process: EPERM", sys2(NR_kill, root_child, 15), -EPERM);
	check("mount: EPERM",
	      sys6(NR_mount, "nodev", "/sys/kernel/tracing", "tracefs", 0, 0, 0), -EPERM);
	check("/proc/version still readable", open_close("/proc/version", O_RDONLY), 0);
	check("/dev/null still writable", open_close("/dev/null", O_WRONLY), 0);
	if (!(pid = sys0(NR_fork))) {
		char *av[] = { "/bin/true", 0 };
		sys3(NR_execve, av[0], av, envp);
		exit_group(99);
	}
	sys4(NR_wait4, pid, &status, 0, 0);
	check("exec as uid 1000", status, 0);
	sys4(NR_wait4, root_child, &status, 0, 0);
	check("root's child lived on", status, 0);
	return check_summary();
}
