/* stats.c: median, its order-statistic interval, the Mann-Whitney test and the robust sigma; see stats.h. */
#include "analyze/lib/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

int stats_cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return (a > b) - (a < b);
}

int stats_cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

double stats_median_double(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), stats_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* P(B = k) for B ~ Binomial(n, 1/2), through lgamma (n may be large). */
static double binom_half(size_t n, size_t k)
{
	return exp(lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) - (double)n * M_LN2);
}

void stats_dist(int64_t *v, size_t n, struct step_dist *d)
{
	memset(d, 0, sizeof(*d));
	if (!n)
		return;
	qsort(v, n, sizeof(*v), stats_cmp_i64);
	d->n = n;
	d->min_ns = v[0];
	d->max_ns = v[n - 1];
	/* The two middle values' mean, halves rounded up (both are >= 0 here, or floor division of a sum). */
	int64_t s = v[(n - 1) / 2] + v[n / 2];
	d->median_ns = s >= 0 ? (s + 1) / 2 : -((-s) / 2);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += (double)v[i];
	d->mean_ns = sum / (double)n;
	/* l: the largest with 2 P(B <= l-1) <= alpha; 0 when even l = 1 misses it. */
	size_t l = 0;
	double cdf = 0, cdf_at_l = 0;
	for (size_t k = 0; k < (n + 1) / 2; k++) {
		cdf += binom_half(n, k);
		if (2 * cdf > STATS_ALPHA)
			break;
		l = k + 1;
		cdf_at_l = cdf;
	}
	if (!l) {
		l = 1;
		cdf_at_l = binom_half(n, 0);
	}
	d->ci_lo_ns = v[l - 1];
	d->ci_hi_ns = v[n - l];
	d->ci_level = 1 - 2 * cdf_at_l;
}

struct tagged {
	int64_t v;
	int in_b;
};

static int cmp_tagged(const void *pa, const void *pb)
{
	const struct tagged *a = pa, *b = pb;
	return (a->v > b->v) - (a->v < b->v);
}

/*
 * P(W <= w) and P(W >= w) for W the sum of m ranks drawn from 1..N without
 * ties: the number of m-subsets with each sum, counted by adding the ranks
 * one at a time (count[k][s] over subsets of size k).
 */
static void rank_sum_tails(size_t N, size_t m, double w, double *le, double *ge)
{
	size_t maxs = m * (2 * N - m + 1) / 2;
	double *count = xcalloc((m + 1) * (maxs + 1), sizeof(*count));
	count[0] = 1;
	for (size_t r = 1; r <= N; r++)
		for (size_t k = m < r ? m : r; k >= 1; k--)
			for (size_t s = maxs; s >= r; s--)
				count[k * (maxs + 1) + s] += count[(k - 1) * (maxs + 1) + s - r];
	double total = 0, lo = 0, hi = 0;
	for (size_t s = 0; s <= maxs; s++) {
		double c = count[m * (maxs + 1) + s];
		total += c;
		if ((double)s <= w)
			lo += c;
		if ((double)s >= w)
			hi += c;
	}
	free(count);
	*le = lo / total;
	*ge = hi / total;
}

void stats_mann_whitney(const int64_t *a, size_t n, const int64_t *b, size_t m, struct mw_test *t)
{
	size_t N = n + m;
	struct tagged *x = xcalloc(N, sizeof(*x));
	for (size_t i = 0; i < n; i++)
		x[i] = (struct tagged){a[i], 0};
	for (size_t j = 0; j < m; j++)
		x[n + j] = (struct tagged){b[j], 1};
	qsort(x, N, sizeof(*x), cmp_tagged);
	/* Mid-ranks: a run of t equal values at positions i..i+t-1 all get (2i + t + 1) / 2. */
	double w = 0, ties = 0;
	for (size_t i = 0; i < N;) {
		size_t e = i;
		while (e < N && x[e].v == x[i].v)
			e++;
		double tl = (double)(e - i), rank = ((double)i + 1 + (double)e) / 2;
		for (size_t k = i; k < e; k++)
			if (x[k].in_b)
				w += rank;
		ties += tl * tl * tl - tl;
		i = e;
	}
	free(x);
	t->u = w - (double)m * ((double)m + 1) / 2;
	double nm = (double)n * (double)m;
	if (ties == 0 && N <= 100) {
		double le, ge;
		rank_sum_tails(N, m, w, &le, &ge);
		t->p = fmin(1, 2 * fmin(le, ge));
		t->exact = 1;
		return;
	}
	t->exact = 0;
	double var = nm / 12 * (((double)N + 1) - ties / ((double)N * ((double)N - 1)));
	if (!(var > 0)) {
		t->p = 1;
		return;
	}
	double z = fmax(0, fabs(t->u - nm / 2) - 0.5) / sqrt(var);
	t->p = fmin(1, erfc(z / M_SQRT2));
}

double stats_robust_sigma(const int64_t *v, size_t n, int64_t center)
{
	if (!n)
		return 0;
	int64_t *dev = xmalloc(n * sizeof(*dev));
	for (size_t i = 0; i < n; i++)
		dev[i] = v[i] > center ? v[i] - center : center - v[i];
	qsort(dev, n, sizeof(*dev), stats_cmp_i64);
	double mad = n % 2 ? (double)dev[n / 2] : ((double)dev[n / 2 - 1] + (double)dev[n / 2]) / 2;
	free(dev);
	return 1.4826 * mad;
}
