/*
 * history.c: the build history's analysis: a build's state (its digest,
 * the numbers kept from the analyses' tables), the change table, the runs
 * over the builds and the series' trends; see history.h. Its SQL is
 * store/history.c's, a state read back store/hstate.c's.
 */
#include "analyze/history/history.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/lib/profiled.h"
#include "analyze/lib/stats.h"
#include "analyze/time/step_stats.h"
#include "analyze/lib/verdict.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/sha256.h"
#include "util/xalloc.h"
#include "analyze/models/models.h"
#include "analyze/time/time_tables.h"

int64_t history_build_time(void)
{
	const char *e = getenv("SOURCE_DATE_EPOCH");
	if (e && *e) {
		char *end;
		errno = 0;
		long long v = strtoll(e, &end, 10);
		if (!*end && !errno && v >= 0)
			return v;
	}
	return (int64_t)time(NULL);
}

static struct hstate_run *find_run(const struct hstate *st, const char *run)
{
	return hstate_find_run(st, run);
}

static size_t find_str(char *const *v, size_t n, const char *s)
{
	return hstate_find_str(v, n, s);
}

/* SHA-256 of a state's canonical text (runs, inputs, numbers, sorted steps), 64 hex digits. */
static void hstate_digest(const struct hstate *st, char hex[65])
{
	struct buf b;
	buf_init(&b);
	for (size_t i = 0; i < st->nruns; i++) {
		const struct hstate_run *r = &st->runs[i];
		buf_printf(&b, "run %s\n", r->run);
		for (size_t j = 0; j < r->ninputs; j++)
			buf_printf(&b, "input %s %" PRId64 " %s\n", r->paths[j], r->sizes[j], r->sha256[j]);
		for (size_t j = 0; j < r->nnumbers; j++)
			buf_printf(&b, "number %s %.17g\n", r->metrics[j], r->values[j]);
		for (size_t j = 0; j < r->nsteps; j++)
			buf_printf(&b, "step %" PRId64 "\n", r->steps[j]);
		for (size_t j = 0; j < r->nlog; j++)
			buf_printf(&b, "iteration %" PRId64 "\n", r->log[j]);
	}
	struct sha256 h;
	sha256_init(&h);
	sha256_update(&h, b.data ? b.data : "", b.len);
	sha256_final_hex(&h, hex);
	buf_release(&b);
}

/* ---- the change table ---- */

static double number_of(const struct hstate_run *r, const char *metric, int *found)
{
	size_t i = find_str(r->metrics, r->nnumbers, metric);
	*found = i < r->nnumbers;
	return *found ? r->values[i] : NAN;
}

void history_change_row(struct table *t, const char *change, const char *run, const char *item, const char *old,
			const char *new)
{
	size_t row = table_add_row(t);
	table_set_text(t, row, CHG_CHANGE, change);
	table_set_text(t, row, CHG_RUN, run);
	table_set_text(t, row, CHG_ITEM, item);
	if (old)
		table_set_text(t, row, CHG_OLD, old);
	if (new)
		table_set_text(t, row, CHG_NEW, new);
}

/*
 * The step time row of the change table: the verdict in words (verdict.h:
 * direction, size, noise, threshold). A slower verdict beyond the noise
 * and the minimum effect is a regression (threshold_crossed names the
 * rule), whatever the manifest says.
 */
static size_t step_row(struct table *t, const struct hstate_run *a, const struct hstate_run *b,
		       const struct history_limits *lim, struct judgement *j)
{
	int use_log, same;
	if (history_step_judge(a, b, lim, j, &use_log, &same) < 0 || same)
		return 0; /* no samples, or the same samples: nothing to list, and nothing moved */
	size_t n = use_log ? a->nlog : a->nsteps, m = use_log ? b->nlog : b->nsteps;
	char ov[32], nv[32];
	snprintf(ov, sizeof(ov), "%.4g", (double)j->a.median_ns / 1e6);
	snprintf(nv, sizeof(nv), "%.4g", (double)j->b.median_ns / 1e6);
	char *item = xasprintf("%zu vs %zu %s; 95 %% intervals [%.4g, %.4g] and [%.4g, %.4g] ms", n, m,
			       use_log ? "unprofiled iterations of the training log" : "profiled steps (slowest rank)",
			       (double)j->a.ci_lo_ns / 1e6, (double)j->a.ci_hi_ns / 1e6, (double)j->b.ci_lo_ns / 1e6,
			       (double)j->b.ci_hi_ns / 1e6);
	history_change_row(t, "step time", b->run, item, ov, nv);
	free(item);
	size_t row = t->nrows - 1;
	table_set_real(t, row, CHG_DIFF_PCT, j->change * 100);
	if (j->testable)
		table_set_real(t, row, CHG_P_VALUE, j->p);
	int regression = j->verdict == VERDICT_SLOWER;
	char *words = verdict_words(j, history_min_effect(lim), "slower", "faster", regression);
	table_set_text(t, row, CHG_VERDICT, words);
	free(words);
	if (!regression)
		return 0;
	char *what = lim->step_time_pct > 0 ? xasprintf("step_time_pct %g", lim->step_time_pct)
					     : xasprintf("min effect %g %%", VERDICT_MIN_EFFECT * 100);
	table_set_text(t, row, CHG_THRESHOLD_CROSSED, what);
	free(what);
	return 1;
}

/*
 * The other headline numbers of a run that moved (the step_* numbers are
 * the step row's), each with its own test (history_number_judge) and its
 * verdict in words. mfu crosses mfu_pp only when it fell beyond its noise.
 */
static size_t number_rows(struct table *t, const struct hstate_run *a, const struct hstate_run *b,
			  const struct history_limits *lim)
{
	size_t crossed = 0;
	char ov[32], nv[32];
	for (size_t i = 0; i < b->nnumbers; i++) {
		int found;
		double old = number_of(a, b->metrics[i], &found), cur = b->values[i];
		/* under 0.01 % is the rounding of the times' last digits (a pure stretch of every time moves
		   gpu_busy_frac by 2e-6), not a change */
		if (!found || fabs(cur - old) <= 1e-4 * fabs(old) || !strncmp(b->metrics[i], "step", 4))
			continue;
		snprintf(ov, sizeof(ov), "%.6g", old);
		snprintf(nv, sizeof(nv), "%.6g", cur);
		history_change_row(t, "moved", b->run, b->metrics[i], ov, nv);
		size_t row = t->nrows - 1;
		if (old != 0)
			table_set_real(t, row, CHG_DIFF_PCT, (cur - old) / fabs(old) * 100);
		struct judgement j;
		if (history_number_judge(a, b, b->metrics[i], &j) < 0) {
			table_set_text(t, row, CHG_VERDICT, "no samples to test");
			continue;
		}
		if (j.testable)
			table_set_real(t, row, CHG_P_VALUE, j.p);
		/* the words' direction and size are the number's own, the noise its samples' */
		j.change = old != 0 ? (cur - old) / fabs(old) : 0;
		char *words = verdict_words(&j, 0, "higher", "lower", 0);
		table_set_text(t, row, CHG_VERDICT, words);
		free(words);
		if (j.beyond && !strcmp(b->metrics[i], "mfu") && lim->mfu_pp < 0 && (cur - old) * 100 < lim->mfu_pp) {
			char *what = xasprintf("mfu_pp %g", lim->mfu_pp);
			table_set_text(t, row, CHG_THRESHOLD_CROSSED, what);
			free(what);
			crossed++;
		}
	}
	return crossed;
}

struct table *history_changes(const struct hstate *old, const struct hstate *cur, const struct history_limits *lim,
			      size_t *crossed)
{
	struct table *t = table_new("changes", "What changed since the build before", TABLE_SCHEMA(CHANGES_COLUMNS));
	*crossed = 0;
	for (size_t i = 0; i < cur->nruns; i++)
		if (!find_run(old, cur->runs[i].run))
			history_change_row(t, "run added", cur->runs[i].run, "", NULL, NULL);
	for (size_t i = 0; i < old->nruns; i++)
		if (!find_run(cur, old->runs[i].run))
			history_change_row(t, "run removed", old->runs[i].run, "", NULL, NULL);
	for (size_t i = 0; i < cur->nruns; i++) {
		const struct hstate_run *a = find_run(old, cur->runs[i].run);
		if (!a)
			continue;
		history_input_rows(t, a, &cur->runs[i]);
		struct judgement j;
		*crossed += step_row(t, a, &cur->runs[i], lim, &j);
		*crossed += number_rows(t, a, &cur->runs[i], lim);
	}
	return t;
}

/* ---- this build's state ---- */

/* Cell (row, c) of t as a real (COL_US in us), c its contract's enum; NAN when null. */
static double cell_real(const struct table *t, size_t row, int c)
{
	if (c < 0)
		return NAN;
	const struct cell *x = table_cell(t, row, (size_t)c);
	if (x->null)
		return NAN;
	return t->cols[c].type == COL_US ? (double)x->v.i / 1000 : t->cols[c].type == COL_INT ? (double)x->v.i : x->v.f;
}

/*
 * The headline numbers of each run, from the analyses' tables:
 * step_stats.csv (steps, step_median_us, step_ci_low_us, step_ci_high_us,
 * step_min_us, step_max_us, step_mean_us), utilization.csv
 * (achieved_tflops_per_gpu, mfu, samples_per_s = global_batch / step time)
 * and temporal.csv (gpu_busy_frac = the ranks' summed exact span minus
 * exact idle over their summed exact span: the trace's own times, not
 * HTA's rounded ones, which move when every time is stretched).
 */
static int insert_numbers(struct store_stmt *ins, const struct analysis_result *res)
{
	static const struct {
		int col;
		const char *key;
	} stat_cols[] = {
		{SS_STEPS, "steps"},           {SS_MEDIAN_US, "step_median_us"}, {SS_CI_LOW_US, "step_ci_low_us"},
		{SS_CI_HIGH_US, "step_ci_high_us"}, {SS_MIN_US, "step_min_us"}, {SS_MAX_US, "step_max_us"},
		{SS_MEAN_US, "step_mean_us"},
	};
	const struct table *t = result_table(res, "step_stats");
	for (size_t r = 0; t && r < t->nrows; r++)
		for (size_t k = 0; k < sizeof(stat_cols) / sizeof(stat_cols[0]); k++)
			if (store_history_put_number(ins, table_cell(t, r, SS_RUN)->v.text, stat_cols[k].key, cell_real(t, r, stat_cols[k].col)) < 0)
				return -1;
	t = result_table(res, "utilization");
	for (size_t r = 0; t && r < t->nrows; r++) {
		const char *run = table_cell(t, r, UT_RUN)->v.text;
		double step_us = cell_real(t, r, UT_STEP_US), batch = cell_real(t, r, UT_GLOBAL_BATCH);
		if (store_history_put_number(ins, run, "achieved_tflops_per_gpu", cell_real(t, r, UT_ACHIEVED_TFLOPS_PER_GPU)) < 0 ||
		    store_history_put_number(ins, run, "mfu", cell_real(t, r, UT_MFU)) < 0 ||
		    store_history_put_number(ins, run, "samples_per_s", step_us > 0 ? batch / (step_us / 1e6) : NAN) < 0)
			return -1;
	}
	t = result_table(res, "temporal");
	for (size_t r = 0; t && r < t->nrows;) {
		const char *run = table_cell(t, r, TEMPORAL_RUN)->v.text;
		double span = 0, idle = 0;
		for (; r < t->nrows && !strcmp(table_cell(t, r, TEMPORAL_RUN)->v.text, run); r++) {
			span += cell_real(t, r, TEMPORAL_EXACT_SPAN_US);
			idle += cell_real(t, r, TEMPORAL_EXACT_IDLE_US);
		}
		if (span > 0 && store_history_put_number(ins, run, "gpu_busy_frac", (span - idle) / span) < 0)
			return -1;
	}
	return 0;
}

/* Stages this build's state of exp as build `build`. */
static int stage_state(struct store *s, const char *exp, int64_t build, const struct manifest *m,
		       const struct classifier *cls, const struct analysis_result *res)
{
	/* the step times: the training log's unprofiled iterations (profiled.h) beside the profiled steps */
	if (store_history_stage_build(s, exp, build, SQL_UNPROFILED_ITERATION_OF("t", "t.run_id")) < 0)
		return -1;
	struct store_stmt *ins = store_history_numbers(s, exp, build);
	if (!ins)
		return -1;
	int r = insert_numbers(ins, res);
	if (r < 0)
		store_fail(s, "history: stage this build's numbers");
	store_finalize(ins);
	return r < 0 ? r : history_parts_stage(s, exp, m, cls, build);
}

/* ---- series ---- */

/* A chart name from a series name, one per exact name ("A" and "a" are two series): fs_name_stem. */
static char *trend_name(const char *series)
{
	return fs_figure_name("trend_", series, NULL);
}

/*
 * series.csv and one trend figure per series: each run's step time
 * distribution, in the series' order, with the test against the run
 * before it in the series.
 */
static int add_series(struct store *s, const char *exp, const struct manifest *m, struct analysis_result *res)
{
	if (!m || !m->nseries)
		return 0;
	struct table *t = table_new("series", "Runs of each series in order: step time and the change from the run before",
				    TABLE_SCHEMA(SERIES_COLUMNS));
	int ret = 0;
	for (size_t i = 0; i < m->nseries && !ret; i++) {
		const struct manifest_series *se = &m->series[i];
		char *name = trend_name(se->name);
		char *title = xasprintf("Series %s: median step time, 95%% interval, min to max", se->name);
		struct chart *c = chart_new(CHART_LINE, name, title, "step time (ms)");
		chart_add_series(c, "median step time");
		c->entity_series = 1; /* a line through runs, not a category of time: black (chart_style) */
		int64_t *prev = NULL;
		size_t nprev = 0;
		struct step_dist pd = {0};
		for (size_t k = 0; k < se->nruns && !ret; k++) {
			int64_t *v, ranks;
			size_t n;
			if (step_samples(s, exp, se->runs[k], &v, &n, &ranks) < 0) {
				ret = -1;
				break;
			}
			size_t row = table_add_row(t), cat = chart_add_category(c, se->runs[k]);
			table_set_text(t, row, 0, se->name);
			table_set_int(t, row, 1, (int64_t)k + 1);
			table_set_text(t, row, 2, se->runs[k]);
			table_set_int(t, row, 3, (int64_t)n);
			chart_set(c, cat, 0, NAN);
			struct step_dist d = {0};
			if (n) {
				stats_dist(v, n, &d);
				table_set_ns(t, row, 4, d.median_ns);
				table_set_ns(t, row, 5, d.ci_lo_ns);
				table_set_ns(t, row, 6, d.ci_hi_ns);
				chart_set(c, cat, 0, (double)d.median_ns / 1e6);
				chart_set_spread(c, cat, (double)d.min_ns / 1e6, (double)d.max_ns / 1e6,
						 (double)d.ci_lo_ns / 1e6, (double)d.ci_hi_ns / 1e6);
			}
			if (n && nprev) {
				struct mw_test mw;
				stats_mann_whitney(prev, nprev, v, n, &mw);
				if (pd.median_ns > 0)
					table_set_real(t, row, 7, (double)d.median_ns / (double)pd.median_ns);
				table_set_real(t, row, 8, mw.p);
				table_set_text(t, row, 9, step_verdict(&mw, nprev, n));
			}
			free(prev);
			prev = v;
			nprev = n;
			pd = d;
		}
		free(prev);
		char *caption = xasprintf("Series %s: the median step time of each of its runs in the manifest's order "
					  "(line), its confidence interval (thick) and the fastest to the slowest step "
					  "(whisker), in milliseconds; series.csv says which steps moved beyond the noise.",
					  se->name);
		result_add_figure(res, c, caption);
		free(caption);
		free(title);
		free(name);
	}
	result_add_table(res, t);
	result_add_method(res, "series.csv",
			  "For each series of the manifest ('series'), its runs in the order given: the step time "
			  "distribution of step_stats.csv (n, median, its order-statistic interval) and, from the "
			  "second run on, ratio_to_previous = median / the previous run's median and the two-sided "
			  "Mann-Whitney test of the two runs' step times, as in step_compare.csv ('change' when "
			  "p < 0.05, 'too few steps' where so few steps cannot reach it, else 'within noise'). The "
			  "trend figures draw the same numbers.");
	return ret;
}

/* ---- the runs over the builds ---- */

/*
 * history.csv and the figure history: every run's step time in every build
 * the output directory records, on the samples the change table judges (the
 * training log's unprofiled iterations when the build has them, else one
 * per profiled step, the slowest rank's), with gpu_busy_frac and mfu as
 * recorded. Only once there are two builds or more.
 */
static int add_history(struct store *s, const char *exp, int64_t last, struct analysis_result *res)
{
	struct table *t = table_new("history", "Every run's step time over the builds of this output directory",
				    TABLE_SCHEMA(HISTORY_COLUMNS));
	struct chart *c = chart_new(CHART_LINE, "history", "Median step time of each run over the builds",
				    "step time (ms)");
	c->entity_series = 1; /* runs, not categories of time: greys (chart_style) */
	char **runs = NULL;
	size_t nruns = 0;
	for (int64_t b = 1; b <= last; b++) {
		struct hstate st;
		if (hstate_load(s, "temp.h_", exp, b, &st) < 0) {
			for (size_t i = 0; i < nruns; i++)
				free(runs[i]);
			free(runs);
			table_free(t);
			chart_free(c);
			return -1;
		}
		char label[32];
		snprintf(label, sizeof(label), "build %" PRId64, b);
		size_t cat = chart_add_category(c, label);
		for (size_t i = 0; i < st.nruns; i++) {
			const struct hstate_run *r = &st.runs[i];
			size_t k = 0;
			while (k < nruns && strcmp(runs[k], r->run))
				k++;
			if (k == nruns) {
				runs = xrealloc(runs, (nruns + 1) * sizeof(*runs));
				runs[nruns++] = xstrdup(r->run);
				chart_add_series(c, r->run);
				for (size_t x = 0; x < cat; x++)
					chart_set(c, x, k, NAN);
			}
			chart_set(c, cat, k, NAN);
			int use_log = r->nlog > 0;
			size_t n = use_log ? r->nlog : r->nsteps;
			size_t row = table_add_row(t);
			table_set_int(t, row, 0, b);
			table_set_text(t, row, 1, r->run);
			table_set_int(t, row, 2, (int64_t)n);
			table_set_text(t, row, 3, !n ? "none" : use_log ? "training log" : "profiled steps");
			if (n) {
				int64_t *v = xmalloc(n * sizeof(*v));
				memcpy(v, use_log ? r->log : r->steps, n * sizeof(*v));
				struct step_dist d;
				stats_dist(v, n, &d);
				free(v);
				table_set_ns(t, row, 4, d.median_ns);
				table_set_ns(t, row, 5, d.ci_lo_ns);
				table_set_ns(t, row, 6, d.ci_hi_ns);
				chart_set(c, cat, k, (double)d.median_ns / 1e6);
			}
			int found;
			double busy = number_of(r, "gpu_busy_frac", &found);
			if (found)
				table_set_real(t, row, 7, busy);
			double mfu = number_of(r, "mfu", &found);
			if (found)
				table_set_real(t, row, 8, mfu);
		}
		/* runs absent from this build: no point */
		for (size_t k = 0; k < nruns; k++)
			if (!find_run(&st, runs[k]))
				chart_set(c, cat, k, NAN);
		hstate_release(&st);
	}
	for (size_t i = 0; i < nruns; i++)
		free(runs[i]);
	free(runs);
	result_add_table(res, t);
	result_add_figure(res, c, "Median step time of each run (one grey line each) in every build this output "
				  "directory records, on the samples history.csv names: the training log's unprofiled "
				  "iterations, else the profiled steps (the slowest rank's), in milliseconds.");
	result_add_method(res, "history.csv",
			  "One row per run and build recorded in this output directory (history_* tables of "
			  "perfstudy.db): the step time's samples as changes.csv judges them (source: the training "
			  "log's unprofiled iterations when the build has them, else one per profiled step, the "
			  "slowest rank's), their median and its 95 % order-statistic interval, and the run's "
			  "gpu_busy_frac and mfu as that build recorded them. Shown once there are two builds.");
	return 0;
}

/* ---- the build's record ---- */

int history_record(struct store *s, const char *exp, const struct manifest *m, const struct classifier *cls,
		   struct analysis_result *res, int64_t built_at)
{
	int64_t last;
	char last_digest[65], digest[65];
	if (store_history_last_build(s, exp, &last, last_digest) < 0 || stage_state(s, exp, last + 1, m, cls, res) < 0)
		return -1;
	struct hstate cur, old;
	if (hstate_load(s, "temp.h_", exp, last + 1, &cur) < 0)
		return -1;
	hstate_digest(&cur, digest);
	int64_t build = last + 1;
	if (!strcmp(digest, last_digest)) {
		/* Nothing changed since the last build recorded: it stays the latest; it keeps its parts, or,
		   recorded by a perfstudy before them, takes this build's (the parts follow from the inputs,
		   which are the same). */
		build = last;
		hstate_release(&cur);
		if (store_history_adopt_parts(s, exp, last) < 0 || store_history_drop_build(s, exp, last + 1) < 0 ||
		    hstate_load(s, "temp.h_", exp, last, &cur) < 0)
			return -1;
	} else {
		if (store_history_add_build(s, exp, build, built_at, PERFSTUDY_VERSION, digest) < 0) {
			hstate_release(&cur);
			return -1;
		}
		cur.build = build;
	}
	struct history_limits lim = {m ? m->thresholds.step_time_pct : 0, m ? m->thresholds.mfu_pp : 0};
	if (build > 1) {
		if (hstate_load(s, "temp.h_", exp, build - 1, &old) < 0) {
			hstate_release(&cur);
			return -1;
		}
		size_t crossed;
		struct table *t = history_changes(&old, &cur, &lim, &crossed);
		free(t->title);
		t->title = xasprintf("What changed from build %" PRId64 " to build %" PRId64 " of this output directory",
				     build - 1, build);
		if (!t->nrows)
			result_add_note(res, "Build history: build %" PRId64 " differs from build %" PRId64
					" only in numbers' last digits or run order; nothing to list", build, build - 1);
		if (crossed)
			result_add_note(res, "changes.csv: %zu regression%s: a run's step time got slower beyond "
					"the noise and the minimum effect, or mfu fell past the manifest's mfu_pp "
					"(perfstudy diff exits 4 on such a change)",
					crossed, crossed == 1 ? "" : "s");
		result_add_table(res, t);
		hstate_release(&old);
		if (add_history(s, exp, build, res) < 0) {
			hstate_release(&cur);
			return -1;
		}
	} else {
		result_add_note(res, "Build history: this is the first build this output directory records (build 1); "
				"a later build lists what changed since the one before");
	}
	hstate_release(&cur);
	result_add_method(res, "changes.csv",
			  "Each build records in perfstudy.db (history_* tables, carried over from the previous "
			  "build's store in the output directory) every run's inputs with their SHA-256, its headline "
			  "numbers and its step times; a build that changes none of them records nothing new. The "
			  "table compares the latest build with the one before: runs added or removed, inputs added, "
			  "removed or re-read (another SHA-256, first 12 hex digits shown), inputs moved (one row per "
			  "run: inputs of another path matched by rank and format, or also by file name where a rank has "
			  "several of a format; old and new their common directories, item how many and how many "
			  "with other contents), each run's step time, "
			  "and every other number that moved by more than 0.01 %. Step time ('step time' rows, old and new the medians "
			  "in ms): the samples are the unprofiled iterations of the run's training log when both "
			  "builds have them (iterations from the third on, leaving out the profiler's window: "
			  "ProfilerStep#N is iteration N + 1, with the two iterations of the profiler's warm-up before "
			  "the first profiled one and the trace's export after the last), else one sample per "
			  "profiled step, the slowest rank's (ranks of one step are not independent samples); item "
			  "says which and how many, with each median's 95 % interval. diff_pct = (new - old) / old "
			  "x 100 of the medians. The verdict follows pyperf, asv and Google benchmark, in words: "
			  "the change is beyond the noise when the two 95 % intervals do not overlap or the "
			  "two-sided Mann-Whitney test gives p_value < 0.05 where the sample sizes allow one (with n "
			  "and m samples the smallest p is 2 / C(n + m, n), 0.1 for 3 and 3, so no test is run and "
			  "the words say the intervals decided); then 'slower by X %' or 'faster by X %' and whether "
			  "|diff_pct| is over or under the minimum effect (the manifest's thresholds.step_time_pct, "
			  "else 5 %), e.g. 'slower by 2.7 % (beyond noise, under the 5 % threshold)'; else 'same "
			  "(within noise)'. Slower beyond the noise and over the minimum effect is a regression: the "
			  "words are then 'slower by X %', threshold_crossed names the rule (step_time_pct P, or min "
			  "effect 5 %) and perfstudy diff exits 4. The other numbers (achieved_tflops_per_gpu, mfu "
			  "and samples_per_s = global batch / step time from utilization.csv; gpu_busy_frac = (exact "
			  "span - exact idle) / exact span summed over the ranks of temporal.csv) each get their own "
			  "test and p_value: gpu_busy_frac on one sample per profiled step, the mean over the ranks "
			  "of the step's busy share (union of GPU activities / step); the other three are a constant "
			  "over the step time, so their samples are the step samples' reciprocals, on which the rank "
			  "test gives the step time's p. Their words are 'higher by X %' or 'lower by X % (beyond "
			  "noise)', else 'same (within noise)'; mfu_pp D is crossed when mfu fell beyond its noise "
			  "by more than -D percentage points. The time of "
			  "each build is kept in history_builds only, so pages and CSVs stay the same bytes for the "
			  "same inputs.");
	return add_series(s, exp, m, res);
}

int history_write(struct store *s, const char *const *exps, const struct manifest *const *manifests, size_t nexp)
{
	struct store_stmt *q = NULL;
	int ret = store_history_write(s);
	for (size_t i = 0; !ret && i < nexp; i++) {
		const struct manifest *m = manifests[i];
		const char *metric[2] = {"step_time_pct", "mfu_pp"};
		double v[2] = {m ? m->thresholds.step_time_pct : 0, m ? m->thresholds.mfu_pp : 0};
		for (int k = 0; k < 2 && !ret; k++)
			if (v[k] != 0)
				ret = store_history_put_threshold(s, &q, exps[i], metric[k], v[k]);
	}
	store_finalize(q);
	return ret;
}

/* The registry's entry "history": history_record for the experiment analysed. */
static int analysis_history(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	return history_record(ctx->store, ctx->experiment, ctx->manifest, ctx->cls, out, ctx->built_at);
}

const struct analysis_def analysis_def_history = {
	.name = "history",
	.run = analysis_history,
	.needs = ANALYSIS_TABLES("step_stats", "utilization", "temporal"),
	.makes = ANALYSIS_TABLES("changes", "series", "history"),
	.figures = ANALYSIS_NAMES("history", "trend_*"),
};
