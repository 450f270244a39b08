/*
 * pipeline_schedules.c: pipeline_schedules.csv, GPipe against 1F1B where a
 * study ran both on one model (perfstudy issue 54).
 *
 * Which runs. The runs of pipeline_stages.csv with a schedule and a
 * micro-batch count m, grouped by (runs.csv model, batch, stages p, m):
 * a group that holds a GPipe run and a 1F1B run is compared, and each of
 * its runs is one row, pair naming the group's first run of the other
 * schedule. A study without such a group gets no table.
 *
 * Per run:
 *   step_us, step_source, step_samples
 *                     the median unprofiled iteration of the run's training
 *                     log (profiler_overhead.csv: iterations from the third
 *                     on outside the profiler's warm-up, steps and export)
 *                     where it has one, else the median of the profiled
 *                     steps (step_stats.csv: per step its slowest rank's
 *                     ProfilerStep), and how many samples that median has;
 *   step_vs_pair      step_us over pair's step_us (both from their own
 *                     source; the sources are named on each row);
 *   bubble_share      the mean over the run's rows of pipeline_stages.csv
 *                     of bubble_share (each stage's median share of the
 *                     pipeline's span without compute): the idle share of
 *                     the p x span of stage time;
 *   busiest_bubble_share
 *                     the smallest of them: the stage with the most work,
 *                     the one that paces the pipeline;
 *   formula_bubble_share (p - 1) / (m + p - 1), GPipe's and 1F1B's bubble
 *                     alike with equal stages and free transfers, computed
 *                     here from p and m;
 *   excess_share, busiest_excess_share
 *                     bubble_share and busiest_bubble_share minus the
 *                     formula's;
 *   imbalance         the largest of pipeline_stages.csv's imbalance for
 *                     the run (the slowest stage's compute over the
 *                     stages' mean).
 * With unequal stages (pipeline_balance.c's rule: imbalance above
 * PP_SPLIT_IMBALANCE) both schedules wait for the slowest stage, so the
 * difference between them is bounded by the split: the caption says so,
 * per run, with pipeline_balance's words.
 *
 * Figure pipeline_schedules: per compared run, its bubble_share, its
 * busiest stage's and the formula's (%).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/pipeline/pipeline_balance.h"
#include "analyze/time/profiler_overhead.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include "analyze/pipeline/pipeline_tables.h"
#include "analyze/ranks/ranks_tables.h"
#include "analyze/time/step_stats.h"
#include "analyze/time/time_tables.h"

/* One run of pipeline_stages.csv. */
struct ps_run {
	const char *run, *schedule, *model;
	int64_t p, m, batch;
	double bubble_sum, busiest, imbalance;
	size_t nbubble;
	int pair;  /* index of the pair's run, -1: none */
	int done;  /* its row is written */
};

static const struct manifest_run *man_run(const struct manifest *m, const char *run)
{
	for (size_t i = 0; m && i < m->nruns; i++)
		if (m->runs[i].id && !strcmp(m->runs[i].id, run))
			return &m->runs[i];
	return NULL;
}

/* The runs of pipeline_stages.csv ps, in their order, with runs.csv rt's model and batch. */
static struct ps_run *runs_of(const struct table *ps, const struct table *rt, size_t *n)
{
	int crun = PS_RUN, cst = PS_STAGES;
	int csch = PS_SCHEDULE, cm = PS_MICROBATCHES;
	int cb = PS_BUBBLE_SHARE, cimb = PS_IMBALANCE;
	int rrun = RUNS_RUN, rmodel = RUNS_MODEL, rbatch = RUNS_BATCH;
	struct ps_run *v = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t r = 0; r < ps->nrows; r++) {
		const char *run = table_text(ps, r, crun);
		size_t i = 0;
		while (i < *n && strcmp(v[i].run, run))
			i++;
		if (i == *n) {
			v = xgrow(v, &cap, *n + 1, sizeof(*v));
			memset(&v[i], 0, sizeof(v[i]));
			v[i].run = run;
			v[i].p = (int64_t)table_num(ps, r, cst);
			v[i].schedule = table_text(ps, r, csch);
			double m = table_num(ps, r, cm);
			v[i].m = isnan(m) ? 0 : (int64_t)m;
			v[i].busiest = v[i].imbalance = NAN;
			v[i].batch = -1;
			v[i].model = "";
			v[i].pair = -1;
			for (size_t k = 0; k < rt->nrows; k++) {
				if (strcmp(table_text(rt, k, rrun), run))
					continue;
				const char *model = table_text(rt, k, rmodel);
				double b = table_num(rt, k, rbatch);
				v[i].model = model ? model : "";
				v[i].batch = isnan(b) ? -1 : (int64_t)b;
				break;
			}
			(*n)++;
		}
		double b = table_num(ps, r, cb), imb = table_num(ps, r, cimb);
		if (!isnan(b)) {
			v[i].bubble_sum += b;
			v[i].nbubble++;
			if (isnan(v[i].busiest) || b < v[i].busiest)
				v[i].busiest = b;
		}
		if (!isnan(imb) && (isnan(v[i].imbalance) || imb > v[i].imbalance))
			v[i].imbalance = imb;
	}
	return v;
}

/* Whether a and b are runs of one model, batch, p and m. */
static int same_group(const struct ps_run *a, const struct ps_run *b)
{
	return a->p == b->p && a->m == b->m && a->batch == b->batch && !strcmp(a->model, b->model);
}

/* The run's step time in ns, its source and its samples: the log's unprofiled median, else the profiled steps'. */
static int64_t step_of(struct analysis_result *out, const struct table *ss, const char *run, const char **src,
		       int64_t *samples)
{
	int64_t ns = profiler_unprofiled_ns(out, run);
	if (ns > 0) {
		*src = "log: unprofiled iterations";
		*samples = profiler_unprofiled_count(out, run);
		return ns;
	}
	*src = NULL;
	*samples = 0;
	int crun = SS_RUN, cmed = SS_MEDIAN_US, cn = SS_STEPS;
	for (size_t r = 0; ss && r < ss->nrows; r++) {
		if (strcmp(table_text(ss, r, crun), run))
			continue;
		const struct cell *c = table_cell(ss, r, (size_t)cmed);
		if (c->null)
			return 0;
		*src = "trace: profiled steps";
		*samples = (int64_t)table_num(ss, r, cn);
		return c->v.i;
	}
	return 0;
}

static void set_real(struct table *t, size_t row, int col, double x)
{
	if (!isnan(x))
		table_set_real(t, row, (size_t)col, x);
}

static int analysis_pipeline_schedules(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct table *ps = result_table(out, "pipeline_stages");
	const struct table *rt = result_table(out, "runs");
	const struct table *ss = result_table(out, "step_stats");
	if (!ps || !rt || !ps->nrows)
		return 0;
	size_t n;
	struct ps_run *v = runs_of(ps, rt, &n);
	size_t npaired = 0;
	for (size_t i = 0; i < n; i++) {
		if (!v[i].schedule || v[i].m <= 0 || !v[i].nbubble)
			continue;
		for (size_t j = 0; j < n && v[i].pair < 0; j++)
			if (j != i && v[j].schedule && v[j].nbubble && same_group(&v[i], &v[j]) &&
			    strcmp(v[i].schedule, v[j].schedule))
				v[i].pair = (int)j;
		npaired += v[i].pair >= 0;
	}
	if (!npaired) {
		free(v);
		return 0;
	}
	struct table *t = table_new("pipeline_schedules", "Pipeline schedules: GPipe against 1F1B on one model",
				    TABLE_SCHEMA(PIPELINE_SCHEDULES_COLUMNS));
	struct chart *c = chart_new(CHART_GROUPED_BAR, "pipeline_schedules", "GPipe against 1F1B: pipeline bubble",
				    "share of the stages' time (%)");
	chart_add_series(c, "the stages' mean bubble");
	chart_add_series(c, "the busiest stage's");
	chart_add_series(c, "the schedule's, (p - 1) / (m + p - 1)");
	struct buf unequal, note;
	buf_init(&unequal);
	buf_init(&note);
	size_t nunequal = 0;
	char *first_words = NULL; /* the first unequal run's words (pipeline_balance.c) */
	double imb_lo = NAN, imb_hi = NAN;
	int rc = 0;
	/* a group's runs together, in the order of their first run */
	for (size_t g = 0; g < n && !rc; g++) {
		if (v[g].pair < 0 || v[g].done)
			continue;
		for (size_t i = g; i < n && !rc; i++) {
			if (v[i].pair < 0 || v[i].done || !same_group(&v[g], &v[i]))
				continue;
			v[i].done = 1;
			const struct ps_run *r = &v[i], *o = &v[r->pair];
			const char *src, *osrc;
			int64_t samples, osamples;
			int64_t step = step_of(out, ss, r->run, &src, &samples);
			int64_t ostep = step_of(out, ss, o->run, &osrc, &osamples);
			/* the formula from p and m: the bubble of either schedule with equal stages and free transfers */
			double formula = (double)(r->p - 1) / (double)(r->m + r->p - 1);
			double bubble = r->bubble_sum / (double)r->nbubble;
			size_t row = table_add_row(t);
			table_set_text(t, row, 0, r->run);
			table_set_text(t, row, 1, o->run);
			table_set_text(t, row, 2, r->schedule);
			table_set_int(t, row, 3, r->p);
			table_set_int(t, row, 4, r->m);
			if (step > 0) {
				table_set_ns(t, row, 5, step);
				table_set_text(t, row, 6, src);
				table_set_int(t, row, 7, samples);
			}
			if (step > 0 && ostep > 0)
				table_set_real(t, row, 8, (double)step / (double)ostep);
			set_real(t, row, PSCH_BUBBLE_SHARE, bubble);
			set_real(t, row, PSCH_BUSIEST_BUBBLE_SHARE, r->busiest);
			set_real(t, row, PSCH_FORMULA_BUBBLE_SHARE, formula);
			set_real(t, row, PSCH_EXCESS_SHARE, bubble - formula);
			set_real(t, row, PSCH_BUSIEST_EXCESS_SHARE, r->busiest - formula);
			set_real(t, row, PSCH_IMBALANCE, r->imbalance);
			size_t cat = chart_add_category(c, r->run);
			chart_set(c, cat, 0, 100 * bubble);
			chart_set(c, cat, 1, isnan(r->busiest) ? NAN : 100 * r->busiest);
			chart_set(c, cat, 2, 100 * formula);
			/* unequal stages (pipeline_balance.c's rule): its words on the caption */
			const struct manifest_run *mr = man_run(ctx->manifest, r->run);
			char *cap = NULL, *short_words = NULL;
			if (pipeline_balance_words(ctx->store, ctx->experiment, r->run, ps, mr ? mr->model.hidden : 0,
						   mr ? mr->model.ffn : 0, &cap, &short_words) < 0) {
				rc = -1;
			} else if (short_words) {
				buf_printf(&unequal, "%s%s", nunequal ? ", " : "", r->run);
				if (!first_words)
					first_words = xasprintf("%s: %s", r->run, short_words);
				if (isnan(imb_lo) || r->imbalance < imb_lo)
					imb_lo = r->imbalance;
				if (isnan(imb_hi) || r->imbalance > imb_hi)
					imb_hi = r->imbalance;
				nunequal++;
			}
			free(cap);
			free(short_words);
		}
	}
	free(v);
	if (rc) {
		table_free(t);
		chart_free(c);
		buf_release(&unequal);
		buf_release(&note);
		free(first_words);
		return -1;
	}
	result_add_table(out, t);
	if (nunequal)
		chart_set_note(c, "unequal stages: the split, more than the schedule, makes the bubble");
	buf_printf(&note,
		   "GPipe against 1F1B on one model (same model, batch, stages p and micro-batches m): per run, its "
		   "stages' mean bubble (the share of the pipeline's span in which a stage computes nothing, the "
		   "median over the profiled steps), its busiest stage's, and the schedule's (p - 1) / (m + p - 1); "
		   "step times, their sources and samples in pipeline_schedules.csv (Methods).");
	if (nunequal)
		buf_printf(&note,
			   " The stages are unbalanced in run%s %s (the slowest stage computes %.2fx to %.2fx the "
			   "stages' mean; %s), so both schedules wait for the slowest stage: the comparison reflects "
			   "the split of the work between stages, not only GPipe against 1F1B.",
			   nunequal > 1 ? "s" : "", unequal.data, imb_lo, imb_hi, first_words);
	result_add_figure(out, c, note.data);
	free(first_words);
	buf_release(&unequal);
	buf_release(&note);
	result_add_method(
		out, "pipeline_schedules.csv",
		"Where a study holds a GPipe and a 1F1B run of one model (runs.csv model and batch, and "
		"pipeline_stages.csv's stages p and microbatches m equal), one row per run of each such group; pair: "
		"the group's first run of the other schedule. step_us: the median of the run's training-log "
		"iterations outside the profiler (profiler_overhead.csv's unprofiled_median_us; step_source 'log: "
		"unprofiled iterations') where it has a log, else the median of its profiled steps (step_stats.csv's "
		"median_us, each step its slowest rank's; 'trace: profiled steps'); step_samples: the number of "
		"values behind that median; step_vs_pair = step_us / the pair's step_us. bubble_share: the mean of "
		"the run's rows of pipeline_stages.csv's bubble_share (per stage 1 - compute / span, the median over "
		"the profiled steps), the idle share of the stages' time; busiest_bubble_share: the smallest of them "
		"(the stage with the most work); formula_bubble_share = (p - 1) / (m + p - 1), the bubble of GPipe "
		"and of 1F1B alike with equal stages and free transfers; excess_share = bubble_share - "
		"formula_bubble_share and busiest_excess_share = busiest_bubble_share - formula_bubble_share; "
		"imbalance: pipeline_stages.csv's, the slowest stage's compute over the stages' mean. Above an "
		"imbalance of 1.10 the figure's caption says that the stages are unbalanced: both schedules then "
		"wait for the slowest stage, and the comparison measures the split as much as the schedule.");
	return 0;
}

const struct analysis_def analysis_def_pipeline_schedules = {
	.name = "pipeline_schedules",
	.run = analysis_pipeline_schedules,
	.needs = ANALYSIS_TABLES("runs", "step_stats", "profiler_overhead", "pipeline_stages"),
	.makes = ANALYSIS_TABLES("pipeline_schedules"),
	.figures = ANALYSIS_NAMES("pipeline_schedules"),
};
