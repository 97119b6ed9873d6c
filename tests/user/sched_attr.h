/* Linux's struct sched_attr (include/uapi/linux/sched/types.h), the 56 bytes sched_setattr() takes,
 * for the test programs that set a scheduling class. */
#ifndef TESTS_USER_SCHED_ATTR_H
#define TESTS_USER_SCHED_ATTR_H

struct sched_attr {
	unsigned int size, sched_policy;
	unsigned long sched_flags;
	int sched_nice;
	unsigned int sched_priority;
	unsigned long sched_runtime, sched_deadline, sched_period;
	unsigned int sched_util_min, sched_util_max;
};

#endif
