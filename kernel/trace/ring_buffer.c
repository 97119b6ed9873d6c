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
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/string.h"

static void free_pages_of(struct ring_buffer_per_cpu *cb)
{
	for (int i = 0; cb->pages && i < cb->nr_pages; i++)
		if (cb->pages[i].page)
			free_pages(__pa(cb->pages[i].page), 1);
	kfree(cb->pages);
	cb->pages = NULL;
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
		cb->pages[i].seq++;
	}
	cb->head = cb->tail = 0;
	cb->entries = cb->overrun = cb->read = cb->dropped = 0;
	cb->reader_off = 0;
	cb->head_read = 0;
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

void ring_buffer_reset(struct trace_buffer *b)
{
	ring_buffer_record_off(b);
	for (int c = 0; c < NR_CPUS; c++)
		if (b->cpu[c].pages)
			reset_cpu(&b->cpu[c]);
	ring_buffer_record_on(b);
}

/* The tail page is full: move to the next one, overwriting the oldest page if it is the head. */
static void rb_move_tail(struct ring_buffer_per_cpu *cb, u64 ts)
{
	int next = (cb->tail + 1) % cb->nr_pages;
	int head;

	while ((head = cb->head) == next) {
		struct buffer_page *old = &cb->pages[head];
		/* Bump seq before the data changes, so a reader copying from it sees the change. */
		__atomic_add_fetch(&old->seq, 1, __ATOMIC_SEQ_CST);
		if (__atomic_compare_exchange_n(&cb->head, &head, (head + 1) % cb->nr_pages, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			/* Events trace_pipe already took from it are not lost. */
			cb->overrun += old->entries - cb->head_read;
			cb->reader_off = 0;
			cb->head_read = 0;
		}
	}
	__atomic_add_fetch(&cb->pages[next].seq, 1, __ATOMIC_SEQ_CST);
	cb->pages[next].entries = 0;
	cb->pages[next].page->time_stamp = ts;
	__atomic_store_n(&cb->pages[next].page->commit, 0, __ATOMIC_RELEASE);
	cb->tail = next;
}

bool ring_buffer_lock_reserve(struct trace_buffer *b, u32 len, struct rb_reserve *r)
{
	unsigned long flags = local_irq_save();
	struct ring_buffer_per_cpu *cb = &b->cpu[smp_processor_id()];
	struct buffer_data_page *dp;
	u32 body = ALIGN(len, 4), hdr = body / 4 <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX ? 4 : 8;
	u64 ts, delta;
	u32 ext;
	u8 *p;

	if (cb->record_disabled || cb->committing || !cb->pages || hdr + body + 8 > BUF_PAGE_SIZE) {
		cb->dropped++;
		local_irq_restore(flags);
		return false;
	}
	cb->committing = 1;
	barrier();
	ts = ktime_get_ns();
	dp = cb->pages[cb->tail].page;
	delta = dp->commit && ts > cb->last_ts ? ts - cb->last_ts : 0;
	ext = delta >> TS_DELTA_BITS ? 8 : 0;
	if (dp->commit + ext + hdr + body > BUF_PAGE_SIZE) {
		rb_move_tail(cb, ts);
		dp = cb->pages[cb->tail].page;
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
	r->flags = flags;
	r->total = ext + hdr + body;
	r->ts = ts;
	return true;
}

void ring_buffer_unlock_commit(struct rb_reserve *r)
{
	struct ring_buffer_per_cpu *cb = r->cb;
	struct buffer_data_page *dp = cb->pages[cb->tail].page;

	/* Release: a reader that sees the new commit sees the event bytes too. */
	__atomic_store_n(&dp->commit, dp->commit + r->total, __ATOMIC_RELEASE);
	cb->pages[cb->tail].entries++;
	cb->entries++;
	cb->last_ts = r->ts;
	__atomic_store_n(&cb->committing, 0, __ATOMIC_RELEASE);
	local_irq_restore(r->flags);
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
	it->seq = __atomic_load_n(&it->cb->pages[page].seq, __ATOMIC_ACQUIRE);
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
	while (it->off < cb->reader_off && rb_iter_peek(it, &len, &ts))
		rb_iter_advance(it);
}

void *rb_iter_peek(struct rb_iter *it, u32 *len, u64 *ts)
{
	while (!it->done) {
		struct buffer_data_page *dp = it->cb->pages[it->page].page;
		u64 commit = __atomic_load_n(&dp->commit, __ATOMIC_ACQUIRE);

		if (it->off >= commit) {
			if (it->page == it->cb->tail) {
				it->done = true;
				break;
			}
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
		void *data;

		if (it->cb != cb || it->page != head || it->seq != cb->pages[head].seq)
			rb_iter_start(it, cb);
		data = rb_iter_peek(it, len, ts);
		if (!data)
			return false;
		memcpy(out, data, MIN(*len, size));
		if (__atomic_load_n(&cb->pages[it->page].seq, __ATOMIC_ACQUIRE) != it->seq)
			continue; /* overwritten while we copied */
		rb_iter_advance(it);
		if (it->page != head &&
		    __atomic_compare_exchange_n(&cb->head, &head, it->page, false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			cb->head_read = 0; /* we left the old head page behind: the writer may reuse it */
		cb->reader_off = it->off;
		cb->head_read++;
		cb->read++;
		return true;
	}
	return false;
}

u64 ring_buffer_entries(struct trace_buffer *b, u64 *written)
{
	u64 in = 0, all = 0;

	for (int c = 0; c < NR_CPUS; c++) {
		struct ring_buffer_per_cpu *cb = &b->cpu[c];
		all += cb->entries;
		in += cb->entries - cb->overrun - cb->read;
	}
	*written = all;
	return in;
}
