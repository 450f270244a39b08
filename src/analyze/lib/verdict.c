/* verdict.c: a change of a metric between two builds, or not; see verdict.h. */
#include "analyze/lib/verdict.h"

#include <math.h>
#include <string.h>

#include "util/buf.h"

/* 2 / C(n + m, n): the two-sided p of the most extreme split, through lgamma. */
static double smallest_p(size_t n, size_t m)
{
	double lc = lgamma((double)(n + m) + 1) - lgamma((double)n + 1) - lgamma((double)m + 1);
	double p = 2 * exp(-lc);
	return p > 1 ? 1 : p;
}

void verdict_judge(int64_t *a, size_t n, int64_t *b, size_t m, double min_effect, struct judgement *j)
{
	memset(j, 0, sizeof(*j));
	j->p = -1;
	if (!n || !m || min_effect < 0) {
		j->verdict = VERDICT_NO_DATA;
		return;
	}
	stats_dist(a, n, &j->a);
	stats_dist(b, m, &j->b);
	if (j->a.median_ns <= 0) {
		j->verdict = VERDICT_NO_DATA;
		return;
	}
	j->change = (double)(j->b.median_ns - j->a.median_ns) / (double)j->a.median_ns;
	j->overlap = !(j->b.ci_lo_ns > j->a.ci_hi_ns || j->a.ci_lo_ns > j->b.ci_hi_ns);
	j->min_p = smallest_p(n, m);
	j->testable = j->min_p < STATS_ALPHA;
	if (j->testable) {
		struct mw_test t;
		stats_mann_whitney(a, n, b, m, &t);
		j->p = t.p;
	}
	j->beyond = !j->overlap || (j->testable && j->p < STATS_ALPHA);
	if (fabs(j->change) < min_effect)
		j->verdict = VERDICT_SAME;
	else if (j->overlap && !(j->testable && j->p < STATS_ALPHA))
		j->verdict = VERDICT_NOISE;
	else
		j->verdict = j->change > 0 ? VERDICT_SLOWER : VERDICT_FASTER;
}

const char *verdict_word(enum verdict v)
{
	switch (v) {
	case VERDICT_SAME:
		return "same";
	case VERDICT_NOISE:
		return "within noise";
	case VERDICT_SLOWER:
		return "slower";
	case VERDICT_FASTER:
		return "faster";
	case VERDICT_NO_DATA:
		break;
	}
	return "no data";
}

char *verdict_words(const struct judgement *j, double min_effect, const char *up, const char *down, int regression)
{
	struct buf b;
	buf_init(&b);
	if (j->verdict == VERDICT_NO_DATA) {
		buf_adds(&b, "no data");
		return buf_detach(&b);
	}
	const char *few = j->testable ? "" : j->beyond ? "too few samples for a test: decided by the 95 % intervals, "
								  "which do not overlap"
							: "too few samples for a test, the 95 % intervals overlap";
	if (!j->beyond) {
		buf_printf(&b, "same (within noise%s%s)", *few ? "; " : "", few);
		return buf_detach(&b);
	}
	double pct = fabs(j->change) * 100;
	buf_printf(&b, "%s by %.*f %%", j->change > 0 ? up : down, pct < 10 ? 1 : 0, pct);
	if (regression) {
		if (*few)
			buf_printf(&b, " (beyond noise; %s)", few);
		return buf_detach(&b);
	}
	buf_adds(&b, " (beyond noise");
	if (min_effect > 0)
		buf_printf(&b, ", %s the %g %% threshold", fabs(j->change) >= min_effect ? "over" : "under", min_effect * 100);
	if (*few)
		buf_printf(&b, "; %s", few);
	buf_adds(&b, ")");
	return buf_detach(&b);
}
