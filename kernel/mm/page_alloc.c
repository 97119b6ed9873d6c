/* Physical page frames: one bit per 4 KiB frame, first-fit search for runs of free frames. */
#include "kernel/mm/mm.h"
#include "kernel/fault_inject.h"
#include "kernel/spinlock.h"
#include "kernel/printk/printk.h"
#include "kernel/panic.h"
#include "lib/string.h"
#include "kernel/trace/events/kmem.h"

/* 16 GiB of frames is plenty for QEMU's -m; memory above it is left unused (and said so). */
#define MAX_FRAMES (16UL << (30 - PAGE_SHIFT))

static u64 frame_used[MAX_FRAMES / 64]; /* bit set = frame not available */
static size_t nr_frames, nr_free, nr_usable;
static size_t nr_used_by[NR_PAGE_USERS]; /* under frame_lock; sums to nr_usable - nr_free */
static size_t search_hint;
static DEFINE_SPINLOCK(frame_lock);

static inline bool frame_is_used(size_t f)
{
	return frame_used[f / 64] & (1UL << (f % 64));
}

static inline void frame_set(size_t f, bool used)
{
	if (used)
		frame_used[f / 64] |= 1UL << (f % 64);
	else
		frame_used[f / 64] &= ~(1UL << (f % 64));
}

/* Marks [base, base+len) used; frames already used stay as they are. */
void page_alloc_reserve(u64 base, u64 len)
{
	size_t f = base >> PAGE_SHIFT;
	size_t last = MIN((base + len + PAGE_SIZE - 1) >> PAGE_SHIFT, nr_frames);

	for (; f < last; f++) {
		if (!frame_is_used(f)) {
			frame_set(f, true);
			nr_free--;
			nr_used_by[PAGE_USER_RESERVED]++;
		}
	}
}

/* Frees the usable RAM GRUB reported, then takes back [reserved_lo, reserved_hi) (the kernel). */
void page_alloc_init(const struct mem_region *ram, int n, u64 reserved_lo, u64 reserved_hi)
{
	memset(frame_used, 0xff, sizeof(frame_used));
	for (int i = 0; i < n; i++) {
		/* Only whole frames inside the region are usable. */
		size_t f = (ram[i].base + PAGE_SIZE - 1) >> PAGE_SHIFT;
		size_t last = (ram[i].base + ram[i].len) >> PAGE_SHIFT;

		if (last > MAX_FRAMES) {
			pr_warn("mm: ignoring RAM above %lu GiB\n",
				MAX_FRAMES >> (30 - PAGE_SHIFT));
			last = MAX_FRAMES;
		}
		for (; f < last; f++) {
			frame_set(f, false);
			nr_free++;
			nr_usable++;
		}
		if (last > nr_frames)
			nr_frames = last;
	}
	page_alloc_reserve(reserved_lo, reserved_hi - reserved_lo);
}

static bool run_is_free(size_t f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (frame_is_used(f + i))
			return false;
	return true;
}

/* The first run of n free frames from the hint on, taken for user; 0 if there is none. */
static unsigned long take_run(size_t n, enum page_user user)
{
	unsigned long flags, pa = 0;

	flags = spin_lock_irqsave(&frame_lock);
	for (size_t pass = 0; pass < 2 && !pa; pass++) {
		size_t start = pass ? 0 : search_hint;
		for (size_t f = start; f + n <= nr_frames; f++) {
			if (run_is_free(f, n)) {
				for (size_t i = 0; i < n; i++)
					frame_set(f + i, true);
				nr_free -= n;
				nr_used_by[user] += n;
				search_hint = f + n;
				pa = f << PAGE_SHIFT;
				break;
			}
		}
	}
	spin_unlock_irqrestore(&frame_lock, flags);
	return pa;
}

static unsigned long __alloc_pages(size_t n, enum page_user user, unsigned long caller)
{
	unsigned long pa = 0;

	if (should_fail(&fail_page_alloc, n * PAGE_SIZE, caller))
		goto out;
	pa = take_run(n, user);
	/* Out of pages: the heap's cached empty slabs go back first, as Linux's shrinkers do. */
	if (!pa && kmalloc_shrink())
		pa = take_run(n, user);
out:
	trace_mm_page_alloc(pa, trace_pages_order(n), GFP_KERNEL, MIGRATE_UNMOVABLE);
	return pa;
}

unsigned long alloc_pages(size_t n)
{
	return __alloc_pages(n, PAGE_USER_OTHER, (unsigned long)__builtin_return_address(0));
}

unsigned long alloc_pages_for(size_t n, enum page_user user)
{
	return __alloc_pages(n, user, (unsigned long)__builtin_return_address(0));
}

/* The user must be the one the frames were taken for: a mismatch would hide a leak in the totals. */
void free_pages_for(unsigned long pa, size_t n, enum page_user user)
{
	unsigned long flags;
	size_t f = pa >> PAGE_SHIFT;

	trace_mm_page_free(pa, trace_pages_order(n));
	flags = spin_lock_irqsave(&frame_lock);

	for (size_t i = 0; i < n; i++) {
		BUG_ON(f + i >= nr_frames || !frame_is_used(f + i)); /* double free */
		frame_set(f + i, false);
	}
	BUG_ON(nr_used_by[user] < n); /* freed for another user than it was taken for */
	nr_used_by[user] -= n;
	nr_free += n;
	if (f < search_hint)
		search_hint = f;
	spin_unlock_irqrestore(&frame_lock, flags);
}

void free_pages(unsigned long pa, size_t n)
{
	free_pages_for(pa, n, PAGE_USER_OTHER);
}

/*
 * Copy-on-write's counts (Linux keeps them in each struct page of mem_map, as _mapcount): how many
 * page-table entries beyond the first map a user frame, 0 for a frame only one entry maps, so a
 * fresh frame needs no setup. One u16 a frame, taken from the frames at boot and counted as
 * Reserved. Only fork raises a count, and only the mappers of the frame lower it.
 */
static u16 *frame_refs;

void page_refs_init(void)
{
	size_t n = (nr_frames * sizeof(u16) + PAGE_SIZE - 1) / PAGE_SIZE;
	unsigned long pa = take_run(n, PAGE_USER_RESERVED);

	if (!pa)
		panic("mm: no memory for the copy-on-write counts");
	frame_refs = __va(pa);
	memset(frame_refs, 0, n * PAGE_SIZE);
}

void page_ref_inc(unsigned long pa)
{
	u16 old = __atomic_fetch_add(&frame_refs[pa >> PAGE_SHIFT], 1, __ATOMIC_RELAXED);

	BUG_ON(old == 0xffff);
}

bool page_ref_dec_if_shared(unsigned long pa)
{
	u16 *r = &frame_refs[pa >> PAGE_SHIFT], old = __atomic_load_n(r, __ATOMIC_RELAXED);

	while (old && !__atomic_compare_exchange_n(r, &old, old - 1, false, __ATOMIC_ACQ_REL,
						   __ATOMIC_RELAXED))
		;
	return old != 0;
}

bool page_shared(unsigned long pa)
{
	return __atomic_load_n(&frame_refs[pa >> PAGE_SHIFT], __ATOMIC_ACQUIRE) != 0;
}

void *alloc_page_zeroed(enum page_user user)
{
	unsigned long pa = __alloc_pages(1, user, (unsigned long)__builtin_return_address(0));
	if (!pa)
		return NULL;
	memset(__va(pa), 0, PAGE_SIZE);
	return __va(pa);
}

size_t pages_used_by(enum page_user user)
{
	return __atomic_load_n(&nr_used_by[user], __ATOMIC_RELAXED);
}

void pages_accounted(size_t *used, size_t *sum)
{
	unsigned long flags = spin_lock_irqsave(&frame_lock);

	*used = nr_usable - nr_free;
	*sum = 0;
	for (int u = 0; u < NR_PAGE_USERS; u++)
		*sum += nr_used_by[u];
	spin_unlock_irqrestore(&frame_lock, flags);
}

size_t pages_total(void)
{
	return nr_usable;
}

size_t pages_free(void)
{
	return nr_free;
}

u64 phys_mem_top(void)
{
	return (u64)nr_frames << PAGE_SHIFT;
}
