/* The ring buffer: per-CPU pages, one writer per CPU, readers that iterate or consume.
 *
 *   pages[]:  [ head: oldest ] -> [ ... ] -> [ tail: being written ] -> (wraps to head)
 *
 * The writer is the CPU itself, with interrupts off for the few instructions of a write, so an
 * interrupt cannot nest inside it; an NMI can, and a write it attempts then is refused and counted
 * (committing is set). When the tail reaches the head the oldest page is overwritten: its events
 * are counted as overrun and its seq is bumped, so a reader on it knows to start again.
 * Unlike Linux we do not pad the end of a page: a page's commit says where its data ends.
 */
#include "kernel/trace/ring_buffer.h"
#include "arch/x86/cpu.h"
#include "kernel/mm.h"
#include "kernel/smp.h"
#include "lib/errno.h"
#include "lib/string.h"

static void free_pages_of(struct ring_buffer_per_cpu *cb)
{
	for (int i = 0; cb->pages && i < cb->nr_pages; i++)
		if (cb->pages[i].page)
			free_pages(__pa(cb->pages[i].page), 1);
	kfree(cb->pages);
	cb->pages = NULL;
	cb->tail_page = NULL;
	cb->nr_pages = 0;
}

void ring_buffer_free(struct trace_buffer *b)
{
	for (int c = 0; c < NR_CPUS; c++)
		free_pages_of(&b->cpu[c]);
}

static void reset_cpu(struct ring_buffer_per_cpu *cb)
{
	for (int i = 0; i < cb->nr_pages; i++) {
		cb->pages[i].page->commit = 0;
		cb->pages[i].page->time_stamp = 0;
		cb->pages[i].entries = 0;
		cb->pages[i].seq_read = (u64)(page_seq(&cb->pages[i]) + 1) << 32;
	}
	cb->head = cb->tail = 0;
	cb->tail_page = cb->pages[0].page;
	cb->entries = cb->overrun = cb->read = cb->dropped = 0;
	cb->reader_off = 0;
	cb->reader_page = -1;
	cb->last_ts = 0;
}

int ring_buffer_alloc(struct trace_buffer *b, unsigned long kb_per_cpu)
{
	int n = MAX(2UL, kb_per_cpu * 1024 / PAGE_SIZE);

	memset(b, 0, sizeof(*b));
	b->nr_pages = n;
	for (int c = 0; c < NR_CPUS; c++) {
		struct ring_buffer_per_cpu *cb = &b->cpu[c];
		cb->cpu = c;
		if (!cpu_online(c))
			continue;
		cb->pages = kzalloc(n * sizeof(*cb->pages));
		if (!cb->pages)
			goto nomem;
		cb->nr_pages = n;
		for (int i = 0; i < n; i++) {
			unsigned long pa = alloc_pages(1);
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

void ring_buffer_record_off(struct trace_buffer *b)
{
	for (int c = 0; c < NR_CPUS; c++)
		__atomic_add_fetch(&b->cpu[c].record_disabled, 1, __ATOMIC_SEQ_CST);
	/* A write that started before we said so finishes first. */
	for (int c = 0; c < NR_CPUS; c++)
		while (__atomic_load_n(&b->cpu[c].committing, __ATOMIC_ACQUIRE))
			cpu_relax();
}

void ring_buffer_record_on(struct trace_buffer *b)
{
	for (int c = 0; c < NR_CPUS; c++)
		__atomic_sub_fetch(&b->cpu[c].record_disabled, 1, __ATOMIC_SEQ_CST);
}

/* Empties one CPU's pages; its writer must be held off (ring_buffer_record_off). */
void ring_buffer_reset_cpu(struct trace_buffer *b, int cpu)
{
	reset_cpu(&b->cpu[cpu]);
}

void ring_buffer_reset(struct trace_buffer *b)
{
	ring_buffer_record_off(b);
	for (int c = 0; c < NR_CPUS; c++)
		if (b->cpu[c].pages)
			reset_cpu(&b->cpu[c]);
	ring_buffer_record_on(b);
}

/*
 * The tail page is full: move to the next one. If that is the head (the buffer is full), the
 * oldest page is overwritten: the head moves on, and its events nobody read are overrun.
 */
static void rb_move_tail(struct ring_buffer_per_cpu *cb, u64 ts)
{
	int next = (cb->tail + 1) % cb->nr_pages;
	struct buffer_page *bp = &cb->pages[next];
	int head = cb->head;
	u64 old;

	/* The reader may move the head too (it finished a page): whoever moves it first wins. */
	if (head == next)
		__atomic_compare_exchange_n(&cb->head, &head, (head + 1) % cb->nr_pages, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	/* Recycle: new seq, read count back to zero; what was written and not read is lost. */
	old = __atomic_exchange_n(&bp->seq_read, (u64)(page_seq(bp) + 1) << 32, __ATOMIC_SEQ_CST);
	cb->overrun += bp->entries - (u32)old;
	bp->entries = 0;
	bp->page->time_stamp = ts;
	__atomic_store_n(&bp->page->commit, 0, __ATOMIC_RELEASE);
	cb->tail = next;
	cb->tail_page = bp->page;
}

/* Everything the inline fast path leaves to us; called with interrupts off, committing set. */
bool rb_reserve_slow(struct ring_buffer_per_cpu *cb, u32 len, struct rb_reserve *r, u64 ts)
{
	struct buffer_data_page *dp = cb->tail_page;
	u32 body = ALIGN(len, 4), hdr = body / 4 <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX ? 4 : 8;
	u64 delta;
	u32 ext;
	u8 *p;

	if (!dp || hdr + body + 8 > BUF_PAGE_SIZE) {
		cb->dropped++;
		cb->committing = 0;
		local_irq_restore(r->flags);
		return false;
	}
	delta = dp->commit && ts > cb->last_ts ? ts - cb->last_ts : 0;
	ext = delta >> TS_DELTA_BITS ? 8 : 0;
	if (dp->commit + ext + hdr + body > BUF_PAGE_SIZE) {
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
		e->type_len = 0;
		e->array[0] = body;
	}
	r->data = p + hdr;
	r->cb = cb;
	r->total = ext + hdr + body;
	r->ts = ts;
	return true;
}

/* Length in bytes of the event at e (header included). */
static u32 rb_event_length(const struct ring_buffer_event *e)
{
	if (e->type_len == RINGBUF_TYPE_TIME_EXTEND)
		return 8;
	return e->type_len ? 4 + (u32)e->type_len * 4 : 8 + e->array[0];
}

static void iter_page(struct rb_iter *it, int page)
{
	it->page = page;
	it->seq = page_seq(&it->cb->pages[page]);
	it->off = 0;
	it->ts = it->cb->pages[page].page->time_stamp;
}

void rb_iter_start(struct rb_iter *it, struct ring_buffer_per_cpu *cb)
{
	u32 len;
	u64 ts;

	it->cb = cb;
	it->done = !cb->pages;
	if (it->done)
		return;
	iter_page(it, cb->head);
	/* Skip what trace_pipe already consumed, keeping the running timestamp right. */
	while (cb->reader_page == it->page && cb->reader_seq == it->seq && it->off < cb->reader_off &&
	       rb_iter_peek(it, &len, &ts))
		rb_iter_advance(it);
}

void *rb_iter_peek(struct rb_iter *it, u32 *len, u64 *ts)
{
	while (!it->done) {
		struct buffer_data_page *dp = it->cb->pages[it->page].page;
		u64 commit = __atomic_load_n(&dp->commit, __ATOMIC_ACQUIRE);

		if (it->off >= commit) {
			if (it->page == it->cb->tail)
				break; /* the newest event so far: look again next time */
			iter_page(it, (it->page + 1) % it->cb->nr_pages);
			continue;
		}
		struct ring_buffer_event *e = (void *)(dp->data + it->off);
		if (e->type_len == RINGBUF_TYPE_TIME_EXTEND) {
			it->ts += e->time_delta + ((u64)e->array[0] << TS_DELTA_BITS);
			it->off += 8;
			continue;
		}
		*ts = it->ts + e->time_delta;
		*len = e->type_len ? (u32)e->type_len * 4 : e->array[0];
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
 * not recycle its page meanwhile (seq unchanged); if it did, start again at the new head.
 */
bool ring_buffer_consume(struct ring_buffer_per_cpu *cb, struct rb_iter *it, void *out, u32 size,
			 u32 *len, u64 *ts)
{
	for (int tries = 0; tries < 8 && cb->pages; tries++) {
		int head = __atomic_load_n(&cb->head, __ATOMIC_ACQUIRE);
		struct buffer_page *bp;
		void *data;
		u64 w;

		if (it->cb != cb || it->page != head || it->seq != page_seq(&cb->pages[head]))
			rb_iter_start(it, cb);
		data = rb_iter_peek(it, len, ts);
		if (!data)
			return false;
		memcpy(out, data, MIN(*len, size));
		/* Count it as read only if its page was not recycled while we copied. */
		bp = &cb->pages[it->page];
		w = __atomic_load_n(&bp->seq_read, __ATOMIC_ACQUIRE);
		if ((w >> 32) != it->seq ||
		    !__atomic_compare_exchange_n(&bp->seq_read, &w, w + 1, false, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			continue;
		rb_iter_advance(it);
		if (it->page != head)
			/* We left the old head page behind: the writer may reuse it. */
			__atomic_compare_exchange_n(&cb->head, &head, it->page, false, __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST);
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
