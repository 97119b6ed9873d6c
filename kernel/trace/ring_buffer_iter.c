/* trace's reader beside running writers: each event is copied out, then checked. Linux's own is
 * rb_iter_head_event(), which checks the page's time_stamp where we check its seq.
 *
 *   peek    copy the event at the iterator into it->copy, then read its page's seq again:
 *           unchanged, the copy is whole (the writer moves a page to a new life before it writes
 *           a byte of it); changed, the writer overwrote it under us: start again at the oldest
 *           page still in the ring, and note the loss (it->missed)
 *   stop    events stamped after the read began end it, so a busy writer cannot keep `cat`
 *           reading forever
 *
 * A restart never hands out an event older than the last one shown (shown_ts): within a CPU,
 * `trace`'s time never goes back.
 *
 * Beside a resize and a reset: a whole read is counted in b->readers (ring_buffer_read_prepare()),
 * so a resize, which moves the page descriptors and frees pages, is refused until it ends, as
 * Linux's is. A reset (`echo > trace`) goes ahead, as in Linux: it gives every page a new life,
 * so the copy being made fails its check and the iterator starts again on the emptied ring,
 * where everything is newer than the read's start: the read ends there.
 */
#include "kernel/trace/ring_buffer.h"
#include "lib/string.h"

void ring_buffer_read_prepare(struct trace_buffer *b)
{
	unsigned long flags = spin_lock_irqsave(&b->reader_lock);

	b->readers++;
	spin_unlock_irqrestore(&b->reader_lock, flags);
}

void ring_buffer_read_finish(struct trace_buffer *b)
{
	unsigned long flags = spin_lock_irqsave(&b->reader_lock);

	b->readers--;
	spin_unlock_irqrestore(&b->reader_lock, flags);
}

void rb_iter_start_copy(struct rb_iter *it, struct ring_buffer_per_cpu *cb, void *copy, u64 stop)
{
	rb_iter_start(it, cb);
	it->copy = copy;
	it->stop = stop;
	it->shown_ts = 0;
	it->missed = false;
}

/* The page we stood on was recycled: what was left on it, and maybe more, is gone. */
static void rb_iter_restart(struct rb_iter *it)
{
	struct rb_iter again;

	rb_iter_start(&again, it->cb);
	again.copy = it->copy;
	again.stop = it->stop;
	again.shown_ts = it->shown_ts;
	again.missed = true;
	*it = again;
}

/* True if the copy of the event at it (payload at data, len bytes) is whole. */
static bool rb_iter_copy_one(struct rb_iter *it, const void *data, u32 len)
{
	const u8 *page = it->cb->pages[it->page].page->data;

	/* A length read from a recycled page can be anything: never copy past the page. */
	if (len > BUF_PAGE_SIZE || (const u8 *)data + len > page + BUF_PAGE_SIZE)
		return false;
	memcpy(it->copy, data, len);
	if (unlikely(it->cb->race_window))
		it->cb->race_window(it->cb);
	/* The copy's loads before the seq's (Linux's smp_rmb() before its time_stamp check). */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return page_seq(&it->cb->pages[it->page]) == it->seq;
}

static void *rb_iter_peek_copy(struct rb_iter *it, u32 *len, u64 *ts)
{
	for (int restarts = 0; restarts < 16 && !it->done;) {
		int page = it->page;
		u32 seq = it->seq;
		void *data = rb_iter_peek_raw(it, len, ts);

		if (!data && !it->lapped)
			return NULL;
		/* Stepped to the next page: the commit we finished the old one by must still be its. */
		if (it->page != page && page_seq(&it->cb->pages[page]) != seq)
			it->missed = true;
		if (!data || !rb_iter_copy_one(it, data, *len)) {
			rb_iter_restart(it);
			restarts++;
			continue;
		}
		if (*ts > it->stop)
			return NULL;
		if (*ts < it->shown_ts) { /* before what we showed: a restart went back to it */
			rb_iter_advance(it);
			continue;
		}
		it->shown_ts = *ts;
		return it->copy;
	}
	return NULL;
}

void *rb_iter_peek(struct rb_iter *it, u32 *len, u64 *ts)
{
	return it->copy ? rb_iter_peek_copy(it, len, ts) : rb_iter_peek_raw(it, len, ts);
}
