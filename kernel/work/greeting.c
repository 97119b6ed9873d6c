/* The livepatch demo: a function with a bug, its fixed version, a rival patch, and a way to watch.
 *
 *   greet                            prints what demo_greeting() returns now, and what the
 *                                    `greet` workers have seen
 *   run greet 1-3                    workers calling demo_greeting() in a tight loop
 *   echo demo_greeting > livepatch_enable       kernel/livepatch/core.c switches it to the fix
 *
 * All of these are ordinary traced functions (each starts with the fentry site ftrace patches).
 * noipa keeps gcc from inlining demo_greeting() or deciding it is pure: every call in the loop
 * is a real call through the site.
 */
#include "kernel/livepatch/livepatch.h"
#include "kernel/printk/printk.h"
#include "kernel/shell/shell.h"
#include "kernel/work/workloads.h"

static const char greeting_original[] =
	"Hello from ftrace-os, the kernel that traces it's own calls";
static const char greeting_fixed[] = "Hello from ftrace-os, the kernel that traces its own calls";
static const char greeting_shout[] = "HELLO FROM FTRACE-OS, THE KERNEL THAT TRACES ITS OWN CALLS";

static u64 seen_original, seen_fixed, seen_shout;

__attribute__((noipa)) const char *demo_greeting(void)
{
	return greeting_original; /* the bug: "it's" for "its" */
}

__attribute__((noipa)) const char *demo_greeting_fixed(void)
{
	return greeting_fixed;
}

__attribute__((noipa)) const char *demo_greeting_shout(void)
{
	return greeting_shout;
}

/* One round of the greet workload: 64 calls, each answer must be one of the three versions. */
void greet_iteration(struct work_stats *st)
{
	for (int i = 0; i < 64; i++) {
		const char *g = demo_greeting();
		if (g == greeting_original)
			__atomic_add_fetch(&seen_original, 1, __ATOMIC_RELAXED);
		else if (g == greeting_fixed)
			__atomic_add_fetch(&seen_fixed, 1, __ATOMIC_RELAXED);
		else if (g == greeting_shout)
			__atomic_add_fetch(&seen_shout, 1, __ATOMIC_RELAXED);
		else
			st->mismatches++;
	}
	st->windows++;
}

static int cmd_greet(int argc, char **argv)
{
	if (argc != 1) {
		cprintf("usage: greet\n");
		return 2;
	}
	cprintf("%s\n", demo_greeting());
	cprintf("greet workers saw: original=%llu fixed=%llu shout=%llu\n",
		READ_ONCE(seen_original), READ_ONCE(seen_fixed), READ_ONCE(seen_shout));
	return 0;
}
SHELL_CMD(greet, cmd_greet,
	  "greet: call demo_greeting() (the livepatch demo) and print its answer");
