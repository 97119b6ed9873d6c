/* Benchmarks of live patching: switching every site on and off with each method, and what one
 * call costs while its site holds an int3 (the trap, the handler's lookup and emulation). */
#include "kernel/bench/bench.h"
#include "arch/x86/cpu.h"
#include "arch/x86/text_patch.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/trace/ftrace.h"

static void nothing(unsigned long ip, unsigned long pip, struct ftrace_ops *op, struct pt_regs *r)
{
}

/* NO_TRAMP: these rows time patching the sites. A trampoline would add its copy and, on the way
 * out, the sleep until no task can be inside it, which says nothing about patching. */
static struct ftrace_ops all_ops = { .func = nothing,
				     .flags = FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_NO_TRAMP };

/* Registers an ops on every function and drops it again, timing each half. */
static void bench_method(enum patch_method m)
{
	u64 t[3];

	ftrace_set_patch_method(m);
	t[0] = rdtsc();
	if (register_ftrace_function(&all_ops))
		return;
	t[1] = rdtsc();
	unregister_ftrace_function(&all_ops);
	t[2] = rdtsc();
	bench_flip_rows("enable every site", "disable every site", m, t, ftrace_nr_records());
}

static u64 held_per_call;

/* Step 1 of the protocol is done: bench_target now starts with int3. Time calls through it. */
static void time_while_held(int step, const struct text_poke_loc *tp, int nr)
{
	if (step == 1)
		held_per_call = bench_per_call(bench_target);
}

static const struct text_patch_observer time_while_held_observer = { .bp_step = time_while_held };

void bench_patching(u64 baseline)
{
	enum patch_method saved = text_patch_method;
	u64 nop = bench_per_call(bench_target);

	if (ftrace_trace_function != ftrace_stub) {
		cprintf("bench: an ftrace_ops is live; patching not measured\n");
		return;
	}
	bench_sites_header("live patching");
	for (int m = 0; m < NR_PATCH_METHODS; m++)
		bench_method(m);
	ftrace_set_patch_method(saved);

	/* NOP -> NOP through the int3 protocol: nothing changes, but calls meanwhile trap. */
	text_patch_set_observer(&time_while_held_observer);
	text_poke_bp((void *)bench_target, ftrace_nop5, MCOUNT_INSN_SIZE);
	text_patch_set_observer(NULL);
	cprintf("\n");
	bench_row("call while its site holds int3 (handler emulates NOP)", held_per_call, baseline);
	bench_row("  of which the int3 trap and handler", held_per_call - nop + baseline, baseline);
}
