/* BPF_MAP_TYPE_RINGBUF: one ring shared by every CPU, records reserved and committed by programs
 * and read by user space through mmap() (Linux's kernel/bpf/ringbuf.c). */
#include "kernel/bpf/helpers.h"
#include "kernel/bpf/maps.h"
#include "kernel/fs/poll.h"
#include "kernel/irq_work.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_types.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/wait.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "arch/x86/paging.h"
#include "arch/x86/cpu.h"
#include "lib/string.h"

/*
 * The area, as Linux lays it out (page numbers of the kernel's virtual mapping):
 *
 *   page 0            struct bpf_ringbuf: the lock, the mask, the readers' wait queue and the
 *                     irq_work that wakes them (kernel only)
 *   page 1            consumer_pos: user space writes it (mmap offset 0, read-write)
 *   page 2            producer_pos: the kernel writes it (mmap offset 1 page, read-only)
 *   pages 3..3+n-1    the n data pages
 *   pages 3+n..3+2n-1 the same n frames again
 *
 * Mapping the data twice, in the kernel and in the reader's mmap(), makes every record one run
 * of bytes however near the end it starts: a program gets a plain pointer from
 * bpf_ringbuf_reserve() and a reader a plain pointer from consumer_pos. Each record opens with an
 * 8-byte header: u32 len (with BPF_RINGBUF_BUSY_BIT while the program writes it, and
 * BPF_RINGBUF_DISCARD_BIT if it was dropped) and u32 pg_off, the record's page in this area, by
 * which submit and discard find the ring from the record alone. Records are 8-byte aligned.
 */
#define RINGBUF_PGOFF 1 /* the first page a reader can map: consumer_pos */
#define RINGBUF_POS_PAGES 2
#define RINGBUF_MAX_DATA_SZ (16U << 20) /* what this kernel's memory sensibly holds */
#define RINGBUF_MAX_RECORD_SZ (~0U / 4)

/* Rings live in the ioremap area's upper half, in slots of a fixed size: a PML4 entry every
 * process already shares, so a program running in any address space sees the ring. */
#define RINGBUF_VA_BASE (IOREMAP_BASE + (256UL << 30))
#define RINGBUF_SLOT_SIZE (64UL << 20)
#define RINGBUF_SLOTS 64

struct bpf_ringbuf {
	spinlock_t spinlock; /* producers: reserve moves producer_pos under it */
	u64 mask;	     /* data size - 1 */
	/* epoll and poll sleepers: a program may run where it cannot take waitq's lock (under the
	 * runqueue lock, in an NMI), so a submit queues work and work wakes them */
	struct wait_queue_head waitq;
	struct irq_work work;
	u64 consumer_pos __aligned(PAGE_SIZE);
	u64 producer_pos __aligned(PAGE_SIZE);
	u8 data[] __aligned(PAGE_SIZE);
};

struct bpf_ringbuf_map {
	struct bpf_map map;
	struct bpf_ringbuf *rb; /* the slot's address */
	unsigned long pa;	/* 3 + n contiguous frames */
	unsigned long nr_pages; /* 3 + n */
	int slot;
};

struct bpf_ringbuf_hdr {
	u32 len;
	u32 pg_off;
};

static unsigned long slots_used; /* bit i: slot i holds a ring */
static DEFINE_SPINLOCK(slots_lock);

static int claim_slot(void)
{
	unsigned long flags = spin_lock_irqsave(&slots_lock);
	int slot = -1;

	for (int i = 0; i < RINGBUF_SLOTS && slot < 0; i++)
		if (!(slots_used & (1UL << i))) {
			slots_used |= 1UL << i;
			slot = i;
		}
	spin_unlock_irqrestore(&slots_lock, flags);
	return slot;
}

static void release_slot(int slot)
{
	unsigned long flags = spin_lock_irqsave(&slots_lock);

	slots_used &= ~(1UL << slot);
	spin_unlock_irqrestore(&slots_lock, flags);
}

/* The frame behind page i of the area (the data's second copy maps the first's frames). */
static unsigned long area_page_pa(const struct bpf_ringbuf_map *rbm, unsigned long i)
{
	unsigned long data_pages = rbm->nr_pages - 3;

	if (i >= 3 + data_pages)
		i -= data_pages;
	return rbm->pa + i * PAGE_SIZE;
}

struct flush_range {
	unsigned long start, end;
};

static void flush_range_local(void *info)
{
	const struct flush_range *r = info;

	for (unsigned long va = r->start; va < r->end; va += PAGE_SIZE)
		invlpg(va);
}

/* Unmaps the slot; every CPU forgets its translations before the slot can be reused for another
 * ring's frames (a CPU that ran a program on this ring may still hold them). */
static void ringbuf_unmap(struct bpf_ringbuf_map *rbm, unsigned long pages)
{
	struct flush_range r = { (unsigned long)rbm->rb,
				 (unsigned long)rbm->rb + pages * PAGE_SIZE };

	for (unsigned long i = 0; i < pages; i++)
		unmap_page(r.start + i * PAGE_SIZE);
	if (num_online_cpus() > 1)
		smp_call_function(flush_range_local, &r, true);
}

static int ringbuf_map_area(struct bpf_ringbuf_map *rbm)
{
	unsigned long va = (unsigned long)rbm->rb, pages = 3 + 2 * (rbm->nr_pages - 3);

	for (unsigned long i = 0; i < pages; i++)
		if (map_page(va + i * PAGE_SIZE, area_page_pa(rbm, i), PTE_W | PTE_NX)) {
			ringbuf_unmap(rbm, i);
			return -ENOMEM;
		}
	return 0;
}

static int ringbuf_map_alloc_check(union bpf_attr *attr)
{
	u32 n = attr->max_entries;

	if (attr->map_flags || attr->key_size || attr->value_size || !n || (n & (n - 1)) ||
	    (n & (PAGE_SIZE - 1)))
		return -EINVAL;
	if (n > RINGBUF_MAX_DATA_SZ)
		return -E2BIG;
	return 0;
}

/* Linux's bpf_ringbuf_notify(): the irq_work's callback, interrupts on again. */
static void bpf_ringbuf_notify(struct irq_work *work)
{
	wake_up(&container_of(work, struct bpf_ringbuf, work)->waitq);
}

static struct bpf_map *ringbuf_map_alloc(union bpf_attr *attr)
{
	struct bpf_ringbuf_map *rbm = kzalloc(sizeof(*rbm));
	int err = -ENOMEM;

	if (!rbm)
		return ERR_PTR(-ENOMEM);
	rbm->nr_pages = 3 + attr->max_entries / PAGE_SIZE;
	rbm->pa = alloc_pages_for(rbm->nr_pages, PAGE_USER_TRACE);
	if (!rbm->pa)
		goto free_map;
	rbm->slot = claim_slot();
	if (rbm->slot < 0)
		goto free_pages;
	rbm->rb = (struct bpf_ringbuf *)(RINGBUF_VA_BASE + rbm->slot * RINGBUF_SLOT_SIZE);
	if ((err = ringbuf_map_area(rbm)))
		goto free_slot;
	memset(rbm->rb, 0, rbm->nr_pages * PAGE_SIZE);
	spin_lock_init(&rbm->rb->spinlock);
	spin_lock_init(&rbm->rb->waitq.lock);
	init_irq_work(&rbm->rb->work, bpf_ringbuf_notify);
	rbm->rb->mask = attr->max_entries - 1;
	return &rbm->map;
free_slot:
	release_slot(rbm->slot);
free_pages:
	free_pages_for(rbm->pa, rbm->nr_pages, PAGE_USER_TRACE);
free_map:
	kfree(rbm);
	return ERR_PTR(err);
}

/* The last reference: no program holds the map and no reader's mmap() maps it. */
static void ringbuf_map_free(struct bpf_map *map)
{
	struct bpf_ringbuf_map *rbm = container_of(map, struct bpf_ringbuf_map, map);

	irq_work_sync(&rbm->rb->work); /* a last submit's wake-up may still be queued */
	ringbuf_unmap(rbm, 3 + 2 * (rbm->nr_pages - 3));
	release_slot(rbm->slot);
	free_pages_for(rbm->pa, rbm->nr_pages, PAGE_USER_TRACE);
	kfree(rbm);
}

/* ---- mmap: the consumer page read-write, the producer page and the data read-only ---- */

static void ringbuf_vm_open(struct vm_area_struct *vma)
{
	bpf_map_inc(vma->vm_private_data);
}

static void ringbuf_vm_close(struct vm_area_struct *vma)
{
	bpf_map_put(vma->vm_private_data);
}

static const struct vm_operations_struct ringbuf_vm_ops = {
	.open = ringbuf_vm_open,
	.close = ringbuf_vm_close,
};

/* Linux's ringbuf_map_mmap_kern(): writable is for the consumer page alone (-EPERM); a range past
 * the data's second copy is -EINVAL. The area holds a map reference until it is unmapped. */
static int ringbuf_map_mmap(struct bpf_map *map, struct vm_area_struct *vma, unsigned long off)
{
	struct bpf_ringbuf_map *rbm = container_of(map, struct bpf_ringbuf_map, map);
	unsigned long pgoff = off / PAGE_SIZE, pages = (vma->vm_end - vma->vm_start) / PAGE_SIZE;
	unsigned long mappable = RINGBUF_POS_PAGES + 2 * (rbm->nr_pages - 3);
	int err;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if ((vma->vm_flags & VM_WRITE) && (pgoff || pages != 1))
		return -EPERM;
	if (pgoff >= mappable || pages > mappable - pgoff)
		return -EINVAL;
	vma->vm_flags |= VM_PFNMAP | VM_DONTCOPY;
	for (unsigned long i = 0; i < pages; i++) {
		err = remap_pfn_range(current->mm, vma->vm_start + i * PAGE_SIZE,
				      area_page_pa(rbm, RINGBUF_PGOFF + pgoff + i), PAGE_SIZE,
				      vma->vm_flags);
		if (err)
			return err; /* the caller unmaps the area, vm_ops not yet set */
	}
	bpf_map_inc(map);
	vma->vm_ops = &ringbuf_vm_ops;
	vma->vm_private_data = map;
	return 0;
}

static u64 ringbuf_avail_data_sz(struct bpf_ringbuf *rb)
{
	u64 cons = __atomic_load_n(&rb->consumer_pos, __ATOMIC_ACQUIRE);
	u64 prod = __atomic_load_n(&rb->producer_pos, __ATOMIC_ACQUIRE);

	return prod - cons;
}

/* Readable while the producer is ahead of the consumer (Linux's ringbuf_map_poll_kern()); the
 * wait queue is the one bpf_ringbuf_notify() wakes. */
static unsigned int ringbuf_map_poll(struct bpf_map *map, struct file *f, poll_table *pt)
{
	struct bpf_ringbuf_map *rbm = container_of(map, struct bpf_ringbuf_map, map);

	poll_wait(f, &rbm->rb->waitq, pt);
	return ringbuf_avail_data_sz(rbm->rb) ? EPOLLIN | EPOLLRDNORM : 0;
}

const struct bpf_map_ops ringbuf_map_ops = {
	.map_alloc_check = ringbuf_map_alloc_check,
	.map_alloc = ringbuf_map_alloc,
	.map_free = ringbuf_map_free,
	.map_mmap = ringbuf_map_mmap,
	.map_poll = ringbuf_map_poll,
};

/* ---- the producer side ---- */

/* Room for size bytes and a header at producer_pos, or NULL: a full ring drops the record. */
static void *__bpf_ringbuf_reserve(struct bpf_ringbuf *rb, u64 size)
{
	struct bpf_ringbuf_hdr *hdr;
	u64 len, cons_pos, prod_pos;
	unsigned long flags;

	if (size > RINGBUF_MAX_RECORD_SZ)
		return NULL;
	len = ALIGN(size + BPF_RINGBUF_HDR_SZ, 8);
	if (len > rb->mask + 1)
		return NULL;
	cons_pos = __atomic_load_n(&rb->consumer_pos, __ATOMIC_ACQUIRE);
	flags = spin_lock_irqsave(&rb->spinlock);
	prod_pos = rb->producer_pos;
	/* records not yet read, busy ones included, are never overwritten */
	if (prod_pos + len - cons_pos > rb->mask) {
		spin_unlock_irqrestore(&rb->spinlock, flags);
		return NULL;
	}
	hdr = (struct bpf_ringbuf_hdr *)(rb->data + (prod_pos & rb->mask));
	hdr->len = (u32)size | BPF_RINGBUF_BUSY_BIT;
	hdr->pg_off = ((unsigned long)hdr - (unsigned long)rb) / PAGE_SIZE;
	/* the reader sees the busy header before it sees producer_pos pass it */
	__atomic_store_n(&rb->producer_pos, prod_pos + len, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&rb->spinlock, flags);
	return hdr + 1;
}

/*
 * Clears the busy bit (sets the discard bit too): the reader may now take the record. A reader
 * that had read everything before this record may be asleep on it, so it is woken, through
 * irq_work since this may run anywhere; one still behind will find this record on its way and
 * needs no wake-up (Linux's bpf_ringbuf_commit(): BPF_RB_NO_WAKEUP and BPF_RB_FORCE_WAKEUP
 * override).
 */
static void bpf_ringbuf_commit(void *sample, u64 flags, bool discard)
{
	struct bpf_ringbuf_hdr *hdr = (struct bpf_ringbuf_hdr *)sample - 1;
	u32 new_len = (hdr->len ^ BPF_RINGBUF_BUSY_BIT) | (discard ? BPF_RINGBUF_DISCARD_BIT : 0);
	struct bpf_ringbuf *rb = (struct bpf_ringbuf *)(((unsigned long)hdr & ~(PAGE_SIZE - 1)) -
							(unsigned long)hdr->pg_off * PAGE_SIZE);
	u64 rec_pos, cons_pos;

	__atomic_exchange_n(&hdr->len, new_len, __ATOMIC_ACQ_REL);
	rec_pos = (unsigned long)hdr - (unsigned long)rb->data;
	cons_pos = __atomic_load_n(&rb->consumer_pos, __ATOMIC_ACQUIRE) & rb->mask;
	if (flags & BPF_RB_FORCE_WAKEUP)
		irq_work_queue(&rb->work);
	else if (cons_pos == rec_pos && !(flags & BPF_RB_NO_WAKEUP))
		irq_work_queue(&rb->work);
}

static struct bpf_ringbuf *ringbuf_of(u64 map)
{
	return container_of((struct bpf_map *)(unsigned long)map, struct bpf_ringbuf_map, map)->rb;
}

static u64 bpf_ringbuf_reserve(u64 map, u64 size, u64 flags, u64 r4, u64 r5)
{
	if (flags)
		return 0;
	return (unsigned long)__bpf_ringbuf_reserve(ringbuf_of(map), size);
}

static u64 bpf_ringbuf_submit(u64 sample, u64 flags, u64 r3, u64 r4, u64 r5)
{
	bpf_ringbuf_commit((void *)(unsigned long)sample, flags, false);
	return 0;
}

static u64 bpf_ringbuf_discard(u64 sample, u64 flags, u64 r3, u64 r4, u64 r5)
{
	bpf_ringbuf_commit((void *)(unsigned long)sample, flags, true);
	return 0;
}

static u64 bpf_ringbuf_output(u64 map, u64 data, u64 size, u64 flags, u64 r5)
{
	void *rec;

	if (flags & ~(BPF_RB_NO_WAKEUP | BPF_RB_FORCE_WAKEUP))
		return -EINVAL;
	rec = __bpf_ringbuf_reserve(ringbuf_of(map), size);
	if (!rec)
		return -EAGAIN;
	memcpy(rec, (void *)(unsigned long)data, size);
	bpf_ringbuf_commit(rec, flags, false);
	return 0;
}

static u64 bpf_ringbuf_query(u64 map, u64 flags, u64 r3, u64 r4, u64 r5)
{
	struct bpf_ringbuf *rb = ringbuf_of(map);

	switch (flags) {
	case BPF_RB_AVAIL_DATA:
		return ringbuf_avail_data_sz(rb);
	case BPF_RB_RING_SIZE:
		return rb->mask + 1;
	case BPF_RB_CONS_POS:
		return __atomic_load_n(&rb->consumer_pos, __ATOMIC_ACQUIRE);
	case BPF_RB_PROD_POS:
		return __atomic_load_n(&rb->producer_pos, __ATOMIC_ACQUIRE);
	default:
		return 0;
	}
}

const struct bpf_func_proto bpf_ringbuf_reserve_proto = {
	.func = bpf_ringbuf_reserve,
	.ret_type = RET_PTR_TO_ALLOC_MEM_OR_NULL,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_CONST_ALLOC_SIZE_OR_ZERO, ARG_ANYTHING },
	.map_type = BPF_MAP_TYPE_RINGBUF,
};

const struct bpf_func_proto bpf_ringbuf_submit_proto = {
	.func = bpf_ringbuf_submit,
	.ret_type = RET_VOID,
	.arg_type = { ARG_PTR_TO_ALLOC_MEM, ARG_ANYTHING },
	.releases_ref = true,
};

const struct bpf_func_proto bpf_ringbuf_discard_proto = {
	.func = bpf_ringbuf_discard,
	.ret_type = RET_VOID,
	.arg_type = { ARG_PTR_TO_ALLOC_MEM, ARG_ANYTHING },
	.releases_ref = true,
};

const struct bpf_func_proto bpf_ringbuf_output_proto = {
	.func = bpf_ringbuf_output,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING },
	.map_type = BPF_MAP_TYPE_RINGBUF,
};

const struct bpf_func_proto bpf_ringbuf_query_proto = {
	.func = bpf_ringbuf_query,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_ANYTHING },
	.map_type = BPF_MAP_TYPE_RINGBUF,
};
