/*
 * test_stats.c: the median's interval and the Mann-Whitney test (stats.h)
 * against values worked out by hand.
 */
#include <math.h>

#include "analyze/lib/stats.h"
#include "check.h"

static int near(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want);
}

static void test_dist(void)
{
	/*
	 * n = 3: no 95 % interval exists (2 P(B <= 0) = 2/8 > 0.05), so
	 * [min, max] covering 1 - 2/8 = 0.75. Median 20, mean 70 / 3.
	 */
	int64_t three[] = {40, 10, 20};
	struct step_dist d;
	stats_dist(three, 3, &d);
	CHECK_INT(d.median_ns, 20);
	CHECK_INT(d.ci_lo_ns, 10);
	CHECK_INT(d.ci_hi_ns, 40);
	CHECK(near(d.ci_level, 0.75, 1e-12));
	CHECK(near(d.mean_ns, 70.0 / 3, 1e-12));
	/*
	 * n = 17, values 1..17: P(B <= k) * 2^17 = 1, 18, 154, 834, 3214, ...;
	 * 2 * 834 / 131072 = 0.0127 <= 0.05 but 2 * 3214 / 131072 = 0.049 too,
	 * and 2 * (3214 + 6188) / 131072 = 0.1435 is not: l = 5, [5, 13],
	 * level 1 - 6428 / 131072 = 0.950958...
	 */
	int64_t v[17];
	for (int i = 0; i < 17; i++)
		v[i] = 17 - i;
	stats_dist(v, 17, &d);
	CHECK_INT(d.median_ns, 9);
	CHECK_INT(d.ci_lo_ns, 5);
	CHECK_INT(d.ci_hi_ns, 13);
	CHECK(near(d.ci_level, 1 - 6428.0 / 131072, 1e-9));
	/* Even n: the middle values 2 and 3 give 2.5, rounded half up to 3. */
	int64_t four[] = {4, 1, 3, 2};
	stats_dist(four, 4, &d);
	CHECK_INT(d.median_ns, 3);
}

static void test_mann_whitney(void)
{
	/* b entirely above a: U = 9 of 9, exact p = 2 / C(6, 3) = 0.1. */
	int64_t a[] = {1, 2, 3}, b[] = {6, 5, 4};
	struct mw_test t;
	stats_mann_whitney(a, 3, b, 3, &t);
	CHECK(t.exact);
	CHECK(near(t.u, 9, 1e-12));
	CHECK(near(t.p, 0.1, 1e-12));
	/* Reversed: U = 0, the same p. */
	stats_mann_whitney(b, 3, a, 3, &t);
	CHECK(near(t.u, 0, 1e-12) && near(t.p, 0.1, 1e-12));
	/*
	 * Ties: a = {1, 2, 2}, b = {2, 3, 3}. Mid-ranks 1; 3, 3, 3; 5.5, 5.5:
	 * W_b = 3 + 11 = 14, U = 14 - 6 = 8. Ties 3^3 - 3 + 2^3 - 2 = 30,
	 * variance 9/12 (7 - 30/30) = 4.5, z = (|8 - 4.5| - 0.5) / sqrt(4.5)
	 * = sqrt(2), p = erfc(1) = 0.1572992...
	 */
	int64_t c[] = {1, 2, 2}, e[] = {2, 3, 3};
	stats_mann_whitney(c, 3, e, 3, &t);
	CHECK(!t.exact);
	CHECK(near(t.u, 8, 1e-12));
	CHECK(near(t.p, 0.15729920705028513, 1e-9));
	/* All equal: no variance, p = 1. */
	int64_t f[] = {5, 5}, g[] = {5, 5};
	stats_mann_whitney(f, 2, g, 2, &t);
	CHECK(near(t.p, 1, 1e-12));
}

static void test_robust_sigma(void)
{
	/*
	 * {1, 2, 3, 4, 100} about 3: deviations 2, 1, 0, 1, 97, sorted
	 * 0 1 1 2 97, MAD 1 (the 100 does not move it): sigma 1.4826. An even
	 * count, {1, 2, 3, 4} about 2: deviations 1, 0, 1, 2, sorted 0 1 1 2,
	 * MAD the middle two's mean (1 + 1) / 2 = 1. No values: 0.
	 */
	int64_t five[] = {1, 2, 3, 4, 100}, four[] = {1, 2, 3, 4};
	CHECK(near(stats_robust_sigma(five, 5, 3), 1.4826, 1e-12));
	CHECK_INT(five[4], 100);
	CHECK(near(stats_robust_sigma(four, 4, 2), 1.4826, 1e-12));
	CHECK(stats_robust_sigma(four, 0, 2) == 0);
}

int main(void)
{
	test_dist();
	test_mann_whitney();
	test_robust_sigma();
	return check_result("test_stats");
}
