/*
 * profiler_overhead.c: what the profiler cost each run (profiler_overhead.csv).
 *
 * Profiled steps are not the training: the profiler slows the steps it
 * records, and by different amounts in different runs (ZeRO-1's many small
 * collectives more than DDP's few large ones), so speedups and utilization
 * taken from profiled steps can be wrong in either direction. Per run:
 *   profiled_steps, step_median_us   the trace's steps, one value per
 *                                    ProfilerStep#N: its slowest rank's;
 *   log_profiled, log_profiled_median_us
 *                                    the training log's iterations that ran
 *                                    those steps (profiled.h: ProfilerStep#N
 *                                    is iteration N + 1);
 *   unprofiled, unprofiled_median_us the log's unprofiled iterations
 *                                    (profiled.h: no start-up, no warm-up,
 *                                    no export);
 *   overhead                         log_profiled_median / unprofiled_median:
 *                                    one clock, the log's, on both sides.
 * A note when a run's overhead is over 10 %, a warning when its trace's
 * median step is more than twice the log's unprofiled median (a sanity
 * flag: the profiler or a log that times something else), and when runs of one model
 * differ in overhead by more than 10 % (their speedups from profiled steps
 * are then distorted; scaling.csv's log_ columns are not).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/profiled.h"
#include "analyze/lib/stats.h"
#include "analyze/time/profiler_overhead.h"
#include "analyze/time/time_tables.h"
#include "util/diag.h"
#include "util/xalloc.h"

/* The int64 values of a one-column query bound to (experiment, run), into *v (n of them). */
static int column_of(struct store *s, const char *sql, const char *exp, const char *run, int64_t **v, size_t *n)
{
	struct store_stmt *st;
	*v = NULL;
	*n = 0;
	st = store_query(s, "profiler_overhead: a run's samples", sql, exp);
	if (!st)
		return -1;
	store_bind_text(st, 2, run);
	size_t cap = 0;
	int rc;
	while ((rc = store_next(st)) > 0) {
		*v = xgrow(*v, &cap, *n + 1, sizeof(**v));
		(*v)[(*n)++] = store_column_int64(st, 0);
	}
	store_finalize(st);
	if (rc < 0) {
		free(*v);
		return -1;
	}
	return 0;
}

#define RUN_ITERATIONS \
	"SELECT i.elapsed_ns FROM iterations i JOIN run_traces t ON t.id = i.trace_id" \
	" WHERE t.experiment = ?1 AND t.run = ?2 AND "

static const char *const queries[] = {
	/* one value per step: its slowest rank's */
	"SELECT max(s.dur_ns) FROM steps s JOIN run_traces t ON t.id = s.trace_id"
	" WHERE t.experiment = ?1 AND t.run = ?2 GROUP BY s.step",
	RUN_ITERATIONS SQL_PROFILED_ITERATION_OF("t", "t.run_id"),
	RUN_ITERATIONS SQL_UNPROFILED_ITERATION_OF("t", "t.run_id"),
};

/*
 * The step-to-step noise of the training: 1.4826 x the median absolute
 * deviation of the unprofiled iterations from their median (the standard
 * deviation of a normal sample, robust to the odd slow iteration:
 * stats_robust_sigma, rounded to the ns), given from NOISE_MIN_SAMPLES
 * iterations on.
 */
#define NOISE_MIN_SAMPLES 5

/* Sets cols c (count) and c + 1 (median, us) of row from v; returns the median in ns, 0 when n is 0. */
static int64_t set_median(struct table *t, size_t row, size_t c, int64_t *v, size_t n)
{
	table_set_int(t, row, c, (int64_t)n);
	if (!n)
		return 0;
	struct step_dist d;
	stats_dist(v, n, &d);
	table_set_ns(t, row, c + 1, d.median_ns);
	return d.median_ns;
}

/* The cell of column c (its contract's enum) in run's row of profiler_overhead.csv, or NULL. */
static const struct cell *overhead_cell(const struct analysis_result *res, const char *run, int c)
{
	const struct table *t = result_table(res, "profiler_overhead");
	if (!t)
		return NULL;
	for (size_t r = 0; r < t->nrows; r++)
		if (!strcmp(table_cell(t, r, PO_RUN)->v.text, run))
			return table_cell(t, r, (size_t)c)->null ? NULL : table_cell(t, r, (size_t)c);
	return NULL;
}

int64_t profiler_unprofiled_ns(const struct analysis_result *res, const char *run)
{
	const struct cell *x = overhead_cell(res, run, PO_UNPROFILED_MEDIAN_US);
	return x ? x->v.i : 0;
}

int64_t profiler_unprofiled_count(const struct analysis_result *res, const char *run)
{
	const struct cell *x = overhead_cell(res, run, PO_UNPROFILED);
	return x ? x->v.i : 0;
}

int64_t profiler_noise_ns(const struct analysis_result *res, const char *run)
{
	const struct cell *x = overhead_cell(res, run, PO_UNPROFILED_SIGMA_US);
	return x ? x->v.i : 0;
}

double profiler_overhead_of(const struct analysis_result *res, const char *run)
{
	const struct cell *x = overhead_cell(res, run, PO_OVERHEAD);
	return x ? x->v.f : 0;
}

int profiler_unprofiled_median(struct store *s, const char *exp, const char *run, int64_t *median_ns,
			       int64_t *count)
{
	int64_t *v;
	size_t n;
	*median_ns = *count = 0;
	if (column_of(s, queries[2], exp, run, &v, &n) < 0)
		return -1;
	if (n) {
		struct step_dist d;
		stats_dist(v, n, &d);
		*median_ns = d.median_ns;
		*count = (int64_t)n;
	}
	free(v);
	return 0;
}

static int analysis_profiler_overhead(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct table *rt = out->runs;
	if (!rt || !rt->nrows)
		return 0;
	struct table *t = table_new("profiler_overhead", "What the profiler cost each run: profiled against unprofiled "
				    "iterations of its training log",
				    TABLE_SCHEMA(PROFILER_OVERHEAD_COLUMNS));
	double *ov = xcalloc(rt->nrows, sizeof(*ov)); /* 0: none */
	int ret = 0;
	for (size_t i = 0; i < rt->nrows && !ret; i++) {
		const char *run = table_cell(rt, i, RUNS_RUN)->v.text;
		int64_t med[3] = {0, 0, 0}, *v[3] = {NULL, NULL, NULL};
		size_t n[3] = {0, 0, 0};
		for (size_t q = 0; q < 3 && !ret; q++)
			ret = column_of(ctx->store, queries[q], ctx->experiment, run, &v[q], &n[q]);
		if (!ret && (n[0] || n[1] || n[2])) { /* a run with neither steps nor a log: no row */
			size_t row = table_add_row(t);
			table_set_text(t, row, 0, run);
			for (size_t q = 0; q < 3; q++)
				med[q] = set_median(t, row, 1 + 2 * q, v[q], n[q]);
			if (n[2] >= NOISE_MIN_SAMPLES)
				table_set_ns(t, row, 8, (int64_t)(stats_robust_sigma(v[2], n[2], med[2]) + 0.5));
		}
		for (size_t q = 0; q < 3; q++)
			free(v[q]);
		if (ret || med[1] <= 0 || med[2] <= 0)
			continue;
		size_t row = t->nrows - 1;
		double o = (double)med[1] / (double)med[2];
		table_set_real(t, row, 7, o);
		if (o > 1.10)
			result_add_note(out, "profiler_overhead.csv: profiling slowed run %s by %.2fx (median of the training "
					"log's profiled iterations %.1f ms against its unprofiled ones %.1f ms): numbers "
					"taken from its profiled steps overstate its step time", run, o,
					(double)med[1] / 1e6, (double)med[2] / 1e6);
		/* a sanity flag: the trace's step more than twice the training's */
		if (med[0] > 0 && (double)med[0] > 2.0 * (double)med[2])
			result_add_note(out, "profiler_overhead.csv: warning: run %s's profiled steps take %.1f ms (trace, "
					"median step), more than twice its training log's unprofiled iterations (%.1f ms): "
					"the likely cause is the profiler's own cost (with_stack, record_shapes, "
					"profile_memory, or many short kernels) or a log that times something else than the "
					"profiled loop; take step times and speedups from the log (scaling.csv log_ columns)",
					run, (double)med[0] / 1e6, (double)med[2] / 1e6);
		ov[i] = o;
	}
	if (ret) {
		free(ov);
		table_free(t);
		return -1;
	}
	/* Runs of one model (which scaling.csv and the comparisons put side by side) slowed unevenly. */
	int cm = RUNS_MODEL;
	for (size_t i = 0; cm >= 0 && i < rt->nrows; i++) {
		const struct cell *mi = table_cell(rt, i, (size_t)cm);
		size_t lo = i, hi = i, first = 1;
		for (size_t j = 0; j < rt->nrows && first; j++) {
			const struct cell *mj = table_cell(rt, j, (size_t)cm);
			if (mi->null || mj->null || strcmp(mi->v.text, mj->v.text))
				continue;
			if (j < i)
				first = 0; /* the model was handled at its first run */
			else if (ov[j] > 0) {
				if (ov[lo] <= 0 || ov[j] < ov[lo])
					lo = j;
				if (ov[hi] <= 0 || ov[j] > ov[hi])
					hi = j;
			}
		}
		if (first && ov[lo] > 0 && ov[hi] > ov[lo] * 1.10)
			result_add_note(out, "profiler_overhead.csv: the profiler slowed the %s runs by different amounts "
					"(%s %.2fx, %s %.2fx): speedups and comparisons from their profiled steps are "
					"distorted by up to %.0f %%; scaling.csv's log_ columns use the unprofiled "
					"iterations", mi->v.text, table_cell(rt, lo, RUNS_RUN)->v.text, ov[lo],
					table_cell(rt, hi, RUNS_RUN)->v.text, ov[hi], (ov[hi] / ov[lo] - 1) * 100);
	}
	free(ov);
	if (!t->nrows) {
		table_free(t);
		return 0;
	}
	result_add_table(out, t);
	result_add_method(out, "profiler_overhead.csv",
			  "Per run: profiled_steps and step_median_us, the trace's steps, one value per ProfilerStep#N, "
			  "its slowest rank's (a step ends when its slowest rank does); log_profiled and "
			  "log_profiled_median_us, the training log's iterations that ran those steps (torch.profiler "
			  "counts steps from 0, a log from 1: ProfilerStep#N is iteration N + 1); unprofiled and "
			  "unprofiled_median_us, the log's iterations from the third on (the first two hold start-up) "
			  "outside the profiler's window, i.e. without the two warm-up iterations before the first "
			  "profiled one and the export after the last; overhead = log_profiled_median_us / "
			  "unprofiled_median_us, both on the log's clock; unprofiled_sigma_us, the training's step-to-step "
			  "noise: 1.4826 x the median absolute deviation of the unprofiled iterations from their median "
			  "(a normal sample's standard deviation, robust to the odd slow iteration), given from 5 "
			  "iterations on. Medians: the middle value, or the mean of the "
			  "two middle ones rounded to the ns. A note names every run slowed by more than 10 % and the runs "
			  "of one model whose overheads differ by more than 10 %.");
	return 0;
}

const struct analysis_def analysis_def_profiler_overhead = {
	.name = "profiler_overhead",
	.run = analysis_profiler_overhead,
	.needs = ANALYSIS_TABLES("runs"),
	.makes = ANALYSIS_TABLES("profiler_overhead"),
};
