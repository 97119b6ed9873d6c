/* Kernel heap: power-of-two slabs of one page each for small objects, page runs for large ones.
 *
 *   one slab page (objects of 64 bytes):          a large allocation (3 pages):
 *   +--------+-----+-----+-----+-- ... --+        +--------+---------------------------------+
 *   | header | obj | obj | obj |         |        | header | object ...                      |
 *   +--------+-----+-----+-----+-- ... --+        +--------+---------------------------------+
 *   kfree(p) finds the header by rounding p down to its page: the object never starts past the
 *   first page of its allocation.
 */
#include "kernel/mm/mm.h"
#include "kernel/fault_inject.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"
#include "lib/string.h"
#include "kernel/trace/events/kmem.h"

#define SLAB_MAGIC 0x51ab51abU
#define LARGE_MAGIC 0x1a9e1a9eU
#define HDR_SIZE 64
#define MIN_SHIFT 4  /* 16 bytes */
#define MAX_SHIFT 11 /* 2048 bytes */
#define NR_CLASSES (MAX_SHIFT - MIN_SHIFT + 1)
_Static_assert(NR_CLASSES == KMALLOC_NR_CLASSES, "mm.h's class count");

struct slab {
	u32 magic;
	u32 obj_size; /* for a large allocation: number of pages */
	u32 nr_free;
	u32 nr_objs;
	struct slab *next; /* next slab of this class that has a free object */
	void *freelist;	   /* free objects chained through their first word */
};

struct size_class {
	struct slab *partial; /* slabs with at least one free object */
	spinlock_t lock;
	/* For /proc/slabinfo: an empty slab stays cached (on partial) until kmalloc_shrink(). */
	unsigned long nr_slabs, nr_empty, active_objs;
};

static struct size_class classes[NR_CLASSES];
static size_t bytes_in_use;

static int class_of(size_t size)
{
	int shift = MIN_SHIFT;
	while (((size_t)1 << shift) < size)
		shift++;
	return shift - MIN_SHIFT;
}

static struct slab *slab_new(u32 obj_size)
{
	unsigned long pa = alloc_pages_for(1, PAGE_USER_SLAB);
	struct slab *s;
	char *obj;

	if (!pa)
		return NULL;
	s = __va(pa);
	s->magic = SLAB_MAGIC;
	s->obj_size = obj_size;
	s->nr_objs = (PAGE_SIZE - HDR_SIZE) / obj_size;
	s->nr_free = s->nr_objs;
	s->next = NULL;
	s->freelist = NULL;
	obj = (char *)s + HDR_SIZE;
	for (u32 i = 0; i < s->nr_objs; i++, obj += obj_size) {
		*(void **)obj = s->freelist;
		s->freelist = obj;
	}
	return s;
}

/* *bytes_alloc: the pages the run takes (Linux's PAGE_SIZE << order for a large kmalloc). */
static void *kmalloc_large(size_t size, size_t *bytes_alloc)
{
	size_t n = (size + HDR_SIZE + PAGE_SIZE - 1) / PAGE_SIZE;
	unsigned long pa = alloc_pages_for(n, PAGE_USER_SLAB);
	struct slab *s;

	*bytes_alloc = n * PAGE_SIZE;
	if (!pa)
		return NULL;
	s = __va(pa);
	s->magic = LARGE_MAGIC;
	s->obj_size = n;
	__atomic_fetch_add(&bytes_in_use, n * PAGE_SIZE, __ATOMIC_RELAXED);
	return (char *)s + HDR_SIZE;
}

static void *kmalloc_slab(size_t size, size_t *bytes_alloc)
{
	struct size_class *c;
	struct slab *s, *fresh;
	unsigned long flags;
	void *obj = NULL;

	*bytes_alloc = 1U << (class_of(size) + MIN_SHIFT);
	c = &classes[class_of(size)];
	flags = spin_lock_irqsave(&c->lock);
	if (!c->partial) {
		/* Made unlocked: short of pages, the page allocator shrinks every class, this one too. */
		spin_unlock_irqrestore(&c->lock, flags);
		fresh = slab_new(*bytes_alloc);
		flags = spin_lock_irqsave(&c->lock);
		if (fresh) {
			fresh->next = c->partial;
			c->partial = fresh;
			c->nr_slabs++;
			c->nr_empty++;
		}
	}
	s = c->partial;
	if (s) {
		if (s->nr_free == s->nr_objs)
			c->nr_empty--;
		c->active_objs++;
		obj = s->freelist;
		s->freelist = *(void **)obj;
		if (--s->nr_free == 0)
			c->partial =
				s->next; /* full slabs leave the list until something is freed */
		__atomic_fetch_add(&bytes_in_use, s->obj_size, __ATOMIC_RELAXED);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return obj;
}

/*
 * call_site is whoever called kmalloc(). Linux's kzalloc() is inline, so its events name the
 * caller of kzalloc() and carry __GFP_ZERO; ours is a function of its own (the function tracer
 * shows "kmalloc <-kzalloc"), so its allocations name kzalloc.
 */
void *kmalloc(size_t size)
{
	size_t bytes_alloc;
	void *obj;

	if (should_fail(&failslab, size, _RET_IP_)) {
		obj = NULL;
		bytes_alloc = 0;
	} else if (size > (1UL << MAX_SHIFT))
		obj = kmalloc_large(size, &bytes_alloc);
	else
		obj = kmalloc_slab(size ? size : 1, &bytes_alloc);
	trace_kmalloc(_RET_IP_, obj, size, bytes_alloc, GFP_KERNEL, NUMA_NO_NODE);
	return obj;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);
	if (p)
		memset(p, 0, size);
	return p;
}

static struct slab *slab_of(const void *p)
{
	struct slab *s = (struct slab *)ALIGN_DOWN((unsigned long)p, PAGE_SIZE);
	BUG_ON(s->magic != SLAB_MAGIC && s->magic != LARGE_MAGIC);
	return s;
}

void kfree(const void *p)
{
	struct slab *s;
	struct size_class *c;
	unsigned long flags;

	trace_kfree(_RET_IP_, p);
	if (!p)
		return;
	s = slab_of(p);
	if (s->magic == LARGE_MAGIC) {
		__atomic_fetch_sub(&bytes_in_use, s->obj_size * PAGE_SIZE, __ATOMIC_RELAXED);
		s->magic = 0;
		free_pages_for(__pa(s), s->obj_size, PAGE_USER_SLAB);
		return;
	}
	c = &classes[class_of(s->obj_size)];
	flags = spin_lock_irqsave(&c->lock);
	*(void **)p = s->freelist;
	s->freelist = (void *)p;
	__atomic_fetch_sub(&bytes_in_use, s->obj_size, __ATOMIC_RELAXED);
	c->active_objs--;
	if (++s->nr_free == 1) {
		s->next = c->partial;
		c->partial = s;
	}
	if (s->nr_free == s->nr_objs)
		c->nr_empty++;
	spin_unlock_irqrestore(&c->lock, flags);
}

/*
 * Gives every cached empty slab back to the page allocator (Linux's kmem_cache_shrink()); returns
 * the pages freed. Empty slabs are kept otherwise so that a burst of small allocations does not
 * rebuild a freelist each time; the page allocator calls this when it has no pages left, and
 * drop_caches does. Called with no class lock held.
 */
size_t kmalloc_shrink(void)
{
	size_t freed = 0;

	for (int i = 0; i < NR_CLASSES; i++) {
		struct size_class *c = &classes[i];
		unsigned long flags = spin_lock_irqsave(&c->lock);
		struct slab **pp = &c->partial, *empty = NULL;

		while (*pp) {
			struct slab *s = *pp;
			if (s->nr_free == s->nr_objs) {
				*pp = s->next;
				s->next = empty;
				empty = s;
				c->nr_slabs--;
				c->nr_empty--;
			} else {
				pp = &s->next;
			}
		}
		spin_unlock_irqrestore(&c->lock, flags);
		while (empty) {
			struct slab *s = empty;
			empty = s->next;
			s->magic = 0;
			free_pages_for(__pa(s), 1, PAGE_USER_SLAB);
			freed++;
		}
	}
	return freed;
}

/* One row of /proc/slabinfo per size class, counted under the class lock. */
void kmalloc_slab_stats(int i, struct kmalloc_class_stats *st)
{
	struct size_class *c = &classes[i];
	unsigned long flags = spin_lock_irqsave(&c->lock);

	st->obj_size = 1U << (i + MIN_SHIFT);
	st->objs_per_slab = (PAGE_SIZE - HDR_SIZE) / st->obj_size;
	st->active_objs = c->active_objs;
	st->nr_slabs = c->nr_slabs;
	st->active_slabs = c->nr_slabs - c->nr_empty;
	spin_unlock_irqrestore(&c->lock, flags);
}

size_t ksize(const void *p)
{
	struct slab *s = slab_of(p);
	if (s->magic == LARGE_MAGIC)
		return s->obj_size * PAGE_SIZE - HDR_SIZE;
	return s->obj_size;
}

size_t kmalloc_bytes_in_use(void)
{
	return __atomic_load_n(&bytes_in_use, __ATOMIC_RELAXED);
}
