/* intervals.c: sweeps over sorted interval sets, see intervals.h. */
#include "analyze/lib/intervals.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "util/xalloc.h"

void ivset_init(struct ivset *s)
{
	memset(s, 0, sizeof(*s));
}

void ivset_release(struct ivset *s)
{
	free(s->v);
	ivset_init(s);
}

void ivset_clear(struct ivset *s)
{
	s->n = 0;
}

void ivset_add(struct ivset *s, int64_t start, int64_t end)
{
	if (end <= start)
		return;
	s->v = xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n].start = start;
	s->v[s->n].end = end;
	s->n++;
}

void ivset_add_all(struct ivset *s, const struct ivset *src)
{
	if (!src->n)
		return;
	s->v = xgrow(s->v, &s->cap, s->n + src->n, sizeof(*s->v));
	memcpy(s->v + s->n, src->v, src->n * sizeof(*s->v));
	s->n += src->n;
}

static int cmp_ival(const void *pa, const void *pb)
{
	const struct ival *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

/*
 * v[0..n) ordered by start (the order of equal starts is left open: the
 * union does not depend on it). Already ordered, as one stream's
 * activities are, it costs one pass. Otherwise, from 256 intervals on, a
 * least-significant-digit radix sort of the starts (taken as unsigned with
 * the sign bit flipped, which keeps their order), a byte a pass, over the
 * bytes in which the smallest and largest start differ only: every start
 * between them shares the bytes above (a trace's ns timestamps: 4 to 5
 * passes). glibc's qsort, a merge sort calling the comparison n log n times,
 * was 5 % of a 1 GB trace's build; below 256 intervals it still sorts.
 */
static uint64_t start_key(const struct ival *v)
{
	return (uint64_t)v->start ^ (UINT64_C(1) << 63);
}

static void sort_by_start(struct ival *v, size_t n)
{
	int sorted = 1;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = start_key(&v[i]);
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
		if (i && v[i].start < v[i - 1].start)
			sorted = 0;
	}
	if (sorted)
		return;
	if (n < 256) {
		qsort(v, n, sizeof(*v), cmp_ival);
		return;
	}
	int bytes = 0;
	for (uint64_t d = lo ^ hi; d; d >>= 8)
		bytes++;
	struct ival *tmp = xmalloc(n * sizeof(*v)), *from = v, *to = tmp;
	for (int b = 0; b < bytes; b++) {
		size_t count[257] = {0};
		int shift = 8 * b;
		for (size_t i = 0; i < n; i++)
			count[(start_key(&from[i]) >> shift & 0xff) + 1]++;
		for (int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < n; i++)
			to[count[start_key(&from[i]) >> shift & 0xff]++] = from[i];
		struct ival *t = from;
		from = to;
		to = t;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
	free(tmp);
}

size_t ival_union(struct ival *v, size_t n)
{
	if (n < 2)
		return n;
	sort_by_start(v, n);
	size_t w = 0;
	for (size_t i = 1; i < n; i++) {
		if (v[i].start <= v[w].end) {
			if (v[i].end > v[w].end)
				v[w].end = v[i].end;
		} else {
			v[++w] = v[i];
		}
	}
	return w + 1;
}

void ivset_normalize(struct ivset *s)
{
	s->n = ival_union(s->v, s->n);
}

int64_t ivset_measure(const struct ivset *s)
{
	int64_t m = 0;
	for (size_t i = 0; i < s->n; i++)
		m += s->v[i].end - s->v[i].start;
	return m;
}

void ivset_intersect(const struct ivset *a, const struct ivset *b, struct ivset *out)
{
	ivset_clear(out);
	size_t i = 0, j = 0;
	while (i < a->n && j < b->n) {
		int64_t lo = a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
		int64_t hi = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
		ivset_add(out, lo, hi);
		/* The one that ends first cannot meet anything later in the other. */
		if (a->v[i].end < b->v[j].end)
			i++;
		else
			j++;
	}
}

void ivset_subtract(const struct ivset *a, const struct ivset *b, struct ivset *out)
{
	ivset_clear(out);
	size_t j = 0;
	for (size_t i = 0; i < a->n; i++) {
		int64_t cur = a->v[i].start, end = a->v[i].end;
		/* Skip the parts of b that end before this interval starts. */
		while (j < b->n && b->v[j].end <= cur)
			j++;
		size_t k = j;
		while (k < b->n && b->v[k].start < end) {
			ivset_add(out, cur, b->v[k].start);
			if (b->v[k].end > cur)
				cur = b->v[k].end;
			if (cur >= end)
				break;
			k++;
		}
		ivset_add(out, cur, end);
	}
}

void ivset_union(const struct ivset *a, const struct ivset *b, struct ivset *out)
{
	ivset_clear(out);
	ivset_add_all(out, a);
	ivset_add_all(out, b);
	ivset_normalize(out);
}

/* lower_bound's predicate: the interval ends at or before the int64_t key. */
static int ends_by(const void *elem, const void *key)
{
	return ((const struct ival *)elem)->end <= *(const int64_t *)key;
}

size_t ival_first_ending_after(const struct ival *v, size_t n, int64_t t)
{
	return lower_bound(v, n, sizeof(*v), &t, ends_by);
}

size_t ivset_first_ending_after(const struct ivset *a, int64_t t)
{
	return ival_first_ending_after(a->v, a->n, t);
}

void ivset_clip(const struct ivset *a, int64_t lo, int64_t hi, struct ivset *out)
{
	ivset_clear(out);
	if (hi <= lo)
		return;
	for (size_t i = ivset_first_ending_after(a, lo); i < a->n && a->v[i].start < hi; i++)
		ivset_add(out, a->v[i].start > lo ? a->v[i].start : lo, a->v[i].end < hi ? a->v[i].end : hi);
}

void ivsum_init(struct ivsum *p, const struct ivset *s)
{
	p->s = s;
	p->cum = xmalloc((s->n + 1) * sizeof(*p->cum));
	p->cum[0] = 0;
	for (size_t i = 0; i < s->n; i++)
		p->cum[i + 1] = p->cum[i] + ((uint64_t)s->v[i].end - (uint64_t)s->v[i].start);
}

void ivsum_release(struct ivsum *p)
{
	free(p->cum);
	p->cum = NULL;
	p->s = NULL;
}

/* lower_bound's predicate: the interval starts before the int64_t key. */
static int starts_before(const void *elem, const void *key)
{
	return ((const struct ival *)elem)->start < *(const int64_t *)key;
}

int64_t ivsum_within(const struct ivsum *p, int64_t lo, int64_t hi)
{
	const struct ivset *a = p->s;
	if (hi <= lo || !a->n)
		return 0;
	size_t l = ivset_first_ending_after(a, lo), r = lower_bound(a->v, a->n, sizeof(*a->v), &hi, starts_before);
	if (l >= r)
		return 0;
	/* whole intervals l .. r-1, less what lies before lo in the first and after hi in the last */
	uint64_t sum = p->cum[r] - p->cum[l];
	if (a->v[l].start < lo)
		sum -= (uint64_t)lo - (uint64_t)a->v[l].start;
	if (a->v[r - 1].end > hi)
		sum -= (uint64_t)a->v[r - 1].end - (uint64_t)hi;
	return (int64_t)sum;
}

int64_t ivset_measure_within(const struct ivset *a, int64_t lo, int64_t hi)
{
	if (hi <= lo || !a->n)
		return 0;
	size_t l = ivset_first_ending_after(a, lo);
	int64_t sum = 0;
	for (size_t i = l; i < a->n && a->v[i].start < hi; i++) {
		int64_t s = a->v[i].start > lo ? a->v[i].start : lo;
		int64_t e = a->v[i].end < hi ? a->v[i].end : hi;
		if (e > s)
			sum += e - s;
	}
	return sum;
}
