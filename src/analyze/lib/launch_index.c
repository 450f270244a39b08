/*
 * launch_index.c: a rank's runtime calls by correlation (rankdata.h's
 * rank_launch_index and rank_launch_of), how every analysis that joins an
 * activity to the call that launched it finds that call.
 */
#include "analyze/lib/rankdata.h"

#include <stdint.h>
#include <stdlib.h>

#include "util/xalloc.h"

static const struct rank_data *sort_d;

/* By correlation, the earliest call first when one repeats, then by position (qsort is not stable). */
static int cmp_corr(const void *pa, const void *pb)
{
	uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
	int64_t a = sort_d->launches[ia].key, b = sort_d->launches[ib].key;
	if (a != b)
		return a < b ? -1 : 1;
	int64_t sa = sort_d->launches[ia].start, sb = sort_d->launches[ib].start;
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return (ia > ib) - (ia < ib);
}

/*
 * Two forms, one answer (the earliest call of a correlation: launches are
 * sorted by start, so the first position that holds it). Kineto numbers
 * its runtime calls from one counter, so a rank's correlations are nearly
 * dense (a real trace's span 5 to 16 slots a launch: calls that are not
 * launches, steps before the profiled ones) and nearly in order of start:
 * where they span at most 16 slots a launch, pos[c - base] is the position
 * + 1 of correlation c (0: none), one read a look-up; otherwise key[] holds
 * the correlations in order and pos[] their positions, searched. The order
 * is found by an insertion sort that gives up for qsort past n moves.
 */
struct launch_index {
	int64_t base;  /* table: the smallest correlation */
	size_t nslots; /* table: the span of the correlations; 0: the searched form */
	size_t n;      /* searched: the launches with a correlation (>= 0) */
	int64_t *key;  /* searched: their correlations in order (in the same block) */
	uint32_t pos[];
};

struct launch_index *rank_launch_index(const struct rank_data *d)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t n = 0;
	for (size_t i = 0; i < d->nlaunches; i++) {
		int64_t c = d->launches[i].key;
		if (c < 0)
			continue;
		n++;
		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
	}
	uint64_t span = n ? (uint64_t)hi - (uint64_t)lo + 1 : 0;
	struct launch_index *x;
	if (n && span <= 16 * (uint64_t)n + 64) {
		x = xcalloc(1, sizeof(*x) + span * sizeof(x->pos[0]));
		x->base = lo;
		x->nslots = (size_t)span;
		for (size_t i = 0; i < d->nlaunches; i++) {
			int64_t c = d->launches[i].key;
			if (c >= 0 && !x->pos[c - lo])
				x->pos[c - lo] = (uint32_t)i + 1;
		}
		return x;
	}
	size_t at = (sizeof(*x) + (n ? n : 1) * sizeof(x->pos[0]) + 7) / 8 * 8;
	x = xmalloc(at + (n ? n : 1) * sizeof(*x->key));
	x->base = 0;
	x->nslots = 0;
	x->n = 0;
	x->key = (int64_t *)((char *)x + at);
	size_t moves = 0;
	for (size_t i = 0; i < d->nlaunches && moves <= n; i++) {
		int64_t c = d->launches[i].key;
		if (c < 0)
			continue;
		size_t j = x->n++; /* stable: an equal key stays before, so the earliest call comes first */
		for (; j > 0 && x->key[j - 1] > c && moves <= n; j--, moves++) {
			x->key[j] = x->key[j - 1];
			x->pos[j] = x->pos[j - 1];
		}
		x->key[j] = c;
		x->pos[j] = (uint32_t)i;
	}
	if (moves > n) { /* far from in order: sort */
		x->n = 0;
		for (size_t i = 0; i < d->nlaunches; i++)
			if (d->launches[i].key >= 0)
				x->pos[x->n++] = (uint32_t)i;
		sort_d = d;
		qsort(x->pos, x->n, sizeof(x->pos[0]), cmp_corr);
		sort_d = NULL;
		for (size_t j = 0; j < x->n; j++)
			x->key[j] = d->launches[x->pos[j]].key;
	}
	return x;
}

const struct rk_range *rank_launch_of(const struct rank_data *d, const struct launch_index *x, int64_t corr)
{
	if (corr < 0 || !x)
		return NULL;
	if (x->nslots) {
		if (corr < x->base || (uint64_t)corr - (uint64_t)x->base >= x->nslots)
			return NULL;
		uint32_t p = x->pos[corr - x->base];
		return p ? &d->launches[p - 1] : NULL;
	}
	size_t l = 0, h = x->n; /* the first key not below corr */
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (x->key[m] < corr)
			l = m + 1;
		else
			h = m;
	}
	return l < x->n && x->key[l] == corr ? &d->launches[x->pos[l]] : NULL;
}
