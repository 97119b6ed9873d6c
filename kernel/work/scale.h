/* The generated functions of `make SCALE=N` (tools/gen-scale.py): Linux's number of call sites. */
#ifndef KERNEL_WORK_SCALE_H
#define KERNEL_WORK_SCALE_H

#include "lib/types.h"

struct work_stats;

/* Every generated function, in order, and how many there are (build-scaleN/gen/scale_table.c). */
extern int (*const scale_fns[])(int);
extern const unsigned long scale_nr_fns;

/* The "scale" workload's round: each generated function called once. */
void scale_iteration(struct work_stats *st);

#endif
