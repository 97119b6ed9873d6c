/* Self-tests of the page allocator and the kernel heap. */
#include "kernel/mm/mm.h"
#include "kernel/selftest.h"
#include "lib/string.h"

SELFTEST(heap_alloc_free)
{
	static const size_t sizes[] = { 1, 8, 16, 17, 100, 256, 1000, 2048, 2049, 5000, 20000 };
	void *p[ARRAY_SIZE(sizes)];
	size_t before = kmalloc_bytes_in_use();

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		p[i] = kmalloc(sizes[i]);
		KT_ASSERT(t, p[i] != NULL);
		KT_EXPECT(t, ((unsigned long)p[i] & 15) == 0);
		KT_EXPECT(t, ksize(p[i]) >= sizes[i]);
		memset(p[i], (int)i + 1, sizes[i]);
	}
	/* Every object still holds its own pattern: no two allocations overlap. */
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		const u8 *b = p[i];
		for (size_t j = 0; j < sizes[i]; j++)
			if (b[j] != i + 1) {
				ktest_fail(t, __FILE__, __LINE__, "object %zu byte %zu overwritten",
					   i, j);
				break;
			}
	}
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		kfree(p[i]);
	KT_EXPECT_EQ(t, kmalloc_bytes_in_use(), before);
}

SELFTEST(heap_reuse)
{
	void *a = kmalloc(64), *b;

	KT_ASSERT(t, a != NULL);
	kfree(a);
	b = kmalloc(64);
	KT_EXPECT(t, a == b); /* the slab's free list hands back the object just freed */
	kfree(b);
	a = kzalloc(300);
	KT_ASSERT(t, a != NULL);
	for (int i = 0; i < 300; i++)
		KT_EXPECT_EQ(t, ((u8 *)a)[i], 0);
	kfree(a);
}

SELFTEST(heap_many_objects)
{
	enum { N = 600 }; /* several slab pages of one class */
	static void *p[N];
	size_t before = kmalloc_bytes_in_use();

	for (int i = 0; i < N; i++) {
		p[i] = kmalloc(48);
		KT_ASSERT(t, p[i] != NULL);
		*(int *)p[i] = i;
	}
	for (int i = 0; i < N; i++)
		KT_EXPECT_EQ(t, *(int *)p[i], i);
	for (int i = 0; i < N; i += 2)
		kfree(p[i]);
	for (int i = 1; i < N; i += 2)
		kfree(p[i]);
	KT_EXPECT_EQ(t, kmalloc_bytes_in_use(), before);
}

SELFTEST(pages_alloc_free)
{
	/* Counted by owner: pages_free() also moves when another CPU reaps a task's stack meanwhile. */
	size_t other0 = pages_used_by(PAGE_USER_OTHER);
	unsigned long a = alloc_pages(1), b = alloc_pages(8);

	KT_ASSERT(t, a && b);
	KT_EXPECT(t, (a & (PAGE_SIZE - 1)) == 0 && (b & (PAGE_SIZE - 1)) == 0);
	KT_EXPECT(t, a + PAGE_SIZE <= b || b + 8 * PAGE_SIZE <= a);
	KT_EXPECT_EQ(t, pages_used_by(PAGE_USER_OTHER), other0 + 9);
	/* The direct map reaches every byte of a run of pages. */
	memset(__va(b), 0x5a, 8 * PAGE_SIZE);
	KT_EXPECT_EQ(t, ((u8 *)__va(b))[8 * PAGE_SIZE - 1], 0x5a);
	free_pages(a, 1);
	free_pages(b, 8);
	KT_EXPECT_EQ(t, pages_used_by(PAGE_USER_OTHER), other0);
}

SELFTEST(pages_kernel_reserved)
{
	/* No page handed out may overlap the kernel image. */
	unsigned long pa = alloc_pages(1);

	KT_ASSERT(t, pa != 0);
	KT_EXPECT(t, pa >= __pa(_end) || pa + PAGE_SIZE <= __pa(_text));
	free_pages(pa, 1);
}

SELFTEST(pages_every_frame_has_a_user)
{
	size_t used, sum, trace0 = pages_used_by(PAGE_USER_TRACE),
			  other0 = pages_used_by(PAGE_USER_OTHER);
	unsigned long a = alloc_pages_for(3, PAGE_USER_TRACE), b = alloc_pages(2);

	KT_ASSERT(t, a && b);
	KT_EXPECT_EQ(t, pages_used_by(PAGE_USER_TRACE), trace0 + 3);
	KT_EXPECT_EQ(t, pages_used_by(PAGE_USER_OTHER), other0 + 2);
	pages_accounted(&used, &sum);
	KT_EXPECT_EQ(t, used, sum);
	KT_EXPECT(t, pages_used_by(PAGE_USER_RESERVED) > 0 && pages_used_by(PAGE_USER_SLAB) > 0 &&
			     pages_used_by(PAGE_USER_STACK) > 0 &&
			     pages_used_by(PAGE_USER_FTRACE) > 0);
	free_pages_for(a, 3, PAGE_USER_TRACE);
	free_pages(b, 2);
	KT_EXPECT_EQ(t, pages_used_by(PAGE_USER_TRACE), trace0);
	KT_EXPECT_EQ(t, pages_used_by(PAGE_USER_OTHER), other0);
	pages_accounted(&used, &sum);
	KT_EXPECT_EQ(t, used, sum);
}

/* Takes every free page; returns how many, chained through their first word from *held. */
static size_t take_all_pages(unsigned long *held)
{
	unsigned long pa;
	size_t n = 0;

	while ((pa = alloc_pages(1))) {
		*(unsigned long *)__va(pa) = *held;
		*held = pa;
		n++;
	}
	return n;
}

/*
 * Out of pages, the heap's cached empty slabs go back to the page allocator instead of failing
 * the allocation: a burst of small objects freed does not keep its pages until drop_caches.
 */
SELFTEST(pages_reclaim_empty_slabs_under_pressure)
{
	unsigned long held = 0, pa, got;
	void *objs = NULL, *o;
	size_t nobjs = 0;

	take_all_pages(&held);
	for (int i = 0; i < 8 && held; i++) { /* eight pages become slabs of one 2048-byte object */
		pa = held;
		held = *(unsigned long *)__va(pa);
		free_pages(pa, 1);
	}
	while ((o = kmalloc(2048))) {
		*(void **)o = objs;
		objs = o;
		nobjs++;
	}
	while (objs) { /* every one of those slabs is empty now, and cached */
		o = objs;
		objs = *(void **)o;
		kfree(o);
	}
	got = alloc_pages(1);
	if (got)
		free_pages(got, 1);
	while (held) {
		pa = held;
		held = *(unsigned long *)__va(pa);
		free_pages(pa, 1);
	}
	KT_EXPECT(t, nobjs >= 1);
	KT_EXPECT(t, got != 0);
}
