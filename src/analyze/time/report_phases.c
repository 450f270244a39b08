/*
 * report_phases.c: a profiler's own phase report mapped to the phases of a
 * training step (phase_report_phases.csv, figure phases_report).
 *
 * PyTorch Lightning's profilers (paper 003's tool) print one total per
 * action (phase_report.csv, inputs.c). Each phase of phases.c (default
 * get_train_batch, forward, backward, optimizer_step, or the manifest's
 * `phases`) takes, of the actions whose name matches one of its names, the
 * one with the largest total: Lightning profiles one hook at several levels
 * ([Strategy]X.training_step around [LightningModule]X.training_step), the
 * inner within the outer, so adding them would count the time twice. The
 * report says nothing about nesting between phases except what Lightning's
 * automatic optimization does: optimizer_step runs the closure, the
 * training step (forward) and backward, inside it. So optimizer_step's own
 * time is its total minus forward's and backward's, when those fit inside
 * it (their sum is at most its total); otherwise it is left as printed and a
 * note says so. total = the sum of the phases, the height of the stacked bar
 * (paper 003, Fig. 4).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/time/phases.h"
#include "chart/chart.h"
#include "util/diag.h"
#include "util/xalloc.h"

/* One report's actions. */
struct action {
	char *name;
	int64_t calls; /* -1: not printed */
	int64_t total_ns;
};

struct report {
	char *run, *source;
	size_t n, cap;
	struct action *a;
};

static void reports_free(struct report *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < r[i].n; j++)
			free(r[i].a[j].name);
		free(r[i].a);
		free(r[i].run);
		free(r[i].source);
	}
	free(r);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The experiment's reports, in run and file order; *n set. Returns 0, or -1 after diag. */
static int reports_load(const struct analysis_ctx *ctx, struct report **out, size_t *n)
{
	struct store_stmt *st;
	*out = NULL;
	*n = 0;
	st = store_query(ctx->store, "report_phases: phase reports",
			 "SELECT t.run, t.path, p.action, p.calls, p.total_ns, t.id"
			 " FROM phase_times p JOIN run_traces t ON t.id = p.trace_id"
			 " WHERE t.experiment = ?1 AND p.action IS NOT NULL AND p.total_ns IS NOT NULL"
			 " ORDER BY t.position, t.file_index, p.rowid", ctx->experiment);
	if (!st)
		return -1;
	size_t cap = 0;
	int64_t last_trace = -1;
	int rc;
	while ((rc = store_next(st)) > 0) {
		int64_t trace = store_column_int64(st, 5);
		if (trace != last_trace) {
			*out = xgrow(*out, &cap, *n + 1, sizeof(**out));
			(*out)[(*n)++] = (struct report){.run = xstrdup((const char *)store_column_text(st, 0)),
							 .source = xstrdup(base_name((const char *)store_column_text(st, 1)))};
			last_trace = trace;
		}
		struct report *r = &(*out)[*n - 1];
		r->a = xgrow(r->a, &r->cap, r->n + 1, sizeof(*r->a));
		r->a[r->n++] = (struct action){xstrdup((const char *)store_column_text(st, 2)),
					       store_column_type(st, 3) == STORE_NULL ? -1 : store_column_int64(st, 3),
					       store_column_int64(st, 4)};
	}
	store_finalize(st);
	return rc;
}

/* Index of the phase called name, or -1. */
static int phase_index(const struct phase *ph, size_t nph, const char *name)
{
	for (size_t p = 0; p < nph; p++)
		if (!strcmp(ph[p].name, name))
			return (int)p;
	return -1;
}

/* The action of r with the largest total among those matching phase ph, or NULL. */
static const struct action *phase_action(const struct report *r, const struct phase *ph)
{
	const struct action *best = NULL;
	for (size_t i = 0; i < r->n; i++)
		for (size_t j = 0; j < ph->nnames; j++)
			if (wild_match(ph->names[j], r->a[i].name)) {
				if (!best || r->a[i].total_ns > best->total_ns)
					best = &r->a[i];
				break;
			}
	return best;
}

static int analysis_report_phases(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct report *rep;
	size_t nrep, nph;
	if (reports_load(ctx, &rep, &nrep) < 0)
		return -1;
	if (!nrep) {
		free(rep);
		return 0;
	}
	struct phase *ph = phase_list(ctx->manifest, &nph);
	struct table *t = table_new("phase_report_phases", "Phases of a step from the framework's profiler report",
				    TABLE_SCHEMA(PHASE_REPORT_PHASES_COLUMNS));
	struct chart *ch = chart_new(CHART_STACKED_BAR, "phases_report", "Time per phase (profiler report)",
				     "total time (s)");
	for (size_t p = 0; p < nph; p++)
		chart_add_series(ch, ph[p].name);
	/* Paper 003's Figure 5 is about getting batches, a sliver of the stack: its own panel, in ms. */
	int gb = phase_index(ph, nph, "get_train_batch");
	struct chart *batch = chart_new(CHART_GROUPED_BAR, "phases_report_get_batch",
					"Time getting batches, whole run (profiler report)",
					"get batch time, total over the run (ms)");
	chart_add_series(batch, "get batch");
	const struct action **match = xcalloc(nph ? nph : 1, sizeof(*match));
	int64_t *own = xcalloc(nph ? nph : 1, sizeof(*own));
	int fwd = phase_index(ph, nph, "forward"), bwd = phase_index(ph, nph, "backward"),
	    opt = phase_index(ph, nph, "optimizer_step");
	size_t run_reports = 0;
	int any = 0;
	for (size_t i = 0; i < nrep; i++) {
		const struct report *r = &rep[i];
		int64_t sum = 0;
		for (size_t p = 0; p < nph; p++) {
			match[p] = phase_action(r, &ph[p]);
			own[p] = match[p] ? match[p]->total_ns : 0;
		}
		if (opt >= 0 && match[opt]) {
			int64_t inner = (fwd >= 0 ? own[fwd] : 0) + (bwd >= 0 ? own[bwd] : 0);
			if (inner <= own[opt])
				own[opt] -= inner;
			else
				result_add_note(out, "phase_report_phases.csv: run %s, %s: forward and backward (%.3f s) do not "
						"fit inside optimizer_step (%.3f s), so they are not nested in it (manual "
						"optimization?) and optimizer_step is shown as printed", r->run, r->source,
						(double)inner / 1e9, (double)own[opt] / 1e9);
		}
		for (size_t p = 0; p < nph; p++)
			sum += own[p];
		for (size_t p = 0; p <= nph; p++) {
			size_t row = table_add_row(t);
			table_set_text(t, row, 0, r->run);
			table_set_text(t, row, 1, r->source);
			table_set_text(t, row, 2, p < nph ? ph[p].name : "total");
			if (p == nph) {
				table_set_ns(t, row, 6, sum);
				if (sum > 0)
					table_set_real(t, row, 7, 1.0);
				continue;
			}
			if (!match[p]) {
				result_add_note(out, "phase_report_phases.csv: run %s, %s: no action of the report is named "
						"like phase %s", r->run, r->source, ph[p].name);
				continue;
			}
			any = 1;
			table_set_text(t, row, 3, match[p]->name);
			if (match[p]->calls >= 0)
				table_set_int(t, row, 4, match[p]->calls);
			table_set_ns(t, row, 5, match[p]->total_ns);
			table_set_ns(t, row, 6, own[p]);
			if (sum > 0)
				table_set_real(t, row, 7, (double)own[p] / (double)sum);
		}
		/* Chart: per run, the mean over its reports. */
		if (i == 0 || strcmp(r->run, rep[i - 1].run)) {
			chart_add_category(ch, r->run);
			chart_add_category(batch, r->run);
			run_reports = 0;
		}
		run_reports++;
		double k = (double)run_reports;
		for (size_t p = 0; p < nph; p++)
			chart_update(ch, ch->ncat - 1, p,
				     chart_get(ch, ch->ncat - 1, p) * (k - 1) / k + (double)own[p] / 1e9 / k);
		if (gb >= 0)
			chart_update(batch, batch->ncat - 1, 0,
				     chart_get(batch, batch->ncat - 1, 0) * (k - 1) / k + (double)own[gb] / 1e6 / k);
	}
	result_add_table(out, t);
	if (any)
		result_add_figure(out, ch, "Time per phase of each run's profiler report (PyTorch Lightning), stacked: "
					   "the whole run's total per phase in seconds, mean over the run's reports; the "
					   "bar's height is the sum of the phases (phase_report_phases.csv).");
	else
		chart_free(ch);
	if (any && gb >= 0 && !chart_is_empty(batch))
		result_add_figure(out, batch, "Time getting batches of each run's profiler report (PyTorch Lightning): "
					      "the get-batch phase of phases_report alone, in ms summed over all the run's "
					      "steps (the report's total, not a time per step), mean over the run's reports "
					      "(phase_report_phases.csv calls gives the number of batches); beside the other "
					      "phases it is too small to see.");
	else
		chart_free(batch);
	result_add_method(out, "phase_report_phases.csv",
		"The actions of each profiler report (phase_report.csv) mapped to the phases of phases.csv: a phase "
		"takes, of the actions named like one of its names ('*' any run of characters; the default names "
		"include Lightning 1.x's get_train_batch, model_forward, model_backward, optimizer_step and 2.x's "
		"[_TrainingEpochLoop].train_dataloader_next, [Strategy]*.training_step, [Strategy]*.backward, "
		"[LightningModule]*.optimizer_step), the one with the largest total (action, calls and reported_us "
		"as printed): Lightning profiles one hook at several nested levels, which must not be added. "
		"phase_us: the reported total, except optimizer_step, which in Lightning's automatic optimization "
		"runs the training step and backward inside it, so its own time is its total minus forward's and "
		"backward's when they fit inside it (else it is left as printed, with a note). total: the sum of "
		"the phases' phase_us; share: phase_us / total. These are the framework's host-side timings of the "
		"whole run, not GPU time and not per step.");
	free(match);
	free(own);
	free(ph);
	reports_free(rep, nrep);
	return 0;
}

const struct analysis_def analysis_def_report_phases = {
	.name = "report_phases",
	.run = analysis_report_phases,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("phase_report_phases"),
	.figures = ANALYSIS_NAMES("phases_report", "phases_report_get_batch"),
};
