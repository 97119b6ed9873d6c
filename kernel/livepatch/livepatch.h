/* Live patching through ftrace: calls to a function run a replacement, switched on and off live. */
#ifndef KERNEL_LIVEPATCH_H
#define KERNEL_LIVEPATCH_H

#include "lib/types.h"

/* The demo (kernel/work/greeting.c): a function with a typo, its fix, and a rival replacement. */
const char *demo_greeting(void);
const char *demo_greeting_fixed(void);
const char *demo_greeting_shout(void);

/* Creates /sys/kernel/tracing/livepatch_enable. */
void klp_init(void);

#endif
