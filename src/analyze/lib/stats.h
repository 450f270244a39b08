/*
 * stats.h: the statistics of step times: a median with a distribution-free
 * confidence interval, and a rank test of two samples.
 *
 * Both are deterministic (no resampling, no random numbers), so a rebuild
 * of the same traces gives the same bytes. tests/stats_ref.py computes the
 * same numbers in plain Python from the raw traces, for the tests.
 *
 * Median confidence interval (order statistics): for n values sorted
 * x(1) <= ... <= x(n), the number of values below the true median is
 * Binomial(n, 1/2), so [x(l), x(n+1-l)] covers it with probability
 * 1 - 2 P(B <= l-1). l is the largest with 2 P(B <= l-1) <= 0.05 (coverage
 * at least 95 %); when even l = 1 misses that (n <= 5), the interval is
 * [min, max] and its coverage, 1 - 2^(1-n), is reported as it is.
 *
 * Mann-Whitney U test (two-sided): U counts the pairs (a_i, b_j) with
 * b_j > a_i, ties counting 1/2, computed from mid-ranks. Without ties and
 * with n + m <= 100, the p-value is exact (the distribution of the rank sum
 * counted over all subsets); otherwise the normal approximation with the
 * tie correction of the variance and a continuity correction of 1/2.
 * p = min(1, 2 * the smaller tail).
 *
 * Robust sigma: 1.4826 x the median absolute deviation from a given centre
 * (the sample's median), the standard deviation of a normal sample that the
 * odd slow step does not move.
 */
#ifndef PERFSTUDY_STATS_H
#define PERFSTUDY_STATS_H

#include <stddef.h>
#include <stdint.h>

/* The nominal level of the intervals and the test: 95 %, alpha 0.05. */
#define STATS_ALPHA 0.05

struct step_dist {
	size_t n;
	int64_t min_ns, max_ns;
	int64_t median_ns;  /* the middle value, or the mean of the two middle ones rounded half up */
	double mean_ns;
	int64_t ci_lo_ns, ci_hi_ns;
	double ci_level;    /* the interval's coverage, >= 0.95 unless n <= 5 */
};

/* Sorts v (n >= 1) in place and fills d. */
void stats_dist(int64_t *v, size_t n, struct step_dist *d);

struct mw_test {
	double u;           /* U of b: pairs with b > a, ties 1/2 */
	double p;           /* two-sided */
	int exact;          /* 1: exact distribution, 0: normal approximation */
};

/* Mann-Whitney U of samples a (n) and b (m), both >= 1; neither is changed. */
void stats_mann_whitney(const int64_t *a, size_t n, const int64_t *b, size_t m, struct mw_test *t);

/*
 * 1.4826 x the median absolute deviation of v (n values, not changed) from
 * center, the median of an even count of deviations being the mean of the
 * middle two; 0 when n is 0. Unrounded: callers round to their unit.
 */
double stats_robust_sigma(const int64_t *v, size_t n, int64_t center);

/*
 * qsort/bsearch orders of int64_t and double values, ascending (two NaNs,
 * or a NaN and a number, compare equal); and the median of v's n values
 * (sorts v; the mean of the two middle ones for an even n; 0 for none).
 */
int stats_cmp_i64(const void *pa, const void *pb);
int stats_cmp_double(const void *pa, const void *pb);
double stats_median_double(double *v, size_t n);

#endif
