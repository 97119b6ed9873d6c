/* The per-CPU areas, and pointing a CPU's GS base at its own. */
#include "kernel/percpu.h"
#include "arch/x86/cpu.h"

struct percpu percpu_area[NR_CPUS];

void percpu_setup(int cpu)
{
	struct percpu *p = &percpu_area[cpu];

	p->self = p;
	p->cpu = cpu;
	wrmsr(MSR_GS_BASE, (u64)p);
}
