/* A static key to play with: two use sites in one function, flipped by
 * /proc/sys/kernel/jump_label_demo (as Linux's sysctls flip sched_schedstats and friends).
 *
 *   key off:  site 1  nopl 0x0(%rax,%rax,1)   (unlikely use: starts as the 5-byte NOP)
 *             site 2  jmp  <skip>             (likely use of a false key: starts as the jmp)
 *   key on:   site 1  jmp  <x += 1000>
 *             site 2  xchg %ax,%ax            (the 2-byte NOP, if the assembler chose eb rel8)
 */
#include "kernel/jump_label_internal.h"
#include "kernel/work/workloads.h"

DEFINE_STATIC_KEY_FALSE(jump_label_demo_key);

/* x while the key is off, x + 1001 while it is on; x + 1 or x + 1000 only during a flip, when
 * one site is already switched and the other not yet. */
noinline int jump_label_demo(int x)
{
	if (static_branch_unlikely(&jump_label_demo_key))
		x += 1000;
	if (static_branch_likely(&jump_label_demo_key))
		x += 1;
	return x;
}

/* One round of the `jump` workload: 64 calls, each answer checked. A flip may show one site
 * switched and the other not (1 or 1000 more); anything else would be a torn instruction. */
void jump_iteration(struct work_stats *st)
{
	for (int i = 0; i < 64; i++) {
		int d = jump_label_demo(i) - i;
		if (d != 0 && d != 1 && d != 1000 && d != 1001)
			st->mismatches++;
	}
	st->windows++;
}
