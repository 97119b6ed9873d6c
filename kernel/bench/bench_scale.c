/* `bench sites`: what grows with the number of call sites (make SCALE=N): boot conversion, turning
 * every site on and off with each method and the CPU-wide syncs that takes, a filter glob over
 * every function, available_filter_functions, and the memory per record and per hash entry. */
#include "kernel/bench/bench.h"
#include "arch/x86/cpu.h"
#include "arch/x86/text_patch.h"
#include "kernel/fs/fs.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "kernel/stop_machine.h"
#include "kernel/trace/ftrace.h"
#include "lib/printf.h"

static void nothing(unsigned long ip, unsigned long pip, struct ftrace_ops *op, struct pt_regs *r)
{
}

/* NO_TRAMP, as bench_patch.c's: these rows time the patching, not a trampoline's copy and free. */
static struct ftrace_ops every_ops = { .func = nothing,
				       .flags = FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_NO_TRAMP };
static struct ftrace_ops glob_ops = { .func = nothing };

static void row(const char *what, u64 ticks, unsigned long sites, unsigned long syncs,
		unsigned long stops)
{
	cprintf("| %-44s | %4d | %6lu | %12llu | %10llu | %6lu | %6lu |\n", what, num_online_cpus(),
		sites, ticks, sites ? ticks / sites : 0, syncs, stops);
}

/* One register (every site on) and one unregister (every site off), with their sync counts. */
static void every_site(enum patch_method m)
{
	unsigned long n = ftrace_nr_records(), s0, r0;
	char what[64];
	u64 t0;

	ftrace_set_patch_method(m);
	s0 = sync_core_rounds, r0 = stop_machine_count, t0 = rdtsc();
	if (register_ftrace_function(&every_ops))
		return;
	snprintf(what, sizeof(what), "enable every site, %s", patch_method_names[m]);
	row(what, rdtsc() - t0, n, sync_core_rounds - s0, stop_machine_count - r0);
	s0 = sync_core_rounds, r0 = stop_machine_count, t0 = rdtsc();
	unregister_ftrace_function(&every_ops);
	snprintf(what, sizeof(what), "disable every site, %s", patch_method_names[m]);
	row(what, rdtsc() - t0, n, sync_core_rounds - s0, stop_machine_count - r0);
}

static unsigned long rendered;

/* A seq_file that keeps nothing: counts what the file would print, then lets it go on. */
static void count_and_drop(struct seq_file *m)
{
	rendered += m->count;
	m->count = 0;
}

static void available_functions(void)
{
	static char buf[4096];
	struct seq_file m = { .buf = buf, .size = sizeof(buf), .flush = count_and_drop };
	struct fnode *f;
	u64 t0;

	if (fs_resolve(NULL, "/sys/kernel/tracing/available_filter_functions", &f) || !f->ops->show)
		return;
	rendered = 0;
	t0 = rdtsc();
	f->ops->show(&m, f);
	count_and_drop(&m);
	row("read available_filter_functions (no console)", rdtsc() - t0, ftrace_nr_records(), 0,
	    0);
	cprintf("  (%lu bytes)\n", rendered);
}

/* set_ftrace_filter's work for '*': every record matched and hashed. */
static void glob_every_function(void)
{
	u64 t0 = rdtsc();
	unsigned long n;

	if (ftrace_set_filter(&glob_ops, "*", true))
		return;
	n = glob_ops.local_hash.filter_hash ? glob_ops.local_hash.filter_hash->count : 0;
	row("filter glob '*' (hash of every function)", rdtsc() - t0, n, 0, 0);
	free_ftrace_hash(glob_ops.local_hash.filter_hash);
	glob_ops.local_hash.filter_hash = NULL;
}

/* What one record and one hash entry really take: a hash entry is its own kmalloc object. */
static void entry_memory(void)
{
	void *e = kmalloc(sizeof(struct ftrace_func_entry));

	cprintf("memory: struct dyn_ftrace %zu bytes (%zu a 4 KiB page); struct ftrace_func_entry "
		"%zu bytes, %zu as a kmalloc object\n",
		sizeof(struct dyn_ftrace), (size_t)(PAGE_SIZE / sizeof(struct dyn_ftrace)),
		sizeof(struct ftrace_func_entry), e ? ksize(e) : 0);
	kfree(e);
}

void bench_scale(void)
{
	enum patch_method saved = text_patch_method;
	unsigned long n = ftrace_nr_records();

	if (ftrace_trace_function != ftrace_stub) {
		cprintf("bench: an ftrace_ops is live; sites not measured\n");
		return;
	}
	cprintf("\n| %-44s | %4s | %6s | %12s | %10s | %6s | %6s |\n", "what grows with N", "CPUs",
		"sites", "ticks", "ticks/site", "syncs", "stops");
	cprintf("|----------------------------------------------|-----:|-------:|-------------:|"
		"-----------:|-------:|-------:|\n");
	row("boot conversion (text_poke_early, verified)", ftrace_init_ticks, n, 0, 0);
	for (int m = 0; m < NR_PATCH_METHODS; m++)
		every_site(m);
	ftrace_set_patch_method(saved);
	glob_every_function();
	available_functions();
	entry_memory();
}
