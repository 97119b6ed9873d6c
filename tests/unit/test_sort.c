/* Unit tests for lib/sort.c: heapsort against insertion sort, and bsearch. */
#include "lib/sort.h"
#include "lib/string.h"
#include "lib/compiler.h"
#include "tests/unit/ktest_host.h"

#define MAX_BYTES (1100 * 24 + 8)

static u8 work[MAX_BYTES] __aligned(8), ref[MAX_BYTES] __aligned(8);
static size_t elem_size;	/* for cmp_bytes() */
static unsigned long comparisons, swaps;

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	comparisons++;
	return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	comparisons++;
	return (x > y) - (x < y);
}

/* Any element size, and any alignment: compare the bytes in order. */
static int cmp_bytes(const void *a, const void *b)
{
	comparisons++;
	return memcmp(a, b, elem_size);
}

static void counting_swap(void *a, void *b, int size)
{
	u8 *x = a, *y = b, t;

	swaps++;
	for (; size > 0; size--, x++, y++)
		t = *x, *x = *y, *y = t;
}

/* The obviously right sort to compare with: O(n^2), stable, no cleverness. */
static void insertion_sort(u8 *base, size_t num, size_t size,
			   int (*cmp)(const void *, const void *))
{
	size_t i, j;

	for (i = 1; i < num; i++)
		for (j = i; j > 0 && cmp(base + (j - 1) * size, base + j * size) > 0; j--)
			counting_swap(base + (j - 1) * size, base + j * size, size);
}

/*
 * Sort num random elements at work + offset and check the result equals
 * insertion sort's. Small key range (mod) makes plenty of duplicates.
 */
static bool check_sort(size_t num, size_t size, size_t offset, unsigned int mod,
		       int (*cmp)(const void *, const void *),
		       void (*swap)(void *, void *, int))
{
	u8 *w = work + offset, *r = ref + offset;
	size_t i;

	elem_size = size;
	for (i = 0; i < num * size; i++)
		w[i] = ktest_random() % mod;
	memcpy(r, w, num * size);
	insertion_sort(r, num, size, cmp);
	sort(w, num, size, cmp, swap);
	return ktest_check(!memcmp(w, r, num * size), __FILE__, __LINE__,
			   "sort of %zu elements of %zu bytes at offset %zu differs from reference",
			   num, size, offset);
}

KTEST(sort_empty_and_single)
{
	int one = 42;

	comparisons = 0;
	sort(NULL, 0, sizeof(int), cmp_int, NULL);
	sort(&one, 1, sizeof(int), cmp_int, NULL);
	EXPECT_EQ(one, 42);
	EXPECT_EQ(comparisons, 0);
}

KTEST(sort_random_ints)
{
	size_t n;

	for (n = 2; n <= 70; n++)
		check_sort(n, sizeof(int), 0, 256, cmp_int, NULL);
	check_sort(1000, sizeof(int), 0, 256, cmp_int, NULL);
	check_sort(1001, sizeof(int), 0, 3, cmp_int, NULL);
	check_sort(777, sizeof(u64), 0, 256, cmp_u64, NULL);
}

/* Each generic swap width, and alignments that must force a narrower one (UBSan checks). */
KTEST(sort_element_sizes)
{
	static const size_t sizes[] = { 1, 2, 3, 4, 5, 8, 12, 16, 24 };
	static const size_t offsets[] = { 0, 1, 4 };
	size_t s, o;

	for (s = 0; s < ARRAY_SIZE(sizes); s++)
		for (o = 0; o < ARRAY_SIZE(offsets); o++)
			check_sort(300, sizes[s], offsets[o], 4, cmp_bytes, NULL);
}

KTEST(sort_custom_swap)
{
	swaps = 0;
	check_sort(500, 12, 0, 256, cmp_bytes, counting_swap);
	EXPECT_TRUE(swaps > 0);
}

/* Sorted, reversed and constant inputs; and heapsort's n log n bound on comparisons. */
KTEST(sort_patterns)
{
	int a[1000], i;
	bool ok = true;

	for (i = 0; i < 1000; i++)
		a[i] = 1000 - i;
	comparisons = 0;
	sort(a, 1000, sizeof(int), cmp_int, NULL);
	for (i = 0; i < 1000 && ok; i++)
		ok = EXPECT_EQ(a[i], i + 1);
	/* 2 n log2 n is about 20000: a quadratic sort would need ~500000. */
	EXPECT_TRUE(comparisons < 25000);

	sort(a, 1000, sizeof(int), cmp_int, NULL);
	for (i = 0; i < 1000 && ok; i++)
		ok = EXPECT_EQ(a[i], i + 1);

	for (i = 0; i < 1000; i++)
		a[i] = 7;
	sort(a, 1000, sizeof(int), cmp_int, NULL);
	for (i = 0; i < 1000 && ok; i++)
		ok = EXPECT_EQ(a[i], 7);
}

static int key_cmp(const void *key, const void *elt)
{
	return cmp_int(key, elt);
}

KTEST(bsearch_found_and_missing)
{
	int a[101], n, i, k;

	for (i = 0; i < 101; i++)
		a[i] = 2 * i;	/* even numbers: odd keys are missing */
	for (n = 0; n <= 101; n++) {
		for (k = -1; k <= 2 * n; k++) {
			int *hit = bsearch(&k, a, n, sizeof(int), key_cmp);

			if (k >= 0 && k % 2 == 0 && k < 2 * n)
				EXPECT_EQ(hit, &a[k / 2]);
			else
				EXPECT_EQ(hit, NULL);
		}
	}
}

/* With duplicates it may return any of the equal elements, but one of them. */
KTEST(bsearch_duplicates)
{
	int a[] = { 1, 3, 3, 3, 3, 5, 9, 9 }, k = 3;
	int *hit = bsearch(&k, a, ARRAY_SIZE(a), sizeof(int), key_cmp);

	EXPECT_TRUE(hit >= &a[1] && hit <= &a[4]);
	k = 9;
	hit = bsearch(&k, a, ARRAY_SIZE(a), sizeof(int), key_cmp);
	EXPECT_TRUE(hit == &a[6] || hit == &a[7]);
}
