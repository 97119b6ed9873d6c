/* sched_switch.h: the sched:sched_switch record as a tracepoint program sees it, laid out as
 * events/sched/sched_switch/format says, common fields first (Linux's layout, and ours). */
#ifndef TESTS_BPF_SCHED_SWITCH_H
#define TESTS_BPF_SCHED_SWITCH_H

struct sched_switch_args {
	unsigned long long common;
	char prev_comm[16];
	int prev_pid, prev_prio;
	long prev_state;
	char next_comm[16];
	int next_pid, next_prio;
};

#endif
