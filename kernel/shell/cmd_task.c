/* Shell commands for tasks: ps, run (start a workload on some CPUs), kill. */
#include "kernel/shell/shell.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "kernel/work/workloads.h"
#include "lib/ctype.h"
#include "lib/errno.h"
#include "lib/string.h"

static const char state_char[] = { [TASK_RUNNING] = 'R', [TASK_SLEEPING] = 'S', [TASK_DEAD] = 'X' };

static void ps_line(struct task *t, void *arg)
{
	cprintf("%5d %3d %c %10llu %s\n", t->pid, t->cpu, state_char[t->state], t->switches,
		t->comm);
}

static int cmd_ps(int argc, char **argv)
{
	cprintf("%5s %3s %c %10s %s\n", "PID", "CPU", 'S', "SWITCHES", "COMMAND");
	for_each_task(ps_line, NULL);
	return 0;
}
SHELL_CMD(ps, cmd_ps, "list tasks: pid, CPU, state (R running/ready, S sleeping), switches, name");

/* "1,3", "0-2", "all" -> a bit per CPU; 0 if malformed or naming an offline CPU. */
static unsigned int parse_cpus(const char *s)
{
	unsigned int mask = 0;
	char buf[32], *p = buf, *tok;
	int cpu;

	if (!strcmp(s, "all")) {
		for_each_online_cpu(cpu)
			mask |= 1U << cpu;
		return mask;
	}
	if (strscpy(buf, s, sizeof(buf)) < 0)
		return 0;
	while ((tok = strsep(&p, ",")) != NULL) {
		unsigned int lo, hi;
		char *dash = strchr(tok, '-');
		if (dash)
			*dash = '\0';
		if (kstrtouint(tok, 10, &lo) ||
		    (dash ? kstrtouint(dash + 1, 10, &hi) : (hi = lo, 0)))
			return 0;
		for (unsigned int c = lo; c <= hi; c++) {
			if (!cpu_online(c))
				return 0;
			mask |= 1U << c;
		}
	}
	return mask;
}

static int cmd_run(int argc, char **argv)
{
	char names[64];
	const struct workload *w;
	unsigned int mask = 1U << (num_online_cpus() > 1 ? 1 : 0);
	unsigned long seconds = 0;

	workload_list(names, sizeof(names));
	if (argc < 2 || argc > 4) {
		cprintf("usage: run WORKLOAD [CPUS] [SECONDS]   workloads: %s; CPUS like 1,3 or "
			"1-3 or all\n",
			names);
		return 2;
	}
	w = workload_find(argv[1]);
	if (!w) {
		cprintf("run: %s: unknown workload (%s)\n", argv[1], names);
		return 1;
	}
	if (argc > 2 && !(mask = parse_cpus(argv[2]))) {
		cprintf("run: %s: bad CPU list (online CPUs: 0-%d)\n", argv[2],
			num_online_cpus() - 1);
		return 1;
	}
	if (argc > 3 && kstrtoul(argv[3], 10, &seconds)) {
		cprintf("run: %s: bad number of seconds\n", argv[3]);
		return 1;
	}
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (!(mask & (1U << cpu)))
			continue;
		int pid = workload_start(w, cpu, seconds);
		if (pid < 0) {
			cprintf("run: %s on CPU %d: %s\n", w->name, cpu, strerror(pid));
			return 1;
		}
		cprintf("[%d] %s on CPU %d\n", pid, w->name, cpu);
	}
	return 0;
}
SHELL_CMD(run, cmd_run,
	  "run WORKLOAD [CPUS] [SECONDS]: start workload threads (see /proc/workloads)");

static int cmd_kill(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		cprintf("usage: kill PID...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		int pid;
		struct task *t;
		if (kstrtoint(argv[i], 10, &pid) || pid <= 0) {
			cprintf("kill: %s: arguments must be process ids\n", argv[i]);
			status = 1;
			continue;
		}
		t = find_task(pid);
		if (!t) {
			cprintf("kill: (%d) - No such process\n", pid);
			status = 1;
		} else if (t == current) {
			cprintf("kill: (%d) - Operation not permitted\n", pid);
			status = 1;
		} else {
			kthread_stop(pid);
		}
	}
	return status;
}
SHELL_CMD(kill, cmd_kill, "kill PID...: ask tasks to stop");
