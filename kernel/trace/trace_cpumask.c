/* tracing_cpumask: the CPUs a trace array records on (Linux's tracing_cpumask_write()).
 *
 *   echo 1 > tracing_cpumask     only CPU 0 records; the other CPUs' writes are refused
 *   cat tracing_cpumask          1 (a hex bitmap of the possible CPUs, as Linux prints %*pb)
 *
 * A CPU taken out gets recording turned off on its part of the buffer, the same hold that
 * ring_buffer_record_off() puts on every CPU (Linux: ring_buffer_record_disable_cpu()), so no
 * tracer and no event needs a test of its own: their writes there fail at the writer word.
 * hwlat samples only the CPUs in the mask of the array it runs on (trace_array_cpu_traced()).
 */
#include "kernel/trace/trace.h"
#include "kernel/trace/trace_osnoise.h"
#include "kernel/fs/tracefs.h"
#include "kernel/locking/mutex.h"
#include "kernel/smp.h"
#include "lib/ctype.h"
#include "lib/errno.h"
#include "lib/string.h"

#define MASK_BITS ((int)(8 * sizeof(unsigned long)))

static DEFINE_MUTEX(cpumask_lock);

static unsigned long possible_mask(void)
{
	return nr_cpus_possible >= MASK_BITS ? ~0UL : (1UL << nr_cpus_possible) - 1;
}

/* The CPUs tr records on: the bits it has not taken out. */
static unsigned long array_cpumask(const struct trace_array *tr)
{
	return possible_mask() & ~READ_ONCE(tr->cpumask_off);
}

bool trace_array_cpu_traced(struct trace_array *tr, int cpu)
{
	return array_cpumask(tr) & (1UL << cpu);
}

bool trace_cpu_traced(int cpu)
{
	return trace_array_cpu_traced(&global_trace, cpu);
}

/* %*pb: as many hex digits as the possible CPUs need, zeros included ("01" of 8 CPUs). */
static int cpumask_show(struct seq_file *m, struct fnode *f)
{
	seq_printf(m, "%0*lx\n", (nr_cpus_possible + 3) / 4, array_cpumask(trace_array_of(f)));
	return 0;
}

/* Linux's bitmap_parse(): hex digits (commas between 32-bit groups allowed); EINVAL for
 * anything else, EOVERFLOW for a bit past the last possible CPU; nothing at all is no CPU. */
static int parse_mask(const char *buf, size_t len, unsigned long *out)
{
	char text[40];
	unsigned long m = 0;

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	for (const char *p = text; *p; p++) {
		if (*p == ',')
			continue;
		if (!isxdigit(*p))
			return -EINVAL;
		if (m >> (MASK_BITS - 4))
			return -EOVERFLOW;
		m = m << 4 | (isdigit(*p) ? *p - '0' : (*p | 0x20) - 'a' + 10);
	}
	if (m & ~possible_mask())
		return -EOVERFLOW;
	*out = m;
	return 0;
}

static int cpumask_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct trace_array *tr = trace_array_of(f);
	unsigned long want, off;
	int err = parse_mask(buf, len, &want);

	if (err)
		return err;
	mutex_lock(&cpumask_lock);
	off = possible_mask() & ~want;
	for (int c = 0; c < NR_CPUS && c < MASK_BITS; c++) {
		struct ring_buffer_per_cpu *cb = &tr->buffer.cpu[c];
		bool was_off = tr->cpumask_off & (1UL << c), now_off = off & (1UL << c);

		if (was_off == now_off)
			continue;
		/* The same word and the same step as ring_buffer_record_off(), for one CPU. */
		if (now_off)
			__atomic_add_fetch(&cb->writer, RB_RECORD_OFF, __ATOMIC_SEQ_CST);
		else
			__atomic_sub_fetch(&cb->writer, RB_RECORD_OFF, __ATOMIC_SEQ_CST);
	}
	WRITE_ONCE(tr->cpumask_off, off);
	mutex_unlock(&cpumask_lock);
	return 0;
}

static const struct tracefs_file cpumask_file =
	TRACEFS_FILE("tracing_cpumask", cpumask_show, cpumask_write);

int trace_cpumask_create(struct fnode *dir)
{
	return tracefs_create_files(dir, &cpumask_file, 1);
}
