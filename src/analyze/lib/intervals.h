/*
 * intervals.h: sets of half-open time intervals [start, end) in integer ns.
 *
 * The time-accounting analyses (temporal breakdown, overlap, step breakdown,
 * dispatch, ranks) are all unions, intersections and differences of sets of
 * activity intervals. Every operation here is a sweep over sorted intervals,
 * linear after the sort (a radix sort of the starts: a few passes over the
 * set, see ivset_normalize), never a comparison of every pair, so a trace
 * with a million kernels costs no more than its sort.
 *
 * An ivset owns its array; ivset_release() frees it. A set is "normal" when
 * its intervals are sorted, disjoint, non-empty and do not touch (the
 * union); ivset_normalize() makes it so. The binary operations take normal
 * sets and give a normal set.
 */
#ifndef PERFSTUDY_INTERVALS_H
#define PERFSTUDY_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

struct ival {
	int64_t start, end; /* [start, end); end >= start */
};

/*
 * The union of the n intervals of v, sorted by start and merged in place
 * where they overlap or touch: how many are left. Unlike ivset_add's, an
 * empty interval is kept (a point that still splits a gap).
 */
size_t ival_union(struct ival *v, size_t n);
/* The index of the first of v's n intervals (a union: ends sorted too) that ends after t; n if none. */
size_t ival_first_ending_after(const struct ival *v, size_t n, int64_t t);

struct ivset {
	struct ival *v;
	size_t n, cap;
};

void ivset_init(struct ivset *s);
void ivset_release(struct ivset *s);
void ivset_clear(struct ivset *s);
/* Appends [start, end); empty or reversed intervals are ignored. */
void ivset_add(struct ivset *s, int64_t start, int64_t end);
/* Appends every interval of src (normal or not). */
void ivset_add_all(struct ivset *s, const struct ivset *src);
/* Sorts by start and merges overlapping or touching intervals: the union. */
void ivset_normalize(struct ivset *s);
/* Sum of lengths; for a normal set, the measure of the union. */
int64_t ivset_measure(const struct ivset *s);
/* out = a ∩ b (a, b normal; out must be neither). */
void ivset_intersect(const struct ivset *a, const struct ivset *b, struct ivset *out);
/* out = a \ b (a, b normal; out must be neither). */
void ivset_subtract(const struct ivset *a, const struct ivset *b, struct ivset *out);
/* out = a ∪ b (any sets; out must be neither). */
void ivset_union(const struct ivset *a, const struct ivset *b, struct ivset *out);
/*
 * out = a ∩ [lo, hi) (a normal; out must not be a): a binary search, then
 * only the intervals that meet [lo, hi), so that cutting a trace's set into
 * its steps one after the other stays linear in the set, where
 * ivset_intersect with each step would walk the whole set each time.
 */
void ivset_clip(const struct ivset *a, int64_t lo, int64_t hi, struct ivset *out);
/* Measure of a ∩ [lo, hi) (a normal), without building the intersection. */
int64_t ivset_measure_within(const struct ivset *a, int64_t lo, int64_t hi);
/* The index of the first interval of normal a that ends after t (a's ends are sorted too); a->n if none. */
size_t ivset_first_ending_after(const struct ivset *a, int64_t t);

/*
 * A normal set with the running sum of its lengths, so that the measure
 * of the set within a window costs two binary searches whatever the
 * window holds: where windows overlap (ProfilerStep ranges that each
 * cover the whole trace), ivset_measure_within per window made the
 * analyses quadratic. The set must stay unchanged while the ivsum is in
 * use; the ivsum owns only its sums.
 */
struct ivsum {
	const struct ivset *s;
	uint64_t *cum; /* cum[i]: the lengths of s->v[0 .. i), modulo 2^64 */
};
void ivsum_init(struct ivsum *p, const struct ivset *s);
void ivsum_release(struct ivsum *p);
/* ivset_measure_within(p->s, lo, hi), the same value, in O(log n). */
int64_t ivsum_within(const struct ivsum *p, int64_t lo, int64_t hi);

#endif
