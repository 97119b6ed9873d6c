/* Resizing a CPU's ring without throwing away what it holds (Linux's ring_buffer_resize()).
 *
 *   before (6 pages):  [2 old] [3] [4 tail] [5 unused] [0 head] [1]      lives 1..5 head to tail
 *   after  (4 pages):  [0] [1] [2] [3 tail]  the newest pages that fit, head to tail, then pages
 *                      no life has reached (seq 0: older than any, so no reader steps onto them)
 *
 * Only descriptors move; a page's data, its life and its read count go with it, so a reader's
 * mark on a kept page still holds. Pages that no longer fit are the oldest: their unread events
 * are counted as overrun, as if the writer had gone over them.
 *
 * Readers: refused (-EBUSY, nothing changed) while a `trace` read is in the pages
 * (b->readers, Linux's resize_disabled); done under b->reader_lock, so a consumer's step
 * (trace_pipe, trace_pipe_raw) sees the ring before or after, never half moved. A consumer's
 * iterator kept between steps may then name a slot that is gone or holds another page: the
 * page's life tells (ring_buffer_consume()).
 */
#include "kernel/trace/ring_buffer.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"
#include "lib/string.h"

struct rb_resize {
	struct buffer_page *pages; /* the new ring; beyond the old size, fresh pages */
	int n;
};

static void rb_resize_drop(struct rb_resize *r, int from)
{
	for (int i = from; i < r->n; i++)
		if (r->pages[i].page)
			free_pages_for(__pa(r->pages[i].page), 1, PAGE_USER_TRACE);
	kfree(r->pages);
	r->pages = NULL;
}

/* Everything that can fail, before anything changes. */
static int rb_resize_prepare(struct ring_buffer_per_cpu *cb, int n, struct rb_resize *r)
{
	r->n = n;
	r->pages = kzalloc(n * sizeof(*r->pages));
	if (!r->pages)
		return -ENOMEM;
	for (int i = cb->nr_pages; i < n; i++) {
		unsigned long pa = alloc_pages_for(1, PAGE_USER_TRACE);
		if (!pa) {
			rb_resize_drop(r, cb->nr_pages);
			return -ENOMEM;
		}
		r->pages[i].page = __va(pa);
	}
	return 0;
}

static void rb_page_unused(struct buffer_page *bp)
{
	bp->page->commit = 0;
	bp->page->time_stamp = 0;
	bp->entries = bp->first_entry = 0;
	bp->seq_read = 0;
}

/* Writers held off. Keeps the newest min(used, n) pages, head first; then the rest. */
static void rb_resize_commit(struct ring_buffer_per_cpu *cb, struct rb_resize *r)
{
	int N = cb->nr_pages, n = r->n, used = (cb->tail - cb->head + N) % N + 1;
	int keep = MIN(used, n), first = (cb->tail - keep + 1 + N) % N, reader = -1;

	for (int i = 0; i < used - keep; i++) {
		struct buffer_page *bp = &cb->pages[(cb->head + i) % N];
		cb->overrun += bp->entries - (u32)bp->seq_read;
	}
	for (int i = 0; i < keep; i++) {
		int old = (first + i) % N;
		r->pages[i] = cb->pages[old];
		if (old == cb->reader_page)
			reader = i;
	}
	/* The pages outside the kept run, from just after the tail: reused while slots remain. */
	for (int j = 0; j < N - keep; j++) {
		struct buffer_page *bp = &cb->pages[(cb->tail + 1 + j) % N];
		if (keep + j < MIN(n, N))
			r->pages[keep + j] = *bp;
		else
			free_pages_for(__pa(bp->page), 1, PAGE_USER_TRACE);
	}
	for (int i = keep; i < n; i++)
		rb_page_unused(&r->pages[i]);
	kfree(cb->pages);
	cb->pages = r->pages;
	cb->nr_pages = n;
	cb->head = 0;
	cb->tail = keep - 1;
	cb->tail_page = cb->pages[cb->tail].page;
	cb->reader_page = reader;
	if (reader < 0)
		cb->reader_off = 0;
	r->pages = NULL;
}

static int kb_to_pages(unsigned long kb)
{
	return MAX(2UL, kb * 1024 / PAGE_SIZE);
}

/* True when every CPU with pages has the same number: the size buffer_size_kb can show. */
static void rb_update_nr_pages(struct trace_buffer *b)
{
	int n = 0;

	for (int c = 0; c < NR_CPUS; c++) {
		if (!b->cpu[c].pages)
			continue;
		if (n && b->cpu[c].nr_pages != n) {
			b->nr_pages = -1;
			return;
		}
		n = b->cpu[c].nr_pages;
	}
	b->nr_pages = n;
}

static void rb_resize_drop_all(struct trace_buffer *b, struct rb_resize *r, int upto)
{
	for (int c = 0; c < upto; c++)
		if (r[c].pages)
			rb_resize_drop(&r[c], b->cpu[c].nr_pages);
}

int ring_buffer_resize(struct trace_buffer *b, unsigned long kb, int cpu)
{
	struct rb_resize r[NR_CPUS] = { 0 };
	int n = kb_to_pages(kb), c, err = 0;
	unsigned long flags;

	for (c = 0; c < NR_CPUS && !err; c++)
		if ((cpu < 0 || c == cpu) && b->cpu[c].pages)
			err = rb_resize_prepare(&b->cpu[c], n, &r[c]);
	if (err) {
		rb_resize_drop_all(b, r, c);
		return err;
	}
	flags = spin_lock_irqsave(&b->reader_lock);
	if (b->readers) {
		spin_unlock_irqrestore(&b->reader_lock, flags);
		rb_resize_drop_all(b, r, NR_CPUS);
		return -EBUSY;
	}
	ring_buffer_record_off(b);
	for (c = 0; c < NR_CPUS; c++)
		if (r[c].pages)
			rb_resize_commit(&b->cpu[c], &r[c]);
	rb_update_nr_pages(b);
	ring_buffer_record_on(b);
	spin_unlock_irqrestore(&b->reader_lock, flags);
	return 0;
}
