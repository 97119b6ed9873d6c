/* Workloads: kernel threads that call chains of ordinary traced functions, to trace and to stress. */
#ifndef KERNEL_WORK_WORKLOADS_H
#define KERNEL_WORK_WORKLOADS_H

#include "lib/types.h"

struct work_stats;

struct workload {
	const char *name;
	const char *help;
	void (*iteration)(struct work_stats *st); /* one round of work */
	unsigned int sleep_ms;			  /* pause between rounds (0: a tight loop) */
};

/* One per running thread: what `cat /proc/workloads` shows. */
struct work_stats {
	int pid, cpu;
	const struct workload *w;
	u64 iterations;
	u64 deadline_ns;	 /* 0: until killed */
	u64 windows, mismatches; /* spin: windows checked against func_hits, and disagreements;
				  * greet, jump: rounds of 64 calls, and answers that were none
				  * of the allowed ones */
	bool live;
	/* Odd while a round updates iterations, windows and mismatches: a reader that sees the same
	 * even value before and after copying them has one round's consistent numbers. */
	volatile u32 seq;
};

const struct workload *workload_find(const char *name);
void workload_list(char *buf, size_t size);
/* Starts the workload on one CPU for seconds (0: until killed); returns the pid or -errno. */
int workload_start(const struct workload *w, int cpu, unsigned long seconds);

/* The function the spin workload calls, and the calls it made on each CPU. */
int stress_target(int x);

void workloads_init(void);

#endif
