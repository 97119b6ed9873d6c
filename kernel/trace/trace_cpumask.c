/* tracing_cpumask: the CPUs whose events the global buffer keeps, in hex as Linux prints it; a
 * CPU taken out has its part of the buffer held off (Linux's ring_buffer_record_disable_cpu()),
 * and hwlat samples only the CPUs in it. */
#include "kernel/trace/trace_osnoise.h"
#include "kernel/fs/tracefs.h"
#include "kernel/locking/mutex.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"
#include "lib/ctype.h"
#include "lib/errno.h"

static unsigned long tracing_cpumask = ~0UL;
static DEFINE_MUTEX(cpumask_lock);

bool trace_cpu_traced(int cpu)
{
	return READ_ONCE(tracing_cpumask) & (1UL << cpu);
}

/* Linux's %*pb over the possible CPUs: hex digits, the highest first. */
static int cpumask_show(struct seq_file *m, struct fnode *f)
{
	int digits = (nr_cpus_possible + 3) / 4;
	unsigned long mask = tracing_cpumask & ((1UL << nr_cpus_possible) - 1);

	seq_printf(m, "%0*lx\n", digits, mask);
	return 0;
}

/* Linux's bitmap_parse(): hex digits only (EINVAL), no CPU beyond the possible ones (EOVERFLOW);
 * nothing at all is the empty mask. */
static int cpumask_parse(const char *text, unsigned long *out)
{
	unsigned long v = 0;

	for (; *text; text++) {
		if (!isxdigit(*text))
			return -EINVAL;
		if (v >> (8 * sizeof(v) - 4))
			return -EOVERFLOW;
		v = v << 4 | (isdigit(*text) ? *text - '0' : (*text | 0x20) - 'a' + 10);
	}
	if (v >> nr_cpus_possible)
		return -EOVERFLOW;
	*out = v;
	return 0;
}

static void record_cpu(int cpu, bool on)
{
	u32 *w = (u32 *)&global_trace.buffer.cpu[cpu].writer;

	if (on)
		__atomic_sub_fetch(w, RB_RECORD_OFF, __ATOMIC_SEQ_CST);
	else
		__atomic_add_fetch(w, RB_RECORD_OFF, __ATOMIC_SEQ_CST);
}

static int cpumask_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char text[40];
	unsigned long mask, old;
	int err;

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	err = cpumask_parse(text, &mask);
	if (err)
		return err;
	mask |= ~((1UL << nr_cpus_possible) - 1); /* CPUs that cannot exist stay in */
	mutex_lock(&cpumask_lock);
	old = tracing_cpumask;
	for (int cpu = 0; cpu < nr_cpus_possible; cpu++) {
		bool was = old & (1UL << cpu), is = mask & (1UL << cpu);
		if (was != is)
			record_cpu(cpu, is);
	}
	WRITE_ONCE(tracing_cpumask, mask);
	mutex_unlock(&cpumask_lock);
	return 0;
}

static const struct tracefs_file cpumask_files[] = {
	TRACEFS_FILE("/sys/kernel/tracing/tracing_cpumask", cpumask_show, cpumask_write),
};

void trace_cpumask_init(void)
{
	if (tracefs_create_files(NULL, cpumask_files, ARRAY_SIZE(cpumask_files)))
		pr_err("tracing: cannot create tracing_cpumask\n");
}
