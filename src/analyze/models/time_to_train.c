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
 * Only when at least two runs trained the same number of samples on
 * different GPU counts (a study of this kind); other studies get nothing.
 * speedup: after_first_s of the 1-GPU run of the same per-GPU batch over
 * this run's; wall_speedup: the same of wall_s, start-up included (empty
 * without such a run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/xalloc.h"

struct ttt {
	const char *run;
	int gpus, batch;
	int64_t iterations, samples, wall_ns, first_ns, steady_ns;
};

/* A run's logged iterations: their count, last consumed_samples, summed time and the first one's time. */
static int log_of(const struct analysis_ctx *ctx, const char *run, struct ttt *t)
{
	sqlite3_stmt *st;
#define TTT_FROM                                                                                               \
	" FROM iterations i JOIN traces t ON t.id = i.trace_id JOIN runs r ON r.id = t.run_id"                 \
	" WHERE r.experiment = ?1 AND r.run = ?2 AND i.elapsed_ns IS NOT NULL"
	if (store_prepare(ctx->store, "time_to_train: a run's logged iterations",
			  "SELECT count(*), max(i.consumed_samples), sum(i.elapsed_ns),"
			  " (SELECT i.elapsed_ns" TTT_FROM " ORDER BY i.iteration, i.rowid LIMIT 1)" TTT_FROM,
			  &st) < 0)
		return -1;
#undef TTT_FROM
	store_bind_text(st, 1, ctx->experiment, -1, SQLITE_STATIC);
	store_bind_text(st, 2, run, -1, SQLITE_STATIC);
	int rc = store_step(ctx->store, st, "time_to_train: a run's logged iterations");
	if (rc == 1) {
		t->iterations = store_column_int64(st, 0);
		t->samples = store_column_int64(st, 1);
		t->wall_ns = store_column_int64(st, 2);
		t->first_ns = store_column_int64(st, 3);
	}
	store_finalize(st);
	return rc < 0 ? -1 : 0;
}

int analysis_time_to_train(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct manifest *man = ctx->manifest;
	if (!man || man->nruns < 2)
		return 0;
	struct ttt *v = xcalloc(man->nruns, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < man->nruns; i++) {
		const struct manifest_run *r = &man->runs[i];
		struct ttt t = {.run = r->id, .gpus = r->gpus, .batch = r->batch};
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
	/* a study of this kind: two runs with the same samples on different GPU counts */
	int kind = 0;
	for (size_t i = 0; i < n && !kind; i++)
		for (size_t j = i + 1; j < n && !kind; j++)
			kind = v[i].samples == v[j].samples && v[i].gpus != v[j].gpus;
	if (!kind) {
		free(v);
		return 0;
	}
	struct table *t = table_new("time_to_train", "Time to train a fixed number of samples, from the training logs",
				    "run:text,gpus:int,batch:int,samples:int,iterations:int,wall_s:real,first_s:real,"
				    "after_first_s:real,steady_s:real,speedup:real,wall_speedup:real");
	struct chart *c = chart_new(CHART_GROUPED_BAR, "time_to_train",
				    "Time to train the same samples over GPUs and batch sizes, first iteration excluded",
				    "time to train after the first iteration (s)");
	chart_set_x_axis(c, "GPUs", CHART_SCALE_LINEAR);
	struct buf label;
	buf_init(&label);
	/* categories: GPU counts ascending; series: per-GPU batch sizes ascending */
	int gpus[16], batches[16];
	size_t ng = 0, nb = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k;
		for (k = 0; k < ng && gpus[k] != v[i].gpus; k++)
			;
		if (k == ng && ng < 16)
			gpus[ng++] = v[i].gpus;
		for (k = 0; k < nb && batches[k] != v[i].batch; k++)
			;
		if (k == nb && nb < 16)
			batches[nb++] = v[i].batch;
	}
	for (size_t a = 0; a < ng; a++)
		for (size_t b = a + 1; b < ng; b++)
			if (gpus[b] < gpus[a]) {
				int x = gpus[a];
				gpus[a] = gpus[b], gpus[b] = x;
			}
	for (size_t a = 0; a < nb; a++)
		for (size_t b = a + 1; b < nb; b++)
			if (batches[b] < batches[a]) {
				int x = batches[a];
				batches[a] = batches[b], batches[b] = x;
			}
	for (size_t k = 0; k < ng; k++) {
		buf_reset(&label);
		buf_printf(&label, "%d GPU%s", gpus[k], gpus[k] == 1 ? "" : "s");
		chart_add_category(c, label.data);
	}
	for (size_t k = 0; k < nb; k++) {
		buf_reset(&label);
		if (batches[k] > 0)
			buf_printf(&label, "batch %d per GPU", batches[k]);
		else
			buf_adds(&label, "batch not given");
		chart_add_series(c, label.data);
	}
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
		size_t cat = 0, s = 0;
		while (cat < ng && gpus[cat] != x->gpus)
			cat++;
		while (s < nb && batches[s] != x->batch)
			s++;
		if (cat < ng && s < nb)
			chart_set(c, cat, s, (double)(x->wall_ns - x->first_ns) / 1e9);
	}
	buf_release(&label);
	free(v);
	result_add_table(out, t);
	result_add_figure(out, c,
			  "Time to train the same number of samples, per GPU count and per-GPU batch size: the sum of "
			  "the iteration times the training log records after the first iteration (after_first_s; "
			  "profiled iterations included). The first iteration, start-up (CUDA context, NCCL set-up, "
			  "allocator warm-up, first_s), is left out: it does not shrink with more GPUs and would "
			  "flatten the speedup (time_to_train.csv gives wall_s with it, wall_speedup from it, and "
			  "steady_s, the unprofiled median iteration times the iterations).");
	result_add_method(
		out, "time_to_train.csv",
		"Per run with a training log, when at least two runs trained the same number of samples on different "
		"GPU counts: samples = the log's last consumed_samples; iterations = its logged iterations; wall_s = "
		"the sum of their times (start-up, warm-up and profiled iterations included: what a stopwatch around "
		"the loop shows); first_s = the first logged iteration's time (start-up); after_first_s = wall_s - "
		"first_s, what the figure draws; steady_s = the median of its unprofiled iterations "
		"(profiler_overhead.csv) x iterations (without the start-up and the profiler); speedup = "
		"after_first_s of the 1-GPU run of the same per-GPU batch over this run's; wall_speedup = the same "
		"ratio of wall_s, start-up included.");
	return 0;
}
