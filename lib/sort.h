/* In-place heapsort and binary search over arrays of fixed-size elements. */
#ifndef LIB_SORT_H
#define LIB_SORT_H

#include "lib/types.h"

void sort(void *base, size_t num, size_t size, int (*cmp)(const void *, const void *),
	  void (*swap)(void *, void *, int size));
void *bsearch(const void *key, const void *base, size_t num, size_t size,
	      int (*cmp)(const void *key, const void *elt));

#endif
