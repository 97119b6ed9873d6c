/* A perf event's ring: pages shared with the reader, records in, data_head/data_tail between.
 *
 *   mmap(NULL, (1 + 2^n) pages, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0)
 *
 *   page 0      struct perf_event_mmap_page: data_head (the kernel moves it after a record is
 *               whole), data_tail (the reader moves it after it has read), data_offset/size
 *   pages 1..   2^n pages of records, each a struct perf_event_header and its body; head and
 *               tail only grow, a record's place is head % data_size and may wrap
 *
 * The kernel writes a record only where the reader is done (head + size - tail <= data_size):
 * a record that does not fit is counted as lost, and the next that fits is preceded by a
 * PERF_RECORD_LOST with the count. A mapping without PROT_WRITE cannot move data_tail: the ring
 * is then overwritten, as Linux does for such a reader. One writer per event at a time: an
 * event fires on one CPU (a task stays on its CPU), interrupts off.
 *
 * Linux: kernel/events/ring_buffer.c (perf_output_begin(), perf_output_end()),
 * kernel/events/core.c (perf_mmap(), perf_output_sample(), perf_prepare_sample()).
 */
#include "kernel/events/perf_event.h"
#include "kernel/fs/file.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_types.h"
#include "arch/x86/cpu.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/string.h"

struct perf_buffer {
	int refcount; /* the event, and each area that maps it */
	unsigned long pa;
	unsigned long nr_pages; /* 1 + data pages */
	struct perf_event_mmap_page *user_page;
	u8 *data;
	u64 data_size;
	u64 head;	/* ours: data_head is in a page the reader can write */
	bool overwrite; /* mapped without PROT_WRITE: data_tail is not the reader's */
	u64 watermark;	/* bytes between two wake-ups: wakeup_watermark, or half the data */
	u64 wakeup;	/* the head at the last watermark wake-up */
	u32 events;	/* samples since the last wakeup_events wake-up */
};

/* Where a record is built before it goes in whole: the largest a sample can be. */
#define PERF_RECORD_MAX 4096
static u8 record_scratch[NR_CPUS][PERF_RECORD_MAX] __aligned(8);

void perf_buffer_put(struct perf_buffer *rb)
{
	if (__atomic_sub_fetch(&rb->refcount, 1, __ATOMIC_ACQ_REL))
		return;
	free_pages_for(rb->pa, rb->nr_pages, PAGE_USER_TRACE);
	kfree(rb);
}

static void perf_vm_open(struct vm_area_struct *vma)
{
	struct perf_buffer *rb = vma->vm_private_data;

	__atomic_add_fetch(&rb->refcount, 1, __ATOMIC_ACQ_REL);
}

static void perf_vm_close(struct vm_area_struct *vma)
{
	perf_buffer_put(vma->vm_private_data);
}

static const struct vm_operations_struct perf_vm_ops = {
	.open = perf_vm_open,
	.close = perf_vm_close,
};

static struct perf_buffer *rb_alloc(unsigned long nr_pages, bool overwrite, u64 watermark)
{
	struct perf_buffer *rb = kzalloc(sizeof(*rb));

	if (!rb)
		return NULL;
	rb->pa = alloc_pages_for(nr_pages, PAGE_USER_TRACE);
	if (!rb->pa) {
		kfree(rb);
		return NULL;
	}
	memset(__va(rb->pa), 0, nr_pages * PAGE_SIZE);
	rb->refcount = 1;
	rb->nr_pages = nr_pages;
	rb->user_page = __va(rb->pa);
	rb->data = (u8 *)rb->user_page + PAGE_SIZE;
	rb->data_size = (nr_pages - 1) * PAGE_SIZE;
	rb->overwrite = overwrite;
	/* Linux's ring_buffer_init() */
	rb->watermark = watermark ? MIN(watermark, rb->data_size) : rb->data_size / 2;
	rb->user_page->version = 0;
	rb->user_page->compat_version = 0;
	rb->user_page->size = __builtin_offsetof(struct perf_event_mmap_page, __reserved);
	rb->user_page->data_offset = PAGE_SIZE;
	rb->user_page->data_size = rb->data_size;
	return rb;
}

/* Under perf_mutex. The first mapping makes the ring; another must be the same size. */
int perf_mmap(struct file *f, struct perf_event *e, unsigned long addr, unsigned long len)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma = find_vma(mm, addr);
	unsigned long nr_pages = len / PAGE_SIZE, data_pages = nr_pages - 1;
	int err;

	/* 1 + 2^n pages (n >= 0), or the metadata page alone */
	if (!nr_pages || (data_pages & (data_pages - 1)) || nr_pages > 1 + 1024)
		return -EINVAL;
	if (e->rb) {
		if (e->rb->nr_pages != nr_pages)
			return -EINVAL;
		__atomic_add_fetch(&e->rb->refcount, 1, __ATOMIC_ACQ_REL);
	} else {
		struct perf_buffer *rb = rb_alloc(nr_pages, !(vma->vm_flags & VM_WRITE),
						  e->attr.watermark ? e->attr.wakeup_watermark : 0);
		if (!rb)
			return -ENOMEM;
		__atomic_add_fetch(&rb->refcount, 1, __ATOMIC_ACQ_REL); /* the event's */
		WRITE_ONCE(e->rb, rb);
	}
	vma->vm_flags |= VM_PFNMAP | VM_DONTCOPY;
	vma->vm_ops = &perf_vm_ops;
	vma->vm_private_data = e->rb;
	err = remap_pfn_range(mm, addr, e->rb->pa, len, vma->vm_flags);
	return err; /* on failure the caller unmaps the area; its close drops this reference */
}

/* Records the reader has not consumed yet (Linux's poll says readable only once a wake-up was
 * posted; here any unread byte does, and only wake-ups wake a sleeper). */
bool perf_buffer_has_data(struct perf_buffer *rb)
{
	return __atomic_load_n(&rb->user_page->data_head, __ATOMIC_ACQUIRE) !=
	       READ_ONCE(rb->user_page->data_tail);
}

/* Copies len bytes to the ring at head, wrapping at its end. */
static void rb_copy(struct perf_buffer *rb, u64 head, const void *src, u32 len)
{
	u64 off = head & (rb->data_size - 1);
	u32 first = MIN(len, rb->data_size - off);

	memcpy(rb->data + off, src, first);
	memcpy(rb->data, (const u8 *)src + first, len - first);
}

/* Room for len bytes at the head, as the reader last said (data_tail). */
static bool rb_room(struct perf_buffer *rb, u64 head, u32 len)
{
	u64 tail = rb->overwrite ? head : READ_ONCE(rb->user_page->data_tail);

	__atomic_thread_fence(__ATOMIC_ACQUIRE); /* the reader's reads are over before we write */
	return rb->data_size && head + len - tail <= rb->data_size;
}

static void rb_publish(struct perf_buffer *rb, u64 head)
{
	rb->head = head;
	/* the record is whole before the reader may see the head move past it */
	__atomic_store_n(&rb->user_page->data_head, head, __ATOMIC_RELEASE);
}

/* The fields sample_id_all adds to every other record, in a sample's order. */
static u32 put_sample_id(const struct perf_event *e, u64 *p)
{
	u64 t = e->attr.sample_type;
	u32 n = 0;

	if (!e->attr.sample_id_all)
		return 0;
	if (t & PERF_SAMPLE_TID)
		p[n++] = current ? (u64)current->pid << 32 | (u32)current->tgid : 0;
	if (t & PERF_SAMPLE_TIME)
		p[n++] = ktime_get_ns();
	if (t & PERF_SAMPLE_ID)
		p[n++] = e->id;
	if (t & PERF_SAMPLE_STREAM_ID)
		p[n++] = e->id;
	if (t & PERF_SAMPLE_CPU)
		p[n++] = smp_processor_id();
	if (t & PERF_SAMPLE_IDENTIFIER)
		p[n++] = e->id;
	return n * sizeof(u64);
}

/* PERF_RECORD_LOST { header, id, lost, sample_id }, if it fits; true when written. */
static bool rb_write_lost(struct perf_event *e, struct perf_buffer *rb, u64 *head)
{
	u64 rec[16];
	struct perf_event_header *h = (void *)rec;
	u32 len = 24;

	len += put_sample_id(e, rec + 3);
	if (!rb_room(rb, *head, len))
		return false;
	*h = (struct perf_event_header){ .type = PERF_RECORD_LOST, .size = len };
	rec[1] = e->id;
	rec[2] = e->lost;
	rb_copy(rb, *head, rec, len);
	*head += len;
	e->lost = 0;
	return true;
}

/* The sample's body, in the order Linux's perf_output_sample() writes the fields. */
static u32 build_sample(struct perf_event *e, struct perf_sample_data *d, u8 *buf)
{
	u64 t = e->attr.sample_type, *p = (u64 *)(buf + sizeof(struct perf_event_header));
	struct task *cur = current;
	bool user = d->regs ? user_mode(d->regs) : false;

	if (t & PERF_SAMPLE_IDENTIFIER)
		*p++ = e->id;
	if (t & PERF_SAMPLE_IP)
		*p++ = d->ip;
	if (t & PERF_SAMPLE_TID) /* u32 pid (the process), u32 tid (the thread) */
		*p++ = cur ? (u64)cur->pid << 32 | (u32)cur->tgid : 0;
	if (t & PERF_SAMPLE_TIME)
		*p++ = ktime_get_ns();
	if (t & PERF_SAMPLE_ADDR)
		*p++ = 0;
	if (t & PERF_SAMPLE_ID)
		*p++ = e->id;
	if (t & PERF_SAMPLE_STREAM_ID)
		*p++ = e->id;
	if (t & PERF_SAMPLE_CPU)
		*p++ = smp_processor_id();
	if (t & PERF_SAMPLE_PERIOD)
		*p++ = d->period;
	if (t & PERF_SAMPLE_CALLCHAIN) {
		u64 *nr = p++;
		*nr = perf_callchain(p, 64, d->regs, !e->attr.exclude_callchain_kernel,
				     !e->attr.exclude_callchain_user);
		p += *nr;
	}
	if (t & PERF_SAMPLE_RAW) {
		/* u32 size, then the record, zero-padded so the sample stays 8-byte aligned */
		u32 room = PERF_RECORD_MAX - ((u8 *)p - buf) - 8;
		u32 n = MIN(d->raw_size, room), padded = ((n + 4 + 7) & ~7U) - 4;
		*(u32 *)p = padded;
		memset((u8 *)p + 4, 0, padded);
		if (d->raw)
			memcpy((u8 *)p + 4, d->raw, n);
		p = (u64 *)((u8 *)p + 4 + padded);
	}
	*(struct perf_event_header *)buf = (struct perf_event_header){
		.type = PERF_RECORD_SAMPLE,
		.misc = user ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL,
		.size = (u8 *)p - buf,
	};
	return (u8 *)p - buf;
}

/*
 * Does this sample wake the reader? Every wakeup_events samples, unless the event counts bytes
 * (attr.watermark); and whenever the head passed another watermark since the last (Linux's
 * perf_output_sample() and perf_output_begin()). The wake-up itself goes through irq_work: a
 * sample may come in an NMI or under the runqueue lock (Linux's perf_output_wakeup()).
 */
static void perf_output_wakeup(struct perf_event *e, struct perf_buffer *rb, u64 head)
{
	bool wake = false;

	if (!e->attr.watermark && e->attr.wakeup_events && ++rb->events >= e->attr.wakeup_events) {
		rb->events -= e->attr.wakeup_events;
		wake = true;
	}
	if (head - rb->wakeup > rb->watermark) {
		rb->wakeup += rb->watermark;
		wake = true;
	}
	if (wake)
		irq_work_queue(&e->pending_irq);
}

void perf_output_sample(struct perf_event *e, struct perf_sample_data *d)
{
	struct perf_buffer *rb = READ_ONCE(e->rb);
	unsigned long flags;
	u64 head;
	u32 len;
	u8 *buf;

	if (!perf_event_overflow_bpf(e, d)) /* its program said 0 */
		return;
	if (!rb) /* sampling with nowhere to write: Linux drops the sample too */
		return;
	flags = local_irq_save();
	buf = record_scratch[smp_processor_id()];
	len = build_sample(e, d, buf);
	head = rb->head;
	if (e->lost && !rb_write_lost(e, rb, &head)) {
		e->lost++;
		goto out;
	}
	if (!rb_room(rb, head, len)) {
		e->lost++;
		rb_publish(rb, head);
		goto out;
	}
	rb_copy(rb, head, buf, len);
	head += len;
	rb_publish(rb, head);
	perf_output_wakeup(e, rb, head);
out:
	local_irq_restore(flags);
}
