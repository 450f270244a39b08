/*
 * test_intervals.c: the interval sweeps against hand-worked cases and
 * against a brute-force bitmap over a small time axis (every nanosecond
 * marked one by one), for many random sets; and the union of large sets
 * (which ivset_normalize radix-sorts) against a plain qsort-and-merge.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/lib/intervals.h"
#include "check.h"

static void set_of(struct ivset *s, const int64_t *p, size_t n)
{
	ivset_init(s);
	for (size_t i = 0; i + 1 < n; i += 2)
		ivset_add(s, p[i], p[i + 1]);
}

static int same_as(const struct ivset *s, const int64_t *p, size_t n)
{
	if (s->n * 2 != n)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].start != p[2 * i] || s->v[i].end != p[2 * i + 1])
			return 0;
	return 1;
}

static void hand_cases(void)
{
	/* Union: overlapping, touching, nested, unsorted, empty and reversed. */
	int64_t a[] = {10, 20, 15, 25, 25, 30, 40, 50, 42, 45, 5, 5, 60, 55, 0, 3};
	struct ivset s;
	set_of(&s, a, sizeof(a) / sizeof(a[0]));
	CHECK_INT(s.n, 6); /* [5,5) and [60,55) were dropped */
	ivset_normalize(&s);
	int64_t want[] = {0, 3, 10, 30, 40, 50};
	CHECK(same_as(&s, want, 6));
	CHECK_INT(ivset_measure(&s), 3 + 20 + 10);
	CHECK_INT(ivset_measure_within(&s, 2, 45), 1 + 20 + 5);
	CHECK_INT(ivset_measure_within(&s, 30, 40), 0);
	CHECK_INT(ivset_measure_within(&s, 45, 45), 0);
	struct ivset clip;
	ivset_init(&clip);
	ivset_clip(&s, 2, 45, &clip);
	int64_t clipped[] = {2, 3, 10, 30, 40, 45};
	CHECK(same_as(&clip, clipped, 6));
	ivset_clip(&s, 30, 40, &clip);
	CHECK_INT(clip.n, 0);
	ivset_clip(&s, 45, 44, &clip);
	CHECK_INT(clip.n, 0);
	ivset_release(&clip);

	int64_t b[] = {1, 2, 12, 14, 28, 42, 49, 70};
	struct ivset t, out;
	set_of(&t, b, 8);
	ivset_normalize(&t);
	ivset_init(&out);
	ivset_intersect(&s, &t, &out);
	int64_t inter[] = {1, 2, 12, 14, 28, 30, 40, 42, 49, 50};
	CHECK(same_as(&out, inter, 10));
	ivset_subtract(&s, &t, &out);
	int64_t diff[] = {0, 1, 2, 3, 10, 12, 14, 28, 42, 49};
	CHECK(same_as(&out, diff, 10));
	ivset_subtract(&t, &s, &out);
	int64_t diff2[] = {30, 40, 50, 70};
	CHECK(same_as(&out, diff2, 4));
	ivset_union(&s, &t, &out);
	int64_t uni[] = {0, 3, 10, 70};
	CHECK(same_as(&out, uni, 4));

	/* Empty operands. */
	struct ivset e;
	ivset_init(&e);
	ivset_intersect(&s, &e, &out);
	CHECK_INT(out.n, 0);
	ivset_subtract(&s, &e, &out);
	CHECK(same_as(&out, want, 6));
	ivset_subtract(&e, &s, &out);
	CHECK_INT(out.n, 0);
	ivset_normalize(&e);
	CHECK_INT(ivset_measure(&e), 0);
	ivset_release(&s);
	ivset_release(&t);
	ivset_release(&out);
	ivset_release(&e);
}

enum { AXIS = 200 };

static void mark(const struct ivset *s, char *bits)
{
	for (int i = 0; i < AXIS; i++)
		bits[i] = 0;
	for (size_t i = 0; i < s->n; i++)
		for (int64_t t = s->v[i].start; t < s->v[i].end; t++)
			bits[t] = 1;
}

/* The normal set of a bitmap: maximal runs of ones. */
static int bits_equal(const struct ivset *s, const char *bits)
{
	char got[AXIS];
	mark(s, got);
	for (int i = 0; i < AXIS; i++)
		if (got[i] != bits[i])
			return 0;
	/* Normal: sorted, disjoint, not touching. */
	for (size_t i = 1; i < s->n; i++)
		if (s->v[i].start <= s->v[i - 1].end)
			return 0;
	return 1;
}

static void random_set(struct ivset *s, unsigned *seed)
{
	ivset_init(s);
	int n = (int)(rand_r(seed) % 12);
	for (int i = 0; i < n; i++) {
		int64_t a = rand_r(seed) % AXIS, len = rand_r(seed) % 40;
		ivset_add(s, a, a + len < AXIS ? a + len : AXIS);
	}
}

static void brute_force(void)
{
	unsigned seed = 12345;
	for (int round = 0; round < 2000; round++) {
		struct ivset a, b, out;
		random_set(&a, &seed);
		random_set(&b, &seed);
		ivset_init(&out);
		char ba[AXIS], bb[AXIS], want[AXIS];
		mark(&a, ba);
		mark(&b, bb);
		ivset_normalize(&a);
		ivset_normalize(&b);
		CHECK(bits_equal(&a, ba));
		int64_t m = 0;
		for (int i = 0; i < AXIS; i++)
			m += ba[i];
		CHECK_INT(ivset_measure(&a), m);
		int64_t lo = rand_r(&seed) % AXIS, hi = rand_r(&seed) % AXIS;
		int64_t mw = 0;
		for (int64_t i = lo; i < hi; i++)
			mw += ba[i];
		CHECK_INT(ivset_measure_within(&a, lo, hi), mw);
		for (int i = 0; i < AXIS; i++)
			want[i] = ba[i] && i >= lo && i < hi;
		ivset_clip(&a, lo, hi, &out);
		CHECK(bits_equal(&out, want));
		for (int i = 0; i < AXIS; i++)
			want[i] = ba[i] && bb[i];
		ivset_intersect(&a, &b, &out);
		CHECK(bits_equal(&out, want));
		for (int i = 0; i < AXIS; i++)
			want[i] = ba[i] && !bb[i];
		ivset_subtract(&a, &b, &out);
		CHECK(bits_equal(&out, want));
		for (int i = 0; i < AXIS; i++)
			want[i] = ba[i] || bb[i];
		ivset_union(&a, &b, &out);
		CHECK(bits_equal(&out, want));
		ivset_release(&a);
		ivset_release(&b);
		ivset_release(&out);
	}
}

static int cmp_start_end(const void *pa, const void *pb)
{
	const struct ival *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

/* The union the slow, obvious way: sort by (start, end), merge what overlaps or touches. */
static size_t reference_union(struct ival *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_start_end);
	size_t w = 0;
	for (size_t i = 1; i < n; i++) {
		if (v[i].start <= v[w].end) {
			if (v[i].end > v[w].end)
				v[w].end = v[i].end;
		} else {
			v[++w] = v[i];
		}
	}
	return n ? w + 1 : 0;
}

static uint64_t next64(uint64_t *x)
{
	*x = *x * 6364136223846793005u + 1442695040888963407u;
	return *x >> 11 ^ *x << 21;
}

/*
 * Sets of 256 intervals and more are radix-sorted by start, over the bytes
 * in which their starts differ: starts over a small span (one pass), a
 * trace's ns timestamps (several), both signs and the ends of the int64
 * range (all eight), many equal starts, and sets already in order.
 */
static void large_sets(void)
{
	static const int64_t spans[] = {200, 5000000000, INT64_MAX};
	uint64_t x = 7;
	for (int round = 0; round < 60; round++) {
		size_t n = 256 + (size_t)(next64(&x) % 20000);
		int64_t span = spans[round % 3];
		int64_t base = round % 3 == 1 ? 4513555740938713 : 0;
		struct ivset s;
		ivset_init(&s);
		for (size_t i = 0; i < n; i++) {
			int64_t a;
			if (span == INT64_MAX)
				a = (int64_t)(next64(&x) >> 1) - (int64_t)(next64(&x) % 2 ? INT64_MAX : 0);
			else
				a = base + (int64_t)(next64(&x) % (uint64_t)span);
			if (round % 5 == 4 && i % 3)
				a = s.n ? s.v[s.n - 1].start : a; /* runs of equal starts */
			int64_t len = (int64_t)(next64(&x) % 50) + 1;
			ivset_add(&s, a, a > INT64_MAX - len ? INT64_MAX : a + len);
		}
		if (round % 6 == 5) /* already in order */
			qsort(s.v, s.n, sizeof(*s.v), cmp_start_end);
		struct ival *want = malloc(s.n * sizeof(*want));
		memcpy(want, s.v, s.n * sizeof(*want));
		size_t nw = reference_union(want, s.n);
		ivset_normalize(&s);
		CHECK_INT((int64_t)s.n, (int64_t)nw);
		CHECK(s.n == nw && !memcmp(s.v, want, nw * sizeof(*want)));
		free(want);
		ivset_release(&s);
	}
}

int main(void)
{
	hand_cases();
	brute_force();
	large_sets();
	return check_result("intervals");
}
