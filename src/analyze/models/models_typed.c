/*
 * models_typed.c: the models analysis's tables of numbers typed in from a
 * published study (models.c runs them):
 *   throughput.csv:  samples/s from a published table, and model size x
 *                    samples/s normalized to the smallest model;
 *   throughput_scaling.csv: runs of one model and batch on different GPU
 *                    counts: speedup and scaling efficiency;
 *   relative.csv:    relative values typed in from a study (multiples of a
 *                    reference run, shares).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/layout.h"
#include "analyze/models/models.h"
#include "util/xalloc.h"

/* Numbers typed in from a published throughput table, and scaling between GPU counts. */
void models_throughput(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct manifest *man = ctx->manifest;
	size_t n = man ? man->nruns : 0;
	struct table *t = table_new("throughput", "Throughput typed in from the study, per run",
				    TABLE_SCHEMA(THROUGHPUT_COLUMNS));
	double *sx = xcalloc(n + 1, sizeof(*sx));
	for (size_t i = 0; i < n; i++) {
		const struct manifest_run *r = &man->runs[i];
		const struct manifest_measured *ms = &r->measured;
		if (!ms->iteration_ms && !ms->samples_per_s && !ms->oom)
			continue;
		size_t row = table_add_row(t);
		int tp = layout_tp(r), dp = r->gpus > 0 ? r->gpus / layout_replica_ranks(r) : 0;
		table_set_text(t, row, 0, r->id);
		if (r->gpus)
			table_set_int(t, row, 1, r->gpus);
		if (r->batch)
			table_set_int(t, row, 2, r->batch);
		table_set_int(t, row, 3, tp);
		table_set_text(t, row, 4, ms->oom ? "OOM" : "ok");
		if (ms->iteration_ms)
			table_set_real(t, row, 5, ms->iteration_ms);
		if (ms->samples_per_s)
			table_set_real(t, row, 6, ms->samples_per_s);
		double derived = ms->iteration_ms && r->batch && dp ? (double)r->batch * dp / (ms->iteration_ms / 1e3) : 0;
		if (derived)
			table_set_real(t, row, 7, derived);
		struct est_model em;
		models_est_model(&r->model, &em);
		int64_t est = est_params_as(&em, tp), size = ms->params ? ms->params : est;
		if (size)
			table_set_int(t, row, 8, size);
		if (ms->memory_gb > 0)
			table_set_real(t, row, 11, ms->memory_gb);
		if (est) {
			table_set_int(t, row, 12, est);
			if (ms->params)
				table_set_int(t, row, 13, est - ms->params);
			table_set_text(t, row, 14, models_params_method(&em));
		}
		double s = derived ? derived : ms->samples_per_s;
		if (size && s > 0 && !ms->oom) {
			sx[i] = (double)size * s;
			table_set_real(t, row, 9, sx[i]);
		}
	}
	/* Normalized within runs of the same GPU count and architecture, to the smallest model (first on ties). */
	for (size_t row = 0, i = 0; i < n; i++) {
		const struct manifest_run *r = &man->runs[i];
		if (!r->measured.iteration_ms && !r->measured.samples_per_s && !r->measured.oom)
			continue;
		if (sx[i] > 0) {
			const char *arch = r->model.arch ? r->model.arch : "gpt";
			size_t best = i;
			int64_t best_size = table_cell(t, row, TP_MODEL_SIZE)->v.i;
			for (size_t j = 0, rj = 0; j < n; j++) {
				const struct manifest_run *o = &man->runs[j];
				if (!o->measured.iteration_ms && !o->measured.samples_per_s && !o->measured.oom)
					continue;
				const char *oa = o->model.arch ? o->model.arch : "gpt";
				int64_t size = table_cell(t, rj, TP_MODEL_SIZE)->v.i;
				/* The smallest model; of equal sizes the first in the manifest. */
				if (sx[j] > 0 && o->gpus == r->gpus && !strcmp(oa, arch) &&
				    (size < best_size || (size == best_size && j < best))) {
					best = j;
					best_size = table_cell(t, rj, TP_MODEL_SIZE)->v.i;
				}
				rj++;
			}
			table_set_real(t, row, 10, sx[i] / sx[best]);
		}
		row++;
	}
	free(sx);
	if (!t->nrows) {
		table_free(t);
		return;
	}
	result_add_table(out, t);

	struct table *sc = table_new("throughput_scaling", "Scaling between GPU counts (same model, batch and tensor parallelism)",
				     TABLE_SCHEMA(THROUGHPUT_SCALING_COLUMNS));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			const struct manifest_run *a = &man->runs[i], *b = &man->runs[j];
			double sa = a->measured.samples_per_s, sb = b->measured.samples_per_s;
			if (i == j || sa <= 0 || sb <= 0 || a->gpus <= 0 || b->gpus <= a->gpus || a->batch != b->batch ||
			    layout_tp(a) != layout_tp(b) || !a->model.name || !b->model.name || strcmp(a->model.name, b->model.name))
				continue;
			size_t row = table_add_row(sc);
			table_set_text(sc, row, 0, a->id);
			table_set_text(sc, row, 1, b->id);
			table_set_int(sc, row, 2, a->gpus);
			table_set_int(sc, row, 3, b->gpus);
			table_set_real(sc, row, 4, sa);
			table_set_real(sc, row, 5, sb);
			table_set_real(sc, row, 6, sb / sa);
			table_set_real(sc, row, 7, (sb / sa) / ((double)b->gpus / a->gpus));
		}
	result_add_method(out, "throughput.csv",
		"Numbers typed into the manifest from the study's tables (measured: iteration_ms, samples_per_s, "
		"params and memory_gb, the memory per GPU the study reports, e.g. the allocator's cached GB, as "
		"the study printed them). params_estimated: perfstudy's count for the run's model as its "
		"framework counts it (params_method; estimates.csv's Methods), params_difference: that minus the "
		"study's params (0: reproduced exactly). samples_per_s_derived: batch x data-parallel GPUs (gpus / "
		"(tensor_parallel x pipeline_parallel)) / time per iteration. model_size: the study's params, else perfstudy's estimate. "
		"size_x_samples_per_s: model_size x samples_per_s_derived (the typed samples_per_s when no "
		"iteration time is given). normalized: that product over the product of the smallest model among "
		"the runs with the same GPU count and architecture (the first of equal size), as in 'Adventures "
		"with BERT and GPT2' (paper 004).");
	if (!sc->nrows) {
		table_free(sc);
		return;
	}
	result_add_table(out, sc);
	result_add_method(out, "throughput_scaling.csv",
		"For every two runs of the same model name, batch and tensor parallelism on p1 < p2 GPUs with "
		"typed-in samples/s S1 and S2: speedup S2 / S1 and scaling efficiency (S2 / S1) / (p2 / p1) "
		"(paper 004: 133.26 / (2 x 67.47) = 98.8 %).");
}

/*
 * Values a study prints only as multiples of a reference system's and as
 * shares (paper 002's TG40 vs Polaris table), typed in per run (measured:
 * time_x, comm_time_x, comm_pct, relative_to), with what follows from them:
 * compute_pct = 100 - comm_pct; comm_share_x = comm_time_x / time_x, the
 * run's communication share in multiples of the reference's, which the
 * ratio of the two comm_pct must equal if all three numbers describe the
 * same runs; time_saved_pct = (1 - 1 / time_x) x 100, how much less time
 * the reference takes. The side-by-side table with ratios is a comparison
 * (comparisons.csv) over these columns.
 */
void models_relative(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct manifest *man = ctx->manifest;
	struct table *t = table_new("relative", "Relative values typed in from the study (multiples of a reference, shares)",
				    TABLE_SCHEMA(RELATIVE_COLUMNS));
	for (size_t i = 0; man && i < man->nruns; i++) {
		const struct manifest_measured *ms = &man->runs[i].measured;
		if (!ms->time_x && !ms->comm_time_x && !ms->comm_pct)
			continue;
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, man->runs[i].id);
		if (ms->relative_to)
			table_set_text(t, row, 1, ms->relative_to);
		if (ms->time_x) {
			table_set_real(t, row, 2, ms->time_x);
			table_set_real(t, row, 7, (1 - 1 / ms->time_x) * 100);
		}
		if (ms->comm_time_x)
			table_set_real(t, row, 3, ms->comm_time_x);
		if (ms->comm_pct) {
			table_set_real(t, row, 4, ms->comm_pct);
			table_set_real(t, row, 5, 100 - ms->comm_pct);
		}
		if (ms->time_x && ms->comm_time_x)
			table_set_real(t, row, 6, ms->comm_time_x / ms->time_x);
	}
	if (!t->nrows) {
		table_free(t);
		return;
	}
	result_add_table(out, t);
	result_add_method(out, "relative.csv",
		"Numbers a study prints only relative to a reference (the manifest's measured: time_x, comm_time_x "
		"as multiples of relative_to's training and communication time, 1 for the reference itself; "
		"comm_pct, communication's share of the training time in percent), typed in as printed: no "
		"absolute time is made up. compute_pct = 100 - comm_pct. comm_share_x = comm_time_x / time_x: "
		"the run's communication share in multiples of the reference's, which equals the ratio of their "
		"comm_pct only if all three numbers describe the same runs. time_saved_pct = (1 - 1 / time_x) x "
		"100: how much less time the reference takes than the run (a run taking 2.45x takes 145 % more, "
		"and the reference 59.2 % less). comparisons.csv sets two systems' rows side by side with ratios.");
}
