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
 *   figures:        flops_by_batch, dram_by_batch, arithmetic_intensity_by_batch
 *                   (x-y over the batch size) and flops_estimated_vs_measured
 *                   (scatter, fitted line, y = x); see flops_figures().
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

#include "analyze/analysis.h"
#include "analyze/models/estimate.h"
#include "analyze/models/models.h"
#include "chart/figures_xy.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

static const struct manifest_run *manifest_run(const struct analysis_ctx *ctx, const char *run)
{
	for (size_t i = 0; ctx->manifest && i < ctx->manifest->nruns; i++)
		if (!strcmp(ctx->manifest->runs[i].id, run))
			return &ctx->manifest->runs[i];
	return NULL;
}

/*
 * Estimated FLOPs of what Nsight Compute profiled for run r by the given
 * method (paper001 0: perfstudy's count, 1: paper 001's 2 x 7bsd^2 per
 * layer), or -1 with *why set.
 */
static double estimate(const struct manifest_run *r, int batch, int paper001, const char **why)
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
	double layer = paper001 ? 2.0 * est_paper001_macs(&em, batch) : (double)em.layers * est_layer_fwd_flops(&em, batch);
	double logit = em.vocab > 0 && !paper001 ? est_logit_fwd_flops(&em, batch) : 0;
	if (r->profiled == 1)
		return layer + logit;
	return (r->recompute ? 4.0 : 3.0) * layer + 3.0 * logit;
}

static int uses_paper001(const struct manifest_run *r)
{
	return r && r->model.flops_method && !strcmp(r->model.flops_method, "paper001");
}

/*
 * The figures of paper 001, as x-y plots: FLOPs (measured and estimated)
 * and DRAM bytes against the batch size on log-log axes (a line of slope 1
 * is growth in proportion to the batch), the scatter of measured on
 * estimated FLOPs with the least-squares line and y = x, and the arithmetic
 * intensity against the batch size. Units are picked from the largest value.
 */
static void flops_figures(const struct table *t, const struct table *q, size_t nfit, int have_fit, double slope,
			  double icpt, double r2, struct analysis_result *out)
{
	double max_flops = 0, max_dram = 0, unit_f, unit_d;
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t col = FL_ESTIMATED_FLOPS; col <= FL_MEASURED_FLOPS; col++)
			if (!table_cell(t, r, col)->null)
				max_flops = fmax(max_flops, (double)table_cell(t, r, col)->v.i);
		if (!table_cell(t, r, FL_DRAM_BYTES)->null)
			max_dram = fmax(max_dram, (double)table_cell(t, r, FL_DRAM_BYTES)->v.i);
	}
	char *fu = xstrdup(figure_si_unit(max_flops, "FLOP", &unit_f));
	char *du = xstrdup(figure_si_unit(max_dram, "B", &unit_d));
	char *ylab = xasprintf("FLOPs (%s)", fu);
	struct figure_xy_series fl[] = {
		{"measured (Nsight Compute)", 3, unit_f},
		{"estimated", 2, unit_f},
	};
	result_add_figure(out, figure_xy_by(t, 1, fl, 2, "flops_by_batch", "Measured and estimated FLOPs by batch size",
					    ylab, CHART_SCALE_LOG2),
			  "Floating-point operations per profiled pass against the batch size: measured by Nsight "
			  "Compute (add + mul + 2 x fma thread instructions, all precisions, summed over the launches) "
			  "and estimated from the model description (flops.csv). Both axes are logarithmic (base 2), so "
			  "a line of slope 1 means FLOPs in proportion to the batch size and the vertical gap between "
			  "the lines is the ratio measured / estimated.");
	free(ylab);
	ylab = xasprintf("DRAM traffic (%s)", du);
	struct figure_xy_series dr[] = {{"dram__bytes.sum", 4, unit_d}};
	result_add_figure(out, figure_xy_by(t, 1, dr, 1, "dram_by_batch", "DRAM bytes by batch size", ylab,
					    CHART_SCALE_LOG2),
			  "Bytes read from and written to DRAM (dram__bytes.sum summed over the launches), in decimal "
			  "units (1 MB = 10^6 bytes), against the batch size; both axes logarithmic, base 2 (flops.csv).");
	free(ylab);

	struct buf note, cap;
	buf_init(&note);
	buf_init(&cap);
	if (have_fit) {
		/* Intercept in the figure's unit, to 3 significant digits like the slope's 4. */
		buf_printf(&note, "least-squares fit, %zu runs\nslope %.4g\nintercept %.3g %s\nR\xc2\xb2 = %.5f",
			   nfit, slope, icpt * unit_f, fu, r2);
		buf_printf(&cap, " The least-squares line measured = %.4g x estimated + %.3g %s has R\xc2\xb2 = %.5f "
				 "(flops_fit.csv).", slope, icpt * unit_f, fu, r2);
	} else {
		buf_adds(&note, "no least-squares line\n(fewer than two runs\nwith different estimates)");
	}
	char *xlab = xasprintf("estimated (%s)", fu);
	ylab = xasprintf("measured (%s)", fu);
	char *caption = xasprintf("Measured against estimated FLOPs, one point per run (labelled by its id), in %s, "
				  "with the ordinary least-squares line of measured on estimated and the line y = x, "
				  "where a point would lie if the estimate counted exactly what the GPU executed.%s",
				  fu, cap.data ? cap.data : "");
	result_add_figure(out, figure_xy_scatter_fit(t, 2, 3, unit_f, "flops_estimated_vs_measured",
						     "Estimated vs measured FLOPs", xlab, ylab, have_fit, slope, icpt,
						     note.data),
			  caption);
	free(caption);
	free(xlab);
	free(ylab);
	buf_release(&note);
	buf_release(&cap);

	struct figure_xy_series ai[] = {{"measured FLOPs / DRAM bytes", 4, 1}};
	result_add_figure(out, figure_xy_by(q, 1, ai, 1, "arithmetic_intensity_by_batch",
					    "Arithmetic intensity by batch size", "arithmetic intensity (FLOP/byte)",
					    CHART_SCALE_LINEAR),
			  "Arithmetic intensity, measured FLOPs per byte of DRAM traffic (flops_ratio.csv), against the "
			  "batch size (logarithmic, base 2); the value axis starts at 0.");
	free(fu);
	free(du);
}

static int analysis_flops(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct store_stmt *st = store_query(ctx->store, "flops: kernel metrics per run",
					    "SELECT t.run, coalesce(t.batch, 0),"
					    " sum(coalesce(k.fp16_flops, 0) + coalesce(k.fp32_flops, 0)"
					    " + coalesce(k.fp64_flops, 0)),"
					    " count(k.fp16_flops) + count(k.fp32_flops) + count(k.fp64_flops),"
					    " sum(k.dram_bytes), count(k.dram_bytes), sum(k.dur_ns), count(k.dur_ns),"
					    " count(*)"
					    " FROM kernel_metrics k JOIN run_traces t ON t.id = k.trace_id"
					    " WHERE t.experiment = ?1 GROUP BY t.run_id ORDER BY t.position",
					    ctx->experiment);
	if (!st)
		return -1;
	struct table *t = table_new("flops", "Estimated and measured FLOPs (Nsight Compute), per run",
				    TABLE_SCHEMA(FLOPS_COLUMNS));
	struct table *q = table_new("flops_ratio", "Measured over estimated FLOPs, arithmetic intensity, per run",
				    TABLE_SCHEMA(FLOPS_RATIO_COLUMNS));
	size_t cap = 0, n = 0;
	double *xs = NULL, *ys = NULL;
	int rc;
	while ((rc = store_next(st)) > 0) {
		const char *run = (const char *)store_column_text(st, 0);
		int batch = store_column_int(st, 1);
		const char *why = NULL;
		const struct manifest_run *mr = manifest_run(ctx, run);
		int p001 = uses_paper001(mr);
		double est = estimate(mr, batch, p001, &why);
		double alt[2] = {estimate(mr, batch, 0, &why), estimate(mr, batch, 1, &why)};
		size_t row = table_add_row(t), rq = table_add_row(q);
		table_set_text(t, row, 0, run);
		table_set_text(q, rq, 0, run);
		if (batch > 0) {
			table_set_int(t, row, 1, batch);
			table_set_int(q, rq, 1, batch);
		}
		table_set_int(q, rq, 2, store_column_int64(st, 8));
		table_set_text(t, row, 6, p001 ? "paper001" : "perfstudy");
		for (int k = 0; k < 2; k++)
			if (alt[k] >= 0)
				table_set_int(t, row, 8 + (size_t)k, (int64_t)llround(alt[k]));
		if (est >= 0) {
			table_set_int(t, row, 2, (int64_t)llround(est));
			/* Every counted operation is a multiply-add of two FLOPs, in both methods. */
			table_set_int(t, row, 7, (int64_t)llround(est / 2));
		} else {
			result_add_note(out, "flops.csv: no estimated FLOPs for run %s: %s.", run, why);
		}
		int has_flops = store_column_int64(st, 3) > 0, has_dram = store_column_int64(st, 5) > 0,
		    has_time = store_column_int64(st, 7) > 0;
		int64_t flops = store_column_int64(st, 2), dram = store_column_int64(st, 4),
			ns = store_column_int64(st, 6);
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
	store_finalize(st);
	if (rc < 0 || !t->nrows) {
		table_free(t);
		table_free(q);
		free(xs);
		free(ys);
		return rc;
	}
	result_add_table(out, t);
	result_add_table(out, q);
	double slope = NAN, icpt = NAN, r2 = NAN;
	int have_fit = est_fit_line(xs, ys, (int)n, &slope, &icpt, &r2) == 0;
	if (have_fit) {
		struct table *f = table_new("flops_fit", "Least-squares line of measured on estimated FLOPs",
					    TABLE_SCHEMA(FLOPS_FIT_COLUMNS));
		size_t row = table_add_row(f);
		table_set_int(f, row, 0, (int64_t)n);
		table_set_real(f, row, 1, slope);
		table_set_real(f, row, 2, icpt);
		table_set_real(f, row, 3, r2);
		result_add_table(out, f);
	} else if (n) {
		result_add_note(out, "flops_fit.csv: a line needs two runs with different estimated FLOPs; %zu given.", n);
	}
	flops_figures(t, q, n, have_fit, slope, icpt, r2, out);
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
			  "terms as in Narayanan et al. (2021). method: which estimate estimated_flops, the ratios, the fit "
			  "and the figures use, the model's flops_method: 'perfstudy' the count above (perfstudy_flops), "
			  "'paper001' the pen-and-paper estimate of paper 001's Table 1 (paper001_flops): 7 multiply-"
			  "accumulates of b x s x d^2 per layer (two linear layers, three LayerNorms and the multi-head "
			  "attention counted as one each), 2 FLOPs per MAC, so 14bsd^2 per layer and pass; it leaves out "
			  "the feed-forward width, the s^2 attention terms and the logit layer and counts LayerNorms as "
			  "matrix products: an approximation (for d 200, f 200, s 35 it is 19.6 / 17.78 = 1.10x perfstudy's count). "
			  "estimated_macs: estimated_flops / 2 (both methods count multiply-adds only).");
	result_add_method(out, "flops_ratio.csv",
			  "measured_over_estimated: measured / estimated FLOPs. flops_per_dram_byte (arithmetic "
			  "intensity): measured FLOPs / DRAM bytes. achieved_tflops: measured FLOPs / summed kernel time.");
	result_add_method(out, "flops_fit.csv",
			  "Ordinary least squares of measured FLOPs (y) on estimated FLOPs (x) over the runs: slope, "
			  "intercept and R^2 = 1 - (residual sum of squares) / (total sum of squares of y). A slope of "
			  "1 and intercept 0 would mean the estimate counts exactly what the GPU executed.");
	return 0;
}

const struct analysis_def analysis_def_flops = {
	.name = "flops",
	.run = analysis_flops,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("flops", "flops_ratio", "flops_fit"),
	.figures = ANALYSIS_NAMES("flops_by_batch", "dram_by_batch", "flops_estimated_vs_measured",
		"arithmetic_intensity_by_batch"),
};
