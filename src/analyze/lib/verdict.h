/*
 * verdict.h: whether a metric changed between two builds, judged as
 * benchmark tools judge it (pyperf compare_to, asv compare, Google
 * benchmark's compare.py): a change is one whose size matters and which the
 * noise does not explain.
 *
 * Samples are one value per independent repetition: one per step (a step's
 * time is its slowest rank's) or one per unprofiled iteration of a training
 * log, never one per rank. The rule, for samples a (old) and b (new):
 *
 *  - change = (median(b) - median(a)) / median(a);
 *  - below the minimum effect (|change| < min_effect, default 5 %): no
 *    change, whatever the noise;
 *  - else a change when the noise does not explain it: the two medians'
 *    95 % intervals (stats.h) do not overlap, or the two-sided Mann-Whitney
 *    test gives p < 0.05 where the sample sizes allow one;
 *  - a test is possible only when its smallest p-value, 2 / C(n + m, n)
 *    (every b above every a), is below 0.05: with 3 and 3 samples it is 0.1,
 *    so no result of 3 profiled steps a side can be significant. Then the
 *    verdict rests on the intervals alone, and says so.
 *
 * The verdict is SLOWER or FASTER for a time (a larger value is worse);
 * callers of a metric where larger is better swap the words.
 */
#ifndef PERFSTUDY_VERDICT_H
#define PERFSTUDY_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/lib/stats.h"

/* The default minimum effect: a 5 % change of the median. */
#define VERDICT_MIN_EFFECT 0.05

enum verdict {
	VERDICT_SAME,     /* below the minimum effect */
	VERDICT_NOISE,    /* at least the minimum effect, but within the noise */
	VERDICT_SLOWER,   /* larger, beyond the noise */
	VERDICT_FASTER,   /* smaller, beyond the noise */
	VERDICT_NO_DATA,  /* a side without samples */
};

struct judgement {
	struct step_dist a, b;  /* each side's median and 95 % interval */
	double change;          /* relative change of the median, (b - a) / a */
	int overlap;            /* the two intervals overlap */
	int testable;           /* the sample sizes allow p < 0.05 */
	double min_p;           /* the smallest p-value these sizes allow */
	double p;               /* Mann-Whitney, two-sided; -1 when not testable */
	int beyond;             /* the noise does not explain the change, whatever its size */
	enum verdict verdict;
};

/* Judges b against a; sorts both arrays in place. min_effect is a fraction (0.05 = 5 %). */
void verdict_judge(int64_t *a, size_t n, int64_t *b, size_t m, double min_effect, struct judgement *j);

/* "same", "within noise", "slower", "faster", "no data". */
const char *verdict_word(enum verdict v);

/*
 * The judgement in words, a new string (caller frees): direction, size
 * and noise, e.g. "slower by 2.7 % (beyond noise, under the 5 % threshold)",
 * "same (within noise)". up and down name the directions ("slower",
 * "faster"); min_effect > 0 adds the threshold clause. When regression is
 * set (beyond the noise and over the threshold in the bad direction) the
 * words are only "slower by 204 %", for the caller to add ": REGRESSION".
 * Where the sample sizes allow no test, the words say the intervals decided.
 */
char *verdict_words(const struct judgement *j, double min_effect, const char *up, const char *down, int regression);

#endif
