/* sitecycle (test mode, ours): switch every ftrace site on and off N times, checking each time.
 *
 *   sitecycle N [breakpoint|stop_machine] [notramp]
 *
 * Each cycle registers an ops with an empty filter (every function), checks every site's bytes
 * (ftrace_verify_all_sites), unregisters it and checks again: 2 x N full updates of every site
 * with the method named, from the shell's CPU while the others run whatever workloads were
 * started. The ops gets a new trampoline each time, and each unregister waits for every task to
 * have left the old one before freeing it, as any user's would, unless `notramp` is given. The
 * soak (tools/soak.py) runs it; a loop here costs a few milliseconds where a shell round trip per
 * switch costs tens.
 */
#include "kernel/trace/ftrace.h"
#include "arch/x86/text_patch.h"
#include "kernel/printk/printk.h"
#include "kernel/shell/shell.h"
#include "kernel/time.h"
#include "lib/string.h"

static u64 cycle_hits;

static void count_hit(unsigned long ip, unsigned long pip, struct ftrace_ops *op,
		      struct pt_regs *regs)
{
	__atomic_add_fetch(&cycle_hits, 1, __ATOMIC_RELAXED);
}

static struct ftrace_ops cycle_ops = { .name = "sitecycle",
				       .func = count_hit,
				       .flags = FTRACE_OPS_FL_RECURSION };

/* Every site checked after a step of cycle i; 0, or prints what is wrong and returns -1. */
static int verify(unsigned long i, const char *when)
{
	char why[160];

	if (!ftrace_verify_all_sites(why, sizeof(why)))
		return 0;
	cprintf("sitecycle: cycle %lu, %s: %s\n", i, when, why);
	return -1;
}

/* One full switch on, then off; 0, or prints what went wrong and returns -1. */
static int one_cycle(unsigned long i)
{
	int err = register_ftrace_function(&cycle_ops);

	if (err) {
		cprintf("sitecycle: cycle %lu: register failed (%d)\n", i, err);
		return -1;
	}
	if (verify(i, "every site on")) {
		err = unregister_ftrace_function(&cycle_ops);
		if (err)
			cprintf("sitecycle: cycle %lu: unregister failed (%d)\n", i, err);
		return -1;
	}
	err = unregister_ftrace_function(&cycle_ops);
	if (err) {
		cprintf("sitecycle: cycle %lu: unregister failed (%d)\n", i, err);
		return -1;
	}
	return verify(i, "every site back");
}

static int parse_args(int argc, char **argv, unsigned long *n, int *method, bool *notramp)
{
	if (argc < 2 || kstrtoul(argv[1], 10, n) || !*n || *n > 1000000)
		return -1;
	*method = text_patch_method;
	*notramp = false;
	for (int a = 2; a < argc; a++) {
		int m = -1;
		for (int i = 0; i < NR_PATCH_METHODS; i++)
			if (!strcmp(argv[a], patch_method_names[i]))
				m = i;
		if (m >= 0)
			*method = m;
		else if (!strcmp(argv[a], "notramp"))
			*notramp = true;
		else
			return -1;
	}
	return 0;
}

static int cmd_sitecycle(int argc, char **argv)
{
	enum patch_method saved = text_patch_method;
	unsigned long n, done = 0;
	bool notramp;
	int method, err = 0;
	u64 t0;

	if (parse_args(argc, argv, &n, &method, &notramp)) {
		cprintf("usage: sitecycle N [breakpoint|stop_machine] [notramp]\n");
		return 2;
	}
	if (text_patch_busy()) {
		cprintf("sitecycle: patch_step holds a patch\n");
		return 1;
	}
	if (notramp)
		cycle_ops.flags |= FTRACE_OPS_FL_NO_TRAMP;
	else
		cycle_ops.flags &= ~FTRACE_OPS_FL_NO_TRAMP;
	ftrace_set_patch_method(method);
	cycle_hits = 0;
	t0 = ktime_get_ns();
	while (done < n && !(err = one_cycle(done)))
		done++;
	ftrace_set_patch_method(saved);
	cprintf("sitecycle: %lu of %lu cycles of %lu sites, %s%s, %llu ms, %llu calls seen: %s\n",
		done, n, ftrace_nr_records(), patch_method_names[method],
		notramp ? ", notramp" : "", (ktime_get_ns() - t0) / 1000000, cycle_hits,
		err ? "FAILED" : "ok");
	return err ? 1 : 0;
}
SHELL_TEST_CMD(sitecycle, cmd_sitecycle,
	       "sitecycle N [breakpoint|stop_machine] [notramp]: every ftrace site on and off N "
	       "times, verified (test mode)");
