/* The ring buffer: per-CPU pages, one writer per CPU, readers that iterate or consume.
 *
 *   pages[]:  [ head: oldest ] -> [ ... ] -> [ tail: being written ] -> (wraps to head)
 *
 * The writer is the CPU itself, with interrupts off for the few instructions of a write, so an
 * interrupt cannot nest inside it; an NMI can, and a write it attempts then is refused and counted
 * (the writer word says a write is in progress). When the tail reaches the head the oldest page is overwritten: its events
 * are counted as overrun and it gets a new life number (seq), so a reader on it knows to start again.
 * Unlike Linux we do not pad the end of a page: a page's commit says where its data ends.
 */
#include "kernel/trace/ring_buffer.h"
#include "arch/x86/cpu.h"
#include "kernel/mm/mm.h"
#include "kernel/smp.h"
#include "lib/errno.h"
#include "lib/string.h"

struct buffer_data_page rb_no_page = { .commit = BUF_PAGE_SIZE };

/* This CPU's clock now; last_ts marked for the fast paths when they cannot read that clock. */
static notrace u64 rb_clock_now(const struct ring_buffer_per_cpu *cb)
{
	return cb->clock->read ? cb->clock->read() : rdtsc();
}

static u64 rb_last_ts_mark(const struct ring_buffer_per_cpu *cb, u64 ts)
{
	return cb->clock->read ? ts | RB_TS_SLOW : ts;
}

u64 ring_buffer_time_stamp(const struct trace_buffer *b)
{
	return b->clock->read ? b->clock->read() : rdtsc();
}

static void free_pages_of(struct ring_buffer_per_cpu *cb)
{
	for (int i = 0; cb->pages && i < cb->nr_pages; i++)
		if (cb->pages[i].page)
			free_pages_for(__pa(cb->pages[i].page), 1, PAGE_USER_TRACE);
	kfree(cb->pages);
	cb->pages = NULL;
	cb->tail_page = &rb_no_page;
	cb->nr_pages = 0;
}

void ring_buffer_free(struct trace_buffer *b)
{
	for (int c = 0; c < NR_CPUS; c++) {
		irq_work_sync(&b->wait[c].work); /* a last event's wake-up may still be queued */
		free_pages_of(&b->cpu[c]);
	}
}

/*
 * Every page gets a new life, so an old reader position matches none of them; page 0, the tail,
 * gets the newest, so a reader there finds the others older: not reached yet.
 */
static void reset_cpu(struct ring_buffer_per_cpu *cb)
{
	for (int i = 0; i < cb->nr_pages; i++) {
		int p = (i + 1) % cb->nr_pages;
		cb->pages[p].page->commit = 0;
		cb->pages[p].page->time_stamp = 0;
		cb->pages[p].entries = 0;
		cb->pages[p].first_entry = 0;
		cb->pages[p].seq_read = (u64)++cb->lives << 32;
	}
	cb->head = cb->tail = 0;
	cb->tail_page = cb->pages[0].page;
	cb->entries = cb->overrun = cb->read = cb->dropped = 0;
	cb->reader_off = 0;
	cb->reader_page = -1;
	/* The empty tail page is stamped now, so its first event is a delta like any other. */
	cb->tail_page->time_stamp = rb_clock_now(cb);
	cb->last_ts = rb_last_ts_mark(cb, cb->tail_page->time_stamp);
}

int ring_buffer_alloc(struct trace_buffer *b, unsigned long kb_per_cpu)
{
	int n = MAX(2UL, kb_per_cpu * 1024 / PAGE_SIZE);

	memset(b, 0, sizeof(*b));
	spin_lock_init(&b->reader_lock);
	b->nr_pages = n;
	b->clock = &trace_clocks[TRACE_CLOCK_LOCAL];
	b->time_start = ring_buffer_time_stamp(b);
	ring_buffer_wait_init(b);
	for (int c = 0; c < NR_CPUS; c++) {
		struct ring_buffer_per_cpu *cb = &b->cpu[c];
		cb->cpu = c;
		cb->clock = b->clock;
		cb->tail_page = &rb_no_page;
		cb->writer = RB_WRITER_IDLE;
		if (!cpu_online(c))
			continue;
		cb->pages = kzalloc(n * sizeof(*cb->pages));
		if (!cb->pages)
			goto nomem;
		cb->nr_pages = n;
		for (int i = 0; i < n; i++) {
			unsigned long pa = alloc_pages_for(1, PAGE_USER_TRACE);
			if (!pa)
				goto nomem;
			cb->pages[i].page = __va(pa);
		}
		reset_cpu(cb);
	}
	return 0;
nomem:
	ring_buffer_free(b);
	return -ENOMEM;
}

static void rb_writers_off(struct trace_buffer *b, u32 step)
{
	for (int c = 0; c < NR_CPUS; c++)
		__atomic_add_fetch(&b->cpu[c].writer, step, __ATOMIC_SEQ_CST);
	/* A write that started before we said so finishes first. */
	for (int c = 0; c < NR_CPUS; c++)
		while (rb_writer_busy(&b->cpu[c]))
			cpu_relax();
}

static void rb_writers_on(struct trace_buffer *b, u32 step)
{
	for (int c = 0; c < NR_CPUS; c++)
		__atomic_sub_fetch(&b->cpu[c].writer, step, __ATOMIC_SEQ_CST);
}

void ring_buffer_record_off(struct trace_buffer *b)
{
	rb_writers_off(b, RB_RECORD_OFF);
}

void ring_buffer_record_on(struct trace_buffer *b)
{
	rb_writers_on(b, RB_RECORD_OFF);
}

void ring_buffer_record_hold(struct trace_buffer *b)
{
	rb_writers_off(b, RB_RECORD_HOLD);
}

void ring_buffer_record_release(struct trace_buffer *b)
{
	rb_writers_on(b, RB_RECORD_HOLD);
}

/* Empties one CPU's pages; its writer must be held off (ring_buffer_record_off). Between two
 * steps of a consumer, never in one (reader_lock); a `trace` read sees the new lives. */
void ring_buffer_reset_cpu(struct trace_buffer *b, int cpu)
{
	unsigned long flags = spin_lock_irqsave(&b->reader_lock);

	reset_cpu(&b->cpu[cpu]);
	spin_unlock_irqrestore(&b->reader_lock, flags);
}

void ring_buffer_reset(struct trace_buffer *b)
{
	unsigned long flags = spin_lock_irqsave(&b->reader_lock);

	ring_buffer_record_off(b);
	for (int c = 0; c < NR_CPUS; c++)
		if (b->cpu[c].pages)
			reset_cpu(&b->cpu[c]);
	b->time_start = ring_buffer_time_stamp(b);
	ring_buffer_record_on(b);
	spin_unlock_irqrestore(&b->reader_lock, flags);
}

void ring_buffer_set_clock(struct trace_buffer *b, const struct trace_clock *clock)
{
	unsigned long flags = spin_lock_irqsave(&b->reader_lock);

	ring_buffer_record_off(b);
	b->clock = clock;
	for (int c = 0; c < NR_CPUS; c++) {
		b->cpu[c].clock = clock;
		if (b->cpu[c].pages)
			reset_cpu(&b->cpu[c]);
	}
	b->time_start = ring_buffer_time_stamp(b);
	ring_buffer_record_on(b);
	spin_unlock_irqrestore(&b->reader_lock, flags);
}

void ring_buffer_change_overwrite(struct trace_buffer *b, bool on)
{
	for (int c = 0; c < NR_CPUS; c++)
		WRITE_ONCE(b->cpu[c].no_overwrite, !on);
}

/*
 * The ring is full when the next page is the head and holds events nobody read: without
 * overwrite (Linux's rb_handle_head_page() without RB_FL_OVERWRITE) the writer stays where it is,
 * and the event it was writing is refused and counted as dropped. Pages trace_pipe has read to
 * the end are free again.
 */
static bool rb_full(struct ring_buffer_per_cpu *cb)
{
	int next = (cb->tail + 1) % cb->nr_pages;
	struct buffer_page *bp = &cb->pages[next];

	return READ_ONCE(cb->no_overwrite) && cb->head == next &&
	       bp->entries > (u32)__atomic_load_n(&bp->seq_read, __ATOMIC_ACQUIRE);
}

/*
 * The tail page is full: move to the next one. If that is the head (the buffer is full), the
 * oldest page is overwritten: the head moves on, and its events nobody read are overrun.
 *
 * The order is what readers rely on. The head leaves the page before the page changes, so a
 * reader that finds the head unchanged after reading its seq has the oldest life. The old
 * commit is gone before the new seq is visible, so a reader that sees the new seq can never
 * pair it with the old life's events; one that still sees the old seq may copy an old event, but
 * its compare-exchange on seq_read then either lands before ours (the event was whole: nothing
 * new is written until after the exchange) or fails.
 */
static void rb_move_tail(struct ring_buffer_per_cpu *cb, u64 ts)
{
	int next = (cb->tail + 1) % cb->nr_pages;
	struct buffer_page *bp = &cb->pages[next];
	u64 old;

	/* The page we leave: its count is final now. */
	cb->pages[cb->tail].entries = cb->entries - cb->pages[cb->tail].first_entry;
	if (cb->head == next)
		__atomic_store_n(&cb->head, (next + 1) % cb->nr_pages, __ATOMIC_RELEASE);
	__atomic_store_n(&bp->page->commit, 0, __ATOMIC_RELAXED);
	/* Recycle: the next life, read count back to zero; what was written and not read is lost. */
	old = __atomic_exchange_n(&bp->seq_read, (u64)++cb->lives << 32, __ATOMIC_SEQ_CST);
	cb->overrun += bp->entries - (u32)old;
	bp->entries = 0;
	bp->first_entry = cb->entries;
	bp->page->time_stamp = ts;
	cb->tail_page = bp->page;
	__atomic_store_n(&cb->tail, next, __ATOMIC_RELEASE);
}

bool rb_next_page(struct ring_buffer_per_cpu *cb)
{
	u64 ts = rb_clock_now(cb);

	if (!cb->pages)
		return false;
	if (rb_full(cb)) {
		cb->dropped++;
		return false;
	}
	rb_move_tail(cb, ts);
	cb->last_ts = rb_last_ts_mark(cb, ts);
	return true;
}

/*
 * Everything the inline fast path leaves to us; called with interrupts off and the writer word
 * held. Returns the payload (the event's header written, the time taken as the last), or NULL
 * with the writer word let go.
 */
void *rb_reserve_slow(struct ring_buffer_per_cpu *cb, u32 len, u64 ts)
{
	struct buffer_data_page *dp = cb->tail_page;
	u32 body = ALIGN(len, 4), hdr = body / 4 <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX ? 4 : 8;
	u64 delta, last = cb->last_ts & ~RB_TS_SLOW;
	u32 ext;
	u8 *p;

	if (!cb->pages || hdr + body + 8 > BUF_PAGE_SIZE) {
		cb->dropped++;
		rb_writer_unlock(cb);
		return NULL;
	}
	delta = dp->commit && ts > last ? ts - last : 0;
	ext = delta >> TS_DELTA_BITS ? 8 : 0;
	if (dp->commit + ext + hdr + body > BUF_PAGE_SIZE) {
		if (rb_full(cb)) {
			cb->dropped++;
			rb_writer_unlock(cb);
			return NULL;
		}
		rb_move_tail(cb, ts);
		dp = cb->tail_page;
		delta = ext = 0;
	}
	if (!dp->commit)
		dp->time_stamp = ts;
	p = dp->data + dp->commit;
	if (ext) {
		struct ring_buffer_event *e = (void *)p;
		e->type_len = RINGBUF_TYPE_TIME_EXTEND;
		e->time_delta = delta & ((1U << TS_DELTA_BITS) - 1);
		e->array[0] = delta >> TS_DELTA_BITS;
		p += 8;
		delta = 0;
	}
	struct ring_buffer_event *e = (void *)p;
	e->time_delta = delta;
	if (hdr == 4) {
		e->type_len = body / 4;
	} else {
		/* Linux's convention: the length word counts itself (libtraceevent takes 4 off). */
		e->type_len = 0;
		e->array[0] = body + 4;
	}
	cb->last_ts = rb_last_ts_mark(cb, ts);
	return p + hdr;
}

/*
 * A refused writer: an NMI inside a write on this CPU (writers in the low bits), or recording off.
 * A reader's moment alone (only hold bits) is not counted: reading stats must not change them.
 */
static void rb_count_refusal(struct ring_buffer_per_cpu *cb)
{
	u32 w = READ_ONCE(cb->writer) + 1;

	if (w < RB_RECORD_HOLD || (w & (RB_RECORD_HOLD - 1)))
		cb->dropped++;
}

bool ring_buffer_lock_reserve_slow(struct trace_buffer *b, u32 len, struct rb_reserve *r)
{
	unsigned long flags = local_irq_save();
	struct ring_buffer_per_cpu *cb = &b->cpu[smp_processor_id()];
	struct buffer_data_page *dp;
	u8 *data;

	if (!rb_writer_trylock(cb)) {
		rb_count_refusal(cb);
		local_irq_restore(flags);
		return false;
	}
	data = rb_reserve_slow(cb, len, rb_clock_now(cb));
	if (!data) {
		local_irq_restore(flags);
		return false;
	}
	dp = cb->tail_page;
	r->data = data;
	r->cb = cb;
	r->flags = flags;
	r->commit = &dp->commit;
	r->end = data + ALIGN(len, 4) - dp->data;
	return true;
}

/* Length in bytes of the event at e (header included). */
u32 rb_event_length(const struct ring_buffer_event *e)
{
	if (e->type_len == RINGBUF_TYPE_TIME_EXTEND)
		return 8;
	return e->type_len ? 4 + (u32)e->type_len * 4 : 4 + e->array[0];
}

static void rb_race_window(struct ring_buffer_per_cpu *cb)
{
	if (unlikely(cb->race_window))
		cb->race_window(cb);
}

static void iter_page(struct rb_iter *it, int page, u32 seq)
{
	it->page = page;
	it->seq = seq;
	it->off = 0;
}

/*
 * Places a reader after the last event trace_pipe consumed if that page is still in the same
 * life, else at the oldest page. False if the head moved while we looked: the page we read the
 * seq of may already be the newest one, and starting there would skip every page in between.
 */
static bool rb_reader_place(struct rb_iter *it, struct ring_buffer_per_cpu *cb)
{
	int page = cb->reader_page, head;
	u32 seq = cb->reader_seq, off = cb->reader_off, len;
	u64 ts;

	it->cb = cb;
	it->lapped = false;
	if (page >= 0) {
		rb_race_window(cb);
		if (page_seq(&cb->pages[page]) == seq) {
			iter_page(it, page, seq);
			/* Step rather than jump there, so the running timestamp stays right. */
			while (it->page == page && it->off < off && rb_iter_peek_raw(it, &len, &ts))
				rb_iter_advance(it);
			return true;
		}
	}
	head = __atomic_load_n(&cb->head, __ATOMIC_ACQUIRE);
	rb_race_window(cb);
	iter_page(it, head, page_seq(&cb->pages[head]));
	return __atomic_load_n(&cb->head, __ATOMIC_ACQUIRE) == head;
}

void rb_iter_start(struct rb_iter *it, struct ring_buffer_per_cpu *cb)
{
	it->cb = cb;
	it->done = !cb->pages;
	it->lapped = false;
	it->copy = NULL;
	it->missed = false;
	for (int tries = 0; !it->done && tries < 8; tries++)
		if (rb_reader_place(it, cb))
			break;
}

/*
 * Steps to the next page only if it holds the life right after ours. A newer life means the
 * writer went round the ring while we were not looking: that page is now the newest, pages
 * between hold older events we have not read, and taking it would make the reader go back in
 * time later. An older life is a page the writer has not reached yet.
 */
static bool rb_iter_next_page(struct rb_iter *it)
{
	int next = (it->page + 1) % it->cb->nr_pages;
	u32 seq;

	rb_race_window(it->cb);
	seq = page_seq(&it->cb->pages[next]);
	if (seq != it->seq + 1) {
		it->lapped = (s32)(seq - it->seq) > 1;
		return false;
	}
	iter_page(it, next, seq);
	return true;
}

/* Steps to the next page, unless it's page is the one the writer is on: there is none after it. */
bool rb_iter_next_before_tail(struct rb_iter *it)
{
	return it->page != __atomic_load_n(&it->cb->tail, __ATOMIC_ACQUIRE) &&
	       rb_iter_next_page(it);
}

void *rb_iter_peek_raw(struct rb_iter *it, u32 *len, u64 *ts)
{
	while (!it->done && !it->lapped) {
		struct ring_buffer_per_cpu *cb = it->cb;
		struct buffer_data_page *dp = cb->pages[it->page].page;
		/* The tail first: once the writer has left this page, the commit we read is final. */
		bool newest = it->page == __atomic_load_n(&cb->tail, __ATOMIC_ACQUIRE);
		u64 commit = __atomic_load_n(&dp->commit, __ATOMIC_ACQUIRE);

		if (it->off >= commit) {
			if (newest || !rb_iter_next_page(it))
				break; /* the newest event so far: look again next time */
			continue;
		}
		/* Read with the events, not before: the writer sets it after the page's new seq. */
		if (it->off == 0)
			it->ts = dp->time_stamp;
		struct ring_buffer_event *e = (void *)(dp->data + it->off);
		if (e->type_len == RINGBUF_TYPE_TIME_EXTEND) {
			it->ts += e->time_delta + ((u64)e->array[0] << TS_DELTA_BITS);
			it->off += 8;
			continue;
		}
		*ts = it->ts + e->time_delta;
		*len = e->type_len ? (u32)e->type_len * 4 : e->array[0] - 4;
		return e->type_len ? (void *)e->array : (void *)(e->array + 1);
	}
	return NULL;
}

void rb_iter_advance(struct rb_iter *it)
{
	struct ring_buffer_event *e = (void *)(it->cb->pages[it->page].page->data + it->off);

	it->ts += e->time_delta;
	it->off += rb_event_length(e);
}

/*
 * trace_pipe's read, racing the writer: copy the next event out, then check that the writer did
 * not recycle its page meanwhile (seq unchanged); if it did, start again after the mark, or at
 * the head if the mark's page is gone too. Lives only ever grow along the reader's way (it steps
 * to a page only in the next life), so what it returns never goes back in time.
 */
bool ring_buffer_consume(struct ring_buffer_per_cpu *cb, struct rb_iter *it, void *out, u32 size,
			 u32 *len, u64 *ts)
{
	for (int tries = 0; tries < 8 && cb->pages; tries++) {
		struct rb_iter next;
		struct buffer_page *bp;
		void *data;
		u64 w;

		/* A resize since the last step may have taken its slot away or put another page in. */
		if ((it->cb != cb || it->lapped || it->page >= cb->nr_pages ||
		     it->seq != page_seq(&cb->pages[it->page])) &&
		    !rb_reader_place(it, cb))
			continue;
		data = rb_iter_peek_raw(it, len, ts);
		if (!data) {
			if (it->lapped)
				continue;
			return false;
		}
		memcpy(out, data, MIN(*len, size));
		/* The event's length too is only good if the page survives the check below. */
		next = *it;
		rb_iter_advance(&next);
		/* Count it as read only if its page was not recycled while we copied. */
		bp = &cb->pages[it->page];
		w = __atomic_load_n(&bp->seq_read, __ATOMIC_ACQUIRE);
		if ((w >> 32) != it->seq ||
		    !__atomic_compare_exchange_n(&bp->seq_read, &w, w + 1, false, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			continue;
		*it = next;
		cb->reader_page = it->page;
		cb->reader_seq = it->seq;
		cb->reader_off = it->off;
		__atomic_add_fetch(&cb->read, 1, __ATOMIC_RELAXED);
		return true;
	}
	return false;
}

u64 ring_buffer_entries(struct trace_buffer *b, u64 *written)
{
	u64 in = 0, all = 0;

	for (int c = 0; c < NR_CPUS; c++) {
		struct ring_buffer_per_cpu *cb = &b->cpu[c];
		all += cb->entries - cb->read;
		in += cb->entries - cb->overrun - cb->read;
	}
	*written = all;
	return in;
}
