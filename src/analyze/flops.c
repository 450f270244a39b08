/*
 * flops.c: estimated vs measured FLOPs from Nsight Compute (issue 5, item 6;
 * the method of paper 001).
 *
 *   flops.csv:      per run with Nsight Compute kernel metrics: its batch,
 *                   the estimated FLOPs of what was profiled, the measured
 *                   FLOPs (sum over launches of add + mul + 2 * fma thread
 *                   instructions, FP16, FP32 and FP64), DRAM bytes
 *                   (dram__bytes.sum) and kernel time (gpu__time_duration.sum)
 *                   summed over the launches.
 *   flops_ratio.csv: per run: measured / estimated, arithmetic intensity
 *                   (measured FLOPs / DRAM byte), achieved TFLOP/s (measured
 *                   FLOPs / summed kernel time).
 *   flops_fit.csv:  the least-squares line measured = slope * estimated +
 *                   intercept over the runs, with R^2.
 *
 * The estimate is est_layer_fwd_flops() per layer (2bs(4d^2 + 2df) +
 * 4bs^2d), times the layers, plus the logit layer 2bsdV when the vocabulary
 * is given; forward+backward is three times that (backward = 2 x forward),
 * plus one more forward of the layers with recomputation.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "estimate.h"
#include "models.h"
#include "../chart/figures.h"
#include "../util/diag.h"
#include "../util/xalloc.h"

static const struct manifest_run *manifest_run(const struct analysis_ctx *ctx, const char *run)
{
	for (size_t i = 0; ctx->manifest && i < ctx->manifest->nruns; i++)
		if (!strcmp(ctx->manifest->runs[i].id, run))
			return &ctx->manifest->runs[i];
	return NULL;
}

/* Estimated FLOPs of what Nsight Compute profiled for run r, or -1 with *why set. */
static double estimate(const struct manifest_run *r, int batch, const char **why)
{
	if (!r) {
		*why = "no manifest describes the run";
		return -1;
	}
	const struct manifest_model *m = &r->model;
	if (!m->layers || !m->hidden || !m->seq) {
		*why = "the model's layers, hidden and seq are not all given";
		return -1;
	}
	if (batch <= 0) {
		*why = "the run's batch is not given";
		return -1;
	}
	if (!r->profiled) {
		*why = "'profiled' (forward or forward+backward) is not given";
		return -1;
	}
	struct est_model em;
	models_est_model(m, &em);
	double layer = (double)em.layers * est_layer_fwd_flops(&em, batch);
	double logit = em.vocab > 0 ? est_logit_fwd_flops(&em, batch) : 0;
	if (r->profiled == 1)
		return layer + logit;
	return (r->recompute ? 4.0 : 3.0) * layer + 3.0 * logit;
}

int analysis_flops(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	sqlite3 *db = store_db(ctx->store);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       "SELECT r.run, coalesce(r.batch, 0),"
			       " sum(coalesce(k.fp16_flops, 0) + coalesce(k.fp32_flops, 0) + coalesce(k.fp64_flops, 0)),"
			       " count(k.fp16_flops) + count(k.fp32_flops) + count(k.fp64_flops),"
			       " sum(k.dram_bytes), count(k.dram_bytes), sum(k.dur_ns), count(k.dur_ns), count(*)"
			       " FROM kernel_metrics k JOIN traces t ON t.id = k.trace_id JOIN runs r ON r.id = t.run_id"
			       " WHERE r.experiment = ?1 GROUP BY r.id ORDER BY r.position",
			       -1, &st, NULL) != SQLITE_OK) {
		diag_syserror("perfstudy.db", "sqlite: %s", sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_text(st, 1, ctx->experiment, -1, SQLITE_STATIC);
	struct table *t = table_new("flops", "Estimated and measured FLOPs (Nsight Compute), per run",
				    "run:text,batch:int,estimated_flops:int,measured_flops:int,dram_bytes:int,kernel_us:us");
	struct table *q = table_new("flops_ratio", "Measured over estimated FLOPs, arithmetic intensity, per run",
				    "run:text,batch:int,launches:int,measured_over_estimated:real,flops_per_dram_byte:real,"
				    "achieved_tflops:real");
	size_t cap = 0, n = 0;
	double *xs = NULL, *ys = NULL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *run = (const char *)sqlite3_column_text(st, 0);
		int batch = sqlite3_column_int(st, 1);
		const char *why = NULL;
		double est = estimate(manifest_run(ctx, run), batch, &why);
		size_t row = table_add_row(t), rq = table_add_row(q);
		table_set_text(t, row, 0, run);
		table_set_text(q, rq, 0, run);
		if (batch > 0) {
			table_set_int(t, row, 1, batch);
			table_set_int(q, rq, 1, batch);
		}
		table_set_int(q, rq, 2, sqlite3_column_int64(st, 8));
		if (est >= 0)
			table_set_int(t, row, 2, (int64_t)llround(est));
		else
			result_add_note(out, "flops.csv: no estimated FLOPs for run %s: %s.", run, why);
		int has_flops = sqlite3_column_int64(st, 3) > 0, has_dram = sqlite3_column_int64(st, 5) > 0,
		    has_time = sqlite3_column_int64(st, 7) > 0;
		int64_t flops = sqlite3_column_int64(st, 2), dram = sqlite3_column_int64(st, 4),
			ns = sqlite3_column_int64(st, 6);
		if (has_flops)
			table_set_int(t, row, 3, flops);
		else
			result_add_note(out, "flops.csv: run %s: its Nsight Compute CSV has no FLOP metrics "
					     "(sass_thread_inst_executed_op_{f,h,d}{add,mul,fma}_pred_on.sum).", run);
		if (has_dram)
			table_set_int(t, row, 4, dram);
		if (has_time)
			table_set_ns(t, row, 5, ns);
		if (has_flops && est > 0)
			table_set_real(q, rq, 3, (double)flops / est);
		if (has_flops && has_dram && dram > 0)
			table_set_real(q, rq, 4, (double)flops / (double)dram);
		if (has_flops && has_time && ns > 0)
			table_set_real(q, rq, 5, (double)flops / (double)ns / 1e3);
		if (has_flops && est >= 0) {
			xs = xgrow(xs, &cap, n + 1, sizeof(*xs));
			ys = xrealloc(ys, cap * sizeof(*ys));
			xs[n] = est;
			ys[n] = (double)flops;
			n++;
		}
	}
	sqlite3_finalize(st);
	if (!t->nrows) {
		table_free(t);
		table_free(q);
		free(xs);
		free(ys);
		return 0;
	}
	result_add_table(out, t);
	result_add_table(out, q);
	double slope, icpt, r2;
	if (est_fit_line(xs, ys, (int)n, &slope, &icpt, &r2) == 0) {
		struct table *f = table_new("flops_fit", "Least-squares line of measured on estimated FLOPs",
					    "runs:int,slope:real,intercept:real,r2:real");
		size_t row = table_add_row(f);
		table_set_int(f, row, 0, (int64_t)n);
		table_set_real(f, row, 1, slope);
		table_set_real(f, row, 2, icpt);
		table_set_real(f, row, 3, r2);
		result_add_table(out, f);
	} else if (n) {
		result_add_note(out, "flops_fit.csv: a line needs two runs with different estimated FLOPs; %zu given.", n);
	}
	models_flops_figures(t, q, out);
	free(xs);
	free(ys);
	result_add_method(out, "flops.csv",
			  "Measured FLOPs: for every kernel launch in the run's Nsight Compute CSV, add + mul + 2 x fma "
			  "thread instructions executed (predicated on) in FP16 (hadd, hmul, hfma), FP32 (fadd, fmul, "
			  "ffma) and FP64 (dadd, dmul, dfma), the smsp__ or sm__ sass_thread_inst_executed_op_*_pred_on.sum "
			  "metrics (an FMA is two floating-point operations), summed over the launches. dram_bytes: "
			  "dram__bytes.sum summed; kernel_us: gpu__time_duration.sum summed (ncu serializes launches). "
			  "Estimated FLOPs of one transformer layer's forward pass for batch b, sequence s, hidden d and "
			  "feed-forward size f: 2bs(4d^2 + 2df) for the Q, K, V, output and the two feed-forward "
			  "projections, plus 4bs^2d for the attention scores and their product with the values; times "
			  "the layers, plus the logit layer 2bsdV when the vocabulary V is given. 'profiled: "
			  "forward+backward' counts the backward pass as twice the forward (and one more forward of the "
			  "layers with recomputation). Method of 'Performance Study of Transformers' (paper 001); layer "
			  "terms as in Narayanan et al. (2021).");
	result_add_method(out, "flops_ratio.csv",
			  "measured_over_estimated: measured / estimated FLOPs. flops_per_dram_byte (arithmetic "
			  "intensity): measured FLOPs / DRAM bytes. achieved_tflops: measured FLOPs / summed kernel time.");
	result_add_method(out, "flops_fit.csv",
			  "Ordinary least squares of measured FLOPs (y) on estimated FLOPs (x) over the runs: slope, "
			  "intercept and R^2 = 1 - (residual sum of squares) / (total sum of squares of y). A slope of "
			  "1 and intercept 0 would mean the estimate counts exactly what the GPU executed.");
	return 0;
}
