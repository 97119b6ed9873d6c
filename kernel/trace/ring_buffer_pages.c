/* The ring buffer read a page at a time: how many pages and bytes are unread, the oldest stamp,
 * and the whole-page copies trace_pipe_raw and the shell's raw reader hand out. */
#include "kernel/trace/ring_buffer.h"
#include "kernel/mm/mm.h"
#include "lib/string.h"

/* Starts it at the page a reader would read first and visits each page in consecutive lives from
 * there to the tail: the pages that may hold unread events. */
#define rb_for_each_unread_page(it, cb)                                                            \
	for (bool more__ = (rb_iter_start(it, cb), !(it)->done); more__;                           \
	     more__ = rb_iter_next_before_tail(it))

/* Linux's ring_buffer_nr_dirty_pages(): unread pages the writer has left (the tail is not one). */
int ring_buffer_dirty_pages(struct ring_buffer_per_cpu *cb)
{
	int tail = __atomic_load_n(&cb->tail, __ATOMIC_ACQUIRE), dirty = 0;
	struct rb_iter it;

	rb_for_each_unread_page(&it, cb)
	{
		if (it.page != tail)
			dirty++;
	}
	return dirty;
}

/* From where a reader would start, along the pages in consecutive lives, to the tail. */
u64 ring_buffer_bytes_cpu(struct ring_buffer_per_cpu *cb)
{
	struct rb_iter it;
	u64 bytes = 0;

	rb_for_each_unread_page(&it, cb)
	{
		u64 commit = __atomic_load_n(&cb->pages[it.page].page->commit, __ATOMIC_ACQUIRE);
		bytes += commit > it.off ? commit - it.off : 0;
	}
	return bytes;
}

u64 ring_buffer_oldest_event_ts(struct ring_buffer_per_cpu *cb)
{
	struct rb_iter it;
	u32 len;
	u64 ts;

	rb_iter_start(&it, cb);
	return rb_iter_peek_raw(&it, &len, &ts) ? ts : 0;
}

/*
 * trace_pipe_raw's read, with the writers held off (ring_buffer_record_off): the oldest unread
 * events of one page as a whole Linux data page in out. A page nobody has read from is copied as
 * it is. If trace_pipe already took events from its start, the rest moves to the start of the
 * copy and time_stamp becomes the time of the last event taken: the first remaining event's delta
 * counts from that event, so the deltas stay exactly right. Bytes past commit are zero.
 * Returns the events copied (0: nothing unread) and fills *pos for ring_buffer_consume_page().
 */
u32 ring_buffer_peek_page(struct ring_buffer_per_cpu *cb, void *out, struct rb_page_pos *pos)
{
	struct buffer_data_page *bpage = out;
	struct buffer_data_page *dp;
	struct rb_iter it;
	u32 events = 0;

	memset(out, 0, PAGE_SIZE);
	rb_iter_start(&it, cb);
	if (it.done)
		return 0;
	dp = cb->pages[it.page].page;
	if (it.off >= dp->commit) {
		if (!rb_iter_next_before_tail(&it))
			return 0;
		dp = cb->pages[it.page].page;
	}
	for (u32 off = it.off; off < dp->commit;) {
		const struct ring_buffer_event *e = (void *)(dp->data + off);
		events += e->type_len != RINGBUF_TYPE_TIME_EXTEND;
		off += rb_event_length(e);
	}
	bpage->time_stamp = it.off ? it.ts : dp->time_stamp;
	bpage->commit = dp->commit - it.off;
	memcpy(bpage->data, dp->data + it.off, bpage->commit);
	pos->page = it.page;
	pos->seq = it.seq;
	pos->end = (u32)dp->commit;
	pos->events = events;
	return events;
}

/* Marks what ring_buffer_peek_page() copied as read, as trace_pipe does for one event. */
void ring_buffer_consume_page(struct ring_buffer_per_cpu *cb, const struct rb_page_pos *pos)
{
	if (pos->page >= cb->nr_pages || page_seq(&cb->pages[pos->page]) != pos->seq)
		return; /* a reset since the copy: those events are gone already */
	__atomic_add_fetch(&cb->pages[pos->page].seq_read, pos->events, __ATOMIC_SEQ_CST);
	cb->reader_page = pos->page;
	cb->reader_seq = pos->seq;
	cb->reader_off = pos->end;
	__atomic_add_fetch(&cb->read, pos->events, __ATOMIC_RELAXED);
}

/* The pages a reader would still visit, oldest first (indexes into cb->pages); writers held off. */
int ring_buffer_unread_pages(struct ring_buffer_per_cpu *cb, int *pages, int max)
{
	struct rb_iter it;
	int n = 0;

	rb_for_each_unread_page(&it, cb)
	{
		/* Read to its end (the reader's mark sits there), or not yet written: nothing unread. */
		if (n < max && it.off < cb->pages[it.page].page->commit)
			pages[n++] = it.page;
	}
	return n;
}
