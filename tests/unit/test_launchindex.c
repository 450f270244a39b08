/*
 * test_launchindex.c: rank_launch_index and rank_launch_of
 * (analyze/lib/rankdata.h, launch_index.c), a rank's runtime call by
 * correlation, against hand-worked cases: dense and sparse correlations
 * (buckets of one and of many), put in order by insertion or, far from
 * it, by qsort; a correlation that repeats (the earliest call, and of two
 * at one start the first stored), negative correlations (never found),
 * keys below, between and above the stored ones, no launches at all; then
 * against a linear scan for every key of generated ranks.
 */
#include <stdint.h>
#include <stdlib.h>

#include "analyze/lib/rankdata.h"
#include "check.h"

/* What rank_launch_of must answer: the first launch (they are sorted by start) with the correlation. */
static const struct rk_range *scan(const struct rank_data *d, int64_t corr)
{
	if (corr < 0)
		return NULL;
	for (size_t i = 0; i < d->nlaunches; i++)
		if (d->launches[i].key == corr)
			return &d->launches[i];
	return NULL;
}

/* n launches into l, correlation corr[i], starting two by two: 0 0 10 10 20 20 ... */
static struct rank_data fill(struct rk_range *l, const int64_t *corr, size_t n)
{
	for (size_t i = 0; i < n; i++)
		l[i] = (struct rk_range){(int64_t)(i / 2 * 10), (int64_t)(i / 2 * 10 + 5), 1, corr[i]};
	return (struct rank_data){.nlaunches = n, .launches = l};
}

/* Every key from -3 up, sparser past 20, looked up against the scan. */
static void hand(const int64_t *corr, size_t n)
{
	struct rk_range l[8];
	struct rank_data d = fill(l, corr, n);
	struct launch_index *x = rank_launch_index(&d);
	for (int64_t k = -3; k < 1000010; k = k < 20 ? k + 1 : k * 10 + 1)
		CHECK(rank_launch_of(&d, x, k) == scan(&d, k));
	free(x);
}

int main(void)
{
	/* Dense: 7..12 with 9 twice, one call without a correlation (-1). */
	static const int64_t dense[] = {7, 9, 8, -1, 9, 10, 12, 11};
	hand(dense, 8);
	{
		struct rk_range l[8];
		struct rank_data d = fill(l, dense, 8);
		struct launch_index *x = rank_launch_index(&d);
		CHECK(rank_launch_of(&d, x, 9) == &l[1]); /* the earliest of the two 9s (starts 0 and 20) */
		CHECK(rank_launch_of(&d, x, 7) == &l[0]);
		CHECK(rank_launch_of(&d, x, 12) == &l[6]);
		CHECK(rank_launch_of(&d, x, 6) == NULL);
		CHECK(rank_launch_of(&d, x, 13) == NULL);
		CHECK(rank_launch_of(&d, x, -1) == NULL);
		CHECK(rank_launch_of(&d, NULL, 7) == NULL);
		free(x);
	}
	/* Sparse: a span far over 4 slots a launch; 5 twice at one start (the first stored wins). */
	static const int64_t sparse[] = {1000000, 5, 5, 3, -7, 999999, 1, 40};
	hand(sparse, 8);
	{
		struct rk_range l[8];
		struct rank_data d = fill(l, sparse, 8);
		struct launch_index *x = rank_launch_index(&d);
		CHECK(rank_launch_of(&d, x, 5) == &l[1]); /* l[1] and l[2] start at 0 and 10: the earlier */
		CHECK(rank_launch_of(&d, x, 1000000) == &l[0]);
		CHECK(rank_launch_of(&d, x, 2) == NULL);
		CHECK(rank_launch_of(&d, x, -7) == NULL);
		free(x);
	}
	/* One start for a repeated correlation: the first stored. */
	{
		struct rk_range l[3] = {{5, 6, 1, 4}, {5, 7, 2, 4}, {6, 8, 1, 4000}};
		struct rank_data d = {.nlaunches = 3, .launches = l};
		struct launch_index *x = rank_launch_index(&d);
		CHECK(rank_launch_of(&d, x, 4) == &l[0]);
		free(x);
	}
	/* No launches; only negative correlations. */
	{
		struct rank_data d = {0};
		struct launch_index *x = rank_launch_index(&d);
		CHECK(rank_launch_of(&d, x, 0) == NULL);
		free(x);
		struct rk_range l[2] = {{0, 1, 1, -1}, {2, 3, 1, -2}};
		d.nlaunches = 2;
		d.launches = l;
		x = rank_launch_index(&d);
		CHECK(rank_launch_of(&d, x, 0) == NULL && rank_launch_of(&d, x, -1) == NULL);
		free(x);
	}
	/*
	 * Generated: correlations with gaps 0..g (dense for small g, sparse for
	 * large), some repeated; the last two sparse and in reverse order (the
	 * insertion sort gives up for qsort), the first of them with repeats.
	 */
	srand(55);
	static const int gaps[] = {1, 3, 9, 40, 1000, 1000, 1000};
	for (size_t gi = 0; gi < sizeof(gaps) / sizeof(gaps[0]); gi++) {
		size_t n = 500;
		struct rk_range *l = malloc(n * sizeof(*l));
		int64_t c = 100;
		for (size_t i = 0; i < n; i++) {
			int r = rand() % 10;
			c += r == 0 ? 0 : rand() % (gaps[gi] + 1);
			int64_t k = r == 1 ? -1 : r == 2 && i > 3 ? l[i - 3].key : c; /* none, an older one again, or the next */
			l[i] = (struct rk_range){(int64_t)i * 3 - (int64_t)(rand() % 2), 0, 1, k};
		}
		if (gi >= 5)
			for (size_t i = 0; i < n; i++)
				l[i].key = l[i].key < 0 ? -1 : c + 100 - l[i].key + (gi == 6 ? (int64_t)i : 0);
		struct rank_data d = {.nlaunches = n, .launches = l};
		struct launch_index *x = rank_launch_index(&d);
		for (int64_t k = 95; k <= 2 * c + 1000; k++)
			CHECK(rank_launch_of(&d, x, k) == scan(&d, k));
		free(x);
		free(l);
	}
	return check_result("launchindex");
}
