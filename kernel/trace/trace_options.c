/* trace_options and options/: the switches of a trace array, one a line or one file each.
 *
 *   trace_options        every option, "no" in front when off; `echo sym-offset > trace_options`,
 *                        `echo nosym-offset > trace_options`
 *   options/sym-offset   0 or 1, the same switch (Linux makes both from one table, as here)
 *
 * Listed in Linux 6.1's order: the general options (trace.h's TRACE_FLAGS), then the tracers'
 * (func_stack_trace, the funcgraph-* ones); only those this kernel does something with.
 */
#include "kernel/trace/trace.h"
#include "kernel/fs/tracefs.h"
#include "lib/errno.h"
#include "lib/string.h"

static const struct trace_opt {
	const char *name;
	enum trace_option_bit bit;
} trace_opts[] = {
	{ "print-parent", TRACE_OPT_PRINT_PARENT },
	{ "sym-offset", TRACE_OPT_SYM_OFFSET },
	{ "sym-addr", TRACE_OPT_SYM_ADDR },
	{ "verbose", TRACE_OPT_VERBOSE },
	{ "raw", TRACE_OPT_RAW },
	{ "hex", TRACE_OPT_HEX },
	{ "bin", TRACE_OPT_BIN },
	{ "block", TRACE_OPT_BLOCK },
	{ "trace_printk", TRACE_OPT_PRINTK },
	{ "annotate", TRACE_OPT_ANNOTATE },
	{ "userstacktrace", TRACE_OPT_USERSTACKTRACE },
	{ "sym-userobj", TRACE_OPT_SYM_USEROBJ },
	{ "printk-msg-only", TRACE_OPT_PRINTK_MSGONLY },
	{ "context-info", TRACE_OPT_CONTEXT_INFO },
	{ "latency-format", TRACE_OPT_LATENCY_FMT },
	{ "record-cmd", TRACE_OPT_RECORD_CMD },
	{ "record-tgid", TRACE_OPT_RECORD_TGID },
	{ "overwrite", TRACE_OPT_OVERWRITE },
	{ "disable_on_free", TRACE_OPT_STOP_ON_FREE },
	{ "irq-info", TRACE_OPT_IRQ_INFO },
	{ "markers", TRACE_OPT_MARKERS },
	{ "event-fork", TRACE_OPT_EVENT_FORK },
	{ "pause-on-trace", TRACE_OPT_PAUSE_ON_TRACE },
	{ "hash-ptr", TRACE_OPT_HASH_PTR },
	{ "function-trace", TRACE_OPT_FUNCTION_TRACE },
	{ "function-fork", TRACE_OPT_FUNCTION_FORK },
	{ "display-graph", TRACE_OPT_DISPLAY_GRAPH },
	{ "stacktrace", TRACE_OPT_STACKTRACE },
	{ "func_stack_trace", TRACE_OPT_FUNC_STACK_TRACE },
	{ "funcgraph-overrun", TRACE_OPT_GRAPH_OVERRUN },
	{ "funcgraph-cpu", TRACE_OPT_GRAPH_CPU },
	{ "funcgraph-overhead", TRACE_OPT_GRAPH_OVERHEAD },
	{ "funcgraph-proc", TRACE_OPT_GRAPH_PROC },
	{ "funcgraph-duration", TRACE_OPT_GRAPH_DURATION },
	{ "funcgraph-abstime", TRACE_OPT_GRAPH_ABSTIME },
	{ "funcgraph-irqs", TRACE_OPT_GRAPH_IRQS },
	{ "funcgraph-tail", TRACE_OPT_GRAPH_TAIL },
	{ "funcgraph-retval", TRACE_OPT_GRAPH_RETVAL },
};
_Static_assert(ARRAY_SIZE(trace_opts) == NR_TRACE_OPTS, "every option listed once");

/* Options that change more than how tr prints: the buffers' overwrite mode (both, so a swap keeps
 * it, as Linux's set_tracer_flag() does) and whether the scheduler records tgids. */
static void option_effects(struct trace_array *tr, enum trace_option_bit bit, bool on)
{
	if (bit == TRACE_OPT_OVERWRITE) {
		ring_buffer_change_overwrite(&tr->buffer, on);
		if (tr->max_buffer)
			ring_buffer_change_overwrite(tr->max_buffer, on);
	}
	if (bit == TRACE_OPT_RECORD_TGID)
		trace_tgid_option_changed(on);
}

void trace_array_set_option(struct trace_array *tr, enum trace_option_bit bit, bool on)
{
	unsigned long o = tr->options;

	WRITE_ONCE(tr->options, on ? o | (1UL << bit) : o & ~(1UL << bit));
	if (!(o & (1UL << bit)) != !on)
		option_effects(tr, bit, on);
	trace_array_update_fn_slow(tr);
}

/*
 * A user's switch of one option of tr (either file): the tracer running on tr hears of a change
 * (irqsoff adds or drops its functions on function-trace) and may refuse it, and the option is
 * put back.
 */
static int set_option(struct trace_array *tr, enum trace_option_bit bit, bool on)
{
	struct tracer *t = tr->current_trace;
	bool was = trace_array_option(tr, bit);
	int err;

	trace_array_set_option(tr, bit, on);
	err = t->option_changed && was != on ? t->option_changed(tr, bit, on) : 0;
	if (err)
		trace_array_set_option(tr, bit, was);
	return err;
}

static const struct trace_opt *find_option(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(trace_opts); i++)
		if (!strcmp(name, trace_opts[i].name))
			return &trace_opts[i];
	return NULL;
}

static int options_show(struct seq_file *m, struct fnode *f)
{
	struct trace_array *tr = trace_array_of(f);

	for (size_t i = 0; i < ARRAY_SIZE(trace_opts); i++)
		seq_printf(m, "%s%s\n", trace_array_option(tr, trace_opts[i].bit) ? "" : "no",
			   trace_opts[i].name);
	return 0;
}

/* NAME turns it on, noNAME off; anything else is EINVAL (an option may itself begin with "no"). */
static int options_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	char text[48];
	const struct trace_opt *opt;
	bool on = true;

	if (fs_write_text(text, sizeof(text), buf, len))
		return -EINVAL;
	opt = find_option(text);
	if (!opt && !strncmp(text, "no", 2)) {
		opt = find_option(text + 2);
		on = false;
	}
	if (!opt)
		return -EINVAL;
	return set_option(trace_array_of(f), opt->bit, on);
}

/* options/NAME: its priv is the option. */
static int option_file_show(struct seq_file *m, struct fnode *f)
{
	const struct trace_opt *opt = f->priv;

	seq_printf(m, "%d\n", trace_array_option(trace_array_of(f), opt->bit));
	return 0;
}

static int option_file_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	const struct trace_opt *opt = f->priv;
	unsigned long v;

	if (fs_write_ulong(buf, len, 0, 1, &v))
		return -EINVAL; /* Linux's trace_options_core_write: 0 or 1 */
	return set_option(trace_array_of(f), opt->bit, v);
}

static const struct tracefs_file options_file =
	TRACEFS_FILE("trace_options", options_show, options_write);
static const struct file_ops option_file_ops = { .show = option_file_show,
						 .write = option_file_write };

int trace_options_create(struct fnode *dir)
{
	struct fnode *opts;

	if (tracefs_create_files(dir, &options_file, 1))
		return -ENOMEM;
	opts = tracefs_create_dir("options", dir);
	if (!opts)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(trace_opts); i++)
		if (!tracefs_create_file(trace_opts[i].name, opts, (void *)&trace_opts[i],
					 &option_file_ops))
			return -ENOMEM;
	return 0;
}
