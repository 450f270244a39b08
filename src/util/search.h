/*
 * search.h: the one binary search of perfstudy, over any sorted array
 * (the analyses, the trace export, the ingest's coalesced batches).
 *
 * Every such search is a partition point: the array is sorted
 * so that before(elem, key) holds for a prefix of it and for nothing after,
 * and the answer is the length of that prefix. before = "elem < key" gives
 * the first element not less than key (C++'s lower_bound), before = "elem
 * <= key" the first element greater than key (upper_bound); the caller's
 * predicate says which. Inline, so that a call with a constant predicate
 * compiles to the plain loop (the per-kernel searches of the cross-rank
 * analyses are hot).
 */
#ifndef PERFSTUDY_SEARCH_H
#define PERFSTUDY_SEARCH_H

#include <stddef.h>

/*
 * The index of the first of the n elements of size bytes at base for which
 * before(elem, key) is false; n when it holds for all (0 for an empty
 * array, whose base may be NULL). Each step halves [lo, hi), lo + (hi -
 * lo) / 2 never overflowing.
 */
static inline size_t lower_bound(const void *base, size_t n, size_t size, const void *key,
				 int (*before)(const void *elem, const void *key))
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (before((const char *)base + mid * size, key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
