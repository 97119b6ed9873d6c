/* latency-format: the latency tracers' header and each line's context, in Linux's exact form.
 *
 *   # irqsoff latency trace v1.1.5 on 0.1.0
 *   # latency: 59 us, #4/4, CPU#1 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:4)
 *   #  => started at: ...       (the worst section's first and last functions)
 *        sh-2       1d...    0us : cmd_irqoff <-shell_exec       comm pid cpu flags time-from-start
 *
 * The time is counted from the buffer's time_start (the section's start in the max buffer), and the
 * mark after it says how long until the next event on the line's CPU: `+` over 10 us, `!` over
 * 100 us, `#` over 1 ms (Linux's trace_find_mark()).
 */
#include "kernel/trace/trace_snapshot.h"
#include "kernel/fs/procfs.h"
#include "kernel/smp.h"

static void print_lat_help_header(struct seq_file *m)
{
	seq_puts(m, "#                    _------=> CPU#            \n"
		    "#                   / _-----=> irqs-off/BH-disabled\n"
		    "#                  | / _----=> need-resched    \n"
		    "#                  || / _---=> hardirq/softirq \n"
		    "#                  ||| / _--=> preempt-depth   \n"
		    "#                  |||| / _-=> migrate-disable \n"
		    "#                  ||||| /     delay           \n"
		    "#  cmd     pid     |||||| time  |   caller     \n"
		    "#     \\   /        ||||||  \\    |    /       \n");
}

/* Linux's print_trace_header(): who had the worst section, how long, where it began and ended. */
static void print_trace_header(struct seq_file *m, struct trace_array *tr, struct trace_buffer *b,
			       u64 skipped)
{
	const struct trace_max_data *d = &tr->max_data;
	bool max = b == tr->max_buffer;
	u64 written, in = ring_buffer_entries(b, &written);

	seq_printf(m, "# %s latency trace v1.1.5 on %s\n", tr->current_trace->name,
		   FTRACE_OS_VERSION);
	seq_puts(m, "# --------------------------------------------------------------------\n");
	/* Ours preempts wherever preempt_count is 0 at an interrupt's end: Linux's full model. */
	seq_printf(m, "# latency: %lu us, #%llu/%llu, CPU#%d | (M:preempt VP:0, KP:0, SP:0 HP:0",
		   max ? d->saved_latency / 1000 : 0, in - skipped, written - skipped,
		   max ? d->cpu : 0);
	seq_printf(m, " #P:%d)\n", num_online_cpus());
	seq_puts(m, "#    -----------------\n");
	seq_printf(m, "#    | task: %.16s-%d (uid:%d nice:%ld policy:%ld rt_prio:%ld)\n",
		   max ? d->comm : "", max ? d->pid : 0, 0, 0L, max ? (long)d->policy : 0L,
		   max ? (long)d->rt_priority : 0L);
	seq_puts(m, "#    -----------------\n");
	if (max && d->critical_start) {
		seq_printf(m, "#  => started at: %ps\n", (void *)d->critical_start);
		seq_printf(m, "#  => ended at:   %ps\n#\n", (void *)d->critical_end);
	}
	seq_puts(m, "#\n");
}

void trace_latency_header(struct seq_file *m, struct trace_array *tr, struct trace_buffer *b,
			  u64 skipped)
{
	u64 written;

	if (ring_buffer_entries(b, &written) == skipped)
		return; /* as Linux: nothing at all for an empty buffer */
	print_trace_header(m, tr, b, skipped);
	if (!tr->current_trace->print_lat_header || !tr->current_trace->print_lat_header(m))
		print_lat_help_header(m);
}

static char trace_find_mark(u64 ns)
{
	static const struct {
		u64 ns;
		char sym;
	} mark[] = { { 1000000000ULL, '$' }, { 100000000ULL, '@' }, { 10000000ULL, '*' },
		     { 1000000ULL, '#' },    { 100000ULL, '!' },    { 10000ULL, '+' } };

	for (size_t i = 0; i < ARRAY_SIZE(mark); i++)
		if (ns > mark[i].ns)
			return mark[i].sym;
	return ' ';
}

void trace_print_lat_fmt(struct seq_file *m, const struct trace_entry *e)
{
	u8 depth = MIN(e->preempt_count, 15);

	seq_printf(m, "%c%c%c%c%c", e->flags & TRACE_FLAG_IRQS_OFF ? 'd' : '.',
		   e->flags & TRACE_FLAG_NEED_RESCHED ? 'N' : '.', trace_hardsoft_irq(e->flags),
		   depth ? "0123456789abcdef"[depth] : '.', '.');
}

void trace_print_lat_context(struct seq_file *m, struct trace_iterator *it)
{
	const struct trace_entry *e = it->ent;
	u64 next = it->next_ts ? it->next_ts : it->ts;
	u64 abs = it->ts > it->time_start ? it->ts - it->time_start : 0;
	u64 rel = next > it->ts ? next - it->ts : 0;

	seq_printf(m, "%8.8s-%-7d %3d", trace_find_cmdline(e->pid), e->pid, it->cpu);
	trace_print_lat_fmt(m, e);
	seq_printf(m, " %4lluus%c: ", abs / 1000, trace_find_mark(rel / 1000 * 1000));
}

/* Linux's print_lat_header() for display-graph: the legend of the flag columns, after `size`
 * columns of time, CPU and task. */
void print_graph_lat_header(struct seq_file *m, int size)
{
	static const char *const legend[] = { "  _-----=> irqs-off        ",
					      " / _----=> need-resched    ",
					      "| / _---=> hardirq/softirq ",
					      "|| / _--=> preempt-depth   ",
					      "||| /                      " };

	for (size_t i = 0; i < ARRAY_SIZE(legend); i++)
		seq_printf(m, "#%*s%s\n", size, "", legend[i]);
}
