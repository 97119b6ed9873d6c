/* Critical sections of a chosen length, for the latency tracers' labs and tests (ours, not Linux's).
 *
 *   noirq US       interrupts off for US microseconds, in latency_spin_irqs_off()
 *   nopreempt US   preemption off (interrupts on) for US microseconds
 *
 * Each prints how long the section really lasted, measured around it: irqsoff/preemptoff must
 * report at least US and at most that (their own timing sits inside it).
 */
#include "kernel/shell/shell.h"
#include "kernel/percpu.h"
#include "kernel/printk/printk.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/string.h"

#define SPIN_MAX_US 1000000

static void spin_us(unsigned long us)
{
	u64 start = rdtsc();

	while (tsc_to_ns(rdtsc() - start) < us * 1000)
		cpu_relax();
}

/* noinline: the sections start and end here, so the tracers name these functions. */
noinline void latency_spin_irqs_off(unsigned long us)
{
	local_irq_disable();
	spin_us(us);
	local_irq_enable();
}

noinline void latency_spin_preempt_off(unsigned long us)
{
	preempt_disable();
	spin_us(us);
	preempt_enable_no_resched();
}

static int spin_cmd(int argc, char **argv, void (*section)(unsigned long), const char *what)
{
	unsigned long us;
	u64 t0;

	if (argc != 2 || kstrtoul(argv[1], 10, &us) || us > SPIN_MAX_US) {
		cprintf("usage: %s US (at most %d)\n", argv[0], SPIN_MAX_US);
		return 2;
	}
	t0 = rdtsc();
	section(us);
	cprintf("%s off for %llu us\n", what, tsc_to_ns(rdtsc() - t0) / 1000);
	return 0;
}

static int cmd_noirq(int argc, char **argv)
{
	return spin_cmd(argc, argv, latency_spin_irqs_off, "irqs");
}

static int cmd_nopreempt(int argc, char **argv)
{
	return spin_cmd(argc, argv, latency_spin_preempt_off, "preemption");
}

SHELL_CMD(noirq, cmd_noirq, "noirq US: spin with interrupts off for US microseconds");
SHELL_CMD(nopreempt, cmd_nopreempt, "nopreempt US: spin with preemption off for US microseconds");
