/* osnoise/: the files osnoise and timerlat read, as Linux 6.1 has them. The numbers are in
 * microseconds; runtime_us may not pass period_us nor period_us fall under it (EINVAL), and
 * timerlat_period_us stays in [100, 1000000]. cpus is a CPU list ("0-2,5"), options the OSN_*
 * switches by name, NO_ in front to clear one. A write to cpus or options restarts the threads
 * of a running tracer; the numbers are read by the threads at each period. */
#include "kernel/trace/trace_osnoise.h"
#include "kernel/fs/tracefs.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "lib/ctype.h"
#include "lib/errno.h"
#include "lib/string.h"

struct osnoise_data osnoise_data = {
	.sample_period = 1000000, /* 1 s */
	.sample_runtime = 1000000,
	.timerlat_period = 1000, /* 1 ms */
	.options = OSN_DEFAULT_OPTIONS,
};

static const char *const osnoise_options_str[OSN_MAX] = { "DEFAULTS", "OSNOISE_WORKLOAD",
							  "PANIC_ON_STOP",
							  "OSNOISE_PREEMPT_DISABLE",
							  "OSNOISE_IRQ_DISABLE" };

static int runtime_set(void *data, unsigned long v)
{
	if (v > READ_ONCE(osnoise_data.sample_period))
		return -EINVAL;
	WRITE_ONCE(osnoise_data.sample_runtime, v);
	return 0;
}

static int period_set(void *data, unsigned long v)
{
	if (v < READ_ONCE(osnoise_data.sample_runtime))
		return -EINVAL;
	WRITE_ONCE(osnoise_data.sample_period, v);
	return 0;
}

static unsigned long runtime_get(void *data)
{
	return osnoise_data.sample_runtime;
}

static unsigned long period_get(void *data)
{
	return osnoise_data.sample_period;
}

static const struct tracefs_ulong runtime_file = { .max = ~0UL / 1000,
						   .get = runtime_get,
						   .set = runtime_set };
static const struct tracefs_ulong period_file = { .max = ~0UL / 1000,
						  .get = period_get,
						  .set = period_set };
static const struct tracefs_ulong stop_file = { .value = &osnoise_data.stop_tracing,
						.max = ~0UL / 1000 };
static const struct tracefs_ulong stop_total_file = { .value = &osnoise_data.stop_tracing_total,
						      .max = ~0UL / 1000 };
static const struct tracefs_ulong timerlat_period_file = { .value = &osnoise_data.timerlat_period,
							   .min = 100,
							   .max = 1000000 };
static const struct tracefs_ulong print_stack_file = { .value = &osnoise_data.print_stack,
						       .max = ~0UL / 1000 };

/* Linux's %*pbl: runs of CPUs as first-last, the others alone, by commas. */
static int cpus_show(struct seq_file *m, struct fnode *f)
{
	const char *sep = "";

	for (int cpu = 0; cpu < nr_cpus_possible; cpu++) {
		int last = cpu;
		if (!osnoise_data.cpus[cpu])
			continue;
		while (last + 1 < nr_cpus_possible && osnoise_data.cpus[last + 1])
			last++;
		seq_printf(m, last > cpu ? "%s%d-%d" : "%s%d", sep, cpu, last);
		sep = ",";
		cpu = last;
	}
	seq_putc(m, '\n');
	return 0;
}

static int parse_cpu(const char **p, int *cpu)
{
	unsigned long v = 0;

	if (!isdigit(**p))
		return -EINVAL;
	while (isdigit(**p)) {
		v = v * 10 + *(*p)++ - '0';
		if (v > 1000000)
			return -EINVAL;
	}
	*cpu = v;
	return 0;
}

/* Linux's bitmap_parselist() on our possible CPUs: EINVAL for a bad list, ERANGE past the last. */
static int cpulist_parse(const char *p, bool *out)
{
	int first, last, err;

	memset(out, 0, NR_CPUS * sizeof(*out));
	while (*p) {
		if ((err = parse_cpu(&p, &first)))
			return err;
		last = first;
		if (*p == '-') {
			p++;
			if ((err = parse_cpu(&p, &last)))
				return err;
		}
		if (first > last)
			return -EINVAL;
		if (last >= nr_cpus_possible)
			return -ERANGE;
		for (int c = first; c <= last; c++)
			out[c] = true;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return -EINVAL;
	}
	return 0;
}

static int cpus_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char text[256];
	bool cpus[NR_CPUS];
	int err;

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	err = cpulist_parse(text, cpus);
	if (err)
		return err;
	memcpy(osnoise_data.cpus, cpus, sizeof(cpus));
	osnoise_restart_threads();
	return 0;
}

/* Linux's s_options_show(): DEFAULTS while nothing differs from them, each name or NO_name. */
static int options_show(struct seq_file *m, struct fnode *f)
{
	unsigned long opts = READ_ONCE(osnoise_data.options);

	for (int o = 0; o < OSN_MAX; o++) {
		bool on = o == OSN_DEFAULTS ? opts == OSN_DEFAULT_OPTIONS : (opts >> o) & 1;
		seq_printf(m, "%s%s ", on ? "" : "NO_", osnoise_options_str[o]);
	}
	seq_putc(m, '\n');
	return 0;
}

static int options_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char text[256];
	const char *name = text;
	bool enable = true;
	int o;

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	if (!strncmp(text, "NO_", 3)) {
		name += 3;
		enable = false;
	}
	for (o = 0; o < OSN_MAX && strcmp(name, osnoise_options_str[o]); o++)
		;
	if (o == OSN_MAX || (o == OSN_DEFAULTS && !enable))
		return -EINVAL;
	if (o == OSN_DEFAULTS)
		WRITE_ONCE(osnoise_data.options, OSN_DEFAULT_OPTIONS);
	else if (enable)
		WRITE_ONCE(osnoise_data.options, osnoise_data.options | 1UL << o);
	else
		WRITE_ONCE(osnoise_data.options, osnoise_data.options & ~(1UL << o));
	osnoise_restart_threads();
	return 0;
}

#define D "/sys/kernel/tracing/osnoise/"
static const struct tracefs_file osnoise_files[] = {
	TRACEFS_ULONG(D "period_us", &period_file),
	TRACEFS_ULONG(D "runtime_us", &runtime_file),
	TRACEFS_ULONG(D "stop_tracing_us", &stop_file),
	TRACEFS_ULONG(D "stop_tracing_total_us", &stop_total_file),
	TRACEFS_FILE(D "cpus", cpus_show, cpus_write),
	TRACEFS_FILE(D "options", options_show, options_write),
	TRACEFS_ULONG(D "timerlat_period_us", &timerlat_period_file),
	TRACEFS_ULONG(D "print_stack", &print_stack_file),
};

int trace_osnoise_files_init(void)
{
	for (int cpu = 0; cpu < nr_cpus_possible && cpu < NR_CPUS; cpu++)
		osnoise_data.cpus[cpu] = true;
	return tracefs_create_files(NULL, osnoise_files, ARRAY_SIZE(osnoise_files));
}
