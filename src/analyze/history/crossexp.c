/*
 * crossexp.c: comparisons across experiments (comparisons.csv, figures
 * comparison_<id>), see crossexp.h.
 *
 * Per comparison and named run r of experiment X: the rows of X's table T
 * (the metric "T.C") whose column 'run' is r; value = the mean of column C
 * over those rows (one row for most tables; one per rank for per-rank
 * tables such as phases.csv), or, with stack_by K, one value per distinct
 * K of those rows, each the mean over its rows. Times (us columns) are in
 * microseconds. Against the comparison's baseline b (its first run unless
 * named): ratio = value(r) / value(b) for the same K; change_pct =
 * (ratio - 1) x 100. GPUs: X's run table. System: the comparison's
 * 'systems' label of X, else X's id.
 */
#include "analyze/history/crossexp.h"
#include "analyze/time/profiler_overhead.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart/chart.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "analyze/time/time_tables.h"

static const struct crossexp_exp *find_exp(const struct crossexp_exp *e, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(e[i].id, id))
			return &e[i];
	return NULL;
}

static int has_run(const struct crossexp_exp *x, const char *run)
{
	for (size_t i = 0; i < x->nruns; i++)
		if (!strcmp(x->runs[i], run))
			return 1;
	return 0;
}

int crossexp_check(const struct crossexp_exp *e, size_t n)
{
	int ret = 0;
	for (size_t i = 0; i < n; i++) {
		const struct manifest *m = e[i].manifest;
		for (size_t c = 0; m && c < m->ncomparisons; c++)
			for (size_t j = 0; j < m->comparisons[c].nruns; j++) {
				const struct manifest_ref *r = &m->comparisons[c].runs[j];
				char *where = xasprintf("%s:%d:%d", m->path, r->line, r->col);
				const struct crossexp_exp *x = find_exp(e, n, r->exp ? r->exp : e[i].id);
				if (!x) {
					diag_warning(where, "experiment '%s' is not in this build: comparison '%s' leaves "
						     "%s/%s out", r->exp, m->comparisons[c].id, r->exp, r->run);
				} else if (!has_run(x, r->run)) {
					diag_error(where, "unknown run '%s' of experiment '%s' in 'comparisons'", r->run, x->id);
					ret = -1;
				}
				free(where);
			}
	}
	return ret;
}

/* One named run's values: one per key (a single key "" without stack_by). */
struct point {
	const struct manifest_ref *ref;
	const struct crossexp_exp *x;
	const char *system;
	int64_t gpus; /* 0: unknown */
	double *v;    /* per key; NaN: none */
};

static const char *system_of(const struct manifest_comparison *cp, const char *exp)
{
	for (size_t i = 0; i < cp->nsystems; i++)
		if (!strcmp(cp->system_exp[i], exp))
			return cp->system_label[i];
	return exp;
}

static double cell_value(const struct table *t, size_t row, size_t col)
{
	const struct cell *c = table_cell(t, row, col);
	if (c->null)
		return NAN;
	switch (t->cols[col].type) {
	case COL_US:
		return (double)c->v.i / 1e3;
	case COL_INT:
		return (double)c->v.i;
	default:
		return c->v.f;
	}
}

/* The index of key in keys[], added when new. */
static size_t key_index(char ***keys, size_t *nkeys, size_t *cap, const char *key)
{
	for (size_t i = 0; i < *nkeys; i++)
		if (!strcmp((*keys)[i], key))
			return i;
	*keys = xgrow(*keys, cap, *nkeys + 1, sizeof(**keys));
	(*keys)[*nkeys] = xstrdup(key);
	return (*nkeys)++;
}

/*
 * Fills the comparison's points and keys. Returns 0, or -1 after an error
 * (a metric or stack_by column the table does not have or cannot use).
 */
static int collect(const struct crossexp_exp *e, size_t n, size_t self, const struct manifest_comparison *cp,
		   struct analysis_result *out, struct point *pts, size_t *npts, char ***keys, size_t *nkeys)
{
	const struct manifest *m = e[self].manifest;
	size_t cap = 0;
	*npts = 0;
	if (!cp->stack_by)
		key_index(keys, nkeys, &cap, "");
	/* Two passes: the keys first (their order: first seen), then the values. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t j = 0; j < cp->nruns; j++) {
			const struct manifest_ref *r = &cp->runs[j];
			const struct crossexp_exp *x = find_exp(e, n, r->exp ? r->exp : e[self].id);
			if (!x || !x->res)
				continue;
			const struct table *t = result_table(x->res, cp->table);
			if (t && t->internal) /* no CSV of that name (table.h): as a table left out */
				t = NULL;
			char *where = xasprintf("%s:%d:%d", m->path, cp->line, cp->col);
			int crun = t ? table_col_index(t, "run") : -1, cv = t ? table_col_index(t, cp->column) : -1;
			int ck = t && cp->stack_by ? table_col_index(t, cp->stack_by) : -1;
			int bad = 0;
			if (!t) {
				if (pass)
					result_add_note(out, "comparisons.csv: comparison %s: experiment %s has no %s.csv (a "
							"table with no rows is left out), so %s/%s has no value", cp->id, x->id,
							cp->table, x->id, r->run);
			} else if (crun < 0 || cv < 0 || t->cols[cv].type == COL_TEXT) {
				diag_error(where, "comparison '%s': %s.csv of experiment '%s' has no %s column '%s'", cp->id,
					   cp->table, x->id, crun < 0 ? "'run' column to find runs by, nor a" : "numeric",
					   cp->column);
				bad = 1;
			} else if (cp->stack_by && (ck < 0 || t->cols[ck].type != COL_TEXT)) {
				diag_error(where, "comparison '%s': %s.csv of experiment '%s' has no text column '%s' for "
					   "'stack_by'", cp->id, cp->table, x->id, cp->stack_by);
				bad = 1;
			}
			free(where);
			if (bad)
				return -1;
			struct point *p = pass ? &pts[(*npts)++] : NULL;
			double *sum = NULL;
			int *cnt = NULL;
			if (p) {
				p->ref = r;
				p->x = x;
				p->system = system_of(cp, x->id);
				int cg = RUNS_GPUS;
				for (size_t row = 0; cg >= 0 && row < x->res->runs->nrows; row++)
					if (!strcmp(table_cell(x->res->runs, row, RUNS_RUN)->v.text, r->run) &&
					    !table_cell(x->res->runs, row, (size_t)cg)->null)
						p->gpus = table_cell(x->res->runs, row, (size_t)cg)->v.i;
				p->v = xcalloc(*nkeys + 1, sizeof(*p->v));
				sum = xcalloc(*nkeys + 1, sizeof(*sum));
				cnt = xcalloc(*nkeys + 1, sizeof(*cnt));
			}
			for (size_t row = 0; t && row < t->nrows; row++) {
				const struct cell *rc = table_cell(t, row, (size_t)crun);
				if (rc->null || strcmp(rc->v.text, r->run))
					continue;
				const char *key = "";
				if (cp->stack_by) {
					const struct cell *kc = table_cell(t, row, (size_t)ck);
					key = kc->null ? "" : kc->v.text;
				}
				if (!pass) {
					if (cp->stack_by)
						key_index(keys, nkeys, &cap, key);
					continue;
				}
				double v = cell_value(t, row, (size_t)cv);
				size_t k = key_index(keys, nkeys, &cap, key);
				if (!isnan(v)) {
					sum[k] += v;
					cnt[k]++;
				}
			}
			if (p)
				for (size_t k = 0; k < *nkeys; k++)
					p->v[k] = cnt[k] ? sum[k] / cnt[k] : NAN;
			free(sum);
			free(cnt);
		}
	}
	return 0;
}

/* relative.csv's columns (models.c) in words, without their unit. */
static const struct {
	const char *code, *shown;
} column_words[] = {
	{"comm_pct", "communication share"},
	{"compute_pct", "compute share"},
	{"time_x", "training time"},
	{"comm_time_x", "communication time"},
	{"comm_share_x", "communication share"},
	{"time_saved_pct", "training time saved"},
};

/* "system, N GPUs" (the run id too when two runs of a system have the same GPU count). */
static void bar_label(const struct point *pts, size_t npts, size_t i, struct buf *out)
{
	buf_reset(out);
	buf_adds(out, pts[i].system);
	if (pts[i].gpus)
		buf_printf(out, ", %lld GPU%s", (long long)pts[i].gpus, pts[i].gpus == 1 ? "" : "s");
	for (size_t j = 0; j < npts; j++)
		if (j != i && pts[j].gpus == pts[i].gpus && !strcmp(pts[j].system, pts[i].system)) {
			buf_printf(out, ", %s", pts[i].ref->run);
			break;
		}
}

/*
 * Without stack_by: grouped bars, one category per GPU count (ascending),
 * one series per system (a system's second run of the same GPU count gets
 * its own series). With stack_by: one stacked bar per run, a segment per key.
 */
static struct chart *comparison_chart(const struct manifest_comparison *cp, const struct point *pts, size_t npts,
				      char **keys, size_t nkeys)
{
	char *name = xasprintf("comparison_%s", cp->id);
	char *title = cp->title ? xstrdup(cp->title) : xasprintf("%s.%s by system and GPU count", cp->table, cp->column);
	/*
	 * The metric in words ("samples_per_s" -> "samples per s"); a column in
	 * us is drawn in ms ("cpu_us" -> "cpu time (ms, phases.csv)"), its
	 * table keeps us.
	 */
	size_t len = strlen(cp->column);
	int in_us = len > 3 && !strcmp(cp->column + len - 3, "_us");
	double scale = in_us ? 1e-3 : 1;
	/* A share in % ("comm_pct") or a multiple of a reference run ("time_x") says its unit. */
	const char *unit = len > 4 && !strcmp(cp->column + len - 4, "_pct") ? "%"
			   : len > 2 && !strcmp(cp->column + len - 2, "_x") ? "x the reference run"
									     : NULL;
	char *stem = xstrndup(cp->column, in_us ? len - 3 : unit ? len - (unit[0] == '%' ? 4 : 2) : len);
	char *column = NULL;
	for (size_t i = 0; i < sizeof(column_words) / sizeof(column_words[0]); i++)
		if (!strcmp(cp->column, column_words[i].code))
			column = xstrdup(column_words[i].shown);
	if (!column)
		column = chart_display_name(stem);
	int says_time = strlen(column) >= 4 && !strcmp(column + strlen(column) - 4, "time");
	char *axis = in_us  ? xasprintf("%s%s (ms, %s.csv)", column, says_time ? "" : " time", cp->table)
		     : unit ? xasprintf("%s (%s, %s.csv)", column, unit, cp->table)
			    : xasprintf("%s (%s.csv)", column, cp->table);
	free(stem);
	free(column);
	struct chart *c = chart_new(cp->stack_by ? CHART_STACKED_BAR : CHART_GROUPED_BAR, name, title, axis);
	free(name);
	free(title);
	free(axis);
	struct buf label;
	buf_init(&label);
	if (cp->stack_by) {
		chart_set_x_axis(c, "system, GPUs", CHART_SCALE_LINEAR);
		for (size_t k = 0; k < nkeys; k++)
			chart_add_series(c, keys[k]);
		for (size_t i = 0; i < npts; i++) {
			bar_label(pts, npts, i, &label);
			size_t cat = chart_add_category(c, label.data);
			for (size_t k = 0; k < nkeys; k++)
				chart_set(c, cat, k, isnan(pts[i].v[k]) ? 0 : pts[i].v[k] * scale);
		}
	} else {
		/* A series per system: configurations of runs, in greys (chart_style); categories are GPU counts. */
		c->entity_series = 1;
		int any_gpus = 0;
		for (size_t i = 0; i < npts; i++)
			any_gpus |= pts[i].gpus != 0;
		chart_set_x_axis(c, any_gpus ? "GPU count" : "system", CHART_SCALE_LINEAR);
		if (!any_gpus) {
			/* No GPU counts: a bar per system, named on the x axis (a tick each), one series. */
			size_t s = chart_add_series(c, cp->column);
			for (size_t i = 0; i < npts; i++) {
				bar_label(pts, npts, i, &label);
				chart_set(c, chart_add_category(c, label.data), s, isnan(pts[i].v[0]) ? 0 : pts[i].v[0] * scale);
			}
			buf_release(&label);
			return c;
		}
		int64_t *g = xcalloc(npts + 1, sizeof(*g));
		size_t ng = 0;
		for (size_t i = 0; i < npts; i++) {
			size_t at = 0;
			while (at < ng && g[at] < pts[i].gpus)
				at++;
			if (at < ng && g[at] == pts[i].gpus)
				continue;
			memmove(&g[at + 1], &g[at], (ng - at) * sizeof(*g));
			g[at] = pts[i].gpus;
			ng++;
		}
		for (size_t j = 0; j < ng; j++) {
			buf_reset(&label);
			/* Runs without a GPU count: one unnamed category when none has one (the key names the systems). */
			if (g[j])
				buf_printf(&label, "%lld GPU%s", (long long)g[j], g[j] == 1 ? "" : "s");
			else if (any_gpus)
				buf_adds(&label, "GPUs not given");
			chart_add_category(c, label.data);
		}
		for (size_t i = 0; i < npts; i++) {
			size_t cat = 0;
			while (g[cat] != pts[i].gpus)
				cat++;
			/* The system's series, unless it already has a bar here. */
			size_t s = 0;
			while (s < c->nseries && (strcmp(c->series[s], pts[i].system) || !isnan(chart_get(c, cat, s))))
				s++;
			if (s == c->nseries) {
				buf_reset(&label);
				buf_adds(&label, pts[i].system);
				for (size_t q = 0; q < c->nseries; q++)
					if (!strcmp(c->series[q], pts[i].system))
						buf_printf(&label, ", %s", pts[i].ref->run);
				s = chart_add_series(c, label.data);
				for (size_t k = 0; k < c->ncat; k++)
					chart_set(c, k, s, NAN);
			}
			chart_set(c, cat, s, pts[i].v[0] * scale);
		}
		/* Bars a system does not have stay empty (0 draws nothing). */
		for (size_t k = 0; k < c->ncat; k++)
			for (size_t s = 0; s < c->nseries; s++)
				if (isnan(chart_get(c, k, s)))
					chart_set(c, k, s, 0);
		free(g);
	}
	buf_release(&label);
	return c;
}

/*
 * Where a compared run has a training log (profiler_overhead.csv of its
 * experiment), the caption says so beside the values, which are a
 * trace's: each such run's unprofiled median iteration and its ratio to
 * the baseline's, the training's own speedup or slowdown per iteration,
 * which the profiler does not distort.
 */
static void log_beside(const struct point *pts, size_t npts, const struct point *bp, struct buf *out)
{
	int64_t base = bp ? profiler_unprofiled_ns(bp->x->res, bp->ref->run) : 0;
	int any = 0;
	for (size_t i = 0; i < npts; i++) {
		int64_t v = profiler_unprofiled_ns(pts[i].x->res, pts[i].ref->run);
		if (v <= 0)
			continue;
		buf_adds(out, any ? "; " : " Values from profiled steps, which the profiler slows unevenly; the training "
					   "logs' unprofiled median iteration (profiler_overhead.csv): ");
		any = 1;
		buf_printf(out, "%s %.1f ms", pts[i].ref->run, (double)v / 1e6);
		if (base > 0 && &pts[i] != bp)
			buf_printf(out, " (%.3gx the baseline's)", (double)v / (double)base);
	}
	if (any)
		buf_adds(out, ".");
}

int crossexp_add(const struct crossexp_exp *e, size_t n, size_t self, struct analysis_result *out)
{
	const struct manifest *m = e[self].manifest;
	if (!m || !m->ncomparisons)
		return 0;
	struct table *t = table_new("comparisons", "Runs of several experiments side by side: values and ratios to a baseline",
				    TABLE_SCHEMA(COMPARISONS_COLUMNS));
	int ret = 0;
	struct buf ref;
	buf_init(&ref);
	for (size_t c = 0; c < m->ncomparisons && !ret; c++) {
		const struct manifest_comparison *cp = &m->comparisons[c];
		struct point *pts = xcalloc(cp->nruns + 1, sizeof(*pts));
		char **keys = NULL;
		size_t npts = 0, nkeys = 0;
		if (collect(e, n, self, cp, out, pts, &npts, &keys, &nkeys) < 0) {
			ret = -1;
		} else if (npts) {
			const struct manifest_ref *b = &cp->runs[cp->baseline];
			const struct point *bp = NULL;
			for (size_t i = 0; i < npts; i++)
				if (pts[i].ref == b)
					bp = &pts[i];
			if (!bp)
				result_add_note(out, "comparisons.csv: comparison %s: its baseline %s%s%s is not in this "
						"build, so it has no ratios", cp->id, b->exp ? b->exp : "", b->exp ? "/" : "",
						b->run);
			for (size_t i = 0; i < npts; i++)
				for (size_t k = 0; k < nkeys; k++) {
					size_t row = table_add_row(t);
					table_set_text(t, row, 0, cp->id);
					table_set_text(t, row, 1, pts[i].system);
					table_set_text(t, row, 2, pts[i].x->id);
					table_set_text(t, row, 3, pts[i].ref->run);
					if (pts[i].gpus)
						table_set_int(t, row, 4, pts[i].gpus);
					if (cp->stack_by)
						table_set_text(t, row, 5, keys[k]);
					if (!isnan(pts[i].v[k]))
						table_set_real(t, row, 6, pts[i].v[k]);
					int64_t lg = profiler_unprofiled_ns(pts[i].x->res, pts[i].ref->run);
					if (lg > 0)
						table_set_real(t, row, 11, (double)lg / 1e6);
					if (!bp)
						continue;
					int64_t blg = profiler_unprofiled_ns(bp->x->res, bp->ref->run);
					if (lg > 0 && blg > 0)
						table_set_real(t, row, 12, (double)lg / (double)blg);
					buf_reset(&ref);
					buf_printf(&ref, "%s/%s", bp->x->id, bp->ref->run);
					table_set_text(t, row, 7, ref.data);
					if (!isnan(bp->v[k]))
						table_set_real(t, row, 8, bp->v[k]);
					if (!isnan(pts[i].v[k]) && !isnan(bp->v[k]) && bp->v[k] != 0) {
						double ratio = pts[i].v[k] / bp->v[k];
						table_set_real(t, row, 9, ratio);
						table_set_real(t, row, 10, (ratio - 1) * 100);
					}
				}
			struct chart *ch = comparison_chart(cp, pts, npts, keys, nkeys);
			buf_reset(&ref);
			buf_printf(&ref, "Comparison %s: %s of %s.csv per run, ", cp->id, cp->column, cp->table);
			if (cp->stack_by)
				buf_printf(&ref, "one bar per system and GPU count, stacked by %s", cp->stack_by);
			else
				buf_adds(&ref, "grouped by GPU count, one bar per system");
			buf_printf(&ref, "; each run's value comes from its own experiment. Ratios to %s%s%s in "
				   "comparisons.csv.", b->exp ? b->exp : "", b->exp ? "/" : "", b->run);
			log_beside(pts, npts, bp, &ref);
			result_add_figure(out, ch, ref.data);
		}
		for (size_t i = 0; i < npts; i++)
			free(pts[i].v);
		free(pts);
		for (size_t k = 0; k < nkeys; k++)
			free(keys[k]);
		free(keys);
	}
	buf_release(&ref);
	if (ret < 0) {
		table_free(t);
		return -1;
	}
	result_add_table(out, t);
	result_add_method(out, "comparisons.csv",
		"Runs of several experiments side by side, per comparison of the manifest's 'comparisons'. A run's "
		"value is read from the metric's table (table.column) of the run's own experiment: the mean of the "
		"column over the table's rows of that run (one row for run-level tables, one per rank for per-rank "
		"ones), or, with stack_by, one mean per value (key) of that column; us columns in microseconds. "
		"ratio = value / baseline_value, the baseline being the comparison's 'baseline' (else its first "
		"run) and the same key; change_pct = (ratio - 1) x 100, how much more the run has than the "
		"baseline. For a throughput (samples/s) that is how much faster the run trains; for a time, how "
		"much longer it takes. Paper 004's NVLink gain, 67.47 / 56.56 = 1.193 (+19.3 %), is such a ratio "
		"of samples/s with the PCIe run as baseline; the same runs read the other way, 56.56 / 67.47 = "
		"0.838, say PCIe delivers 16.2 % fewer samples/s. gpus: the run table of the run's experiment; "
		"system: the comparison's 'systems' label of the experiment, else its id. Values from traces come "
		"from profiled steps, which the profiler slows unevenly: where the run has a training log, log_ms "
		"is its unprofiled median iteration (profiler_overhead.csv's unprofiled_median_us, in ms) and log_ratio "
		"= log_ms / the baseline's log_ms, the training's own time per iteration against the baseline's "
		"(above 1: the run takes longer per iteration); empty without a log on either side.");
	return 0;
}

/* The registry's entry "crossexp" (ANALYSIS_ACROSS): crossexp_add for experiment ctx->self. */
static int analysis_crossexp(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	return crossexp_add(ctx->exps, ctx->nexps, ctx->self, out);
}

const struct analysis_def analysis_def_crossexp = {
	.name = "crossexp",
	.run = analysis_crossexp,
	.needs = ANALYSIS_TABLES(ANALYSIS_ANY_TABLE),
	.makes = ANALYSIS_TABLES("comparisons"),
	.figures = ANALYSIS_NAMES("comparison_*"),
	.when = ANALYSIS_ACROSS,
};
