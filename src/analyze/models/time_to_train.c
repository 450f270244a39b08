/*
 * time_to_train.c: the time to train a fixed number of samples over GPU
 * counts and batch sizes (time_to_train.csv, figure time_to_train), the
 * kind of paper 000's Figure 1 (wall-clock fine-tuning time over GPUs and
 * batch sizes), from training logs alone.
 *
 * Per run whose training log (Megatron training_log lines) gives its
 * iterations: iterations, samples (the last consumed_samples), and
 *   wall_s    the sum of every logged iteration's time (start-up, warm-up
 *             and profiled iterations included): what a stopwatch around
 *             the training loop shows;
 *   first_s   the first logged iteration's time (start-up: CUDA context,
 *             NCCL set-up, allocator warm-up; 0.4-0.6 s in runs of 1-5 s);
 *   after_first_s  wall_s - first_s: the training after its first iteration,
 *             the time the figure draws;
 *   steady_s  the median of the unprofiled iterations (profiler_overhead.csv,
 *             profiled.h) x iterations: the same training without its
 *             start-up or the profiler.
 * Only when at least two runs of one model trained the same number of
 * samples on different GPU counts (a study of this kind), and only those
 * runs are drawn; other studies get nothing.
 * speedup: after_first_s of the 1-GPU run of the same per-GPU batch over
 * this run's; wall_speedup: the same of wall_s, start-up included (empty
 * without such a run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/layout.h"
#include "analyze/models/models.h"
#include "analyze/time/profiler_overhead.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include "analyze/time/time_tables.h"

struct ttt {
	const char *run;
	const char *model; /* the manifest's model name, "" if none */
	char shown[32];    /* the strategy in the figures' words (layout_strategy_shown) */
	int gpus, batch;
	int64_t iterations, samples, wall_ns, first_ns, steady_ns;
};

/* A run's logged iterations: their count, last consumed_samples, summed time and the first one's time. */
static int log_of(const struct analysis_ctx *ctx, const char *run, struct ttt *t)
{
	struct store_stmt *st;
#define TTT_FROM                                                                                               \
	" FROM iterations i JOIN run_traces t ON t.id = i.trace_id"                                            \
	" WHERE t.experiment = ?1 AND t.run = ?2 AND i.elapsed_ns IS NOT NULL"
	if (store_prepare(ctx->store, "time_to_train: a run's logged iterations",
			  "SELECT count(*), max(i.consumed_samples), sum(i.elapsed_ns),"
			  " (SELECT i.elapsed_ns" TTT_FROM " ORDER BY i.iteration, i.rowid LIMIT 1)" TTT_FROM,
			  &st) < 0)
		return -1;
#undef TTT_FROM
	store_bind_text(st, 1, ctx->experiment);
	store_bind_text(st, 2, run);
	int rc = store_next(st);
	if (rc == 1) {
		t->iterations = store_column_int64(st, 0);
		t->samples = store_column_int64(st, 1);
		t->wall_ns = store_column_int64(st, 2);
		t->first_ns = store_column_int64(st, 3);
	}
	store_finalize(st);
	return rc < 0 ? -1 : 0;
}

static int analysis_time_to_train(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct manifest *man = ctx->manifest;
	if (!man || man->nruns < 2)
		return 0;
	struct ttt *v = xcalloc(man->nruns, sizeof(*v));
	size_t n = 0;
	/* the strategy: runs.csv's, the manifest's or else the one the traces or logs say (basic_strategy.c) */
	const struct table *rt = result_table(out, "runs");
	int crun = rt ? RUNS_RUN : -1, cst = rt ? RUNS_STRATEGY : -1;
	for (size_t i = 0; i < man->nruns; i++) {
		const struct manifest_run *r = &man->runs[i];
		struct ttt t = {.run = r->id, .model = r->model.name ? r->model.name : "", .gpus = r->gpus, .batch = r->batch};
		const char *strategy = NULL;
		for (size_t k = 0; rt && k < rt->nrows; k++)
			if (!strcmp(table_text(rt, k, crun), r->id))
				strategy = table_text(rt, k, cst);
		layout_strategy_shown(r, strategy, t.shown, sizeof(t.shown));
		if (log_of(ctx, r->id, &t) < 0) {
			free(v);
			return -1;
		}
		if (t.iterations < 1 || t.samples <= 0 || r->gpus < 1)
			continue;
		int64_t med = profiler_unprofiled_ns(out, r->id);
		t.steady_ns = med > 0 ? med * t.iterations : 0;
		v[n++] = t;
	}
	/*
	 * A study of this kind: runs of one model that trained the same samples
	 * on different GPU counts. Only those are drawn (h200's runs trained
	 * 160/320/640 samples on 1/2/4 GPUs: weak scaling, no figure).
	 */
	unsigned char *drawn = xcalloc(n + 1, 1);
	int kind = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (v[i].samples == v[j].samples && v[i].gpus != v[j].gpus && !strcmp(v[i].model, v[j].model))
				kind = drawn[i] = 1;
	if (!kind) {
		free(drawn);
		free(v);
		return 0;
	}
	struct table *t = table_new("time_to_train", "Time to train a fixed number of samples, from the training logs",
				    TABLE_SCHEMA(TIME_TO_TRAIN_COLUMNS));
	struct chart *c = chart_new(CHART_GROUPED_BAR, "time_to_train",
				    "Time to train a fixed number of samples over GPUs, first iteration excluded",
				    "time to train after the first iteration (s)");
	chart_set_x_axis(c, "GPUs", CHART_SCALE_LINEAR);
	/* categories: GPU counts ascending; series: the drawn runs' configurations but the GPU count */
	int gpus[16];
	size_t ng = 0;
	int many_models = 0, many_samples = 0, many_strategies = 0;
	for (size_t i = 0; i < n; i++) {
		if (!drawn[i])
			continue;
		size_t k;
		for (k = 0; k < ng && gpus[k] != v[i].gpus; k++)
			;
		if (k == ng && ng < 16)
			gpus[ng++] = v[i].gpus;
		for (size_t j = 0; j < n; j++)
			if (drawn[j]) {
				many_models |= strcmp(v[i].model, v[j].model) != 0;
				many_samples |= v[i].samples != v[j].samples;
				many_strategies |= strcmp(v[i].shown, v[j].shown) != 0;
			}
	}
	for (size_t a = 0; a < ng; a++)
		for (size_t b = a + 1; b < ng; b++)
			if (gpus[b] < gpus[a]) {
				int x = gpus[a];
				gpus[a] = gpus[b], gpus[b] = x;
			}
	struct buf label;
	buf_init(&label);
	for (size_t k = 0; k < ng; k++) {
		buf_reset(&label);
		buf_printf(&label, "%d GPU%s", gpus[k], gpus[k] == 1 ? "" : "s");
		chart_add_category(c, label.data);
	}
	/*
	 * A series per configuration: the model where several are drawn, the
	 * per-GPU batch, the samples and the strategy where they differ, and
	 * the run where two runs of one configuration share a GPU count (four
	 * pipeline schedules on 2 GPUs): one bar per run, never two in one.
	 * Series in order of batch, then of first appearance.
	 */
	size_t *series_of = xcalloc(n + 1, sizeof(*series_of)), *order = xcalloc(n + 1, sizeof(*order)), no = 0;
	for (size_t i = 0; i < n; i++) {
		if (!drawn[i])
			continue;
		size_t at = no++;
		for (; at > 0 && v[order[at - 1]].batch > v[i].batch; at--)
			order[at] = order[at - 1];
		order[at] = i;
	}
	for (size_t o = 0; o < no; o++) {
		size_t i = order[o];
		buf_reset(&label);
		if (many_models)
			buf_printf(&label, "%s, ", *v[i].model ? v[i].model : "model not given");
		if (v[i].batch > 0)
			buf_printf(&label, "batch %d per GPU", v[i].batch);
		else
			buf_adds(&label, "batch not given");
		if (many_samples)
			buf_printf(&label, ", %lld samples", (long long)v[i].samples);
		if (many_strategies)
			buf_printf(&label, ", %s", *v[i].shown ? v[i].shown : "no strategy");
		for (size_t j = 0; j < n; j++)
			if (j != i && drawn[j] && v[j].gpus == v[i].gpus && v[j].batch == v[i].batch &&
			    v[j].samples == v[i].samples && !strcmp(v[j].model, v[i].model) && !strcmp(v[j].shown, v[i].shown)) {
				buf_printf(&label, " (%s)", v[i].run);
				break;
			}
		size_t s = 0;
		while (s < c->nseries && strcmp(c->series[s], label.data))
			s++;
		series_of[i] = s < c->nseries ? s : chart_add_series(c, label.data);
	}
	free(order);
	for (size_t i = 0; i < n; i++) {
		const struct ttt *x = &v[i];
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, x->run);
		table_set_int(t, row, 1, x->gpus);
		if (x->batch > 0)
			table_set_int(t, row, 2, x->batch);
		table_set_int(t, row, 3, x->samples);
		table_set_int(t, row, 4, x->iterations);
		table_set_real(t, row, 5, (double)x->wall_ns / 1e9);
		table_set_real(t, row, 6, (double)x->first_ns / 1e9);
		table_set_real(t, row, 7, (double)(x->wall_ns - x->first_ns) / 1e9);
		if (x->steady_ns > 0)
			table_set_real(t, row, 8, (double)x->steady_ns / 1e9);
		for (size_t j = 0; j < n; j++)
			if (v[j].gpus == 1 && v[j].batch == x->batch && v[j].samples == x->samples && x->wall_ns > 0) {
				if (x->wall_ns > x->first_ns)
					table_set_real(t, row, 9, (double)(v[j].wall_ns - v[j].first_ns) /
									  (double)(x->wall_ns - x->first_ns));
				table_set_real(t, row, 10, (double)v[j].wall_ns / (double)x->wall_ns);
			}
		size_t cat = 0;
		while (cat < ng && gpus[cat] != x->gpus)
			cat++;
		if (drawn[i] && cat < ng)
			chart_set(c, cat, series_of[i], (double)(x->wall_ns - x->first_ns) / 1e9);
	}
	buf_release(&label);
	free(series_of);
	free(drawn);
	free(v);
	result_add_table(out, t);
	result_add_figure(out, c,
			  "Time to train a fixed number of samples, per GPU count: the runs of one model that trained "
			  "as many samples as another of that model on a different GPU count, one bar each (a series per "
			  "configuration but the GPU count: the model where several are drawn, the per-GPU batch, the "
			  "samples and strategy where they differ, the run where two share a GPU count); the sum of "
			  "the iteration times the training log records after the first iteration (after_first_s; "
			  "profiled iterations included). The first iteration, start-up (CUDA context, NCCL set-up, "
			  "allocator warm-up, first_s), is left out: it does not shrink with more GPUs and would "
			  "flatten the speedup (time_to_train.csv gives wall_s with it, wall_speedup from it, and "
			  "steady_s, the unprofiled median iteration times the iterations).");
	result_add_method(
		out, "time_to_train.csv",
		"Per run with a training log, when at least two runs of one model trained the same number of samples "
		"on different GPU counts: samples = the log's last consumed_samples; iterations = its logged iterations; wall_s = "
		"the sum of their times (start-up, warm-up and profiled iterations included: what a stopwatch around "
		"the loop shows); first_s = the first logged iteration's time (start-up); after_first_s = wall_s - "
		"first_s, what the figure draws; steady_s = the median of its unprofiled iterations "
		"(profiler_overhead.csv) x iterations (without the start-up and the profiler); speedup = "
		"after_first_s of the 1-GPU run of the same per-GPU batch over this run's; wall_speedup = the same "
		"ratio of wall_s, start-up included.");
	return 0;
}

const struct analysis_def analysis_def_time_to_train = {
	.name = "time_to_train",
	.run = analysis_time_to_train,
	.needs = ANALYSIS_TABLES("runs", "profiler_overhead"),
	.makes = ANALYSIS_TABLES("time_to_train"),
	.figures = ANALYSIS_NAMES("time_to_train"),
};
