/* stop_machine: run a function while every other CPU spins with interrupts off. */
#ifndef KERNEL_STOP_MACHINE_H
#define KERNEL_STOP_MACHINE_H

#include "kernel/percpu.h"

/*
 * Runs fn(data) on this CPU while all other online CPUs wait in a state machine with interrupts
 * disabled; every CPU serializes (sync_core) before it leaves. Returns fn's result. The caller must
 * have interrupts enabled (the other CPUs are gathered with an IPI).
 */
int stop_machine(int (*fn)(void *data), void *data);

/*
 * The last rendezvous, CPU by CPU, for patch_step and the self-tests: when each CPU acknowledged
 * each state (TSC ticks after the caller started), in which order they arrived, and where each
 * was stopped (the instruction an IPI interrupted; the caller's call site for the caller).
 */
enum { SM_ARRIVE, SM_IRQS_OFF, SM_RUN, SM_LEAVE, SM_NR_ACKS };
struct stop_machine_cpu {
	u64 ack[SM_NR_ACKS];
	unsigned long stopped_at;
	int arrived; /* 1 = the first to acknowledge the gathering */
};
struct stop_machine_record {
	int num_cpus;	/* CPUs that took part */
	int active_cpu; /* the one that ran fn */
	int runs;	/* how many times fn ran: 1 */
	struct stop_machine_cpu cpu[NR_CPUS];
};
extern struct stop_machine_record stop_machine_last;
/* Rendezvous so far (bench: how many one update takes). */
extern unsigned long stop_machine_count;

#endif
