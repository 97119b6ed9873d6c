/* Which CPU is this, and how many are there. One CPU until the SMP bring-up code exists. */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#define NR_CPUS 8

static inline int smp_processor_id(void)
{
	return 0;
}

static inline int num_online_cpus(void)
{
	return 1;
}

#endif
