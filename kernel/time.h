/* Time: the calibrated TSC as nanoseconds since boot, and the timer tick count. */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include "lib/types.h"
#include "lib/compiler.h"

#define HZ 100
#define NSEC_PER_SEC 1000000000ULL

extern volatile u64 jiffies;
extern u64 tsc_khz;

/* Measures the TSC and LAPIC timer rates against the PIT (10 ms gate on channel 2). */
void tsc_calibrate(void);
/* Nanoseconds since tsc_calibrate(); 0 before it. Cheap: one rdtsc, one multiply. */
u64 ktime_get_ns(void);
/* Converts a TSC delta to nanoseconds. */
u64 tsc_to_ns(u64 cycles);
/* Nanoseconds since boot at an absolute TSC reading (the trace stores raw TSC stamps). */
u64 tsc_to_ktime(u64 tsc);
/* Starts the periodic tick on this CPU. */
void timer_init(void);
/* Busy-waits; used where nothing can sleep. */
void udelay(unsigned long us);

#endif
