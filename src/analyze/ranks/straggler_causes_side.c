/*
 * straggler_causes_side.c: the side that made a rank late (straggler_causes.h's
 * straggler_side): its GPU's extra compute time against its GPU's extra
 * idle time per step, each against the median of the run's other ranks,
 * from straggler_ranks.csv and ranks.csv. The findings and
 * straggler_causes.c ask it.
 */
#include "analyze/ranks/straggler_causes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/lib/stats.h"
#include "analyze/ranks/ranks_tables.h"
#include "util/intmap.h"
#include "util/xalloc.h"

/*
 * Per rank of run, the mean over its rows of column cv of t (us), t's run
 * and rank columns crun and crank (contracts' enums); *n ranks. Caller
 * frees both arrays.
 */
static size_t rank_mean_us(const struct table *t, int crun, int crank, int cv, const char *run, int **ranks,
			   double **mean)
{
	size_t n = 0, cap = 0, capm = 0, capc = 0;
	size_t *cnt = NULL;
	struct intmap m = {0};
	*ranks = NULL;
	*mean = NULL;
	for (size_t r = 0; crun >= 0 && crank >= 0 && cv >= 0 && r < t->nrows; r++) {
		const struct cell *a = table_cell(t, r, (size_t)crun), *b = table_cell(t, r, (size_t)crank),
				  *v = table_cell(t, r, (size_t)cv);
		if (a->null || strcmp(a->v.text, run) || b->null || v->null)
			continue;
		size_t i = intmap_index(&m, (int)b->v.i, n);
		if (i == n) {
			*ranks = xgrow(*ranks, &cap, n + 1, sizeof(**ranks));
			*mean = xgrow(*mean, &capm, n + 1, sizeof(**mean));
			cnt = xgrow(cnt, &capc, n + 1, sizeof(*cnt));
			(*ranks)[n] = (int)b->v.i;
			(*mean)[n] = 0;
			cnt[n++] = 0;
		}
		(*mean)[i] += (double)v->v.i / 1e3;
		cnt[i]++;
	}
	intmap_free(&m);
	for (size_t i = 0; i < n; i++)
		(*mean)[i] /= (double)cnt[i];
	free(cnt);
	return n;
}

/* The value of rank minus the median of the other ranks' (NAN when rank has none). */
static double excess_of(const int *ranks, double *v, size_t n, int rank)
{
	double mine = NAN, *o = xmalloc((n ? n : 1) * sizeof(*o));
	size_t no = 0;
	for (size_t i = 0; i < n; i++) {
		if (ranks[i] == rank)
			mine = v[i];
		else
			o[no++] = v[i];
	}
	double r = no ? mine - stats_median_double(o, no) : NAN;
	free(o);
	return r;
}

void straggler_side(const struct analysis_result *res, const char *run, int rank, double *busy, double *idle)
{
	const struct table *sr = result_table(res, "straggler_ranks"), *rk = result_table(res, "ranks");
	int *ranks;
	double *v;
	size_t n;
	*busy = *idle = NAN;
	if (sr) {
		n = rank_mean_us(sr, SR_RUN, SR_RANK, SR_COMPUTE_PER_STEP_US, run, &ranks, &v);
		*busy = excess_of(ranks, v, n, rank);
		free(ranks);
		free(v);
	}
	if (rk) {
		n = rank_mean_us(rk, RANKS_RUN, RANKS_RANK, RANKS_IDLE_US, run, &ranks, &v);
		*idle = excess_of(ranks, v, n, rank);
		free(ranks);
		free(v);
	}
}
