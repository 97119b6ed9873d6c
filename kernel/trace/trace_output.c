/* How events read in the `trace` file: Linux's columns, to the character.
 *
 *              sh-1       [000] d.h1.     0.123456: kmalloc <-fs_create
 *   %16s-%-7d       [%03d] irqs-off, need-resched, hardirq, preempt depth, migrate-disable
 */
#include "kernel/trace/trace.h"
#include "kernel/trace/trace_events.h"
#include "kernel/kallsyms.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/shell/shell.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/locking/mutex.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"
#include "lib/string.h"

/* Linux's two headers: with the irq-info columns (the default) or without; record-tgid widens
 * both by the TGID column. */
void print_func_help_header(struct seq_file *m, bool irq_info, bool tgid)
{
	static const char space[] = "            ";
	int prec = tgid ? 12 : 2;

	if (!irq_info) {
		seq_printf(m, "#           TASK-PID    %s CPU#     TIMESTAMP  FUNCTION\n",
			   tgid ? "   TGID   " : "");
		seq_printf(m, "#              | |      %s   |         |         |\n",
			   tgid ? "     |    " : "");
		return;
	}
	seq_printf(m, "#                            %.*s  _-----=> irqs-off/BH-disabled\n", prec,
		   space);
	seq_printf(m, "#                            %.*s / _----=> need-resched\n", prec, space);
	seq_printf(m, "#                            %.*s| / _---=> hardirq/softirq\n", prec, space);
	seq_printf(m, "#                            %.*s|| / _--=> preempt-depth\n", prec, space);
	seq_printf(m, "#                            %.*s||| / _-=> migrate-disable\n", prec, space);
	seq_printf(m, "#                            %.*s|||| /     delay\n", prec, space);
	seq_printf(m, "#           TASK-PID  %.*s CPU#  |||||  TIMESTAMP  FUNCTION\n", prec,
		   "     TGID   ");
	seq_printf(m, "#              | |    %.*s   |   |||||     |         |\n", prec,
		   "       |    ");
}

char trace_hardsoft_irq(u8 flags)
{
	bool nmi = flags & TRACE_FLAG_NMI, hard = flags & TRACE_FLAG_HARDIRQ;

	return nmi && hard ? 'Z' : nmi ? 'z' : hard ? 'h' : '.';
}

static bool it_option(const struct trace_iterator *it, enum trace_option_bit o)
{
	return trace_array_option(it->tr ?: &global_trace, o);
}

/* Linux's TRACE_FILE_TIME_IN_NS: the clock's stamps are times (counter's, uptime's and x86-tsc's
 * are counts). The max buffer always has the live one's clock. */
static bool trace_iter_in_ns(const struct trace_iterator *it)
{
	return (it->tr ?: &global_trace)->buffer.clock->in_ns;
}

void trace_print_context(struct seq_file *m, struct trace_iterator *it)
{
	const struct trace_entry *e = it->ent;
	u8 depth = MIN(e->preempt_count, 15); /* one hex digit, as Linux shows it */

	if (!it_option(it, TRACE_OPT_CONTEXT_INFO))
		return;
	if (it_option(it, TRACE_OPT_LATENCY_FMT)) {
		trace_print_lat_context(m, it);
		return;
	}
	seq_printf(m, "%16s-%-7d ", trace_find_cmdline(e->pid), e->pid);
	if (it_option(it, TRACE_OPT_RECORD_TGID)) {
		int tgid = trace_find_tgid(e->pid);
		if (tgid)
			seq_printf(m, "(%7d) ", tgid);
		else
			seq_puts(m, "(-------) ");
	}
	seq_printf(m, "[%03d] ", it->cpu);
	if (it_option(it, TRACE_OPT_IRQ_INFO))
		seq_printf(m, "%c%c%c%c%c ", e->flags & TRACE_FLAG_IRQS_OFF ? 'd' : '.',
			   e->flags & TRACE_FLAG_NEED_RESCHED ? 'N' : '.',
			   trace_hardsoft_irq(e->flags), depth ? "0123456789abcdef"[depth] : '.',
			   '.');
	if (trace_iter_in_ns(it))
		seq_printf(m, "%5llu.%06llu: ", it->ts / 1000000000ULL, (it->ts / 1000) % 1000000);
	else
		seq_printf(m, "%12llu: ", it->ts); /* a count, not a time: Linux prints it raw */
}

/* Linux's seq_print_ip_sym(): the name (sym-offset: +off/size), sym-addr: the address after. */
static void print_ip_sym(struct seq_file *m, const struct trace_iterator *it, unsigned long ip)
{
	if (!ip) {
		seq_putc(m, '0');
		return;
	}
	seq_printf(m, it_option(it, TRACE_OPT_SYM_OFFSET) ? "%pS" : "%ps", (void *)ip);
	if (it_option(it, TRACE_OPT_SYM_ADDR))
		seq_printf(m, " <%016lx>", ip);
}

/*
 * The raw option: Linux's print_raw_fmt(), pid, CPU and nanoseconds, then the event's raw form:
 * a function's two addresses in hex, a marker's text after its ip; the others have none and
 * print their type (Linux's trace_nop_print()).
 */
static void trace_print_raw(struct seq_file *m, struct trace_iterator *it)
{
	if (it_option(it, TRACE_OPT_CONTEXT_INFO))
		seq_printf(m, "%d %d %llu ", it->ent->pid, it->cpu, it->ts);
	if (it->ent->type == TRACE_FN) {
		const struct ftrace_entry *f = (const void *)it->ent;
		seq_printf(m, "%lx %lx\n", f->ip, f->parent_ip);
	} else if (it->ent->type == TRACE_PRINT) {
		const struct print_entry *p = (const void *)it->ent;
		seq_printf(m, "# %lx ", p->ip);
		seq_write(m, p->buf, strnlen(p->buf, it->len - sizeof(*p)));
	} else {
		seq_printf(m, "type: %d\n", it->ent->type);
	}
}

/* Linux's SEQ_PUT_HEX_FIELD(): a field's bytes as hex digits, most significant first, then a
 * space (the field's size sets the width). */
static void seq_put_hex(struct seq_file *m, u64 v, int size)
{
	seq_printf(m, "%0*llx ", size * 2, v);
}

/*
 * hex and bin: Linux's print_hex_fmt() and print_bin_fmt(), pid, CPU and time (context-info),
 * then the record: a function entry's two addresses; any other event has no hex or binary form
 * and prints its type, as Linux's trace_nop_print() does. hex ends the line, bin does not.
 */
static void trace_print_hex_bin(struct seq_file *m, struct trace_iterator *it, bool bin)
{
	const struct ftrace_entry *f = (const void *)it->ent;
	int pid = it->ent->pid, cpu = it->cpu;

	if (it_option(it, TRACE_OPT_CONTEXT_INFO)) {
		if (bin) {
			seq_write(m, (const char *)&pid, sizeof(pid));
			seq_write(m, (const char *)&cpu, sizeof(cpu));
			seq_write(m, (const char *)&it->ts, sizeof(it->ts));
		} else {
			seq_put_hex(m, (u32)pid, sizeof(pid));
			seq_put_hex(m, (u32)cpu, sizeof(cpu));
			seq_put_hex(m, it->ts, sizeof(it->ts));
		}
	}
	if (it->ent->type != TRACE_FN)
		seq_printf(m, "type: %d\n", it->ent->type);
	else if (bin)
		seq_write(m, (const char *)&f->ip, 2 * sizeof(f->ip));
	else
		for (int i = 0; i < 2; i++)
			seq_put_hex(m, i ? f->parent_ip : f->ip, sizeof(f->ip));
	if (!bin)
		seq_putc(m, '\n');
}

/*
 * annotate (Linux's test_cpu_buff_start()): when the buffer has overrun, a CPU's older events are
 * gone, so its first line may come long after other CPUs' lines; a line says where it starts,
 * except for the first two events of the output (Linux's idx > 1).
 */
static void annotate_cpu_start(struct seq_file *m, struct trace_iterator *it)
{
	if (!it->started || !it_option(it, TRACE_OPT_ANNOTATE) || it->started[it->cpu])
		return;
	it->started[it->cpu] = true;
	if (it->idx > 1)
		seq_printf(m, "##### CPU %u buffer started ####\n", it->cpu);
}

/*
 * The name of a return address on a stack. A call to a noreturn function may end its caller, so
 * the caller is named by the byte before (as backtraces do). But a return address that is a
 * function's very first byte was put there by a return hook (function_graph's return_to_handler,
 * a kretprobe's trampoline), not by a call: the byte before belongs to some other symbol.
 */
const char *stack_entry_name(unsigned long addr)
{
	unsigned long offset;
	const char *name = kallsyms_lookup(addr, NULL, &offset);

	return name && offset == 0 ? name : kallsyms_lookup(addr - 1, NULL, NULL);
}

/* Events every tracer shows the same way: function entries, trace_marker writes, trace events. */
bool trace_print_default(struct seq_file *m, struct trace_iterator *it)
{
	if (it_option(it, TRACE_OPT_BIN) || it_option(it, TRACE_OPT_HEX)) {
		trace_print_hex_bin(m, it, it_option(it, TRACE_OPT_BIN));
		return true;
	}
	if (it_option(it, TRACE_OPT_RAW)) {
		trace_print_raw(m, it);
		return true;
	}
	annotate_cpu_start(m, it);
	if (it->ent->type >= TRACE_EVENT_FIRST_ID)
		return trace_event_print(m, it);
	if (it->ent->type == TRACE_FN) {
		const struct ftrace_entry *f = (const void *)it->ent;
		trace_print_context(m, it);
		print_ip_sym(m, it, f->ip);
		if (it_option(it, TRACE_OPT_PRINT_PARENT) && f->parent_ip) {
			seq_puts(m, " <-");
			print_ip_sym(m, it, f->parent_ip);
		}
		seq_putc(m, '\n');
		return true;
	}
	if (it->ent->type == TRACE_STACK) {
		const struct stack_entry *s = (const void *)it->ent;
		trace_print_context(m, it);
		seq_puts(m, "<stack trace>\n");
		for (int i = 0; i < s->size && i < FTRACE_STACK_ENTRIES; i++) {
			const char *name = stack_entry_name(s->caller[i]);
			if (name)
				seq_printf(m, " => %s\n", name);
			else
				seq_printf(m, " => 0x%lx\n", s->caller[i]);
		}
		return true;
	}
	if (it->ent->type == TRACE_USER_STACK)
		return trace_user_stack_print(m, it);
	return trace_printk_print(m, it);
}

/* --- trace: every CPU's events, oldest first -------------------------------------------- */

/* The oldest event across the CPUs' iterators (only_cpu >= 0: that CPU only); false at the end. */
bool trace_next_event(struct rb_iter *its, int only_cpu, struct trace_iterator *it)
{
	*it = (struct trace_iterator){ .cpu = -1 };
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		u32 len;
		u64 ts;
		void *d =
			only_cpu < 0 || only_cpu == cpu ? rb_iter_peek(&its[cpu], &len, &ts) : NULL;
		if (d && (it->cpu < 0 || ts < it->ts))
			*it = (struct trace_iterator){ .cpu = cpu, .ts = ts, .ent = d, .len = len };
	}
	if (it->cpu < 0)
		return false;
	it->ts = trace_clock_display(its[it->cpu].cb->clock, it->ts);
	return true;
}

void trace_print_header(struct seq_file *m, struct trace_array *tr, struct trace_buffer *b,
			u64 skipped)
{
	struct tracer *t = tr->current_trace;
	u64 written, in;

	seq_printf(m, "# tracer: %s\n#\n", t->name);
	if (t->print_header) {
		t->print_header(m);
	} else if (!trace_array_option(tr, TRACE_OPT_CONTEXT_INFO)) {
		return; /* Linux's trace_default_header(): no columns without the context */
	} else if (trace_array_option(tr, TRACE_OPT_LATENCY_FMT)) {
		trace_latency_header(m, tr, b, skipped);
	} else {
		in = ring_buffer_entries(b, &written);
		seq_printf(m, "# entries-in-buffer/entries-written: %llu/%llu   #P:%d\n#\n", in,
			   written, num_online_cpus());
		if (!trace_array_option(tr, TRACE_OPT_VERBOSE))
			print_func_help_header(m, trace_array_option(tr, TRACE_OPT_IRQ_INFO),
					       trace_array_option(tr, TRACE_OPT_RECORD_TGID));
	}
}

/* Events before the buffer's time_start, which readers skip (Linux's skipped_entries): what an
 * older section left on the other CPUs of the max buffer. */
static u64 count_skipped(struct trace_buffer *b, int only_cpu)
{
	struct rb_iter it;
	u64 n = 0, ts;
	u32 len;

	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (only_cpu >= 0 && cpu != only_cpu)
			continue;
		rb_iter_start(&it, &b->cpu[cpu]);
		for (; rb_iter_peek(&it, &len, &ts) && ts < b->time_start; rb_iter_advance(&it))
			n++;
	}
	return n;
}

/* What a read of `trace` holds: the copies' memory (NULL: paused), the buffer held off, and the
 * buffer read, which cannot be resized meanwhile. */
struct trace_read {
	u8 *copies;
	struct trace_buffer *held, *read;
};

/* The copies of one live read at a time: a read does not kmalloc, so it does not show up in a
 * trace of kmalloc (a second reader at the same moment allocates its own). */
static u8 trace_read_copies[(NR_CPUS + 1) * BUF_PAGE_SIZE];
static int trace_read_copies_busy;

static u8 *trace_read_alloc(void)
{
	if (!__atomic_exchange_n(&trace_read_copies_busy, 1, __ATOMIC_ACQUIRE))
		return trace_read_copies;
	return kmalloc(sizeof(trace_read_copies));
}

static void trace_read_free(u8 *copies)
{
	if (copies == trace_read_copies)
		__atomic_store_n(&trace_read_copies_busy, 0, __ATOMIC_RELEASE);
	else
		kfree(copies);
}

/*
 * How `trace` reads b: the writers held off for the read (pause-on-trace, or a buffer that only
 * swaps change: the max buffer), or left running, each CPU's events copied out and checked
 * (rb_iter_start_copy()). Either way a swap cannot trade the pages under us: the max buffer's
 * writer word is held, so its swaps are refused (-EAGAIN), as Linux's are while a reader holds
 * record_disabled. Out of memory for the copies, the read pauses.
 */
static void trace_read_begin(struct trace_array *tr, struct trace_buffer *b, struct rb_iter *its,
			     struct trace_read *rd)
{
	rd->copies = NULL;
	rd->read = b;
	ring_buffer_read_prepare(b);
	if (b == &tr->buffer && !trace_array_option(tr, TRACE_OPT_PAUSE_ON_TRACE))
		rd->copies = trace_read_alloc();
	rd->held = rd->copies ? tr->max_buffer : b;
	if (rd->held)
		ring_buffer_record_off(rd->held);
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (rd->copies)
			rb_iter_start_copy(&its[cpu], &b->cpu[cpu],
					   rd->copies + cpu * BUF_PAGE_SIZE,
					   ring_buffer_time_stamp(b));
		else
			rb_iter_start(&its[cpu], &b->cpu[cpu]);
	}
}

static void trace_read_end(struct trace_read *rd)
{
	if (rd->held)
		ring_buffer_record_on(rd->held);
	ring_buffer_read_finish(rd->read);
	trace_read_free(rd->copies);
}

/* Linux's print_trace_line(): the iterator's loss first, without a count (it cannot know). */
static void trace_print_lost(struct seq_file *m, struct rb_iter *it, int cpu)
{
	if (!it->missed)
		return;
	seq_printf(m, "CPU:%d [LOST EVENTS]\n", cpu);
	it->missed = false;
}

int trace_show_buffer(struct trace_array *tr, struct seq_file *m, struct trace_buffer *b,
		      int only_cpu, trace_header_fn header)
{
	struct tracer *t = tr->current_trace;
	struct rb_iter its[NR_CPUS];
	u64 start = trace_clock_display(b->clock, b->time_start), ts2, idx = 0, overruns = 0;
	bool started[NR_CPUS];
	struct trace_read rd;
	u32 len;
	int cpu;

	trace_read_begin(tr, b, its, &rd);
	header(m, tr, b, count_skipped(b, only_cpu));
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		overruns += b->cpu[cpu].overrun;
		/* A CPU whose older events are skipped is never annotated (Linux's skipped_entries). */
		started[cpu] = false;
		while (rb_iter_peek(&its[cpu], &len, &ts2) && ts2 < b->time_start) {
			rb_iter_advance(&its[cpu]);
			started[cpu] = true;
		}
	}
	for (;;) {
		struct trace_iterator it;
		if (!trace_next_event(its, only_cpu, &it) || shell_interrupted())
			break;
		it.tr = tr;
		trace_print_lost(m, &its[it.cpu], it.cpu);
		/* Let the tracer look one event ahead on this CPU (a copy of the iterator, with a
		 * copy buffer of its own, so this event's copy stays as it is). */
		struct rb_iter ahead = its[it.cpu];
		if (rd.copies)
			ahead.copy = rd.copies + NR_CPUS * BUF_PAGE_SIZE;
		rb_iter_advance(&ahead);
		it.next = rb_iter_peek(&ahead, &it.next_len, &ts2);
		if (ahead.missed != its[it.cpu].missed)
			it.next = NULL; /* not the event after this one: a restart found it */
		it.next_ts = it.next ? trace_clock_display(b->clock, ts2) : 0;
		it.time_start = start;
		it.started = overruns ? started : NULL; /* Linux's TRACE_FILE_ANNOTATE */
		it.idx = idx++;
		if (!t->print_line || !t->print_line(m, &it))
			trace_print_default(m, &it);
		rb_iter_advance(&its[it.cpu]);
		if (it.skip_next && rb_iter_peek(&its[it.cpu], &it.next_len, &ts2))
			rb_iter_advance(&its[it.cpu]);
	}
	trace_read_end(&rd);
	return 0;
}
