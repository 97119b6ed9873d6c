/* Benchmarks of static branches: what a disabled one costs a call (the goal: one NOP, one
 * instruction above the notrace twin), what an enabled one costs, and what a flip costs. */
#include "kernel/bench/bench.h"
#include "arch/x86/cpu.h"
#include "arch/x86/text_patch.h"
#include "kernel/jump_label.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/trace/ftrace.h"

static DEFINE_STATIC_KEY_FALSE(bench_key);
static volatile int bench_branch_runs;

/* bench_target_notrace with one static branch in it: the only difference is the site. */
notrace noinline int bench_static_branch(int x)
{
	SAME_FRAME();
	if (static_branch_unlikely(&bench_key))
		bench_branch_runs++;
	return x + 1;
}

static unsigned long key_sites(struct static_key *key)
{
	unsigned long n = 0;

	for (struct jump_entry *e = key->entries;
	     e && e < __stop___jump_table && jump_entry_key(e) == key; e++)
		n++;
	return n;
}

void bench_jump_label(u64 baseline)
{
	enum patch_method saved = text_patch_method;
	unsigned long sites = key_sites(&bench_key.key);
	u64 t[3];

	cprintf("\n");
	bench_row("static branch, key off (the NOP)", bench_per_call(bench_static_branch),
		  baseline);
	static_branch_enable(&bench_key);
	bench_row("static branch, key on (jmp, block, jmp back)",
		  bench_per_call(bench_static_branch), baseline);
	static_branch_disable(&bench_key);

	bench_sites_header("static key flip");
	for (int m = 0; m < NR_PATCH_METHODS; m++) {
		ftrace_set_patch_method(m);
		t[0] = rdtsc();
		static_branch_enable(&bench_key);
		t[1] = rdtsc();
		static_branch_disable(&bench_key);
		t[2] = rdtsc();
		bench_flip_rows("key on", "key off", m, t, sites);
	}
	ftrace_set_patch_method(saved);
}
