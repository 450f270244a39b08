/*
 * judge.c: a run's numbers in two builds judged by verdict.h, each on its
 * own samples (history.h): the step time on the training log's unprofiled
 * iterations or the profiled steps, gpu_busy_frac on its per-step busy
 * shares (parts.c), the numbers that are a constant over the step time on
 * the step samples' reciprocals. The change table (history.c) and `perfstudy
 * diff` (cli/diff.c) judge through these, so both say the same.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/history/history.h"
#include "analyze/lib/verdict.h"
#include "util/xalloc.h"

/*
 * A run's step time in the two builds, judged by verdict.h: the samples are
 * the unprofiled iterations of its training log when both builds have them,
 * else its profiled steps, one sample per step (the slowest rank's; ranks of
 * one step are not independent samples). The minimum effect is the
 * manifest's step_time_pct, else 5 %.
 */
int history_step_judge(const struct hstate_run *a, const struct hstate_run *b, const struct history_limits *lim,
		       struct judgement *j, int *use_log, int *same)
{
	*use_log = a->nlog && b->nlog;
	*same = 0;
	size_t n = *use_log ? a->nlog : a->nsteps, m = *use_log ? b->nlog : b->nsteps;
	memset(j, 0, sizeof(*j));
	j->verdict = VERDICT_NO_DATA;
	if (!n || !m)
		return -1;
	int64_t *va = xmalloc(n * sizeof(*va)), *vb = xmalloc(m * sizeof(*vb));
	memcpy(va, *use_log ? a->log : a->steps, n * sizeof(*va));
	memcpy(vb, *use_log ? b->log : b->steps, m * sizeof(*vb));
	verdict_judge(va, n, vb, m, history_min_effect(lim), j);
	*same = n == m && !memcmp(va, vb, n * sizeof(*va)); /* sorted by verdict_judge */
	free(va);
	free(vb);
	return 0;
}

double history_min_effect(const struct history_limits *lim)
{
	return lim->step_time_pct > 0 ? lim->step_time_pct / 100 : VERDICT_MIN_EFFECT;
}

/*
 * Samples of one kind of a run's parts (parts.c: busy_frac, one per
 * profiled step) as integers, the value x 1e9; *n set; NULL when none.
 */
static int64_t *part_samples(const struct hstate_run *r, const char *kind, size_t *n)
{
	int64_t *v = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t i = 0; i < r->nparts; i++)
		if (!strcmp(r->part_kinds[i], kind)) {
			v = xgrow(v, &cap, *n + 1, sizeof(*v));
			v[(*n)++] = llround(r->part_values[i] * 1e9);
		}
	return v;
}

/* The step samples of a run as verdict.h judges them (log or steps), their reciprocals x 1e18; *n set. */
static int64_t *rate_samples(const struct hstate_run *r, int use_log, size_t *n)
{
	*n = use_log ? r->nlog : r->nsteps;
	const int64_t *src = use_log ? r->log : r->steps;
	int64_t *v = xmalloc((*n ? *n : 1) * sizeof(*v));
	for (size_t i = 0; i < *n; i++)
		v[i] = src[i] > 0 ? llround(1e18 / (double)src[i]) : INT64_MAX;
	return v;
}

/*
 * A headline number's own test (history.h): gpu_busy_frac on the per-step
 * busy shares of the parts (parts.c), the numbers that are a constant over
 * the step time (achieved_tflops_per_gpu, mfu, samples_per_s) on the
 * reciprocals of the step samples (the rank test of 1 / x gives the step
 * time's p: the same order reversed). Returns 0, or -1 when the number has
 * no samples to test.
 */
int history_number_judge(const struct hstate_run *a, const struct hstate_run *b, const char *metric,
			 struct judgement *j)
{
	size_t n = 0, m = 0;
	int64_t *va = NULL, *vb = NULL;
	memset(j, 0, sizeof(*j));
	j->verdict = VERDICT_NO_DATA;
	if (!strcmp(metric, "gpu_busy_frac")) {
		va = part_samples(a, "busy_frac", &n);
		vb = part_samples(b, "busy_frac", &m);
	} else if (!strcmp(metric, "achieved_tflops_per_gpu") || !strcmp(metric, "mfu") ||
		   !strcmp(metric, "samples_per_s")) {
		int use_log = a->nlog && b->nlog;
		va = rate_samples(a, use_log, &n);
		vb = rate_samples(b, use_log, &m);
	}
	int ret = -1;
	if (n && m) {
		verdict_judge(va, n, vb, m, 0, j);
		ret = j->verdict == VERDICT_NO_DATA ? -1 : 0;
	}
	free(va);
	free(vb);
	return ret;
}
