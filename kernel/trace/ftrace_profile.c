/* The function profiler: hits and time per function, per CPU, in trace_stat/function<cpu>.
 *
 *   echo 1 > function_profile_enabled     count every function set_ftrace_filter names
 *   cat trace_stat/function0              Function  Hit  Time  Avg  s^2, most time first
 *
 * It rides on fgraph (kernel/trace/fgraph.c): the entry counts a hit, the return adds the
 * duration and its square (for the variance). One fgraph user at a time: it cannot run together
 * with the function_graph tracer.
 */
#include "kernel/trace/fgraph.h"
#include "kernel/trace/ftrace.h"
#include "kernel/trace/trace.h"
#include "arch/x86/cpu.h"
#include "kernel/fs/tracefs.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/sort.h"
#include "lib/string.h"

struct func_stat {
	u64 hits, time, time_sq;
};

static struct func_stat *stats; /* [cpu][record] */
static unsigned long profiling; /* 0 or 1: function_profile_enabled */

static struct func_stat *stat_of(int cpu, unsigned long ip)
{
	struct dyn_ftrace *rec = ftrace_lookup_ip(ip);

	return rec ? &stats[(unsigned long)cpu * ftrace_nr_records() + ftrace_rec_index(rec)]
		   : NULL;
}

static bool profile_entry(struct ftrace_graph_ent *ent, struct fgraph_ops *gops)
{
	struct func_stat *s = stat_of(smp_processor_id(), ent->func);

	if (s) {
		/* An interrupt on this CPU may profile a call too: keep it out of the update. */
		unsigned long flags = local_irq_save();
		s->hits++;
		local_irq_restore(flags);
	}
	return s != NULL;
}

static void profile_return(struct ftrace_graph_ret *ret, struct fgraph_ops *gops)
{
	struct func_stat *s = stat_of(smp_processor_id(), ret->func);
	u64 ns = tsc_to_ns(ret->rettime - ret->calltime);

	if (s) {
		unsigned long flags = local_irq_save();
		s->time += ns;
		s->time_sq += ns * ns;
		local_irq_restore(flags);
	}
}

/* It writes no events; global_trace's gate keeps the fast paths off while it is fgraph's user
 * (trace_graph_update_slow()). */
static struct fgraph_ops profile_ops = {
	.entryfunc = profile_entry,
	.retfunc = profile_return,
	.private = &global_trace,
};

/* Linux's trace_print_graph_duration: "12.345 us " padded to a fixed width. */
static void print_duration(struct seq_file *m, u64 ns)
{
	char usecs[24], nsecs[8];
	int len = snprintf(usecs, sizeof(usecs), "%llu", ns / 1000);

	seq_puts(m, usecs);
	if (len < 7) {
		snprintf(nsecs, sizeof(nsecs), "%03llu", ns % 1000);
		nsecs[MIN(3, 7 - len)] = '\0';
		seq_printf(m, ".%s", nsecs);
		len += strlen(nsecs) + 1;
	}
	seq_puts(m, " us ");
	for (int i = len; i < 8; i++)
		seq_putc(m, ' ');
}

struct stat_line {
	unsigned long ip;
	struct func_stat s;
};

static int by_time(const void *a, const void *b)
{
	const struct stat_line *x = a, *y = b;
	return x->s.time < y->s.time ? 1 : x->s.time > y->s.time ? -1 : 0;
}

static int stat_show(struct seq_file *m, struct fnode *f)
{
	int cpu = (int)(unsigned long)f->priv, n = 0;
	struct stat_line *lines;
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;

	seq_puts(m, "  Function                               Hit    Time            Avg           "
		    "  s^2\n"
		    "  --------                               ---    ----            ---           "
		    "  ---\n");
	if (!stats)
		return 0;
	lines = kmalloc(ftrace_nr_records() * sizeof(*lines) + 1);
	if (!lines)
		return -ENOMEM;
	for_each_ftrace_rec(pg, rec) {
		struct func_stat *s = stat_of(cpu, rec->ip);
		if (s && s->hits)
			lines[n++] = (struct stat_line){ rec->ip, *s };
	}
	sort(lines, n, sizeof(*lines), by_time, NULL);
	for (int i = 0; i < n; i++) {
		char name[KSYM_BUF];
		u64 avg = lines[i].s.time / lines[i].s.hits;
		/* sample variance, from the running sums: (sum x^2 - n * avg^2) / (n - 1) */
		u64 var = lines[i].s.hits > 1 ? (lines[i].s.time_sq - lines[i].s.hits * avg * avg) /
							(lines[i].s.hits - 1)
					      : 0;
		snprintf(name, sizeof(name), "%ps", (void *)lines[i].ip);
		seq_printf(m, "  %-30.30s  %10llu    ", name, lines[i].s.hits);
		print_duration(m, lines[i].s.time);
		seq_puts(m, "    ");
		print_duration(m, avg);
		seq_puts(m, "    ");
		print_duration(m,
			       var / 1000); /* Linux prints the variance scaled to us^2 this way */
		seq_putc(m, '\n');
	}
	kfree(lines);
	return 0;
}

/* 1: reset the numbers and start; 0: stop (the numbers stay, to be read). */
static int profile_enabled_set(void *data, unsigned long v)
{
	int err = 0;

	if (text_patch_busy())
		return -EBUSY; /* registering patches sites: patch_step holds the locks */
	if (v && !profiling) {
		if (!stats)
			stats = kzalloc(NR_CPUS * ftrace_nr_records() * sizeof(*stats) + 1);
		if (!stats)
			return -ENOMEM;
		memset(stats, 0, NR_CPUS * ftrace_nr_records() * sizeof(*stats));
		err = register_ftrace_graph(&profile_ops);
		profiling = !err;
	} else if (!v && profiling) {
		unregister_ftrace_graph();
		profiling = 0;
	}
	return err;
}

static const struct tracefs_ulong profile_enabled = { .value = &profiling,
						      .max = 1,
						      .set = profile_enabled_set };
static const struct tracefs_file profile_files[] = {
	TRACEFS_ULONG("function_profile_enabled", &profile_enabled),
};
static const struct file_ops stat_fops = { .show = stat_show };

/* function_profile_enabled and trace_stat/function<cpu>: all, or none and said so. */
void ftrace_profile_init(void)
{
	struct fnode *dir = tracefs_create_path("/sys/kernel/tracing");
	struct fnode *stat = tracefs_create_dir("trace_stat", dir);
	int cpu;

	if (!stat || tracefs_create_files(dir, profile_files, ARRAY_SIZE(profile_files)))
		goto fail;
	for_each_online_cpu(cpu) {
		char name[16];
		snprintf(name, sizeof(name), "function%d", cpu);
		if (!tracefs_create_file(name, stat, (void *)(unsigned long)cpu, &stat_fops))
			goto fail_files;
	}
	return;
fail_files:
	tracefs_remove_files(dir, profile_files, ARRAY_SIZE(profile_files));
fail:
	if (stat)
		fs_remove(stat);
	pr_err("function profiler: cannot create its files\n");
}
