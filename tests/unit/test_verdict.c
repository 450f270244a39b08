/*
 * test_verdict.c: the change rule of verdict.h against cases worked out by
 * hand (the one Mann-Whitney p-value by enumerating all C(16, 8) = 12,870
 * rank subsets in a separate Python script: see the comment at its case).
 */
#include <math.h>
#include <stdlib.h>

#include "analyze/lib/verdict.h"
#include "check.h"

static int near(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want);
}

int main(void)
{
	struct judgement j;

	/*
	 * Three steps a side, every new step 1.5x: no test can reach 0.05
	 * (smallest p 2 / C(6, 3) = 0.1); the intervals are [min, max] (n = 3)
	 * and do not overlap, so slower by +50 %.
	 */
	int64_t a1[] = {100, 100, 100}, b1[] = {150, 150, 150};
	verdict_judge(a1, 3, b1, 3, VERDICT_MIN_EFFECT, &j);
	CHECK_INT(j.verdict, VERDICT_SLOWER);
	CHECK(!j.testable);
	CHECK(near(j.min_p, 0.1, 1e-9));
	CHECK(j.p < 0);
	CHECK(!j.overlap);
	CHECK(near(j.change, 0.5, 1e-12));

	/* Medians 101 -> 104: +2.97 %, under the 5 % minimum effect: the same, whatever the noise. */
	int64_t a2[] = {100, 101, 102}, b2[] = {103, 104, 105};
	verdict_judge(a2, 3, b2, 3, VERDICT_MIN_EFFECT, &j);
	CHECK_INT(j.verdict, VERDICT_SAME);
	CHECK(near(j.change, 3.0 / 101, 1e-12));
	/* ... and slower when the caller asks for a 2 % minimum effect (intervals [100,102], [103,105]). */
	verdict_judge(a2, 3, b2, 3, 0.02, &j);
	CHECK_INT(j.verdict, VERDICT_SLOWER);

	/* Medians 110 -> 125 (+13.6 %), intervals [100,120] and [115,135] overlap, no test: within noise. */
	int64_t a3[] = {120, 100, 110}, b3[] = {135, 115, 125};
	verdict_judge(a3, 3, b3, 3, VERDICT_MIN_EFFECT, &j);
	CHECK_INT(j.verdict, VERDICT_NOISE);
	CHECK(j.overlap);

	/*
	 * Eight a side: the intervals are [min, max] again (2 P(B <= 1) =
	 * 18 / 256 > 0.05) and overlap ([100, 300], [125, 230]), but a test is
	 * possible (smallest p 2 / 12870) and finds p = 0.0379: the rank sum of
	 * b is 88, and 244 of the 12,870 8-subsets of 1..16 sum to 88 or more
	 * (python3: itertools.combinations over range(1, 17)), p = 2 x 244 /
	 * 12870. Medians 135 -> 195: slower.
	 */
	int64_t a4[] = {100, 110, 120, 130, 140, 150, 160, 300};
	int64_t b4[] = {125, 170, 180, 190, 200, 210, 220, 230};
	verdict_judge(a4, 8, b4, 8, VERDICT_MIN_EFFECT, &j);
	CHECK(j.overlap);
	CHECK(j.testable);
	CHECK(near(j.p, 2.0 * 244 / 12870, 1e-9));
	CHECK_INT(j.verdict, VERDICT_SLOWER);
	CHECK_INT(j.a.median_ns, 135);
	CHECK_INT(j.b.median_ns, 195);

	/* The other way round: faster. */
	verdict_judge(b4, 8, a4, 8, VERDICT_MIN_EFFECT, &j);
	CHECK_INT(j.verdict, VERDICT_FASTER);

	/* No samples on a side. */
	verdict_judge(a1, 3, b1, 0, VERDICT_MIN_EFFECT, &j);
	CHECK_INT(j.verdict, VERDICT_NO_DATA);
	CHECK_STR(verdict_word(VERDICT_NOISE), "within noise");
	CHECK_STR(verdict_word(VERDICT_SLOWER), "slower");

	/*
	 * The words (verdict_words): direction, size, noise and threshold,
	 * the noise decided whatever the size. a2 -> b2 (+2.97 %, intervals
	 * apart, no test possible): beyond the noise, under 5 %.
	 */
	char *w;
	verdict_judge(a2, 3, b2, 3, VERDICT_MIN_EFFECT, &j);
	CHECK(j.beyond);
	w = verdict_words(&j, VERDICT_MIN_EFFECT, "slower", "faster", 0);
	CHECK_STR(w, "slower by 3.0 % (beyond noise, under the 5 % threshold; too few samples for a test: decided "
		     "by the 95 % intervals, which do not overlap)");
	free(w);
	/* a3 -> b3: the intervals overlap and no test is possible: the same, within the noise. */
	verdict_judge(a3, 3, b3, 3, VERDICT_MIN_EFFECT, &j);
	CHECK(!j.beyond);
	w = verdict_words(&j, VERDICT_MIN_EFFECT, "slower", "faster", 0);
	CHECK_STR(w, "same (within noise; too few samples for a test, the 95 % intervals overlap)");
	free(w);
	/* a4 -> b4: tested, p = 0.0379, +44.4 % (135 -> 195): a regression's words are the size alone. */
	verdict_judge(a4, 8, b4, 8, VERDICT_MIN_EFFECT, &j);
	w = verdict_words(&j, VERDICT_MIN_EFFECT, "slower", "faster", 1);
	CHECK_STR(w, "slower by 44 %");
	free(w);
	verdict_judge(b4, 8, a4, 8, VERDICT_MIN_EFFECT, &j);
	w = verdict_words(&j, VERDICT_MIN_EFFECT, "slower", "faster", 0);
	CHECK_STR(w, "faster by 31 % (beyond noise, over the 5 % threshold)");
	free(w);
	/* No threshold (min effect 0): no threshold clause. */
	w = verdict_words(&j, 0, "higher", "lower", 0);
	CHECK_STR(w, "lower by 31 % (beyond noise)");
	free(w);
	verdict_judge(a1, 3, b1, 0, VERDICT_MIN_EFFECT, &j);
	w = verdict_words(&j, VERDICT_MIN_EFFECT, "slower", "faster", 0);
	CHECK_STR(w, "no data");
	free(w);
	return check_result("test_verdict");
}
