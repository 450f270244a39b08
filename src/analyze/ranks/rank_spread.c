/*
 * rank_spread.c: every rank of a run in one distribution, and per-rank
 * figures only for the ranks that matter (rank_spread.csv, figures
 * rank_spread_<run> and top_kernels_<run>_r<rank>).
 *
 * Per run and rank, over its profiled steps (ranks.csv's rows):
 *   step_median_us          the median of its ProfilerStep#N durations;
 *   exposed_wait_median_us  the median over the same steps of the summed
 *                           exposed_wait_us (collective_waits.csv) of its
 *                           collectives of that step: the time its GPU sat
 *                           in a collective waiting for another rank with
 *                           nothing else to run (0 in a step without one;
 *                           empty in a run without matched collectives);
 *   own_median_us           the median over its steps of step - that wait:
 *                           the step the rank would have taken had it never
 *                           waited for another.
 * Medians of an even count: the mean of the two middle values, to the
 * nearest ns (halves up).
 *
 * Why own time orders the ranks. In synchronous data parallelism every
 * rank's step lasts as long as the slowest rank's (they all leave each
 * all-reduce together), so the step time alone cannot tell the ranks apart:
 * the slow rank is the one that waits least. Own time moves the wait out,
 * and the ranks sorted by it give the distribution a performance engineer
 * reads first: a flat curve (balanced), a tail (a few slow ranks), a step
 * (a slow node). The figure draws that sorted curve with the step time and
 * the exposed wait of the same ranks above it, rather than a histogram or a
 * box, because a curve keeps every rank and its position: the labelled
 * points are the ranks named below, and a reader can hover any other one.
 *
 * The ranks that matter (column role; per-rank figures are drawn for those
 * only when the run has more than ALL_RANKS ranks, every rank otherwise):
 * with the ranks in order of own_median_us (ties: the lower rank first),
 * fastest the first, slowest the last, median the (floor(n/2) + 1)-th, and
 * outlier every other rank whose own_median_us lies beyond Tukey's fences,
 * below Q1 - 1.5 IQR or above Q3 + 1.5 IQR (Q1, Q3 by linear interpolation
 * between the order statistics: q(p) = x[h] + (h - floor h)(x[h+1] - x[h]),
 * h = (n - 1) p, 0-based). At most MAX_OUTLIERS outliers are drawn, those
 * farthest beyond their fence (ties: the lower rank); a run of one rank has
 * no roles. A run whose ranks do not all have steps is ordered by each
 * rank's GPU time instead (groups.csv, summed over its groups), with the
 * same rule.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart/chart.h"
#include "chart/figures.h"
#include "analyze/analysis.h"
#include "analyze/lib/rankdata.h"
#include "analyze/lib/stats.h"
#include "util/search.h"
#include "util/fs.h"
#include "util/xalloc.h"
#include "analyze/ranks/figure_ranks.h"
#include "analyze/ranks/ranks_tables.h"
#include "analyze/time/time_tables.h"

/* Ranks of a run up to which every rank gets its per-rank figures. */
#define ALL_RANKS 8
/* Outliers drawn per run at most, beside the slowest, fastest and median rank. */
#define MAX_OUTLIERS 8

/* One step of one rank: ranks.csv's step and duration, and the summed exposed wait of its collectives. */
struct step_wait {
	int64_t rank, step, step_ns, wait_ns;
};

static int cmp_step_wait(const void *pa, const void *pb)
{
	const struct step_wait *a = pa, *b = pb;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->step < b->step ? -1 : a->step > b->step;
}

/* lower_bound's predicate: a step_wait before another in cmp_step_wait's order. */
static int step_wait_before(const void *elem, const void *key)
{
	return cmp_step_wait(elem, key) < 0;
}

/* The median of v[0 .. n) (sorts v), n > 0: an even count's two middle values averaged, halves up. */
static int64_t median_ns(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), stats_cmp_i64);
	if (n % 2)
		return v[n / 2];
	return (int64_t)floor(((double)v[n / 2 - 1] + (double)v[n / 2]) / 2 + 0.5);
}

/* One rank of a run: its medians (ns) and the key it is ordered by. */
struct rank_row {
	int64_t rank, steps, step_med, wait_med, own_med;
	double key;
	const char *role; /* "slowest", "fastest", "median", "outlier" or "" */
	int drawn;
	double beyond; /* an outlier's distance beyond its fence */
};

static int cmp_key(const void *pa, const void *pb)
{
	const struct rank_row *a = *(struct rank_row *const *)pa, *b = *(struct rank_row *const *)pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static int cmp_beyond(const void *pa, const void *pb)
{
	const struct rank_row *a = *(struct rank_row *const *)pa, *b = *(struct rank_row *const *)pb;
	if (a->beyond != b->beyond)
		return a->beyond > b->beyond ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* The p-quantile of the sorted keys (linear interpolation, h = (n - 1) p). */
static double quantile(struct rank_row *const *by, size_t n, double p)
{
	double h = (double)(n - 1) * p;
	size_t i = (size_t)floor(h);
	if (i + 1 >= n)
		return by[n - 1]->key;
	return by[i]->key + (h - (double)i) * (by[i + 1]->key - by[i]->key);
}

/*
 * Sets role and drawn of the n ranks of rr (see the file's comment); by
 * gets them in order of key. Returns how many ranks are outliers.
 */
static size_t choose_ranks(struct rank_row *rr, size_t n, struct rank_row **by)
{
	size_t nout = 0;
	for (size_t i = 0; i < n; i++) {
		by[i] = &rr[i];
		rr[i].role = "";
		rr[i].drawn = n <= ALL_RANKS;
	}
	if (!n)
		return 0;
	qsort(by, n, sizeof(*by), cmp_key);
	double q1 = quantile(by, n, 0.25), q3 = quantile(by, n, 0.75), iqr = q3 - q1;
	double lo = q1 - 1.5 * iqr, hi = q3 + 1.5 * iqr;
	struct rank_row **out = xcalloc(n, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		struct rank_row *r = by[i];
		if (r->key < lo || r->key > hi) {
			r->role = "outlier";
			r->beyond = r->key < lo ? lo - r->key : r->key - hi;
			out[nout++] = r;
		}
	}
	if (nout > 1)
		qsort(out, nout, sizeof(*out), cmp_beyond);
	for (size_t i = 0, drawn = 0; i < nout; i++)
		if (by[0] != out[i] && by[n - 1] != out[i] && by[n / 2] != out[i] && drawn < MAX_OUTLIERS) {
			out[i]->drawn = 1;
			drawn++;
		}
	free(out);
	by[0]->drawn = by[n - 1]->drawn = by[n / 2]->drawn = 1;
	if (n < 2)
		return 0; /* one rank is no distribution: no roles */
	by[n / 2]->role = "median";
	by[0]->role = "fastest";
	by[n - 1]->role = "slowest";
	return nout;
}

/*
 * The steps of run from ranks.csv, each with its summed exposed wait from
 * collective_waits.csv (wait_ns -1 for all when that table is absent),
 * sorted by rank and step; *n set. Caller frees.
 */
static struct step_wait *run_steps(const struct analysis_result *out, const char *run, size_t *n)
{
	const struct table *rk = result_table(out, "ranks"), *cw = result_table(out, "collective_waits");
	struct step_wait *sw = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t r = 0; rk && r < rk->nrows; r++) {
		if (strcmp(table_cell(rk, r, RANKS_RUN)->v.text, run))
			continue;
		sw = xgrow(sw, &cap, *n + 1, sizeof(*sw));
		sw[(*n)++] = (struct step_wait){table_cell(rk, r, RANKS_RANK)->v.i, table_cell(rk, r, RANKS_STEP)->v.i,
						table_cell(rk, r, RANKS_STEP_US)->v.i, cw ? 0 : -1};
	}
	if (*n > 1)
		qsort(sw, *n, sizeof(*sw), cmp_step_wait);
	int crun = cw ? CW_RUN : -1, cstep = cw ? CW_STEP : -1,
	    crank = cw ? CW_RANK : -1, cwait = cw ? CW_EXPOSED_WAIT_US : -1;
	for (size_t r = 0; *n && crun >= 0 && cstep >= 0 && crank >= 0 && cwait >= 0 && r < cw->nrows; r++) {
		const struct cell *a = table_cell(cw, r, (size_t)crun), *s = table_cell(cw, r, (size_t)cstep),
				  *k = table_cell(cw, r, (size_t)crank), *w = table_cell(cw, r, (size_t)cwait);
		if (a->null || strcmp(a->v.text, run) || s->null || k->null || w->null)
			continue;
		struct step_wait key = {k->v.i, s->v.i, 0, 0};
		struct step_wait *hit = bsearch(&key, sw, *n, sizeof(*sw), cmp_step_wait);
		if (hit)
			hit->wait_ns += w->v.i;
	}
	return sw;
}

/* The ranks of run in the group table, rows [first, end), each with its GPU time as key. */
static struct rank_row *run_ranks(const struct table *g, size_t first, size_t end, size_t *n)
{
	struct rank_row *rr = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t r = first; r < end; r++) {
		const struct cell *t = table_cell(g, r, GRP_TIME_US);
		int64_t rank = table_cell(g, r, GRP_RANK)->v.i, ns = t->null ? 0 : t->v.i;
		if (!*n || rr[*n - 1].rank != rank) {
			rr = xgrow(rr, &cap, *n + 1, sizeof(*rr));
			rr[(*n)++] = (struct rank_row){.rank = rank, .step_med = -1};
		}
		rr[*n - 1].key += (double)ns;
	}
	return rr;
}

/* Fills the step medians of rr from sw (sorted by rank); returns 1 when every rank has steps. */
static int step_medians(struct rank_row *rr, size_t n, const struct step_wait *sw, size_t nsw, int *have_wait)
{
	int all = n > 0;
	*have_wait = nsw && sw[0].wait_ns >= 0;
	int64_t *a = xcalloc(nsw + 1, sizeof(*a)), *b = xcalloc(nsw + 1, sizeof(*b)), *c = xcalloc(nsw + 1, sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		struct step_wait key = {rr[i].rank, INT64_MIN, 0, 0};
		size_t lo = lower_bound(sw, nsw, sizeof(*sw), &key, step_wait_before); /* the first step of the rank */
		size_t k = 0;
		for (size_t j = lo; j < nsw && sw[j].rank == rr[i].rank; j++, k++) {
			a[k] = sw[j].step_ns;
			b[k] = *have_wait ? sw[j].wait_ns : 0;
			c[k] = sw[j].step_ns - b[k];
		}
		rr[i].steps = (int64_t)k;
		if (!k) {
			all = 0;
			continue;
		}
		rr[i].step_med = median_ns(a, k);
		rr[i].wait_med = median_ns(b, k);
		rr[i].own_med = median_ns(c, k);
	}
	free(a);
	free(b);
	free(c);
	return all;
}

/* The distribution figure of one run: the ranks in order of own time (by), three lines. */
static struct chart *spread_figure(const char *run, struct rank_row *const *by, size_t n, int have_wait)
{
	char *name = fs_figure_name("rank_spread_", run, NULL);
	char *title = xasprintf("%s: %zu ranks, fastest to slowest own time", run, n);
	struct chart *c = chart_new(CHART_XY, name, title, "median per step (ms)");
	chart_set_x_axis(c, "ranks in order of own time (position)", CHART_SCALE_LINEAR);
	c->from_zero = 1;
	c->label_points = 1;
	chart_add_series(c, "own time (step less exposed wait)");
	chart_add_series(c, "step time");
	if (have_wait)
		chart_add_series(c, "exposed wait for another rank");
	for (size_t i = 0; i < n; i++) {
		const struct rank_row *r = by[i];
		/*
		 * The ranks drawn are marked, and the fastest, median and slowest
		 * named (outliers crowd the ends: rank_spread.csv names them);
		 * every point's tooltip names its rank and role.
		 */
		int named = r->role[0] && strcmp(r->role, "outlier");
		char *label = named ? xasprintf("r%" PRId64 " %s", r->rank, r->role) : xstrdup("");
		char *tip = xasprintf("rank %" PRId64 "%s%s", r->rank, r->role[0] ? ", " : "", r->role);
		size_t cat = chart_add_category(c, label);
		chart_set_category_tip(c, cat, tip);
		if (r->drawn)
			chart_mark_category(c, cat);
		chart_set_x(c, cat, (double)(i + 1));
		chart_set(c, cat, 0, (double)r->own_med / 1e6);
		chart_set(c, cat, 1, (double)r->step_med / 1e6);
		if (have_wait)
			chart_set(c, cat, 2, (double)r->wait_med / 1e6);
		free(label);
		free(tip);
	}
	free(name);
	free(title);
	return c;
}

/* The top-kernel figures of run's drawn ranks, in rank order of the group table. */
static void top_kernel_figures(const struct analysis_ctx *ctx, struct analysis_result *out, const char *run,
			       const struct rank_row *rr, size_t n, const struct rank_rows *kbyrank)
{
	const struct table *k = result_table(out, "kernels");
	static const struct kernel_cols kcols = {KRN_RUN, KRN_RANK, KRN_NAME, KRN_TOTAL_US, KRN_GROUP};
	for (size_t i = 0; k && i < n; i++) {
		const struct rank_row_at *f;
		if (!rr[i].drawn)
			continue;
		size_t nrows = rank_rows_find(kbyrank, run, rr[i].rank, &f), *rows = xcalloc(nrows + 1, sizeof(*rows));
		for (size_t j = 0; j < nrows; j++)
			rows[j] = f[j].row;
		/* One file per exact run id: "UP" and "up", "a.b" and "a_b" must not share one. */
		char rank[32];
		snprintf(rank, sizeof(rank), "_r%" PRId64, rr[i].rank);
		char *name = fs_figure_name("top_kernels_", run, rank);
		char *caption = xasprintf("The %d kernels with the largest total GPU time in run %s, rank %" PRId64
					  "%s%s (total over the whole trace file, in milliseconds).",
					  ctx->top_n, run, rr[i].rank, n > ALL_RANKS && rr[i].role[0] ? ", the " : "",
					  n > ALL_RANKS ? rr[i].role : "");
		result_add_figure(out, figure_top_kernels(k, &kcols, run, rr[i].rank, ctx->top_n, name, rows, nrows),
				  caption);
		free(rows);
		free(name);
		free(caption);
	}
}

static int analysis_rank_spread(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct table *g = result_table(out, "groups");
	if (!g)
		return 0;
	struct table *t = table_new("rank_spread", "Every rank of each run: median step time, exposed wait and own time",
				    TABLE_SCHEMA(RANK_SPREAD_COLUMNS));
	/* kernels.csv's rows by run and rank, so that each drawn rank's figure reads its own rows only */
	struct rank_rows kbyrank;
	rank_rows_init(&kbyrank, result_table(out, "kernels"), KRN_RUN, KRN_RANK);
	for (size_t first = 0; first < g->nrows;) {
		const char *run = table_cell(g, first, GRP_RUN)->v.text;
		size_t end = first;
		while (end < g->nrows && !strcmp(table_cell(g, end, GRP_RUN)->v.text, run))
			end++;
		size_t n, nsw;
		int have_wait;
		struct rank_row *rr = run_ranks(g, first, end, &n);
		struct step_wait *sw = run_steps(out, run, &nsw);
		int by_steps = step_medians(rr, n, sw, nsw, &have_wait);
		free(sw);
		for (size_t i = 0; by_steps && i < n; i++)
			rr[i].key = (double)rr[i].own_med;
		struct rank_row **by = xcalloc(n + 1, sizeof(*by));
		size_t nout = choose_ranks(rr, n, by);
		for (size_t i = 0; by_steps && i < n; i++) {
			const struct rank_row *r = by[i];
			size_t row = table_add_row(t), c = 0;
			table_set_text(t, row, c++, run);
			table_set_int(t, row, c++, r->rank);
			table_set_int(t, row, c++, r->steps);
			table_set_ns(t, row, c++, r->step_med);
			if (have_wait)
				table_set_ns(t, row, c, r->wait_med);
			c++;
			table_set_ns(t, row, c++, r->own_med);
			table_set_int(t, row, c++, (int64_t)i + 1);
			table_set_text(t, row, c++, r->role);
			table_set_int(t, row, c++, r->drawn);
		}
		if (n > ALL_RANKS) {
			if (by_steps) {
				char *caption = xasprintf(
					"Every rank of run %s in order of its median own time per step (its step less its "
					"exposed wait for other ranks), with its median step time and median exposed wait, "
					"in milliseconds; the fastest, median and slowest ranks and the outliers (beyond "
					"1.5 IQR) are labelled (rank_spread.csv).", run);
				result_add_figure(out, spread_figure(run, by, n, have_wait), caption);
				free(caption);
			}
			result_add_note(out, "Run %s has %zu ranks: per-rank figures are drawn for the fastest, the median "
					"and the slowest rank by %s and %zu outlier%s beyond 1.5 IQR (at most %d drawn; "
					"rank_spread.csv); kernels.csv holds every rank's kernels", run, n,
					by_steps ? "median own time per step" : "GPU time", nout, nout == 1 ? "" : "s",
					MAX_OUTLIERS);
		}
		top_kernel_figures(ctx, out, run, rr, n, &kbyrank);
		free(by);
		free(rr);
		first = end;
	}
	if (t->nrows) {
		result_add_table(out, t);
		t = NULL;
		result_add_method(
			out, "rank_spread.csv",
			"Per run and rank, over its profiled steps (ranks.csv): step_median_us, the median of its "
			"ProfilerStep#N durations; exposed_wait_median_us, the median over the same steps of the summed "
			"exposed_wait_us (collective_waits.csv) of its collectives in that step (0 in a step without "
			"one; empty in a run without matched collectives); own_median_us, the median over its steps of "
			"step - that wait, the step it would have taken had it never waited for another rank (an even "
			"count: the mean of the two middle values, to the nearest ns, halves up). In synchronous data "
			"parallelism every rank's step lasts as long as the slowest's, so ranks are ordered by own time: "
			"position 1 is the fastest (ties: the lower rank). role: fastest (position 1), slowest (the "
			"last), median (position floor(n/2) + 1), outlier (own_median_us below Q1 - 1.5 IQR or above "
			"Q3 + 1.5 IQR, Tukey's fences; Q1 and Q3 by linear interpolation between order statistics, "
			"h = (n - 1) p). drawn = 1: the rank gets per-rank figures (top_kernels_<run>_r<rank>): every "
			"rank of a run of at most 8 ranks; beyond, the fastest, median and slowest and at most 8 "
			"outliers, those farthest beyond their fence. A run whose ranks do not all have steps has no "
			"rows here and is ordered by each rank's GPU time (groups.csv) by the same rule; a run of one "
			"rank has no roles. Figure "
			"rank_spread_<run> (runs of more than 8 ranks) draws the three medians of every rank in "
			"order of own time, the chosen ranks labelled.");
	}
	table_free(t);
	rank_rows_release(&kbyrank);
	/* the per-rank figures made so far keep the drawn ranks only from here on (figure_ranks.c) */
	figure_ranks_trim(out);
	return 0;
}

const struct analysis_def analysis_def_rank_spread = {
	.name = "rank_spread",
	.run = analysis_rank_spread,
	.needs = ANALYSIS_TABLES("ranks", "collective_waits", "kernels", "groups"),
	.makes = ANALYSIS_TABLES("rank_spread"),
	.figures = ANALYSIS_NAMES("rank_spread_*", "top_kernels_*"),
};
