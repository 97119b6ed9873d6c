/* The per-CPU ring buffer: each CPU writes its own pages without locks; readers iterate or consume. */
#ifndef KERNEL_TRACE_RING_BUFFER_H
#define KERNEL_TRACE_RING_BUFFER_H

#include "lib/types.h"
#include "kernel/percpu.h"
#include "arch/x86/cpu.h"
#include "kernel/trace/trace_clock.h"
#include "kernel/irq_work.h"
#include "kernel/sched/wait.h"
#include "kernel/spinlock.h"

/*
 * Layout kept close to Linux's, so a dump can become a trace.dat by copying:
 *
 *   data page:  | u64 time_stamp | u64 commit (bytes used) | events ...                     |
 *   event:      | type_len:5 time_delta:27 | payload (type_len * 4 bytes)                 |
 *               type_len 0: the next u32 is the length of the payload plus that u32 itself;
 *               29: padding to the page end;
 *               30: time extend (the delta did not fit in 27 bits: high bits in the next u32)
 * Time stamps are what the buffer's clock reads (kernel/trace/trace_clock.c). The fast paths
 * read the TSC and nothing more, so they serve the clocks whose stamps are raw TSC values (local,
 * x86-tsc); readers turn local's into nanoseconds with tsc_to_ktime(). For any other clock,
 * last_ts carries RB_TS_SLOW: the fast paths' delta test then fails and the slow path, which
 * reads the clock, writes the event, at no cost to the fast paths.
 */
#define RB_TS_SLOW (1ULL << 63)
#define RB_PAGE_HDR 16
#define BUF_PAGE_SIZE (4096 - RB_PAGE_HDR)
#define RINGBUF_TYPE_DATA_TYPE_LEN_MAX 28
#define RINGBUF_TYPE_PADDING 29
#define RINGBUF_TYPE_TIME_EXTEND 30
#define RINGBUF_TYPE_TIME_STAMP 31 /* Linux's absolute stamp: reserved, never written here */
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
	/* Events written on it, counted when the writer leaves it: while it is the tail, that is
	 * cb->entries - first_entry, so a write bumps one counter, not two. */
	unsigned long entries;
	/*
	 * seq (high 32 bits) names the page's current life: the writer numbers lives in the order it
	 * fills pages, so from the head to the tail they are consecutive, and a reader that steps to
	 * the next page knows whether it holds the life right after the one it just read. read (low
	 * 32) counts events trace_pipe took from it. One word, so the reader's "count it if the page
	 * is still in the life I read" and the writer's "recycle, and learn how many were never
	 * read" are each a single atomic step.
	 */
	volatile u64 seq_read;
	u64 first_entry; /* the CPU's entries count when the page became the tail */
};

static inline u32 page_seq(const struct buffer_page *bp)
{
	return __atomic_load_n(&bp->seq_read, __ATOMIC_ACQUIRE) >> 32;
}

struct ring_buffer_per_cpu {
	int cpu;
	int nr_pages;
	struct buffer_page *pages;
	volatile int head; /* oldest page still holding events (moved by the writer only) */
	int tail;	   /* the page being written */
	u32 lives;	   /* the last life number the writer gave a page */
	u64 last_ts;	   /* the previous event's time: deltas count from it */
	/* pages[tail].page, for the fast path; with no pages, a page that always sends the writer
	 * to the slow path (its commit is 0), so the fast path needs no NULL test. */
	struct buffer_data_page *tail_page;
	/*
	 * Who may write: -1 (RB_WRITER_IDLE) when nobody writes and recording is on. A writer adds 1
	 * and may write only if that made it exactly 0, so the test is one `lock inc` and the flags it
	 * sets; a refused writer takes its 1 back. Each ring_buffer_record_off() in force adds
	 * RB_RECORD_OFF (RB_RECORD_HOLD for a reader's moment, which refuses without counting), so
	 * the low 16 bits of writer + 1 count writers and refused attempts now
	 * running on this CPU (a write, and an NMI's try inside it): 0 when nobody is in a write.
	 */
	volatile u32 writer;
	u64 entries;		  /* events ever committed */
	u64 overrun;		  /* events lost when the writer overwrote the oldest page */
	u64 dropped;		  /* events refused: nested write (NMI) or recording off */
	u64 read;		  /* events consumed by trace_pipe */
	volatile u32 reader_off;  /* trace_pipe's mark: it consumed up to reader_off of */
	volatile int reader_page; /* page reader_page in life reader_seq (the mark counts only */
	volatile u32 reader_seq;  /* while that page is still in that life) */
	bool no_overwrite;	  /* the overwrite option off: a full ring refuses (dropped) */
	u8 waiters; /* RB_WAITERS_*: a reader sleeps on this CPU's data (ring_buffer_wait.c) */
	const struct trace_clock *clock; /* what the stamps count: the buffer's clock */
	/* Self-tests only: run where a reader has picked a page and not yet read its seq. */
	void (*race_window)(struct ring_buffer_per_cpu *cb);
} __attribute__((aligned(128))); /* a power of two: finding this CPU's is a shift */

/* RB_WAITERS_ANY: any new event wakes; RB_WAITERS_FULL: a page change that fills the CPU's part
 * to its shortest_full percent (Linux's waiters_pending and full_waiters_pending). */
#define RB_WAITERS_ANY 1
#define RB_WAITERS_FULL 2

/* Linux's struct rb_irq_work: the readers sleeping on one CPU's data, and the irq_work a writer
 * queues to wake them, since a writer may be in NMI or hold the runqueue lock. */
struct rb_irq_work {
	struct irq_work work;
	struct wait_queue_head waiters;
	struct trace_buffer *b;
	int cpu;
	int shortest_full; /* the smallest buffer_percent a reader waits for (0: none) */
	int last_tail;	   /* the tail page at the last fullness check: look again on a new page */
};

struct trace_buffer {
	int nr_pages;	/* per CPU; -1 while the CPUs' sizes differ (per_cpu/cpuN/buffer_size_kb) */
	u64 time_start; /* the clock at the last reset (Linux's array_buffer.time_start); in the
			 * max buffer, the worst section's start: readers skip what came before */
	const struct trace_clock *clock; /* ring_buffer_set_clock(); trace_clocks[0] at first */
	struct ring_buffer_per_cpu cpu[NR_CPUS];
	struct rb_irq_work wait[NR_CPUS];
	struct wait_queue_head all_waiters; /* readers of every CPU's data (trace_pipe) */
	/*
	 * The readers' side of a resize and a reset (ring_buffer_iter.c). readers counts those that
	 * keep a place in the pages over a whole read (`trace`'s iterators): a resize is refused
	 * (-EBUSY) while there is one, as Linux's is while resize_disabled is held. reader_lock
	 * keeps a resize or a reset and one consumer's step (trace_pipe's event, trace_pipe_raw's
	 * page) apart, as Linux's reader_lock does.
	 */
	int readers;
	spinlock_t reader_lock;
};

/* A write in progress: the payload to fill, and what the commit needs. Nobody takes its address
 * on the way (the slow path returns the payload), so inlined it stays in registers. */
struct rb_reserve {
	void *data;
	struct ring_buffer_per_cpu *cb;
	unsigned long flags;
	u64 *commit; /* the tail page's commit word */
	u64 end;     /* its value with this event in */
};

#define RB_WRITER_IDLE 0xffffffffU
#define RB_RECORD_OFF 0x10000U	  /* bits 16-23: offs whose refusals count as dropped */
#define RB_RECORD_HOLD 0x1000000U /* bits 24-31: a moment's hold (stats), never counted */

/* What a CPU without pages writes to: its commit says full, so every write goes slow. */
extern struct buffer_data_page rb_no_page;

int ring_buffer_alloc(struct trace_buffer *b, unsigned long kb_per_cpu);
/* Linux's RB_FL_OVERWRITE: on (as allocated), a full ring overwrites its oldest page; off, the
 * new event is refused and counted in dropped. */
void ring_buffer_change_overwrite(struct trace_buffer *b, bool on);
void ring_buffer_free(struct trace_buffer *b);
void ring_buffer_reset(struct trace_buffer *b);
/* Linux's ring_buffer_set_clock(), with the reset Linux's tracing_set_clock() does after it:
 * stamps of two clocks cannot be ordered, so what was recorded goes. */
void ring_buffer_set_clock(struct trace_buffer *b, const struct trace_clock *clock);
/* Every CPU's ring (cpu < 0) or one CPU's made kb KiB, keeping the newest events that fit
 * (ring_buffer_resize.c); nr_pages becomes -1 while the CPUs' sizes differ. */
int ring_buffer_resize(struct trace_buffer *b, unsigned long kb, int cpu);
/* The buffer's clock now (Linux's ring_buffer_time_stamp()). */
u64 ring_buffer_time_stamp(const struct trace_buffer *b);
void ring_buffer_reset_cpu(struct trace_buffer *b, int cpu);
/* Stops (and waits out) or restarts writers on every CPU. */
void ring_buffer_record_off(struct trace_buffer *b);
void ring_buffer_record_on(struct trace_buffer *b);
/* The same for a reader's moment: what the writers would have written meanwhile is refused but
 * not counted as dropped, so reading the count does not change it. */
void ring_buffer_record_hold(struct trace_buffer *b);
void ring_buffer_record_release(struct trace_buffer *b);

/* The slow path's core, with interrupts off and the writer word held (ring_buffer.c). */
void *rb_reserve_slow(struct ring_buffer_per_cpu *cb, u32 len, u64 ts);

/*
 * The write protocol. Two copies run it, instruction for instruction: the C below (the tracers'
 * C callbacks and every C event) and the NASM macros of kernel/trace/ring_buffer.inc (the
 * function tracer's and function_graph's trampolines, arch/x86/ftrace_fast.asm), which the
 * self-test ring_buffer_asm_matches_c holds against it. Change one, change the other.
 *
 *   lock     writer + 1 must be 0 (lock inc): else undo (lock dec) and refuse
 *   room     the tail page's commit + 4 + len <= BUF_PAGE_SIZE; an empty page is fine (reset and
 *            rb_move_tail() stamp it with last_ts), a CPU without pages is rb_no_page, full
 *   time     delta = rdtsc() - last_ts must fit in 27 bits; then last_ts += delta
 *   header   one 32-bit store: delta << 5 | len / 4
 *   commit   commit += 4 + len (a plain store is a release on x86), entries + 1, writer - 1
 *
 * Any refusal leaves nothing written (the caller takes the whole way); a full page is the
 * only one the assembly handles itself, by calling rb_next_page() and trying again.
 */

/* Takes this CPU's right to write: false if a write is in progress (we are an NMI inside it)
 * or recording is off. Interrupts must be off. The locked add is also the full barrier
 * record_off() pairs with. */
static __always_inline bool rb_writer_trylock(struct ring_buffer_per_cpu *cb)
{
	if (likely(__atomic_add_fetch(&cb->writer, 1, __ATOMIC_SEQ_CST) == 0))
		return true;
	__atomic_sub_fetch(&cb->writer, 1, __ATOMIC_RELAXED);
	return false;
}

static __always_inline void rb_writer_unlock(struct ring_buffer_per_cpu *cb)
{
	/* Atomic: record_off() on another CPU may be adding to the same word. */
	__atomic_sub_fetch(&cb->writer, 1, __ATOMIC_RELEASE);
}

/* True while a writer (or a refused attempt) is running on that CPU: record_off() waits. */
static inline bool rb_writer_busy(const struct ring_buffer_per_cpu *cb)
{
	return (u16)(__atomic_load_n(&cb->writer, __ATOMIC_ACQUIRE) + 1) != 0;
}

/*
 * The common case alone, inline: recording on, no nested write, the event fits in the tail page
 * and its delta in 27 bits. True with the event reserved; false having done nothing at all
 * (interrupts as they were, nothing counted), for the caller to take the whole way.
 */
#define ring_buffer_reserve_fast(b, len, r) __rb_reserve_fast(&(b)->cpu[smp_processor_id()], len, r)

/* The same, cpu_cb an expression naming this CPU's part, read once interrupts are off. */
#define __rb_reserve_fast(cpu_cb, len, r)                                                          \
	({                                                                                         \
		unsigned long __flags = local_irq_save();                                          \
		rb_reserve_fast_irqoff((cpu_cb), (len), (r), __flags);                             \
	})

/* Interrupts are off (flags: as they were before); if it fails, they are as they were again. */
static __always_inline bool rb_reserve_fast_irqoff(struct ring_buffer_per_cpu *cb, u32 len,
						   struct rb_reserve *r, unsigned long flags)
{
	u32 body = (len + 3) & ~3U;
	struct buffer_data_page *dp;
	u64 delta, commit;

	if (unlikely(!rb_writer_trylock(cb)))
		goto none;
	dp = cb->tail_page;
	commit = dp->commit;
	delta = rdtsc() - cb->last_ts;
	if (unlikely(body > 112 || commit > BUF_PAGE_SIZE - 4 - body ||
		     delta > (1U << TS_DELTA_BITS) - 1)) {
		rb_writer_unlock(cb);
		goto none;
	}
	cb->last_ts += delta; /* the event's time; nothing else writes here before our commit */
	/* type_len in the low 5 bits, the delta above: one store for the whole header. */
	*(u32 *)(dp->data + commit) = (u32)(delta << 5) | (body / 4);
	r->data = dp->data + commit + 4;
	r->cb = cb;
	r->flags = flags;
	r->commit = &dp->commit;
	r->end = commit + 4 + body;
	return true;
none:
	local_irq_restore(flags);
	return false;
}

/* The assembly's page change (ring_buffer.inc): interrupts off, the writer word held, the tail
 * page full. Moves to the next page, stamped now; false, nothing changed, without pages or when
 * the ring is full and may not overwrite (counted as dropped). */
bool rb_next_page(struct ring_buffer_per_cpu *cb);

/* Everything else: a new page, a time extend, a long event, a refusal (counted as dropped). */
bool ring_buffer_lock_reserve_slow(struct trace_buffer *b, u32 len, struct rb_reserve *r);

/* A reader waits on cb (ring_buffer_wait.c): queue its wake-up, from any context. */
void rb_wakeups(struct ring_buffer_per_cpu *cb);

/* Writer side, on the current CPU: reserve len bytes, fill r->data, commit. */
static __always_inline bool ring_buffer_lock_reserve(struct trace_buffer *b, u32 len,
						     struct rb_reserve *r)
{
	return ring_buffer_reserve_fast(b, len, r) || ring_buffer_lock_reserve_slow(b, len, r);
}

static __always_inline void ring_buffer_unlock_commit(struct rb_reserve *r)
{
	struct ring_buffer_per_cpu *cb = r->cb;

	/* Release: a reader that sees the new commit sees the event bytes too. */
	__atomic_store_n(r->commit, r->end, __ATOMIC_RELEASE);
	cb->entries++;
	rb_writer_unlock(cb); /* a locked op: the commit is seen before waiters is read */
	if (unlikely(cb->waiters))
		rb_wakeups(cb);
	local_irq_restore(r->flags);
}

/* Reader positions: a non-consuming iterator, and the consuming reader of trace_pipe. */
struct rb_iter {
	struct ring_buffer_per_cpu *cb;
	int page;    /* index into cb->pages */
	u32 seq;     /* the life of that page we are reading */
	u32 off;     /* offset of the next event in the page's data */
	u64 ts;	     /* time of the last event read */
	bool done;   /* no pages at all; reaching the newest event is not "done": more may come */
	bool lapped; /* the writer went round the ring past us: our place is gone */
	/* trace's reader with the writers running (rb_iter_start_copy(), ring_buffer_iter.c):
	 * NULL for the others, which read in place. */
	void *copy;   /* each event is copied here (BUF_PAGE_SIZE bytes), then checked */
	u64 stop;     /* the clock when the read began: later events end it */
	u64 shown_ts; /* the last event handed out: a restart never goes back before it */
	bool missed;  /* the writer overwrote events before we showed them (Linux's
		       * iter->missed_events): `trace` prints CPU:N [LOST EVENTS] */
};

void rb_iter_start(struct rb_iter *it, struct ring_buffer_per_cpu *cb);
/* The same, for a reader that races the writers: events are copied into copy and handed out only
 * if their page was not recycled meanwhile; stop is the buffer's clock when the read began. */
void rb_iter_start_copy(struct rb_iter *it, struct ring_buffer_per_cpu *cb, void *copy, u64 stop);
/* A read of b's pages from beginning to end begins and ends (Linux's ring_buffer_read_prepare()
 * and ring_buffer_read_finish()): b cannot be resized in between. */
void ring_buffer_read_prepare(struct trace_buffer *b);
void ring_buffer_read_finish(struct trace_buffer *b);
/* Next data event (payload, its length, its time); NULL at the end, or if lapped. */
void *rb_iter_peek(struct rb_iter *it, u32 *len, u64 *ts);
/* rb_iter_peek() in place, without the copy's checks (ring_buffer.c). */
void *rb_iter_peek_raw(struct rb_iter *it, u32 *len, u64 *ts);
/* The next page of the walk, if it is not past the tail; its length with its header, of one event. */
bool rb_iter_next_before_tail(struct rb_iter *it);
u32 rb_event_length(const struct ring_buffer_event *e);
void rb_iter_advance(struct rb_iter *it);
/* Consuming: like peek+advance, but copies the payload out and moves the buffer's head. */
bool ring_buffer_consume(struct ring_buffer_per_cpu *cb, struct rb_iter *it, void *out, u32 size,
			 u32 *len, u64 *ts);

/*
 * Whole pages for trace_pipe_raw, writers held off: peek copies the oldest unread events as one
 * 4096-byte Linux data page, consume then marks them read (two steps, so a caller that cannot
 * take the page leaves it in the buffer).
 */
struct rb_page_pos {
	int page;
	u32 seq, end, events;
};
u32 ring_buffer_peek_page(struct ring_buffer_per_cpu *cb, void *out, struct rb_page_pos *pos);
void ring_buffer_consume_page(struct ring_buffer_per_cpu *cb, const struct rb_page_pos *pos);
/* The pages a reader would still visit, oldest first; writers held off. */
int ring_buffer_unread_pages(struct ring_buffer_per_cpu *cb, int *pages, int max);

/* One CPU's unread data: bytes on its pages past the consuming reader's mark (event headers and
 * time extends included), and the TSC stamp of the oldest unread event (0: none). Writers must be
 * held off (ring_buffer_record_off) for the answer to be one moment's. */
u64 ring_buffer_bytes_cpu(struct ring_buffer_per_cpu *cb);
u64 ring_buffer_oldest_event_ts(struct ring_buffer_per_cpu *cb);

/*
 * The max buffer's swap (Linux's ring_buffer_swap_cpu()): cpu's part of a and of b (every CPU's,
 * cpu < 0) trade their pages and counters; the writer words stay where they are, so a writer
 * that comes after finds the other pages under the same word. Constant in the buffer's size: a
 * few descriptors, never a page. -EAGAIN, nothing swapped, if recording is off on either side
 * (a reader holds it, as Linux's record_disabled); -EBUSY if this CPU's own write into either is
 * interrupted (Linux's commit in progress); -EINVAL if the sizes differ.
 */
int ring_buffer_swap(struct trace_buffer *a, struct trace_buffer *b, int cpu);

/* Events in the buffer; *written: those plus the ones overwritten (Linux's pair of numbers). */
u64 ring_buffer_entries(struct trace_buffer *b, u64 *written);

/*
 * Readers that sleep until the writers bring data (ring_buffer_wait.c, Linux's ring_buffer_wait()
 * and ring_buffer_poll_wait()). cpu < 0: any CPU's data (full is then 0). full: 0 wakes at any
 * event, else when the CPU's written pages reach full percent of its ring (buffer_percent).
 */
struct file;
struct poll_table_struct;
void ring_buffer_wait_init(struct trace_buffer *b);
int ring_buffer_dirty_pages(struct ring_buffer_per_cpu *cb);
bool ring_buffer_full_hit(struct trace_buffer *b, int cpu, int full);
bool ring_buffer_empty_cpu(struct trace_buffer *b, int cpu);
/* Sleeps until the condition holds: 0, or -EINTR on a signal. */
int ring_buffer_wait(struct trace_buffer *b, int cpu, int full);
/* poll()'s side: the queue named through pt, the flags armed; EPOLLIN | EPOLLRDNORM or 0. */
unsigned int ring_buffer_poll_wait(struct trace_buffer *b, int cpu, struct file *f,
				   struct poll_table_struct *pt, int full);

#endif
