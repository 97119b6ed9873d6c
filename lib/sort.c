/* sort() and bsearch(): heapsort, so no recursion, no allocation and O(n log n) always. */
#include "lib/sort.h"

typedef void (*swap_func_t)(void *a, void *b, int size);
typedef int (*cmp_func_t)(const void *a, const void *b);

/* Word types the compiler may assume alias the caller's element type. */
typedef u64 __attribute__((may_alias)) u64_alias;
typedef u32 __attribute__((may_alias)) u32_alias;

static void swap_u64s(void *a, void *b, int size)
{
	u64_alias *x = a, *y = b, t;

	for (; size > 0; size -= 8, x++, y++)
		t = *x, *x = *y, *y = t;
}

static void swap_u32s(void *a, void *b, int size)
{
	u32_alias *x = a, *y = b, t;

	for (; size > 0; size -= 4, x++, y++)
		t = *x, *x = *y, *y = t;
}

static void swap_bytes(void *a, void *b, int size)
{
	u8 *x = a, *y = b, t;

	for (; size > 0; size--, x++, y++)
		t = *x, *x = *y, *y = t;
}

/* The widest swap every element allows: each one starts where base + k * size does. */
static swap_func_t generic_swap(const void *base, size_t size)
{
	uintptr_t bits = (uintptr_t)base | size;

	if (bits % 8 == 0)
		return swap_u64s;
	if (bits % 4 == 0)
		return swap_u32s;
	return swap_bytes;
}

/*
 * Restore the heap property below root in a heap of n elements: move the
 * root element down, each time swapping it with its larger child.
 */
static void sift_down(char *base, size_t root, size_t n, size_t size, cmp_func_t cmp,
		      swap_func_t swap)
{
	size_t child;

	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n && cmp(base + child * size, base + (child + 1) * size) < 0)
			child++;
		if (cmp(base + root * size, base + child * size) >= 0)
			return;
		swap(base + root * size, base + child * size, size);
		root = child;
	}
}

/*
 * Sort num elements of size bytes at base into ascending order by cmp.
 * Not stable. swap may be NULL for a plain exchange of the bytes.
 */
void sort(void *base, size_t num, size_t size, cmp_func_t cmp, swap_func_t swap)
{
	char *b = base;
	size_t i;

	if (num < 2 || size == 0)
		return;
	if (!swap)
		swap = generic_swap(base, size);
	/* Build a max-heap: sift down every element that has children, bottom-up. */
	for (i = num / 2; i-- > 0;)
		sift_down(b, i, num, size, cmp, swap);
	/* Move the largest to the end of the unsorted part, then repair the smaller heap. */
	for (i = num - 1; i > 0; i--) {
		swap(b, b + i * size, size);
		sift_down(b, 0, i, size, cmp, swap);
	}
}

/*
 * Find an element equal to key in num elements sorted ascending by cmp
 * (which takes the key first). Returns one such element, or NULL.
 */
void *bsearch(const void *key, const void *base, size_t num, size_t size,
	      int (*cmp)(const void *key, const void *elt))
{
	const char *lo = base;

	/* Invariant: if key is present, it lies in the num elements from lo. */
	while (num > 0) {
		const char *mid = lo + (num / 2) * size;
		int c = cmp(key, mid);

		if (c == 0)
			return (void *)mid;
		if (c > 0) {
			lo = mid + size;
			num -= num / 2 + 1;
		} else {
			num /= 2;
		}
	}
	return NULL;
}
