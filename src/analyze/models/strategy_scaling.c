/*
 * strategy_scaling.c: the time of an iteration split into compute and
 * communication, and the speedup, over GPU counts and models, one figure
 * per parallel strategy (strategy_scaling.csv, figures
 * strategy_scaling_<strategy>): the kind of paper 002's Figures 12-14
 * ("end-to-end per-iteration training time distribution and speedup for
 * different number of GPUs, model parameters", one figure each for ZeRO-1,
 * -2 and -3).
 *
 * Strategies are told apart by the name the report shows
 * (layout_strategy_shown: "fsdp" and "zero3" are both ZeRO-3). A strategy
 * S gets a figure when some model has profiled runs of S, or 1-GPU runs,
 * on two or more GPU counts; its runs are those of S and the 1-GPU runs of
 * the same models (the first column of the paper's figures), ordered by
 * model (in the order of the run table) and then GPUs. Per run, from
 * step_breakdown.csv (whose parts add up to each rank's step):
 *   compute_us, communication_us, other_us  per profiled step, the mean
 *       over the run's ranks of that step of the compute part, the
 *       communication part (communication kernels not under compute) and
 *       the rest (copies, memsets, host time, idle); then the mean over
 *       its steps (ascending), rounded to the ns. Ranks of one step are
 *       not independent samples: their mean is one value of the step;
 *   step_us   the same of the whole step: the three parts' sum, up to rounding;
 *   steps, ranks  the profiled steps and the ranks this rests on;
 *   comm_share    communication_us / step_us;
 *   speedup       scaling.csv's log_speedup (the training logs' unprofiled
 *       iterations, against scaling.csv's baseline) where the run and its
 *       baseline have logs (speedup_source log), else its speedup from the
 *       profiled steps (speedup_source profiled); baseline: scaling.csv's;
 *   peak_allocated_bytes  the largest of memory_ranks.csv's over the run's
 *       ranks that do not grow (grows != 1): the most memory any of its
 *       healthy traced GPUs held in a profiled step (traces with the
 *       allocator's events only; 002's "a higher ZeRO stage accommodates a
 *       larger model"). A rank whose memory grows every step (a leak) is a
 *       bug of that rank, not a cost of the strategy: it is left out and
 *       the caption names it (issue #57 item 4); where every rank grows,
 *       all count. A run whose traces cover fewer ranks than GPUs says so
 *       in the caption, with each bar's samples.
 * A strategy runs.csv inferred from the traces (strategy_source "trace:
 * ...") or from the training logs alone ("training log (<file>): ...",
 * basic_strategy.c) is named with its source in the caption, and whether a
 * log agrees with the traces'.
 * The bars are profiled steps, which the profiler slows unevenly; the
 * speedups in the labels are the training's where a log exists.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/layout.h"
#include "analyze/models/models.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include "analyze/memory/memory_steps_kept.h"
#include "analyze/time/time_tables.h"

enum { SS_COMPUTE, SS_COMM, SS_OTHER, SS_PARTS };

/* One rank's part of one step (a step_breakdown.csv row folded into three parts). */
struct ss_cell {
	int64_t step, rank, ns[SS_PARTS];
};

struct ss_run {
	const char *run, *model; /* the run table's */
	const char *strategy_src; /* runs.csv strategy_source where the traces or logs gave the strategy, else NULL */
	int64_t gpus;
	char shown[64];       /* the strategy as the report names it */
	size_t order;         /* the run table's row */
	size_t model_first;   /* the run table's row of the model's first run */
	size_t strategy;      /* index of shown among the strategies */
	struct ss_cell *cells;
	size_t ncells, cap;
	int64_t steps, ranks; /* 0 steps: no profiled step, not drawn */
	int64_t ns[SS_PARTS], step_ns;
	double speedup;
	const char *baseline, *source;
	int64_t peak_bytes; /* the most any of its healthy traced GPUs held (memory_ranks.csv), -1: no allocator events */
	int64_t grown;      /* its ranks left out of peak_bytes as growing */
	int64_t grown_rank; /* the first of them */
	int64_t unprofiled; /* the log's unprofiled iterations (profiler_overhead.csv), -1: none */
};

static int cmp_cell(const void *pa, const void *pb)
{
	const struct ss_cell *a = pa, *b = pb;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* rounds half up, as the reference does */
static int64_t round_ns(double v)
{
	return (int64_t)floor(v + 0.5);
}

/* step_breakdown.csv's rows into each run's cells (one per rank and step); its rows come run by run. */
static void collect(struct ss_run *rs, size_t n, const struct table *bd)
{
	struct ss_run *r = NULL;
	for (size_t row = 0; row < bd->nrows; row++) {
		const char *run = table_cell(bd, row, SBD_RUN)->v.text;
		if (!r || strcmp(r->run, run)) {
			r = NULL;
			for (size_t i = 0; i < n && !r; i++)
				if (!strcmp(rs[i].run, run))
					r = &rs[i];
			if (!r)
				continue;
		}
		int64_t rank = table_cell(bd, row, SBD_RANK)->v.i, step = table_cell(bd, row, SBD_STEP)->v.i;
		const char *part = table_cell(bd, row, SBD_PART)->v.text;
		int p = !strcmp(part, "compute") ? SS_COMPUTE : !strcmp(part, "communication") ? SS_COMM : SS_OTHER;
		if (!r->ncells || r->cells[r->ncells - 1].step != step || r->cells[r->ncells - 1].rank != rank) {
			r->cells = xgrow(r->cells, &r->cap, r->ncells + 1, sizeof(*r->cells));
			r->cells[r->ncells++] = (struct ss_cell){.step = step, .rank = rank};
		}
		r->cells[r->ncells - 1].ns[p] += table_cell(bd, row, SBD_TIME_US)->v.i;
	}
}

/* The run's mean step by part (see the file's comment) from its cells. */
static void fold(struct ss_run *r)
{
	struct ss_cell *c = r->cells;
	size_t n = 0;
	if (r->ncells > 1) /* a run without cells has none (NULL) */
		qsort(c, r->ncells, sizeof(*c), cmp_cell);
	for (size_t i = 0; i < r->ncells; i++) /* one cell per rank and step */
		if (n && !cmp_cell(&c[n - 1], &c[i]))
			for (int p = 0; p < SS_PARTS; p++)
				c[n - 1].ns[p] += c[i].ns[p];
		else
			c[n++] = c[i];
	double sum[SS_PARTS + 1] = {0};
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int64_t step_sum[SS_PARTS + 1] = {0};
		for (; j < n && c[j].step == c[i].step; j++)
			for (int p = 0; p < SS_PARTS; p++) {
				step_sum[p] += c[j].ns[p];
				step_sum[SS_PARTS] += c[j].ns[p];
			}
		for (int p = 0; p <= SS_PARTS; p++)
			sum[p] += (double)step_sum[p] / (double)(j - i);
		if ((int64_t)(j - i) > r->ranks)
			r->ranks = (int64_t)(j - i);
		r->steps++;
		i = j;
	}
	if (!r->steps)
		return;
	for (int p = 0; p < SS_PARTS; p++)
		r->ns[p] = round_ns(sum[p] / (double)r->steps);
	r->step_ns = round_ns(sum[SS_PARTS] / (double)r->steps);
}

/* The speedup of r from scaling.csv: the logs' where there is one, else the profiled steps'. */
static void speedup_of(struct ss_run *r, const struct table *sc)
{
	r->speedup = NAN;
	if (!sc)
		return;
	int cb = SCL_BASELINE, cs = SCL_SPEEDUP,
	    cl = SCL_LOG_SPEEDUP;
	for (size_t row = 0; sc && row < sc->nrows; row++) {
		if (strcmp(table_cell(sc, row, SCL_RUN)->v.text, r->run))
			continue;
		r->baseline = table_text(sc, row, cb);
		double l = table_num(sc, row, cl), s = table_num(sc, row, cs);
		if (isfinite(l)) {
			r->speedup = l;
			r->source = "log";
		} else if (isfinite(s)) {
			r->speedup = s;
			r->source = "profiled";
		}
	}
}

/*
 * The largest peak_allocated_bytes of r's ranks in memory_ranks.csv that do
 * not grow into r->peak_bytes (-1: none), the growing ones counted in
 * r->grown; every rank's where all grow (r->grown 0 then).
 */
static void peak_of(struct ss_run *r, const struct table *mr)
{
	int64_t peak = -1, all = -1;
	int cp = mr ? MR_PEAK_ALLOCATED_BYTES : -1, cg = mr ? MR_GROWS : -1;
	r->grown = 0;
	r->grown_rank = -1;
	for (size_t row = 0; mr && cp >= 0 && row < mr->nrows; row++) {
		const struct cell *c = table_cell(mr, row, (size_t)cp);
		if (strcmp(table_cell(mr, row, MR_RUN)->v.text, r->run) || c->null)
			continue;
		if (c->v.i > all)
			all = c->v.i;
		if (cg >= 0 && table_num(mr, row, cg) == 1) {
			if (!r->grown++)
				r->grown_rank = (int64_t)table_num(mr, row, MR_RANK);
		} else if (c->v.i > peak) {
			peak = c->v.i;
		}
	}
	if (peak < 0)
		r->grown = 0; /* every rank grows: all of them */
	r->peak_bytes = peak >= 0 ? peak : all;
}

/* The unprofiled iterations of the run's log (profiler_overhead.csv), or -1. */
static int64_t unprofiled_of(const char *run, const struct table *po)
{
	int cu = po ? PO_UNPROFILED : -1;
	for (size_t row = 0; po && cu >= 0 && row < po->nrows; row++) {
		const struct cell *c = table_cell(po, row, (size_t)cu);
		if (!strcmp(table_cell(po, row, PO_RUN)->v.text, run) && !c->null)
			return c->v.i;
	}
	return -1;
}

static int by_model_gpus(const void *pa, const void *pb)
{
	const struct ss_run *a = *(struct ss_run *const *)pa, *b = *(struct ss_run *const *)pb;
	if (a->model_first != b->model_first)
		return a->model_first < b->model_first ? -1 : 1;
	if (a->gpus != b->gpus)
		return a->gpus < b->gpus ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/*
 * mark[m] == s + 1: strategy s has a profiled run of the model whose first
 * run is row m. A run belongs to the figure of strategy s when it was
 * profiled and is a run of s, or a 1-GPU run of a model s was run with.
 */
static int member(const struct ss_run *r, size_t s, const size_t *mark)
{
	return r->steps && (r->strategy == s || (r->gpus == 1 && mark[r->model_first] == s + 1));
}

/*
 * figures/<name>: "strategy_scaling_" and the shown name in [a-z0-9-], and
 * "-k" (the figure's number) where that is empty or an earlier figure's
 * (two names that differ only in case or punctuation).
 */
static void figure_name(const char *shown, size_t k, char *const *earlier, struct buf *out)
{
	buf_reset(out);
	buf_adds(out, "strategy_scaling_");
	size_t start = out->len;
	for (const char *p = shown; *p; p++) {
		char ch = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
		buf_printf(out, "%c", (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ? ch : '-');
	}
	int taken = out->len == start;
	for (size_t i = 0; i + 1 < k && !taken; i++)
		taken = !strcmp(earlier[i], out->data);
	if (taken)
		buf_printf(out, "-%zu", k);
}

/*
 * What each bar rests on (issue #54 item 4), into the caption: the profiled
 * iterations and traced ranks of each bar (one sentence when all bars
 * share them), the runs whose traces cover fewer ranks than GPUs, and the
 * logs' unprofiled iterations behind the speedups.
 */
static void samples(struct buf *b, struct ss_run *const *v, size_t nv, int any_peak)
{
	int same = 1, partial = 0;
	int64_t ulo = -1, uhi = -1;
	for (size_t i = 0; i < nv; i++) {
		same &= v[i]->steps == v[0]->steps && v[i]->ranks == v[0]->ranks;
		partial |= v[i]->ranks < v[i]->gpus;
		if (v[i]->unprofiled >= 0 && (ulo < 0 || v[i]->unprofiled < ulo))
			ulo = v[i]->unprofiled;
		if (v[i]->unprofiled > uhi)
			uhi = v[i]->unprofiled;
	}
	if (same)
		buf_printf(b, "Samples: each bar is %" PRId64 " profiled iteration%s of %" PRId64 " traced rank%s", v[0]->steps,
			   v[0]->steps == 1 ? "" : "s", v[0]->ranks, v[0]->ranks == 1 ? "" : "s");
	else {
		buf_adds(b, "Samples (profiled iterations x traced ranks): ");
		for (size_t i = 0; i < nv; i++)
			buf_printf(b, "%s%s %" PRId64 " x %" PRId64, i ? ", " : "", v[i]->run, v[i]->steps, v[i]->ranks);
	}
	if (partial) {
		buf_adds(b, "; traced fewer ranks than GPUs: ");
		const char *sep = "";
		for (size_t i = 0; i < nv; i++)
			if (v[i]->ranks < v[i]->gpus) {
				buf_printf(b, "%s%s %" PRId64 " of %" PRId64, sep, v[i]->run, v[i]->ranks, v[i]->gpus);
				sep = ", ";
			}
		buf_printf(b, " (their communication%s the traced ranks' only)", any_peak ? " and memory are" : " is");
	}
	buf_adds(b, ".");
	const char *sep = " Memory per GPU leaves out the ranks whose memory grows every step (a leak, not the "
			  "strategy's cost; memory-growth findings): ";
	for (size_t i = 0; i < nv; i++)
		if (v[i]->grown) {
			buf_printf(b, "%s%s rank %" PRId64 "%s", sep, v[i]->run, v[i]->grown_rank,
				   v[i]->grown > 1 ? " and the others that grow" : "");
			sep = ", ";
		}
	if (*sep == ',')
		buf_adds(b, ".");
	sep = " Strategy inferred from the traces (runs.csv strategy_source), the manifest giving none: ";
	for (size_t i = 0; i < nv; i++) {
		const char *src = v[i]->strategy_src, *log = src ? strstr(src, "; ") : NULL;
		if (!src || strncmp(src, "trace: ", 7))
			continue;
		/* "trace: <annotation>[; training log (<file>): strategy S | ; the training log (<file>) says S]" */
		int len = log ? (int)(log - src) - 7 : (int)strlen(src + 7);
		buf_printf(b, "%s%s from %.*s", sep, v[i]->run, len, src + 7);
		if (log)
			buf_adds(b, strncmp(log, "; training log (", 16) ? ", its training log saying otherwise"
									: ", as its training log says");
		sep = "; ";
	}
	if (*sep == ';')
		buf_adds(b, ".");
	sep = " Strategy from the training logs (runs.csv strategy_source), the manifest and traces giving none: ";
	for (size_t i = 0; i < nv; i++)
		if (v[i]->strategy_src && !strncmp(v[i]->strategy_src, "training log (", 14)) {
			buf_printf(b, "%s%s from its %s", sep, v[i]->run, v[i]->strategy_src);
			sep = "; ";
		}
	if (*sep == ';')
		buf_adds(b, ".");
	if (ulo >= 0)
		buf_printf(b, ulo == uhi ? " Each log speedup compares medians of %" PRId64 " unprofiled iterations a log."
				       : " Each log speedup compares medians of %" PRId64 "-%" PRId64 " unprofiled iterations a log.",
			   ulo, uhi);
}

/* The figure of strategy shown, the k-th (from 1); its name goes into names[k - 1]. */
static void add_figure(struct analysis_result *out, struct ss_run *const *v, size_t nv, const char *shown, size_t k,
		       char **names)
{
	struct buf name, label;
	buf_init(&name);
	buf_init(&label);
	figure_name(shown, k, names, &name);
	names[k - 1] = xstrdup(name.data);
	buf_printf(&label, "Time per iteration and speedup over GPUs, %s", *shown ? shown : "no strategy");
	/*
	 * One figure, two sources, each labelled (issue #54 item 9): the bars
	 * are profiled steps (the axis says so), a speedup says whether it is
	 * the training log's or the profiled steps'.
	 */
	struct chart *c = chart_new(CHART_STACKED_BAR, name.data, label.data, "time per profiled iteration (ms)");
	int any_peak = 0;
	for (size_t i = 0; i < nv; i++)
		any_peak |= v[i]->peak_bytes >= 0;
	chart_set_x_axis(c, any_peak ? "model, GPUs (speedup, memory per GPU)" : "model, GPUs (speedup)",
			 CHART_SCALE_LINEAR);
	chart_add_series(c, "compute");
	chart_add_series(c, "communication");
	chart_add_series(c, "other");
	for (size_t i = 0; i < nv; i++) {
		const struct ss_run *r = v[i];
		buf_reset(&label);
		/*
		 * "<model>, <N> GPUs": the strategy is the figure's, and the run's
		 * whole label with the speedup would pass MAX_LABEL_CHARS and lose
		 * its middle words. The run (its label, chart_use_run_labels) where
		 * another bar has the same model and GPUs.
		 */
		int alike = 0;
		for (size_t j = 0; j < nv; j++)
			alike |= j != i && v[j]->gpus == r->gpus && !strcmp(v[j]->model, r->model);
		if (alike)
			buf_adds(&label, r->run);
		else
			buf_printf(&label, "%s%s%" PRId64 " GPU%s", r->model, *r->model ? ", " : "", r->gpus,
				   r->gpus == 1 ? "" : "s");
		const char *sep = " ("; /* before the next thing said in brackets */
		if (r->baseline && !strcmp(r->baseline, r->run)) {
			buf_adds(&label, " (baseline");
			sep = ", ";
		} else if (isfinite(r->speedup)) {
			buf_printf(&label, " (%.2fx %s", r->speedup, !strcmp(r->source, "log") ? "log" : "profiled");
			sep = ", ";
		}
		if (r->peak_bytes >= 0) {
			buf_printf(&label, "%s%.1f GiB", sep, (double)r->peak_bytes / (1024.0 * 1024.0 * 1024.0));
			sep = ", ";
		}
		if (!strcmp(sep, ", "))
			buf_adds(&label, ")");
		size_t cat = chart_add_category(c, label.data);
		for (int p = 0; p < SS_PARTS; p++)
			chart_set(c, cat, (size_t)p, (double)r->ns[p] / 1e6);
	}
	buf_reset(&label);
	buf_printf(&label,
		   "Per run of %s and the 1-GPU runs of the same models, by model and GPUs: the mean profiled "
		   "iteration split into compute (compute kernels), communication (communication kernels not under "
		   "compute) and other (copies, host time, idle): per step the mean over the run's traced ranks, then "
		   "the mean over its profiled steps. ",
		   *shown ? shown : "no strategy");
	samples(&label, v, nv, any_peak);
	buf_adds(&label,
		 " In brackets, the speedup against scaling.csv's baseline from the training logs' unprofiled "
		 "iterations (1.89x log), or from the profiled steps where the run or its baseline has no log (1.89x "
		 "profiled): the bars are profiled steps, which the profiler slows unevenly; and, where the traces "
		 "carry the allocator's events, the most memory any of the run's traced GPUs whose memory does not "
		 "grow held in a profiled step (GiB, memory_ranks.csv). The kind of paper 002's Figures 12-14.");
	result_add_figure(out, c, label.data);
	buf_release(&name);
	buf_release(&label);
}

static int analysis_strategy_scaling(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct table *rt = result_table(out, "runs"), *bd = result_table(out, "step_breakdown"),
			   *sc = result_table(out, "scaling"), *mr = result_table(out, "memory_ranks"),
			   *po = result_table(out, "profiler_overhead");
	if (!rt || !bd || rt->nrows < 2)
		return 0;
	size_t n = rt->nrows, nstrat = 0;
	struct ss_run *rs = xcalloc(n, sizeof(*rs));
	const char **strat = xcalloc(n, sizeof(*strat)); /* the shown names, first seen first */
	int cg = RUNS_GPUS, cm = RUNS_MODEL, cs = RUNS_STRATEGY;
	int css = RUNS_STRATEGY_SOURCE;
	for (size_t i = 0; i < n; i++) {
		struct ss_run *r = &rs[i];
		r->run = table_cell(rt, i, RUNS_RUN)->v.text;
		r->model = table_text(rt, i, cm) ? table_text(rt, i, cm) : "";
		const char *ssrc = table_text(rt, i, css);
		r->strategy_src = ssrc && strcmp(ssrc, "manifest") ? ssrc : NULL;
		double g = table_num(rt, i, cg);
		r->gpus = isfinite(g) ? (int64_t)g : 0;
		r->order = r->model_first = i;
		for (size_t j = 0; j < i && r->model_first == i; j++)
			if (!strcmp(rs[j].model, r->model))
				r->model_first = rs[j].model_first;
		const struct manifest_run *mr = NULL;
		for (size_t j = 0; ctx->manifest && j < ctx->manifest->nruns; j++)
			if (ctx->manifest->runs[j].id && !strcmp(ctx->manifest->runs[j].id, r->run))
				mr = &ctx->manifest->runs[j];
		layout_strategy_shown(mr, table_text(rt, i, cs), r->shown, sizeof(r->shown));
		for (r->strategy = 0; r->strategy < nstrat && strcmp(strat[r->strategy], r->shown); r->strategy++)
			;
		if (r->strategy == nstrat)
			strat[nstrat++] = r->shown;
	}
	collect(rs, n, bd);
	for (size_t i = 0; i < n; i++) {
		fold(&rs[i]);
		speedup_of(&rs[i], sc);
		peak_of(&rs[i], mr);
		rs[i].unprofiled = unprofiled_of(rs[i].run, po);
	}
	size_t *mark = xcalloc(n, sizeof(*mark));
	struct table *t = NULL;
	struct ss_run **v = xcalloc(n, sizeof(*v));
	int64_t *gpus_of = xcalloc(n, sizeof(*gpus_of)); /* per model: the first GPU count seen, 0 none */
	size_t nfig = 0;
	char **names = xcalloc(nstrat + 1, sizeof(*names)); /* the figures' names so far */
	for (size_t s = 0; s < nstrat; s++) {
		/* a strategy of multi-GPU runs, some model of which ran on two or more GPU counts */
		int multi = 0, scales = 0;
		size_t nv = 0;
		memset(gpus_of, 0, n * sizeof(*gpus_of));
		for (size_t i = 0; i < n; i++)
			if (rs[i].steps && rs[i].strategy == s)
				mark[rs[i].model_first] = s + 1;
		for (size_t i = 0; i < n; i++) {
			if (!member(&rs[i], s, mark))
				continue;
			multi |= rs[i].strategy == s && rs[i].gpus > 1;
			int64_t *g = &gpus_of[rs[i].model_first];
			scales |= *g && *g != rs[i].gpus;
			if (!*g)
				*g = rs[i].gpus;
			v[nv++] = &rs[i];
		}
		if (!multi || !scales || !strcmp(strat[s], "single"))
			continue;
		qsort(v, nv, sizeof(*v), by_model_gpus);
		const char *shown = strat[s];
		if (!t)
			t = table_new("strategy_scaling",
				      "Time per iteration by part and speedup over GPUs and models, per strategy",
				      TABLE_SCHEMA(STRATEGY_SCALING_COLUMNS));
		for (size_t i = 0; i < nv; i++) {
			const struct ss_run *r = v[i];
			size_t row = table_add_row(t);
			table_set_text(t, row, 0, shown);
			table_set_text(t, row, 1, r->run);
			table_set_text(t, row, 2, r->model);
			table_set_int(t, row, 3, r->gpus);
			table_set_int(t, row, 4, r->steps);
			table_set_int(t, row, 5, r->ranks);
			table_set_ns(t, row, 6, r->step_ns);
			for (int p = 0; p < SS_PARTS; p++)
				table_set_ns(t, row, 7 + (size_t)p, r->ns[p]);
			if (r->step_ns > 0)
				table_set_real(t, row, 10, (double)r->ns[SS_COMM] / (double)r->step_ns);
			if (r->baseline)
				table_set_text(t, row, 11, r->baseline);
			if (isfinite(r->speedup)) {
				table_set_real(t, row, 12, r->speedup);
				table_set_text(t, row, 13, r->source);
			}
			if (r->peak_bytes >= 0)
				table_set_int(t, row, 14, r->peak_bytes);
		}
		add_figure(out, v, nv, shown, ++nfig, names);
	}
	for (size_t i = 0; i < nfig; i++)
		free(names[i]);
	free(names);
	free(gpus_of);
	free(mark);
	for (size_t i = 0; i < n; i++)
		free(rs[i].cells);
	free(strat);
	free(v);
	free(rs);
	if (!t)
		return 0;
	result_add_table(out, t);
	result_add_method(
		out, "strategy_scaling.csv",
		"Per parallel strategy (as the report names it: fsdp and zero3 are both ZeRO-3) of which some model has "
		"profiled runs on two or more GPU counts, counting that model's 1-GPU runs: those runs and the 1-GPU runs "
		"of the same models, by model and GPUs. From step_breakdown.csv, whose parts add up to each rank's step: "
		"per profiled step, the mean over the run's ranks of the compute part (compute_us), the communication "
		"part (communication kernels not under compute, communication_us) and the rest (copies, memsets, host "
		"time, idle: other_us), and of the whole step (step_us); then the mean over its steps, rounded to the "
		"ns. Ranks of one step are not independent samples: their mean is one value of that step, and steps "
		"and ranks say what each row rests on. comm_share = communication_us / step_us. speedup: scaling.csv's "
		"log_speedup (the training logs' unprofiled iterations, against scaling.csv's baseline) where the run "
		"and its baseline have logs (speedup_source log), else its speedup from the profiled steps "
		"(speedup_source profiled). peak_allocated_bytes: the largest of memory_ranks.csv's "
		"peak_allocated_bytes over the run's traced ranks that do not grow (grows != 1; every rank's where all "
		"grow), the most memory any of its healthy traced GPUs held in a profiled step, from the allocator's "
		"events in the traces: a rank whose memory grows every step is a leak of that rank, not a cost of the "
		"strategy, and the figure's caption names the ranks left out (empty where the traces carry no allocator events; where a run has fewer traces than "
		"GPUs, the others are not seen, and the figure's caption names such runs). The kind of paper 002's Figures 12-14, one "
		"figure per strategy.");
	return 0;
}

const struct analysis_def analysis_def_strategy_scaling = {
	.name = "strategy_scaling",
	.run = analysis_strategy_scaling,
	.needs = ANALYSIS_TABLES("runs", "step_breakdown", "scaling", "memory_ranks", "profiler_overhead"),
	.makes = ANALYSIS_TABLES("strategy_scaling"),
	.figures = ANALYSIS_NAMES("strategy_scaling_*"),
};
