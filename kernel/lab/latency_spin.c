/* Critical sections of a chosen length, for the latency tracers' labs and tests (ours, not Linux's).
 *
 *   noirq US       interrupts off for US microseconds, in latency_spin_irqs_off()
 *   nopreempt US   preemption off (interrupts on) for US microseconds
 *   nmihold CPU US  an NMI holds another CPU for US microseconds
 *
 * Each prints how long the section really lasted, measured around it: irqsoff/preemptoff must
 * report at least US and at most that (their own timing sits inside it).
 */
#include "kernel/shell/shell.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
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

/* nmihold CPU US: an NMI that holds another CPU for US microseconds, where nothing, not even
 * interrupts off, keeps it out: what hwlat and osnoise must see as time taken from below. */
static unsigned long nmihold_us;
static int nmihold_cpu;

static void nmihold_fn(void *info)
{
	if (smp_processor_id() == READ_ONCE(nmihold_cpu))
		spin_us(READ_ONCE(nmihold_us));
}

static int cmd_nmihold(int argc, char **argv)
{
	unsigned long cpu, us;

	if (argc != 3 || kstrtoul(argv[1], 10, &cpu) || kstrtoul(argv[2], 10, &us) ||
	    us > SPIN_MAX_US || cpu >= NR_CPUS || !cpu_online(cpu) ||
	    cpu == (unsigned long)smp_processor_id()) {
		cprintf("usage: %s CPU US (another online CPU; at most %d us)\n", argv[0],
			SPIN_MAX_US);
		return 2;
	}
	nmihold_cpu = cpu;
	nmihold_us = us;
	nmi_call_function(nmihold_fn, NULL);
	return 0;
}

SHELL_CMD(nmihold, cmd_nmihold, "nmihold CPU US: an NMI holds another CPU for US microseconds");
