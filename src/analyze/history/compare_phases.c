/*
 * compare_phases.c: two runs side by side per phase of a training step
 * (compare_phases.csv): the ratios studies quote ("2.67x more time on get
 * train batch", "15.6 % slower", paper 003).
 *
 * Pairs as in compare.c: the manifest's `compare` ([a, b], a the
 * reference), else each run against the first run (manifest order) of the
 * same model, the first run of a model against the experiment's first run.
 * Sources, each compared only between runs that both have it:
 *   host, gpu: phases.csv's cpu_us and gpu_us summed over the run's ranks
 *              and divided by the ProfilerStep ranges of all its ranks (time
 *              per GPU and step; per rank when the run has no steps);
 *   report:    phase_report_phases.csv's phase_us, the mean over the run's
 *              reports (whole-run totals, as the profiler printed them).
 * Rows per pair and source: each phase, then total (the sum of the phases).
 * ratio = b / a; change_pct = (b - a) / a x 100; both empty when a is 0.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/history/history.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "analyze/time/phases.h"

enum { SRC_HOST, SRC_GPU, SRC_REPORT, NSRC };
static const char *const src_names[NSRC] = {"host", "gpu", "report"};

/* One run's time per phase and source; has[s] when the source gives the run anything. */
struct run_phases {
	const char *run; /* the manifest's */
	const char *model;
	int has[NSRC];
	double *ns[NSRC]; /* per phase, nphases long */
	double div[NSRC]; /* what the sums are divided by */
};

/* Index of name in names[0..*n), appended when absent. */
static size_t name_slot(const char ***names, size_t *n, size_t *cap, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*names)[i], name))
			return i;
	*names = xgrow(*names, cap, *n + 1, sizeof(**names));
	(*names)[*n] = name;
	return (*n)++;
}

static struct run_phases *run_of(struct run_phases *r, size_t nr, const char *run)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(r[i].run, run))
			return &r[i];
	return NULL;
}

/* ProfilerStep ranges of all of run's ranks, or its ranks when it has none; 0 unknown. */
static int64_t step_divisor(const struct analysis_ctx *ctx, const char *run, int64_t ranks)
{
	struct store_stmt *st;
	int64_t steps = 0;
	st = store_query(ctx->store, "compare_phases: steps of a run",
			"SELECT count(*) FROM steps s JOIN run_traces t ON t.id = s.trace_id"
			" WHERE t.experiment = ?1 AND t.run = ?2", ctx->experiment);
	if (!st)
		return ranks;
	store_bind_text(st, 2, run);
	if (store_next(st) > 0)
		steps = store_column_int64(st, 0);
	store_finalize(st);
	return steps > 0 ? steps : ranks;
}

/* Registers the phase names of table t's rows (column cph; not "total") in names[]. */
static void collect_names(const struct table *t, int cph, const char ***names, size_t *n, size_t *cap)
{
	for (size_t row = 0; row < t->nrows; row++) {
		const char *ph = table_cell(t, row, (size_t)cph)->v.text;
		if (strcmp(ph, "total"))
			name_slot(names, n, cap, ph);
	}
}

/*
 * Adds table t's times (column cols[s] for source s, or -1) of each (run,
 * phase) row (columns crun and cph) into r, and counts in units[] each run's rows of phase unit:
 * its ranks (phases.csv) or its reports (the "total" rows of
 * phase_report_phases.csv).
 */
static void collect(const struct table *t, int crun, int cph, const int *cols, struct run_phases *r, size_t nr,
		    const char **names, size_t nnames, const char *unit, double *units)
{
	for (size_t row = 0; row < t->nrows; row++) {
		const char *ph = table_cell(t, row, (size_t)cph)->v.text;
		struct run_phases *rp = run_of(r, nr, table_cell(t, row, (size_t)crun)->v.text);
		if (!rp)
			continue;
		if (!strcmp(ph, unit))
			units[rp - r]++;
		size_t k = 0;
		while (k < nnames && strcmp(names[k], ph))
			k++;
		for (int s = 0; s < NSRC && k < nnames; s++) {
			if (cols[s] < 0 || table_cell(t, row, (size_t)cols[s])->null)
				continue;
			rp->has[s] = 1;
			rp->ns[s][k] += (double)table_cell(t, row, (size_t)cols[s])->v.i;
		}
	}
}

static void add_row(struct table *t, const char *a, const char *b, const char *src, const char *phase, double na,
		    double nb)
{
	size_t row = table_add_row(t);
	table_set_text(t, row, 0, a);
	table_set_text(t, row, 1, b);
	table_set_text(t, row, 2, src);
	table_set_text(t, row, 3, phase);
	table_set_ns(t, row, 4, (int64_t)(na + 0.5));
	table_set_ns(t, row, 5, (int64_t)(nb + 0.5));
	if (na > 0) {
		table_set_real(t, row, 6, nb / na);
		table_set_real(t, row, 7, (nb - na) / na * 100.0);
	}
}

static int analysis_compare_phases(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct manifest *m = ctx->manifest;
	const struct table *tp = result_table(out, "phases"), *tr = result_table(out, "phase_report_phases");
	if (!m || m->nruns < 2 || (!tp && !tr))
		return 0;
	size_t nr = m->nruns, nnames = 0, cap = 0;
	const char **names = NULL;
	struct run_phases *r = xcalloc(nr, sizeof(*r));
	for (size_t i = 0; i < nr; i++) {
		r[i].run = m->runs[i].id;
		r[i].model = m->runs[i].model.name ? m->runs[i].model.name : "";
	}
	if (tp)
		collect_names(tp, PHASES_PHASE, &names, &nnames, &cap);
	if (tr)
		collect_names(tr, RPP_PHASE, &names, &nnames, &cap);
	for (size_t i = 0; i < nr; i++)
		for (int s = 0; s < NSRC; s++)
			r[i].ns[s] = xcalloc(nnames ? nnames : 1, sizeof(double));
	double *units = xcalloc(nr, sizeof(*units));
	if (tp && tp->nrows && nnames) {
		int cols[NSRC] = {PHASES_CPU_US, PHASES_GPU_US, -1};
		collect(tp, PHASES_RUN, PHASES_PHASE, cols, r, nr, names, nnames,
			table_cell(tp, 0, PHASES_PHASE)->v.text, units);
		for (size_t i = 0; i < nr; i++) {
			int64_t d = step_divisor(ctx, r[i].run, (int64_t)units[i]);
			r[i].div[SRC_HOST] = r[i].div[SRC_GPU] = d > 0 ? (double)d : 1;
		}
	}
	if (tr && nnames) {
		int cols[NSRC] = {-1, -1, RPP_PHASE_US};
		memset(units, 0, nr * sizeof(*units));
		collect(tr, RPP_RUN, RPP_PHASE, cols, r, nr, names, nnames, "total", units);
		for (size_t i = 0; i < nr; i++)
			r[i].div[SRC_REPORT] = units[i] > 0 ? units[i] : 1;
	}
	free(units);
	struct table *t = table_new("compare_phases", "Two runs compared, per phase of a step",
				    TABLE_SCHEMA(COMPARE_PHASES_COLUMNS));
	/* The pairs: the manifest's compare list, else each run against its baseline. */
	size_t npairs = m->ncompare ? m->ncompare : nr - 1;
	for (size_t p = 0; p < npairs; p++) {
		struct run_phases *a, *b;
		if (m->ncompare) {
			a = run_of(r, nr, m->compare[p].a);
			b = run_of(r, nr, m->compare[p].b);
		} else {
			size_t i = p + 1, base = 0;
			while (base < i && (!*r[i].model || strcmp(r[base].model, r[i].model)))
				base++;
			a = &r[base < i ? base : 0];
			b = &r[i];
		}
		for (int s = 0; s < NSRC && a && b; s++) {
			if (!a->has[s] || !b->has[s])
				continue;
			double ta = 0, tb = 0;
			for (size_t k = 0; k < nnames; k++) {
				double x = a->ns[s][k] / a->div[s], y = b->ns[s][k] / b->div[s];
				add_row(t, a->run, b->run, src_names[s], names[k], x, y);
				ta += x;
				tb += y;
			}
			add_row(t, a->run, b->run, src_names[s], "total", ta, tb);
		}
	}
	for (size_t i = 0; i < nr; i++)
		for (int s = 0; s < NSRC; s++)
			free(r[i].ns[s]);
	free(r);
	free(names);
	if (!t->nrows) {
		table_free(t);
		return 0;
	}
	result_add_table(out, t);
	result_add_method(out, "compare_phases.csv",
		"Pairs of runs (a, b) as in compare.csv: the manifest's compare list, else each run against the first "
		"run of the same model in manifest order, the first run of a model against the experiment's first "
		"run. Per source both runs have: host and gpu, phases.csv's cpu_us and gpu_us summed over the run's "
		"ranks and divided by the ProfilerStep ranges of all its ranks (time per GPU and step; per rank "
		"without steps); report, phase_report_phases.csv's phase_us, the mean over the run's profiler "
		"reports (whole-run totals). One row per phase, then total = the sum of the phases. ratio = b / a, "
		"change_pct = (b - a) / a x 100 (empty when a is 0): 'b spends 2.67x the time of a on "
		"get_train_batch' is ratio 2.67, 'b is 15.6 % slower' is a total's change_pct 15.6, 'a optimizes "
		"2.46x faster' is an optimizer_step ratio of 2.46.");
	return 0;
}

const struct analysis_def analysis_def_compare_phases = {
	.name = "compare_phases",
	.run = analysis_compare_phases,
	.needs = ANALYSIS_TABLES("phases", "phase_report_phases"),
	.makes = ANALYSIS_TABLES("compare_phases"),
};
