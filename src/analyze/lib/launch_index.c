/*
 * launch_index.c: a rank's runtime calls by correlation (rankdata.h's
 * rank_launch_index and rank_launch_of), how every analysis that joins an
 * activity to the call that launched it finds that call.
 *
 * The answer: the earliest call of a correlation (launches are sorted by
 * start, so the first position that holds it); none for a negative one.
 *
 * How: key[] holds the correlations (those >= 0) in order, pos[] each
 * one's position among the launches. Kineto numbers its runtime calls from
 * one counter, so they come nearly in order of start (0 or 1 out of order
 * in the example's 20 traces and the big benchmark trace): an insertion
 * sort puts them in order, giving up for qsort past n moves. A look-up
 * reads bucket[] first: the correlations' span cut into at most n / 2 + 1
 * buckets of 2^shift, bucket[b] the first key in bucket b, so that a
 * search covers one bucket's keys (about two) instead of all n (a binary
 * search through the whole array was a cache miss a level on the big
 * trace's 225,722 launches, 0.14 s of its build). A rank the rank cache
 * keeps as arrays keeps its index too (rankdata.c), built once for the
 * eleven analyses that ask for it.
 */
#include "analyze/lib/rankdata.h"

#include <stdint.h>
#include <stdlib.h>

#include "util/xalloc.h"

struct launch_index {
	size_t n;          /* the launches with a correlation (>= 0) */
	int64_t base;      /* the smallest correlation */
	unsigned shift;    /* a bucket holds 2^shift correlations */
	size_t nbuckets;   /* bucket[0 .. nbuckets], the last = n */
	int64_t *key;      /* n correlations in order */
	uint32_t *pos;     /* n positions in launches[] */
	uint32_t *bucket;  /* nbuckets + 1 first indices into key[] */
	int64_t store[];   /* the three arrays */
};

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

/* The correlations (>= 0) of d's launches into x->key and x->pos, in order of correlation, then position. */
static void order(const struct rank_data *d, struct launch_index *x)
{
	size_t moves = 0, n = 0;
	for (size_t i = 0; i < d->nlaunches && moves <= x->n; i++) {
		int64_t c = d->launches[i].key;
		if (c < 0)
			continue;
		size_t j = n++; /* an equal key stays before: the earlier position first */
		for (; j > 0 && x->key[j - 1] > c && moves <= x->n; j--, moves++) {
			x->key[j] = x->key[j - 1];
			x->pos[j] = x->pos[j - 1];
		}
		x->key[j] = c;
		x->pos[j] = (uint32_t)i;
	}
	if (moves <= x->n)
		return;
	n = 0; /* far from in order: sort */
	for (size_t i = 0; i < d->nlaunches; i++)
		if (d->launches[i].key >= 0)
			x->pos[n++] = (uint32_t)i;
	sort_d = d;
	qsort(x->pos, n, sizeof(x->pos[0]), cmp_corr);
	sort_d = NULL;
	for (size_t j = 0; j < n; j++)
		x->key[j] = d->launches[x->pos[j]].key;
}

/* An index's layout: its keys (the launches with a correlation >= 0), the smallest, the buckets. */
struct layout {
	size_t n, nbuckets;
	int64_t lo;
	unsigned shift; /* a bucket holds 2^shift correlations: at most n / 2 + 1 buckets */
};

static struct layout layout_of(const struct rank_data *d)
{
	struct layout y = {0, 0, 0, 0};
	int64_t lo = INT64_MAX, hi = 0;
	for (size_t i = 0; i < d->nlaunches; i++) {
		int64_t c = d->launches[i].key;
		if (c < 0)
			continue;
		y.n++;
		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
	}
	uint64_t span = y.n ? (uint64_t)hi - (uint64_t)lo + 1 : 1;
	while ((span >> y.shift) > y.n / 2 + 1)
		y.shift++;
	y.nbuckets = (size_t)((span - 1) >> y.shift) + 1;
	y.lo = y.n ? lo : 0;
	return y;
}

static size_t bytes_of(const struct layout *y)
{
	return sizeof(struct launch_index) + y->n * (sizeof(int64_t) + sizeof(uint32_t)) +
	       (y->nbuckets + 1) * sizeof(uint32_t) + sizeof(int64_t);
}

size_t rank_launch_index_bytes(const struct rank_data *d)
{
	struct layout y = layout_of(d);
	return bytes_of(&y);
}

struct launch_index *launch_index_build(const struct rank_data *d)
{
	struct layout y = layout_of(d);
	struct launch_index *x = xmalloc(bytes_of(&y));
	x->n = y.n;
	x->base = y.lo;
	x->shift = y.shift;
	x->nbuckets = y.nbuckets;
	x->key = x->store;
	x->pos = (uint32_t *)(x->key + y.n);
	x->bucket = x->pos + y.n;
	order(d, x);
	size_t j = 0;
	for (size_t b = 0; b < y.nbuckets; b++) {
		while (j < y.n && (uint64_t)(x->key[j] - x->base) >> y.shift < b)
			j++;
		x->bucket[b] = (uint32_t)j;
	}
	x->bucket[y.nbuckets] = (uint32_t)y.n;
	return x;
}

struct launch_index *rank_launch_index(const struct rank_data *d)
{
	return d->lidx ? d->lidx : launch_index_build(d);
}

void rank_launch_index_release(const struct rank_data *d, struct launch_index *x)
{
	if (x != d->lidx)
		free(x);
}

const struct rk_range *rank_launch_of(const struct rank_data *d, const struct launch_index *x, int64_t corr)
{
	if (corr < 0 || !x || !x->n || corr < x->base)
		return NULL;
	uint64_t b = ((uint64_t)corr - (uint64_t)x->base) >> x->shift;
	if (b >= x->nbuckets)
		return NULL;
	size_t l = x->bucket[b], h = x->bucket[b + 1]; /* the first key of the bucket not below corr */
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (x->key[m] < corr)
			l = m + 1;
		else
			h = m;
	}
	return l < x->n && x->key[l] == corr ? &d->launches[x->pos[l]] : NULL;
}
