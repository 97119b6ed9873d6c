/* stop_machine: run a function while every other CPU spins with interrupts off. */
#ifndef KERNEL_STOP_MACHINE_H
#define KERNEL_STOP_MACHINE_H

/*
 * Runs fn(data) on this CPU while all other online CPUs wait in a state machine with interrupts
 * disabled; every CPU serializes (sync_core) before it leaves. Returns fn's result. The caller must
 * have interrupts enabled (the other CPUs are gathered with an IPI).
 */
int stop_machine(int (*fn)(void *data), void *data);

/* How many CPUs took part in the last stop_machine, and how many times fn ran (self-tests). */
extern int stop_machine_last_cpus, stop_machine_last_runs;

#endif
