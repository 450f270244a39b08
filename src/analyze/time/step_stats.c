/*
 * step_stats.c: step times as distributions, and differences tested
 * against their noise.
 *
 *   step_stats.csv:   per run, the durations of every ProfilerStep#N host
 *                     range of every rank taken as one sample: n, median
 *                     with its order-statistic confidence interval (level
 *                     in ci_level), min, max, mean (stats.h); and the
 *                     GPU side of the profiled steps (gpu_periods): the
 *                     median period between the ends of the GPU work that
 *                     consecutive steps launched, the step itself where an
 *                     asynchronous loop's host runs ahead of its GPU.
 *   step_compare.csv: per pair of compare.csv (compare_pairs), the two
 *                     medians, their ratio b / a, and the Mann-Whitney test
 *                     of the two samples (the host steps, or the GPU-side
 *                     periods where either run's loop is asynchronous): "change" when p < 0.05, "too
 *                     few steps" when no two samples of their sizes can
 *                     reach it, else "within noise".
 *   figure step_times: the median per run, the CI as a thick bar over it,
 *                     min to max as a whisker.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/time/time_tables.h"
#include "analyze/lib/pairs.h"
#include "analyze/lib/rankdata.h"
#include "analyze/lib/stats.h"
#include "analyze/time/step_stats.h"
#include "chart/chart.h"
#include "util/diag.h"
#include "util/xalloc.h"

int step_samples(struct store *s, const char *exp, const char *run, int64_t **v, size_t *n, int64_t *ranks)
{
	struct store_stmt *st;
	*v = NULL;
	*n = 0;
	*ranks = 0;
	/*
	 * one sample per step: a step ends when its slowest rank does, and the
	 * ranks of one step are not independent draws. The rank count beside it
	 * (the ranks with a step) is its own query: as a correlated subquery of
	 * this one SQLite ran it once a row, over every rank's steps, which made
	 * 256 ranks of 100 steps take 31 s.
	 */
	st = store_query(s, "step_stats: step times of a run",
			 "SELECT max(s.dur_ns) FROM steps s JOIN run_traces t ON t.id = s.trace_id"
			 " WHERE t.experiment = ?1 AND t.run = ?2"
			 " GROUP BY s.step ORDER BY s.step", exp);
	if (!st)
		return -1;
	store_bind_text(st, 2, run);
	if (!(*v = rank_column_ids(st, n))) {
		*n = 0;
		return -1;
	}
	int rc = 0;
	if (*n) {
		st = store_query(s, "step_stats: step times of a run",
				 "SELECT count(DISTINCT t.rank) FROM run_traces t"
				 " WHERE t.experiment = ?1 AND t.run = ?2"
				 " AND EXISTS (SELECT 1 FROM steps x WHERE x.trace_id = t.id)", exp);
		rc = -1;
		if (st) {
			store_bind_text(st, 2, run);
			if ((rc = store_next(st)) > 0)
				*ranks = store_column_int64(st, 0);
			store_finalize(st);
		}
	}
	if (rc < 0) {
		free(*v);
		*v = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

/*
 * The smallest two-sided p the exact Mann-Whitney test can give samples of
 * n and m values: 2 / C(n + m, n), all of one sample below the other (at
 * most 1).
 */
static double smallest_p(size_t n, size_t m)
{
	double c = 1;
	for (size_t k = 1; k <= n && c < 1e12; k++)
		c = c * (double)(m + k) / (double)k;
	return c > 2 ? 2 / c : 1;
}

const char *step_verdict(const struct mw_test *t, size_t n, size_t m)
{
	if (t->p < STATS_ALPHA)
		return "change";
	return smallest_p(n, m) >= STATS_ALPHA ? "too few steps" : "within noise";
}

struct run_steps {
	char *run, *model;
	int64_t *v; /* sorted after stats_dist */
	size_t n;
	int64_t ranks;
	struct step_dist d;
	struct step_period *p; /* the GPU-side periods of its ranks' steps (gpu_periods) */
	size_t np, pcap;
	struct step_dist pd; /* of the longest period of each step; pd.n 0: none */
	int64_t *pv;         /* those longest periods, sorted after stats_dist (pd.n of them) */
	size_t gpu_steps, ahead; /* ranks' steps with GPU work; of them, those whose work ends after the step */
};

/* One GPU-side period: step N of a rank, in ns. */
struct step_period {
	int64_t step, ns;
};

static int cmp_period(const void *pa, const void *pb)
{
	const struct step_period *a = pa, *b = pb;
	if (a->step != b->step)
		return (a->step > b->step) - (a->step < b->step);
	return (a->ns > b->ns) - (a->ns < b->ns);
}

struct period_walk {
	struct run_steps *r;
	size_t nr, at; /* at: the run of the last rank visited */
};

/*
 * One rank's GPU-side step periods: per ProfilerStep#N, the end of the last
 * GPU activity (kernel, memcpy, memset) launched by a runtime call inside
 * it (same correlation), and for each N whose N - 1 is the rank's previous
 * step, that end minus step N - 1's (when positive).
 */
static int period_visit(const struct rank_key *k, const struct rank_data *d, void *arg)
{
	struct period_walk *w = arg;
	if (w->at >= w->nr || strcmp(w->r[w->at].run, k->run))
		for (w->at = 0; w->at < w->nr && strcmp(w->r[w->at].run, k->run); w->at++)
			;
	if (w->at == w->nr || d->nsteps < 2)
		return 0;
	struct run_steps *r = &w->r[w->at];
	int64_t *last = xmalloc(d->nsteps * sizeof(*last));
	struct launch_index *idx = rank_launch_index(d);
	for (size_t j = 0; j < d->nsteps; j++)
		last[j] = INT64_MIN;
	for (size_t i = 0; i < d->nacts; i++) {
		const struct rk_range *l = rank_launch_of(d, idx, d->acts[i].corr);
		if (!l)
			continue;
		size_t j = rk_search(d->steps, d->nsteps, l->start, 1);
		if (j-- == 0 || l->start >= d->steps[j].end)
			continue;
		if (d->acts[i].end > last[j])
			last[j] = d->acts[i].end;
	}
	for (size_t j = 0; j < d->nsteps; j++)
		if (last[j] != INT64_MIN) {
			r->gpu_steps++;
			r->ahead += last[j] > d->steps[j].end; /* the host left the step before its GPU work ended */
		}
	for (size_t j = 1; j < d->nsteps; j++)
		if (d->steps[j].key == d->steps[j - 1].key + 1 && last[j] != INT64_MIN && last[j - 1] != INT64_MIN &&
		    last[j] > last[j - 1]) {
			r->p = xgrow(r->p, &r->pcap, r->np + 1, sizeof(*r->p));
			r->p[r->np++] = (struct step_period){d->steps[j].key, last[j] - last[j - 1]};
		}
	free(last);
	rank_launch_index_release(d, idx);
	return 0;
}

/* Every run's GPU-side periods, then per step the longest over its ranks and their distribution (pd). */
static int gpu_periods(const struct analysis_ctx *ctx, struct run_steps *r, size_t nr)
{
	struct period_walk w = {r, nr, 0};
	if (for_each_rank(ctx->store, ctx->experiment, period_visit, &w) < 0)
		return -1;
	for (size_t i = 0; i < nr; i++) {
		if (!r[i].np)
			continue;
		qsort(r[i].p, r[i].np, sizeof(*r[i].p), cmp_period);
		int64_t *v = xmalloc(r[i].np * sizeof(*v));
		size_t n = 0;
		for (size_t j = 0; j < r[i].np; j++)
			if (j + 1 == r[i].np || r[i].p[j + 1].step != r[i].p[j].step)
				v[n++] = r[i].p[j].ns; /* the step's longest: sorted last */
		stats_dist(v, n, &r[i].pd);
		r[i].pv = v;
	}
	return 0;
}

static int load_runs(const struct analysis_ctx *ctx, struct run_steps **out, size_t *nout)
{
	struct store_stmt *st;
	*out = NULL;
	*nout = 0;
	st = store_query(ctx->store, "step_stats: runs",
			 "SELECT run, coalesce(model, '') FROM runs WHERE experiment = ?1"
			 " ORDER BY position", ctx->experiment);
	if (!st)
		return -1;
	size_t cap = 0;
	int ret = 0, more = 0;
	while (!ret && (more = store_next(st)) > 0) {
		*out = xgrow(*out, &cap, *nout + 1, sizeof(**out));
		struct run_steps *r = &(*out)[(*nout)++];
		memset(r, 0, sizeof(*r));
		r->run = xstrdup((const char *)store_column_text(st, 0));
		r->model = xstrdup((const char *)store_column_text(st, 1));
		ret = step_samples(ctx->store, ctx->experiment, r->run, &r->v, &r->n, &r->ranks);
		if (!ret && r->n)
			stats_dist(r->v, r->n, &r->d);
	}
	store_finalize(st);
	return ret ? ret : more;
}

static void runs_free(struct run_steps *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].run);
		free(r[i].model);
		free(r[i].v);
		free(r[i].p);
		free(r[i].pv);
	}
	free(r);
}

static struct table *dist_table(const struct run_steps *r, size_t nr, struct chart *c)
{
	struct table *t = table_new("step_stats",
				    "Step time per run over every profiled step of every rank: median with its "
				    "confidence interval, min, max, mean",
				    TABLE_SCHEMA(STEP_STATS_COLUMNS));
	for (size_t i = 0; i < nr; i++) {
		const struct step_dist *d = &r[i].d;
		if (!r[i].n)
			continue;
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, r[i].run);
		table_set_int(t, row, 1, r[i].ranks);
		table_set_int(t, row, 2, (int64_t)d->n);
		table_set_ns(t, row, 3, d->median_ns);
		table_set_ns(t, row, 4, d->ci_lo_ns);
		table_set_ns(t, row, 5, d->ci_hi_ns);
		table_set_real(t, row, 6, d->ci_level);
		table_set_ns(t, row, 7, d->min_ns);
		table_set_ns(t, row, 8, d->max_ns);
		table_set_ns(t, row, 9, (int64_t)floor(d->mean_ns + 0.5));
		if (r[i].pd.n) {
			table_set_int(t, row, SS_GPU_PERIODS, (int64_t)r[i].pd.n);
			table_set_ns(t, row, SS_GPU_PERIOD_MEDIAN_US, r[i].pd.median_ns);
		}
		size_t cat = chart_add_category(c, r[i].run);
		chart_set(c, cat, 0, (double)d->median_ns / 1e6);
		chart_set_spread(c, cat, (double)d->min_ns / 1e6, (double)d->max_ns / 1e6, (double)d->ci_lo_ns / 1e6,
				 (double)d->ci_hi_ns / 1e6);
	}
	return t;
}

/*
 * Whether r ran an asynchronous loop: its host runs ahead, the GPU work of
 * most of its steps ending after their host ranges, and its host step is
 * under STEP_ASYNC_SHARE of its GPU-side period. (A loop whose steps end
 * with their GPU work but start far apart, the host idle between them, is
 * not: its host ranges are whole steps.)
 */
static int is_async(const struct run_steps *r)
{
	return r->n && r->pd.n && 2 * r->ahead > r->gpu_steps &&
	       (double)r->d.median_ns < STEP_ASYNC_SHARE * (double)r->pd.median_ns;
}

static struct table *compare_table(const struct analysis_ctx *ctx, const struct run_steps *r, size_t nr)
{
	struct table *t = table_new("step_compare",
				    "Step times of compared runs: the ratio of the medians and whether the difference "
				    "is beyond the noise (Mann-Whitney U test)",
				    TABLE_SCHEMA(STEP_COMPARE_COLUMNS));
	const char **names = xcalloc(nr + 1, sizeof(*names)), **models = xcalloc(nr + 1, sizeof(*models));
	for (size_t i = 0; i < nr; i++) {
		names[i] = r[i].run;
		models[i] = r[i].model;
	}
	size_t(*pairs)[2];
	size_t np = compare_pairs(ctx->manifest, names, models, nr, &pairs);
	for (size_t p = 0; p < np; p++) {
		const struct run_steps *a = &r[pairs[p][0]], *b = &r[pairs[p][1]];
		if (!a->n || !b->n)
			continue;
		/* an asynchronous loop's host ranges are its enqueue time: both runs' GPU-side periods then */
		int gpu = (is_async(a) || is_async(b)) && a->pd.n && b->pd.n;
		const int64_t *va = gpu ? a->pv : a->v, *vb = gpu ? b->pv : b->v;
		const struct step_dist *da = gpu ? &a->pd : &a->d, *db = gpu ? &b->pd : &b->d;
		struct mw_test mw;
		stats_mann_whitney(va, da->n, vb, db->n, &mw);
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, a->run);
		table_set_text(t, row, 1, b->run);
		table_set_int(t, row, 2, (int64_t)da->n);
		table_set_int(t, row, 3, (int64_t)db->n);
		table_set_ns(t, row, 4, da->median_ns);
		table_set_ns(t, row, 5, db->median_ns);
		if (da->median_ns > 0)
			table_set_real(t, row, 6, (double)db->median_ns / (double)da->median_ns);
		table_set_real(t, row, 7, mw.u);
		table_set_real(t, row, 8, mw.p);
		table_set_text(t, row, 9, mw.exact ? "exact" : "normal");
		table_set_text(t, row, 10, step_verdict(&mw, da->n, db->n));
		table_set_text(t, row, STC_COMPARED, gpu ? "GPU periods" : "host steps");
	}
	free(pairs);
	free(names);
	free(models);
	return t;
}

static int analysis_step_stats(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct run_steps *r;
	size_t nr;
	if (load_runs(ctx, &r, &nr) < 0 || gpu_periods(ctx, r, nr) < 0) {
		runs_free(r, nr);
		return -1;
	}
	/*
	 * The interval's level as it is: 95 % only where every run's exact
	 * coverage (ci_level) is at least 0.95; with 5 steps or fewer it is
	 * min to max, of a lower coverage, and the title says the lowest.
	 */
	double lo = 1;
	for (size_t i = 0; i < nr; i++)
		if (r[i].n && r[i].d.ci_level < lo)
			lo = r[i].d.ci_level;
	char title[128];
	if (lo >= 0.95)
		snprintf(title, sizeof(title), "Step time per run: median, 95%% interval, min to max");
	else
		snprintf(title, sizeof(title), "Step time per run: median, interval of the median (coverage %.0f%% "
						"or more), min to max", 100 * lo);
	struct chart *c = chart_new(CHART_HBAR, "step_times", title, "step time (ms)");
	chart_add_series(c, "median");
	result_add_table(out, dist_table(r, nr, c));
	result_add_figure(out, c,
			  "Median step time of each run over every profiled step of every rank (bar), its "
			  "confidence interval (thick line; its exact coverage, ci_level in step_stats.csv, is 95 % "
			  "or more with 6 steps or more, and 1 - 2^(1-n) with n <= 5 steps, where the interval is "
			  "min to max: 0.5 with 2 steps, 0.75 with 3) and the fastest to the slowest step (whisker "
			  "with caps), in milliseconds.");
	result_add_table(out, compare_table(ctx, r, nr));
	for (size_t i = 0; i < nr; i++)
		if (r[i].n && r[i].n <= 5)
			result_add_note(out, "step_stats.csv: run %s has %zu step%s, too few for a 95%% interval of the "
					"median: its interval is min to max and covers %.1f%%", r[i].run, r[i].n,
					r[i].n == 1 ? "" : "s", 100 * r[i].d.ci_level);
	runs_free(r, nr);
	result_add_method(out, "step_stats.csv",
			  "Per run, one value per step: the longest of its ranks' ProfilerStep#N host ranges of the "
			  "same N (a step ends when its slowest rank does, and the ranks of one step are not "
			  "independent draws), n = the number of steps. median_us: the middle "
			  "value, or the mean of the two middle ones rounded to the nearest ns (halves up). "
			  "ci_low_us, ci_high_us: the distribution-free (order-statistic) confidence interval of the "
			  "median, [x(l), x(n+1-l)] of the sorted values, with l the largest such that "
			  "2 P(B <= l-1) <= 0.05 for B ~ Binomial(n, 1/2); ci_level = 1 - 2 P(B <= l-1) is its "
			  "exact coverage (at least 0.95). With 5 steps or fewer no such l exists: the interval is "
			  "min to max, covering 1 - 2^(1-n). No resampling, so a rebuild gives the same numbers. "
			  "mean_us: the arithmetic mean, rounded to the nearest ns. gpu_periods, "
			  "gpu_period_median_us: the GPU side of the same steps: per rank, the end of the last GPU "
			  "activity (kernel, memcpy, memset) that a runtime call inside ProfilerStep#N launched (same "
			  "correlation), and step N's period that end minus step N-1's, for each N whose N-1 the rank "
			  "also profiled; per step the longest over the ranks, gpu_periods their number and "
			  "gpu_period_median_us their median as median_us's (empty with none). Where a loop does not "
			  "synchronise around its steps the host runs ahead of the GPU and its ProfilerStep#N range "
			  "is the time to enqueue the step's work; this period is then the step, the time between "
			  "CUDA events recorded at each iteration's end.");
	result_add_method(out, "step_compare.csv",
			  "For each pair of compare.csv (a, b), the two runs' step samples of step_stats.csv: "
			  "ratio = median b / median a; u = the Mann-Whitney U of b (pairs with b's step longer than "
			  "a's, ties counting 1/2, from mid-ranks); p_value = the two-sided p of the Mann-Whitney "
			  "test, exact (the rank sum's distribution counted over all subsets; p_method 'exact') when "
			  "no two steps tie and n_a + n_b <= 100, else the normal approximation with tie-corrected "
			  "variance and a continuity correction of 1/2 ('normal'). verdict: 'change' when p < 0.05, "
			  "'too few steps' where no difference can reach it with as many steps (the smallest "
			  "two-sided exact p, 2 / C(n_a + n_b, n_a), is 0.05 or more: 0.1 with 3 steps a side, 0.057 "
			  "with 3 and 4), else 'within noise': profile at least 4 steps a run to tell a change from "
			  "noise. compared: the samples compared, 'host steps' (step_stats.csv's steps), or 'GPU "
			  "periods' (its GPU-side periods, one per step but the first, steps_a, steps_b and the "
			  "medians theirs) where either run's loop is asynchronous and both have periods: the GPU "
			  "work of most of its ranks' steps ends after the step's host range and its median_us is "
			  "under 0.8 of its gpu_period_median_us (the host ranges are then the time to enqueue a "
			  "step).");
	return 0;
}

const struct analysis_def analysis_def_step_stats = {
	.name = "step_stats",
	.run = analysis_step_stats,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("step_stats", "step_compare"),
	.figures = ANALYSIS_NAMES("step_times"),
};
