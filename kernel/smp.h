/* More than one CPU: which are online, and making another CPU run a function (IPIs). */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "kernel/percpu.h"

extern int nr_cpus_online;
extern int nr_cpus_possible; /* from the ACPI MADT */

static inline int num_online_cpus(void)
{
	return __atomic_load_n(&nr_cpus_online, __ATOMIC_ACQUIRE);
}

static inline bool cpu_online(int cpu)
{
	return cpu >= 0 && cpu < NR_CPUS &&
	       __atomic_load_n(&percpu_area[cpu].online, __ATOMIC_ACQUIRE);
}

#define for_each_online_cpu(c)                                                                     \
	for (c = 0; c < NR_CPUS; c++)                                                              \
		if (cpu_online(c))

/* Starts every CPU the MADT lists (INIT-SIPI-SIPI through a real-mode trampoline). */
void smp_init(void);

/* Runs fn(info) on every other online CPU, in interrupt context; waits for all if wait. */
void smp_call_function(void (*fn)(void *info), void *info, bool wait);
/* The same on one CPU (or directly, if that is this one). */
void smp_call_function_single(int cpu, void (*fn)(void *info), void *info, bool wait);
/* Serializes every online CPU's instruction stream: after it, no CPU runs stale patched bytes. */
void sync_core_all(void);
/* How many times every CPU was made to serialize (bench: rounds per batch, not per site). */
extern unsigned long sync_core_rounds;
/* Asks another CPU to reschedule soon. */
void smp_send_reschedule(int cpu);
/* NMI every other CPU and make it stop (panic). */
void smp_send_stop(void);
/* Runs fn(info) on every other online CPU from an NMI, so even CPUs with interrupts off run it. */
void nmi_call_function(void (*fn)(void *info), void *info);
void smp_ipi_init(void);
struct pt_regs;
bool smp_nmi_handler(struct pt_regs *regs);

#endif
