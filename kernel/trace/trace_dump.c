/* Printing the buffer on the console when nobody can read it: the dump and cpudump commands,
 * ftrace_dump_on_oops (an Oops or a panic prints it before the machine stops), and sysrq-z (a
 * serial BREAK, then z).
 *
 *   ftrace_dump_on_oops            on the kernel command line: every CPU's buffer
 *   ftrace_dump_on_oops=orig_cpu   the CPU that faulted only
 *   /proc/sys/kernel/ftrace_dump_on_oops   0, 1 (all) or 2 (orig_cpu), changed at run time
 */
#include "kernel/trace/trace.h"
#include "kernel/fs/tracefs.h"
#include "kernel/printk/printk.h"
#include "kernel/smp.h"

unsigned long ftrace_dump_on_oops;

/* Prints events to the console directly, with no header: what dump and cpudump show. */
static bool print_events(struct seq_file *m, int only_cpu)
{
	struct trace_buffer *b = &global_trace.buffer;
	struct rb_iter its[NR_CPUS];
	struct trace_iterator it;
	bool any = false;

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		rb_iter_start(&its[cpu], &b->cpu[cpu]);
	while (trace_next_event(its, only_cpu, &it)) {
		if (!any)
			seq_puts(m, "---------------------------------\n");
		trace_print_default(m, &it);
		rb_iter_advance(&its[it.cpu]);
		any = true;
	}
	return any;
}

void trace_dump(int only_cpu)
{
	static int dumping;
	char buf[256];
	struct seq_file m = { .buf = buf, .size = sizeof(buf), .flush = seq_console_flush };

	if (__atomic_exchange_n(&dumping, 1, __ATOMIC_ACQUIRE))
		return;
	/* As Linux: a dump ends tracing, so what is printed is what was there. */
	WRITE_ONCE(global_trace.tracing_on, false);
	ring_buffer_record_off(&global_trace.buffer);
	seq_puts(&m, "Dumping ftrace buffer:\n");
	/* Linux's frame: dashes around the lines, or one line saying there were none. */
	if (print_events(&m, only_cpu))
		seq_puts(&m, "---------------------------------\n");
	else
		seq_puts(&m, "   (ftrace buffer empty)\n");
	seq_flush(&m);
	/* As Linux's ftrace_dump, what was printed is gone: a second dump finds nothing. */
	for (int c = 0; c < NR_CPUS; c++)
		if ((only_cpu < 0 || c == only_cpu) && global_trace.buffer.cpu[c].pages)
			ring_buffer_reset_cpu(&global_trace.buffer, c);
	ring_buffer_record_on(&global_trace.buffer);
	__atomic_store_n(&dumping, 0, __ATOMIC_RELEASE);
}

/*
 * From die() after the Oops line, and from panic() (a panic without an Oops): once, whichever
 * comes first, on the CPU that is dying; orig_cpu prints that CPU's buffer only.
 */
void ftrace_dump_oops(void)
{
	static int done;
	unsigned long mode = READ_ONCE(ftrace_dump_on_oops);

	if (!mode || __atomic_exchange_n(&done, 1, __ATOMIC_RELAXED))
		return;
	trace_dump(mode == 2 ? smp_processor_id() : -1);
}

static const struct tracefs_ulong dump_on_oops = { .value = &ftrace_dump_on_oops, .max = 2 };
static const struct tracefs_file dump_files[] = {
	TRACEFS_ULONG("/proc/sys/kernel/ftrace_dump_on_oops", &dump_on_oops),
};

void trace_dump_init(void)
{
	if (tracefs_create_files(NULL, dump_files, ARRAY_SIZE(dump_files)))
		pr_err("tracing: cannot create ftrace_dump_on_oops\n");
}
