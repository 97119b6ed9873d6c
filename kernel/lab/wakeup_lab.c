/* Wake-up latency of a chosen size, for the wakeup tracers' labs and tests (ours, not Linux's).
 *
 *   rtwake US   a SCHED_FIFO task (priority 50) on this CPU sleeps 1 ms; the shell holds the CPU
 *               with preemption off for US microseconds, the timer tick wakes the task inside that
 *               section, and it runs when preemption comes back on
 *   dlwake US   the same with a SCHED_DEADLINE task (runtime 2 ms, deadline and period 10 ms)
 *
 * The task's wait is the part of the section after the tick that woke it: wakeup_rt (wakeup_dl)
 * must report it, and sched_waking/sched_switch show the same two moments. Each prints how long
 * the CPU was really held, up to the task's run: the wait cannot be longer.
 */
#include "kernel/shell/shell.h"
#include "kernel/sched/sched.h"
#include "kernel/percpu.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/string.h"

#define WAKE_MAX_US 1000000

struct wake_lab {
	volatile bool asleep, done;
};

static void wake_sleeper(void *arg)
{
	struct wake_lab *lab = arg;

	WRITE_ONCE(lab->asleep, true);
	msleep(1);
	WRITE_ONCE(lab->done, true);
}

/*
 * noinline: the section the woken task waits behind starts and ends here. Returns how long the
 * CPU was held, up to the return from the switch the section's end allows: a bound on the wait
 * that holds however slowly QEMU runs.
 */
static noinline u64 wakeup_lab_hold_cpu(unsigned long us)
{
	u64 start = rdtsc();

	preempt_disable();
	while (tsc_to_ns(rdtsc() - start) < us * 1000)
		cpu_relax();
	preempt_enable_no_resched();
	cond_resched(); /* Linux's preempt_enable(): switch now if the woken task is waiting */
	return tsc_to_ns(rdtsc() - start) / 1000;
}

static int wake_cmd(int argc, char **argv, int policy)
{
	struct wake_lab lab = { 0 };
	unsigned long us;
	struct task *t;
	int err, pid;
	u64 held;

	if (argc != 2 || kstrtoul(argv[1], 10, &us) || us > WAKE_MAX_US) {
		cprintf("usage: %s US (at most %d)\n", argv[0], WAKE_MAX_US);
		return 2;
	}
	t = kthread_create(wake_sleeper, &lab, smp_processor_id(), argv[0]);
	if (!t) {
		cprintf("%s: out of memory\n", argv[0]);
		return 1;
	}
	pid = t->pid; /* t is freed once it has run to its end */
	if (policy == SCHED_FIFO)
		err = sched_setscheduler_nocheck(t, SCHED_FIFO, 50, 0, 0, 0);
	else
		err = sched_setscheduler_nocheck(t, SCHED_DEADLINE, 0, 2000000, 10000000, 10000000);
	while (!READ_ONCE(lab.asleep))
		yield();
	if (err)
		cprintf("%s: %s: class not set, the task runs as a normal one\n", argv[0],
			strerror(-err));
	held = wakeup_lab_hold_cpu(us);
	while (!READ_ONCE(lab.done))
		msleep(1);
	cprintf("%s %d woken behind preemption off for %lu us, its CPU held %llu us\n", argv[0],
		pid, us, held);
	return 0;
}

static int cmd_rtwake(int argc, char **argv)
{
	return wake_cmd(argc, argv, SCHED_FIFO);
}

static int cmd_dlwake(int argc, char **argv)
{
	return wake_cmd(argc, argv, SCHED_DEADLINE);
}

SHELL_CMD(rtwake, cmd_rtwake,
	  "rtwake US: wake a SCHED_FIFO task behind US microseconds of preemption off");
SHELL_CMD(dlwake, cmd_dlwake,
	  "dlwake US: wake a SCHED_DEADLINE task behind US microseconds of preemption off");
