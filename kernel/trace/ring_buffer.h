/* The per-CPU ring buffer: each CPU writes its own pages without locks; readers iterate or consume. */
#ifndef KERNEL_TRACE_RING_BUFFER_H
#define KERNEL_TRACE_RING_BUFFER_H

#include "lib/types.h"
#include "kernel/percpu.h"

/*
 * Layout kept close to Linux's, so a dump can become a trace.dat by copying:
 *
 *   data page:  | u64 time_stamp | u64 commit (bytes used) | events ...                     |
 *   event:      | type_len:5 time_delta:27 | payload (type_len * 4 bytes)                 |
 *               type_len 0: the length is in the next u32; 29: padding to the page end;
 *               30: time extend (the delta did not fit in 27 bits: high bits in the next u32)
 */
#define RB_PAGE_HDR 16
#define BUF_PAGE_SIZE (4096 - RB_PAGE_HDR)
#define RINGBUF_TYPE_DATA_TYPE_LEN_MAX 28
#define RINGBUF_TYPE_PADDING 29
#define RINGBUF_TYPE_TIME_EXTEND 30
#define TS_DELTA_BITS 27
#define RB_DEFAULT_KB 64

struct ring_buffer_event {
	u32 type_len : 5, time_delta : 27;
	u32 array[];
};

struct buffer_data_page {
	u64 time_stamp;
	u64 commit;
	u8 data[];
};

/* Bookkeeping beside each data page (not inside it, so the page stays Linux-shaped). */
struct buffer_page {
	struct buffer_data_page *page;
	unsigned long entries; /* events written on it */
	volatile u64 seq;      /* bumped each time the writer recycles it: readers notice */
};

struct ring_buffer_per_cpu {
	int cpu;
	int nr_pages;
	struct buffer_page *pages;
	volatile int head;        /* oldest page still holding events */
	int tail;                 /* the page being written */
	u64 last_ts;              /* the previous event's time: deltas count from it */
	volatile int committing;  /* a write is in progress on this CPU */
	volatile int record_disabled;
	u64 entries;              /* events ever committed */
	u64 overrun;              /* events lost when the writer overwrote the oldest page */
	u64 dropped;              /* events refused: nested write (NMI) or recording off */
	u64 read;                 /* events consumed by trace_pipe */
	volatile u32 reader_off;  /* how far into the head page trace_pipe has consumed */
	volatile u32 head_read;   /* ... and how many events that was */
};

struct trace_buffer {
	int nr_pages; /* per CPU */
	struct ring_buffer_per_cpu cpu[NR_CPUS];
};

/* A write in progress: the payload to fill, and what the commit needs. */
struct rb_reserve {
	void *data;
	struct ring_buffer_per_cpu *cb;
	unsigned long flags;
	u32 total;
	u64 ts;
};

int ring_buffer_alloc(struct trace_buffer *b, unsigned long kb_per_cpu);
void ring_buffer_free(struct trace_buffer *b);
void ring_buffer_reset(struct trace_buffer *b);
/* Stops (and waits out) or restarts writers on every CPU. */
void ring_buffer_record_off(struct trace_buffer *b);
void ring_buffer_record_on(struct trace_buffer *b);

/* Writer side, on the current CPU: reserve len bytes, fill r->data, commit. */
bool ring_buffer_lock_reserve(struct trace_buffer *b, u32 len, struct rb_reserve *r);
void ring_buffer_unlock_commit(struct rb_reserve *r);

/* Reader positions: a non-consuming iterator, and the consuming reader of trace_pipe. */
struct rb_iter {
	struct ring_buffer_per_cpu *cb;
	int page;    /* index into cb->pages */
	u64 seq;     /* that page's seq when we started reading it */
	u32 off;     /* offset of the next event in the page's data */
	u64 ts;      /* time of the last event read */
	bool done;
};

void rb_iter_start(struct rb_iter *it, struct ring_buffer_per_cpu *cb);
/* Next data event (payload, its length, its time); NULL at the end. */
void *rb_iter_peek(struct rb_iter *it, u32 *len, u64 *ts);
void rb_iter_advance(struct rb_iter *it);
/* Consuming: like peek+advance, but copies the payload out and moves the buffer's head. */
bool ring_buffer_consume(struct ring_buffer_per_cpu *cb, struct rb_iter *it, void *out, u32 size,
			 u32 *len, u64 *ts);

u64 ring_buffer_entries(struct trace_buffer *b, u64 *written);

#endif
