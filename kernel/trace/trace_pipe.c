/* trace_pipe: a trace array's events consumed as they are printed, oldest first across CPUs.
 *
 *   trace_pipe_open()   a reader's start: nothing taken yet, overruns counted from now
 *   trace_pipe_step()   takes one event ahead from each CPU, prints the oldest of them
 *   trace_array_pipe_cpu()  the shell's `cat trace_pipe`: steps, and waits, until Ctrl-C
 *
 * A program's read() steps the same reader (kernel/trace/trace_pipe_read.c).
 */
#include "kernel/trace/trace.h"
#include "kernel/shell/shell.h"
#include "kernel/time.h"
#include "lib/string.h"

/*
 * trace_pipe's look-ahead: a copy of the next event on this CPU, if it is already there and was
 * not overwritten while we copied it (function_graph prints a leaf as one line).
 */
static void pipe_peek_next(struct ring_buffer_per_cpu *cb, struct rb_iter *reader,
			   struct trace_iterator *it, u8 *buf, u32 size)
{
	struct rb_iter ahead = *reader;
	u64 ts;
	void *d;

	it->next = NULL;
	/* Taken at an earlier step, before a resize moved the pages: no look-ahead this time. */
	if (reader->cb != cb || reader->page >= cb->nr_pages ||
	    page_seq(&cb->pages[reader->page]) != reader->seq)
		return;
	d = rb_iter_peek(&ahead, &it->next_len, &ts);
	if (!d)
		return;
	memcpy(buf, d, MIN(it->next_len, size));
	if (page_seq(&cb->pages[ahead.page]) == ahead.seq)
		it->next = (struct trace_entry *)buf;
}

void trace_pipe_open(struct trace_array *tr, struct trace_pipe_state *st)
{
	memset(st->its, 0, sizeof(st->its));
	for (int c = 0; c < NR_CPUS; c++) {
		st->seen_overrun[c] = tr->buffer.cpu[c].overrun;
		st->pending[c].have = false;
	}
}

/* The CPU whose event taken ahead is the oldest, taking one from each CPU that has none; -1. */
static int pipe_oldest(struct trace_buffer *b, int only_cpu, struct trace_pipe_state *st)
{
	int oldest = -1;

	for (int c = 0; c < NR_CPUS; c++) {
		struct trace_pipe_pending *p = &st->pending[c];
		if (only_cpu >= 0 && c != only_cpu)
			continue;
		if (!p->have && ring_buffer_consume(&b->cpu[c], &st->its[c], p->ev.bytes,
						    sizeof(p->ev.bytes), &p->len, &p->ts)) {
			p->have = true;
			p->lost = b->cpu[c].overrun - st->seen_overrun[c];
			st->seen_overrun[c] = b->cpu[c].overrun;
		}
		if (p->have && (oldest < 0 || p->ts < st->pending[oldest].ts))
			oldest = c;
	}
	return oldest;
}

bool trace_pipe_step(struct trace_array *tr, struct seq_file *m, int only_cpu,
		     struct trace_pipe_state *st)
{
	struct trace_buffer *b = &tr->buffer;
	/* Taking events is a step a resize or a reset never falls into; printing them is not. */
	unsigned long flags = spin_lock_irqsave(&b->reader_lock);
	int oldest = pipe_oldest(b, only_cpu, st);
	u32 len;
	u64 ts;

	if (oldest < 0) {
		spin_unlock_irqrestore(&b->reader_lock, flags);
		return false;
	}
	struct trace_pipe_pending *p = &st->pending[oldest];
	struct rb_iter *its = st->its;
	struct trace_iterator it = { .tr = tr,
				     .cpu = oldest,
				     .ent = &p->ev.ent,
				     .len = MIN(p->len, (u32)PIPE_EVENT_MAX),
				     .ts = trace_clock_display(b->clock, p->ts) };
	pipe_peek_next(&b->cpu[oldest], &its[oldest], &it, st->next, sizeof(st->next));
	spin_unlock_irqrestore(&b->reader_lock, flags);
	if (p->lost)
		seq_printf(m, "CPU:%d [LOST %llu EVENTS]\n", oldest, p->lost);
	if (!tr->current_trace->print_line || !tr->current_trace->print_line(m, &it))
		trace_print_default(m, &it);
	if (it.skip_next) { /* printed with this one (a graph leaf): take it out too */
		flags = spin_lock_irqsave(&b->reader_lock);
		ring_buffer_consume(&b->cpu[oldest], &its[oldest], st->next, sizeof(st->next), &len,
				    &ts);
		spin_unlock_irqrestore(&b->reader_lock, flags);
	}
	p->have = false;
	return true;
}

int trace_pipe_cpu(struct seq_file *m, int only_cpu)
{
	return trace_array_pipe_cpu(&global_trace, m, only_cpu);
}

int trace_array_pipe_cpu(struct trace_array *tr, struct seq_file *m, int only_cpu)
{
	static struct trace_pipe_state st; /* one reader, the shell; too big for its stack */

	trace_pipe_open(tr, &st);
	while (!shell_interrupted()) {
		if (!trace_pipe_step(tr, m, only_cpu, &st)) {
			seq_flush(m);
			msleep(10);
		}
	}
	return 0;
}
