/*
 * scaling.c: speedup across runs of one model and strategy, measured and
 * predicted by the scalability model of Cheng et al. (SIGMETRICS 2024)
 * (scaling.csv, speedup_error.csv, figures scaling and speedup_model).
 *
 * Everything is read from dispatch.csv (its communication-first split of
 * each profiled ProfilerStep#N of each rank) and the run table, so the
 * measured and the predicted speedup come from the same profiled steps.
 * Per run:
 *   step_us         the median of all its ranks' step durations;
 *   samples_per_s   S = dp x b / step, dp = gpus / (tensor_parallel x
 *                   pipeline_parallel), the model replicas that take
 *                   samples of their own, b the per-GPU batch (the batch
 *                   of one replica);
 *   comm_us         t_comm, the mean over ranks and steps of comm_us (the
 *                   union of communication kernels inside the step);
 *   comm_share      r_comm = sum comm_us / sum step_us; r_comp = 1 - r_comm
 *                   (everything not under communication counts as compute,
 *                   as the paper's time distribution does).
 * The baseline b of a run: the manifest's scaling_baseline, else the run of
 * the same model with the fewest GPUs among those of the same strategy and
 * the 1-GPU runs (a 1-GPU run has no data-parallel strategy, so it is the
 * baseline of every strategy; a DDP run is never the baseline of a ZeRO-1
 * run). ONE speedup for measured and predicted, a throughput ratio:
 *   speedup = S(n) / S(b);  efficiency = speedup / (gpus(n) / gpus(b)).
 * The prediction base m of a run n: the run of the same model and strategy
 * with communication, the same per-GPU batch and model parallelism, and
 * the fewest GPUs below n's (the baseline itself when it communicates; the
 * smallest multi-GPU run when the baseline is a 1-GPU run, which has none).
 * The prediction is out of sample, from m alone: n's communication time is
 * m's scaled by the bytes each GPU sends in a ring collective, (p - 1) / p
 * of the message for p = dp GPUs, at m's bandwidth (one host: the same
 * links), so eff = t_comm(m) / t_comm(n) = f(dp(m)) / f(dp(n)) with
 * f(p) = (p - 1) / p, never n's own communication time. The paper's
 * t_iter(n) / t_iter(m) = r_comp(m) + r_comm(m) / eff (per-GPU compute
 * unchanged at a fixed per-GPU batch), so
 *   predicted S(n) = dp(n) x b / (step(m) x (r_comp(m) + r_comm(m) / eff))
 *   predicted_speedup = predicted S(n) / S(b),
 * the paper's iteration-time speedup times the ratio of samples per step.
 * speedup_error.csv: per model and strategy, and over all runs, the mean
 * squared error of predicted_speedup against log_speedup (log_mse: the
 * training logs' unprofiled speedup) and against speedup (trace_mse: the
 * profiled steps'), Fig. 15. The figures draw the log's speedup where both
 * runs have a log, the profiled one beside it, labelled.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/layout.h"
#include "analyze/models/models.h"
#include "analyze/lib/rankdata.h"
#include "analyze/lib/stats.h"
#include "analyze/time/profiler_overhead.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include "analyze/time/time_tables.h"

struct srun {
	const char *run, *model, *strategy; /* borrowed from the run table */
	const char *chosen;                 /* the manifest's scaling_baseline, or NULL */
	int64_t gpus, dp, batch;
	int64_t mp; /* model-parallel ranks of one replica: tensor_parallel x pipeline_parallel */
	int64_t *durs;
	size_t ndurs, cap;
	double step_sum, comm_sum; /* ns, over ranks and steps */
	double kernel_sum;         /* ns of compute kernels not under communication (dispatch.csv compute_us) */
	double step, sps;          /* median step ns; samples/s; 0: unknown */
	double speedup, pred;      /* NaN: none */
	double pfactor;            /* r_comp(m) + r_comm(m) / eff: t_iter(n) / t_iter(m) predicted */
	double pred_log;           /* the prediction anchored on the training logs (log_predicted_speedup); NaN: none */
	double log_step;           /* ns: the median of the training log's unprofiled iterations; 0: none */
	double log_sp;             /* the log's speedup against the baseline (log_speedup); NaN: none */
	char shown[32];            /* the strategy in the figures' words: "ZeRO-3", "DDP" (strategy_shown) */
	struct srun *base, *pbase;
};

/*
 * The relative standard error of a run's median step: 1.2533 sigma /
 * (median sqrt(n)) with sigma the robust one (1.4826 x the median absolute
 * deviation, stats_robust_sigma). log: the training log's unprofiled iterations
 * (profiler_overhead.csv), else the profiled steps (each step's time pooled
 * over ranks, n the step count: a step's ranks are not independent). NAN
 * when fewer than 5 samples.
 */
static double median_rel_se(const struct analysis_result *out, const struct srun *r, int log)
{
	if (log) {
		double n = (double)profiler_unprofiled_count(out, r->run), sigma = (double)profiler_noise_ns(out, r->run);
		return n >= 5 && sigma >= 0 && r->log_step > 0 ? 1.2533 * sigma / (r->log_step * sqrt(n)) : NAN;
	}
	double n = (double)r->ndurs / (double)(r->gpus > 0 ? r->gpus : 1);
	if (n < 5 || r->step <= 0)
		return NAN;
	return 1.2533 * stats_robust_sigma(r->durs, r->ndurs, (int64_t)r->step) / (r->step * sqrt(n));
}

/*
 * Whether an efficiency over 1 is beyond the noise of the two medians it is
 * the ratio of: eff > 1 + 2 eff sqrt(ra^2 + rb^2). Unknown noise (fewer than
 * 5 samples on a side): any efficiency over 1, said with the counts.
 */
static int past_linear(double eff, double ra, double rb)
{
	if (!(eff > 1.0))
		return 0;
	if (isnan(ra) || isnan(rb))
		return 1;
	return eff > 1.0 + 2.0 * eff * sqrt(ra * ra + rb * rb);
}

static const char *cell_text(const struct table *t, size_t row, int col)
{
	return col >= 0 && !table_cell(t, row, (size_t)col)->null ? table_cell(t, row, (size_t)col)->v.text : "";
}

/*
 * The bytes each GPU sends in a ring collective over p GPUs, per byte of
 * the message: (p - 1) / p for AllGather and ReduceScatter, twice that for
 * AllReduce; only the ratio between two group sizes is used, so the factor
 * 2 cancels. 0 for p = 1 (no communication).
 */
static double ring_factor(int64_t p)
{
	return p > 1 ? (double)(p - 1) / (double)p : 0;
}

static int64_t cell_int(const struct table *t, size_t row, int col)
{
	return col >= 0 && !table_cell(t, row, (size_t)col)->null ? table_cell(t, row, (size_t)col)->v.i : 0;
}

/* The runs of the run table, with their steps from dispatch.csv. */
static struct srun *load_runs(const struct analysis_ctx *ctx, const struct analysis_result *out, size_t *n)
{
	const struct table *rt = out->runs, *dt = result_table(out, "dispatch");
	*n = rt ? rt->nrows : 0;
	struct srun *rs = xcalloc(*n + 1, sizeof(*rs));
	int cg = RUNS_GPUS, cm = RUNS_MODEL, cb = RUNS_BATCH,
	    cs = RUNS_STRATEGY;
	for (size_t i = 0; i < *n; i++) {
		struct srun *r = &rs[i];
		r->run = cell_text(rt, i, 0);
		r->model = cell_text(rt, i, cm);
		r->strategy = cell_text(rt, i, cs);
		r->gpus = cell_int(rt, i, cg);
		r->batch = cell_int(rt, i, cb);
		r->mp = 1;
		r->speedup = r->pred = r->log_sp = r->pred_log = NAN;
		const struct manifest *m = ctx->manifest;
		for (size_t j = 0; m && j < m->nruns; j++)
			if (m->runs[j].id && !strcmp(m->runs[j].id, r->run)) {
				r->mp = layout_replica_ranks(&m->runs[j]);
				r->chosen = m->runs[j].scaling_baseline;
			}
		r->dp = r->gpus / r->mp > 0 ? r->gpus / r->mp : 1;
	}
	for (size_t row = 0; dt && row < dt->nrows; row++) {
		const char *run = table_cell(dt, row, DSP_RUN)->v.text;
		for (size_t i = 0; i < *n; i++) {
			if (strcmp(rs[i].run, run))
				continue;
			int64_t step = table_cell(dt, row, DSP_STEP_US)->v.i, comm = table_cell(dt, row, DSP_COMM_US)->v.i;
			rs[i].kernel_sum += (double)table_cell(dt, row, DSP_COMPUTE_US)->v.i;
			rs[i].durs = xgrow(rs[i].durs, &rs[i].cap, rs[i].ndurs + 1, sizeof(*rs[i].durs));
			rs[i].durs[rs[i].ndurs++] = step;
			rs[i].step_sum += (double)step;
			rs[i].comm_sum += (double)comm;
		}
	}
	for (size_t i = 0; i < *n; i++) {
		struct srun *r = &rs[i];
		if (!r->ndurs || r->batch <= 0)
			continue;
		qsort(r->durs, r->ndurs, sizeof(*r->durs), stats_cmp_i64);
		size_t h = r->ndurs / 2;
		r->step = r->ndurs % 2 ? (double)r->durs[h] : (double)((r->durs[h - 1] + r->durs[h] + 1) / 2);
		r->sps = (double)(r->dp * r->batch) * 1e9 / r->step;
	}
	return rs;
}

static int has_comm(const struct srun *r)
{
	return r->comm_sum > 0;
}

/* 1 when a may be the baseline of r: same model, and same strategy or a 1-GPU run. */
static int may_base(const struct srun *a, const struct srun *r)
{
	return a->sps > 0 && *a->model && !strcmp(a->model, r->model) &&
	       (a->gpus == 1 || !strcmp(a->strategy, r->strategy));
}

static void choose_bases(struct analysis_result *out, struct srun *rs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct srun *r = &rs[i];
		if (r->sps <= 0 || !*r->model)
			continue;
		if (r->chosen) {
			for (size_t j = 0; j < n; j++)
				if (!strcmp(rs[j].run, r->chosen))
					r->base = rs[j].sps > 0 ? &rs[j] : NULL;
			if (!r->base)
				result_add_note(out, "scaling.csv: the scaling_baseline of run %s, %s, has no throughput "
						"(no steps or no batch), so %s has no speedup", r->run, r->chosen, r->run);
		} else {
			for (size_t j = 0; j < n; j++)
				if (may_base(&rs[j], r) && (!r->base || rs[j].gpus < r->base->gpus))
					r->base = &rs[j];
		}
		if (!r->base)
			continue;
		r->speedup = r->sps / r->base->sps;
		/* The prediction base: the smallest run below r that communicates, same strategy and shape. */
		for (size_t j = 0; j < n; j++) {
			struct srun *m = &rs[j];
			if (m == r || !has_comm(m) || m->gpus >= r->gpus || !may_base(m, r) || m->batch != r->batch ||
			    m->mp != r->mp || strcmp(m->strategy, r->strategy))
				continue;
			if (!r->pbase || m->gpus < r->pbase->gpus)
				r->pbase = m;
		}
		if (!r->pbase || !has_comm(r))
			continue;
		struct srun *m = r->pbase;
		/* out of sample: n's communication from m's and the volume per GPU, never from n's own time */
		double eff = ring_factor(m->dp) / ring_factor(r->dp), rcomm = m->comm_sum / m->step_sum;
		r->pfactor = (1 - rcomm) + rcomm / eff;
		r->pred = (double)(r->dp * r->batch) * 1e9 / (m->step * r->pfactor) / r->base->sps;
	}
}

/* Measured against predicted speedup with y = x, Fig. 15 of Cheng et al. NULL without a prediction. */
static struct chart *model_chart(const struct srun *rs, size_t n, double mse, double log_mse, size_t npts,
				 size_t nlog)
{
	if (!npts)
		return NULL;
	struct chart *c = chart_new(CHART_XY, "speedup_model", "Estimated against evaluated speedup",
				    "estimated speedup (scalability model)");
	chart_set_x_axis(c, nlog ? "evaluated speedup" : "evaluated speedup (profiled steps)", CHART_SCALE_LINEAR);
	c->markers_only = 1;
	c->label_points = 1;
	c->from_zero = 1;
	c->sparse = 1;
	c->entity_series = 1; /* the points are runs: black, not a palette colour (chart_style) */
	/*
	 * With training logs, two points per run: x the log's (unprofiled)
	 * speedup, the one scored (labelled), and x the profiled steps'.
	 */
	size_t sl = nlog ? chart_add_series(c, "training log (unprofiled)") : 0;
	size_t sp = chart_add_series(c, "profiled steps");
	for (int pass = nlog ? 0 : 1; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			if (isnan(rs[i].pred) || (!pass && (isnan(rs[i].log_sp) || isnan(rs[i].pred_log))))
				continue;
			size_t cat = chart_add_category(c, rs[i].run);
			chart_set_x(c, cat, pass ? rs[i].speedup : rs[i].log_sp);
			if (nlog)
				chart_set(c, cat, pass ? sl : sp, NAN);
			chart_set(c, cat, pass ? sp : sl, pass ? rs[i].pred : rs[i].pred_log);
		}
	chart_add_refline(c, "y = x", 1, 0, 1);
	char note[128];
	if (nlog)
		snprintf(note, sizeof(note), "MSE %.3g log (%zu), %.3g profiled (%zu)", log_mse, nlog, mse, npts);
	else
		snprintf(note, sizeof(note), "MSE %.4g over %zu run%s", mse, npts, npts == 1 ? "" : "s");
	chart_set_note(c, note);
	return c;
}

/*
 * Measured speedup against GPUs (log 2 axis), one line per model and
 * strategy through its baseline, and linear scaling n / g from the
 * smallest baseline. NULL when no run scales. A run whose baseline has as
 * many GPUs as it has (no smaller run of its model and strategy: settings,
 * transports) is no point against GPUs: scaling.csv keeps its ratio.
 */
static int scales(const struct srun *r)
{
	return r->base && r->base != r && r->base->gpus != r->gpus;
}

static struct chart *speedup_chart(const struct srun *rs, size_t n)
{
	int64_t gmin = 0, *ns = xcalloc(2 * n + 1, sizeof(*ns));
	size_t nn = 0;
	for (size_t i = 0; i < n; i++) {
		if (!scales(&rs[i]))
			continue;
		if (!gmin || rs[i].base->gpus < gmin)
			gmin = rs[i].base->gpus;
		ns[nn++] = rs[i].gpus;
		ns[nn++] = rs[i].base->gpus;
	}
	if (!nn) {
		free(ns);
		return NULL;
	}
	/* One point position per distinct GPU count, so each series is one line through its points. */
	qsort(ns, nn, sizeof(*ns), stats_cmp_i64);
	struct chart *c = chart_new(CHART_XY, "scaling", "Speedup against GPUs", "speedup (samples/s ratio)");
	/*
	 * Both axes log 2, so linear scaling is a straight line; the lines are
	 * configurations (greys, told apart by marker), and a line has no point
	 * at a GPU count its model and strategy were not run on (sparse).
	 */
	chart_set_x_axis(c, "GPUs", CHART_SCALE_LOG2);
	c->y_scale = CHART_SCALE_LOG2;
	c->entity_series = 1;
	c->sparse = 1;
	char num[32];
	for (size_t j = 0; j < nn; j++) {
		if (j && ns[j] == ns[j - 1])
			continue;
		snprintf(num, sizeof(num), "%lld GPU%s", (long long)ns[j], ns[j] == 1 ? "" : "s");
		chart_set_x(c, chart_add_category(c, num), (double)ns[j]);
	}
	struct buf label;
	buf_init(&label);
	/*
	 * Pass 0: the training logs' (unprofiled) speedups, where the run and its
	 * baseline have a log; pass 1: the profiled steps', labelled as such
	 * when any run has a log.
	 */
	int any_log = 0;
	for (size_t i = 0; i < n; i++)
		any_log |= scales(&rs[i]) && !isnan(rs[i].log_sp);
	for (int pass = any_log ? 0 : 1; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			const struct srun *r = &rs[i];
			if (!scales(r) || (!pass && isnan(r->log_sp)))
				continue;
			buf_reset(&label);
			buf_printf(&label, "%s, %s", r->model, *r->shown ? r->shown : "no strategy");
			/*
			 * Two runs of one model and strategy on as many GPUs (four
			 * pipeline schedules on 2) are two lines, named by run: one
			 * point each, never one drawn over the other.
			 */
			for (size_t j = 0; j < n; j++)
				if (j != i && scales(&rs[j]) && (pass || !isnan(rs[j].log_sp)) && rs[j].gpus == r->gpus &&
				    !strcmp(rs[j].model, r->model) && !strcmp(rs[j].shown, r->shown)) {
					buf_printf(&label, " (%s)", r->run);
					break;
				}
			buf_adds(&label, !any_log ? "" : pass ? ", profiled" : ", unprofiled");
			size_t s = 0;
			while (s < c->nseries && strcmp(c->series[s], label.data))
				s++;
			if (s == c->nseries) {
				s = chart_add_series(c, label.data);
				for (size_t k = 0; k < c->ncat; k++)
					chart_set(c, k, s, NAN);
			}
			/* Raised by g / gmin so that every line meets the one linear-scaling line. */
			double lift = (double)r->base->gpus / (double)gmin;
			for (size_t k = 0; k < c->ncat; k++) {
				if (c->x_values[k] == (double)r->base->gpus)
					chart_set(c, k, s, lift);
				if (c->x_values[k] == (double)r->gpus)
					chart_set(c, k, s, (pass ? r->speedup : r->log_sp) * lift);
			}
		}
	buf_release(&label);
	free(ns);
	chart_add_refline(c, "linear scaling", 1.0 / (double)gmin, 0, 1);
	return c;
}

/*
 * compute_model.csv: Cheng et al.'s compute model, t_compute = (model FLOPs
 * / FLOPS) / (k1 k2), its parts measured per run (see the Methods text).
 */
static void compute_model(const struct analysis_ctx *ctx, struct analysis_result *out, const struct srun *rs, size_t n)
{
	const struct table *kt = result_table(out, "kernels");
	struct classifier *def = classifier_preset("default");
	struct table *t = table_new("compute_model", "Compute time and the k1 k2 model of Cheng et al., per run",
				    TABLE_SCHEMA(COMPUTE_MODEL_COLUMNS));
	double *k2 = xcalloc(n + 1, sizeof(*k2)), *flops = xcalloc(n + 1, sizeof(*flops));
	for (size_t i = 0; i < n; i++) {
		const struct srun *r = &rs[i];
		/* k2, as Cheng et al. define it: 1 - the CatArrayBatchedCopy kernels' share of compute kernel time. */
		double cat = 0, all = 0;
		int cn = kt ? KRN_NAME : -1, ct = kt ? KRN_TOTAL_US : -1;
		for (size_t row = 0; cn >= 0 && ct >= 0 && row < kt->nrows; row++) {
			if (strcmp(table_cell(kt, row, KRN_RUN)->v.text, r->run))
				continue;
			const char *g = classify(def, ACT_KERNEL, table_cell(kt, row, (size_t)cn)->v.text);
			double us = (double)table_cell(kt, row, (size_t)ct)->v.i;
			if (!strcmp(g, "communication") || !strcmp(g, "memory"))
				continue;
			all += us;
			if (strstr(table_cell(kt, row, (size_t)cn)->v.text, "CatArrayBatchedCopy"))
				cat += us;
		}
		k2[i] = all > 0 ? 1 - cat / all : NAN;
		const struct manifest *m = ctx->manifest;
		for (size_t j = 0; m && j < m->nruns; j++)
			if (m->runs[j].id && !strcmp(m->runs[j].id, r->run) && r->batch > 0 && m->runs[j].model.layers &&
			    m->runs[j].model.hidden && m->runs[j].model.seq) {
				struct est_model em;
				models_est_model(&m->runs[j].model, &em);
				flops[i] = est_train_flops(&em, (double)r->batch / (double)r->mp,
							   (enum est_recompute)m->runs[j].recompute, 0);
			}
	}
	for (size_t i = 0; i < n; i++) {
		const struct srun *r = &rs[i];
		if (!r->ndurs)
			continue;
		double tcomp = (r->step_sum - r->comm_sum) / (double)r->ndurs, kern = r->kernel_sum / (double)r->ndurs;
		double k1 = tcomp > 0 ? kern / tcomp : NAN;
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, r->run);
		if (flops[i] > 0)
			table_set_real(t, row, 1, flops[i]);
		table_set_ns(t, row, 2, llround(tcomp));
		table_set_ns(t, row, 3, llround(kern));
		if (!isnan(k1))
			table_set_real(t, row, 4, k1);
		if (!isnan(k2[i]))
			table_set_real(t, row, 5, k2[i]);
		if (flops[i] > 0 && !isnan(k1) && k1 > 0 && k2[i] > 0)
			table_set_real(t, row, 6, flops[i] / (tcomp * 1e-9 * k1 * k2[i]) / 1e12);
		const struct srun *b = r->pbase;
		size_t bi = b ? (size_t)(b - rs) : 0;
		if (!b || flops[i] <= 0 || flops[bi] <= 0 || !(k2[bi] > 0) || b->kernel_sum <= 0)
			continue;
		/* t_compute(n) = FLOPs(n) / (FLOPS(m) k1(m) k2(m)) = FLOPs(n) / FLOPs(m) x t_compute(m). */
		double tcomp_m = (b->step_sum - b->comm_sum) / (double)b->ndurs;
		table_set_text(t, row, 7, b->run);
		table_set_ns(t, row, 8, llround(flops[i] / flops[bi] * tcomp_m));
	}
	free(k2);
	free(flops);
	classifier_free(def);
	result_add_table(out, t);
	result_add_method(out, "compute_model.csv",
		"Cheng et al. (SIGMETRICS 2024) estimate compute time as t_compute = t_transformer / (k1 x k2), "
		"t_transformer = model FLOPs / FLOPS. Per run, from the profiled steps: flops_per_gpu = b(72sd^2 + "
		"12s^2d)l (their transformer FLOPs, no logit layer; a fourth forward pass with recomputation), b the "
		"per-GPU batch over tensor_parallel x pipeline_parallel; t_compute_us = the mean over ranks and steps of step - "
		"communication (communication first, as in dispatch.csv); kernel_us = the mean compute kernel time "
		"not under communication (dispatch.csv compute_us); k1 = kernel_us / t_compute_us, the share of "
		"compute time in kernels (the rest is dispatch and memory operations); k2 = 1 - the share of "
		"CatArrayBatchedCopy kernels (names containing it: torch.cat's copy) in all compute kernels' time, "
		"as Cheng et al. define it (compute kernels: kernels.csv's outside the communication and memory "
		"groups of the default classification, whatever the report's; the GEMM and attention shares are "
		"dispatch_ops.csv's part kernel); transformer_tflops = flops_per_gpu / (t_compute x k1 x k2), the FLOPS that makes "
		"the model hold for this run. t_compute_est_us: the run's compute time predicted from its "
		"prediction base m (scaling.csv), FLOPs(n) / (FLOPS(m) k1(m) k2(m)) = FLOPs(n) / FLOPs(m) x "
		"t_compute(m); the communication side, t_comm(n) = t_comm(m) / eff, is Cheng et al.'s t_AllReduce = "
		"4P / (BW x eff) with BW = 4P / t_comm(m) measured on m.");
}

/*
 * A run's strategy as the figures name it, one naming everywhere: "ZeRO-n"
 * for a ZeRO stage n >= 1 (the manifest's 'zero', else read from the
 * strategy's name: zero1, fsdp = ZeRO-3; layout_zero_stage), "DDP" for ddp,
 * else the strategy as written.
 */
static void strategy_shown(const struct analysis_ctx *ctx, struct srun *r)
{
	const struct manifest_run *mr = NULL;
	for (size_t i = 0; ctx->manifest && i < ctx->manifest->nruns; i++)
		if (!strcmp(ctx->manifest->runs[i].id, r->run))
			mr = &ctx->manifest->runs[i];
	layout_strategy_shown(mr, r->strategy, r->shown, sizeof(r->shown));
}

static int analysis_scaling(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	size_t n;
	struct srun *rs = load_runs(ctx, out, &n);
	choose_bases(out, rs, n);
	for (size_t i = 0; i < n; i++)
		strategy_shown(ctx, &rs[i]);
	/* The unprofiled iterations' medians (profiler_overhead.csv, which runs before). */
	for (size_t i = 0; i < n; i++)
		rs[i].log_step = (double)profiler_unprofiled_ns(out, rs[i].run);
	/*
	 * The same prediction anchored on the training logs (issue #54 item 3):
	 * m's log step for step(m) and the baseline's log throughput for S(g),
	 * the communication share still from m's trace. It is the one scored
	 * against log_speedup (log_mse), as the profiled one is against speedup:
	 * each prediction against the speedup of its own source.
	 */
	for (size_t i = 0; i < n; i++) {
		struct srun *r = &rs[i];
		if (!isnan(r->pred) && r->pbase->log_step > 0 && r->base->log_step > 0)
			r->pred_log = ((double)(r->dp * r->batch) / (r->pbase->log_step * r->pfactor)) /
				      ((double)(r->base->dp * r->base->batch) / r->base->log_step);
	}
	struct table *t = table_new("scaling", "Speedup across runs of the same model and strategy, measured and predicted",
				    TABLE_SCHEMA(SCALING_COLUMNS));
	int noted = 0;
	for (size_t i = 0; i < n; i++) {
		struct srun *r = &rs[i];
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, r->run);
		table_set_int(t, row, 1, r->gpus);
		if (*r->strategy) {
			table_set_text(t, row, 2, r->strategy);
			table_set_text(t, row, 18, r->shown); /* the figures' name of it */
		}
		if (r->sps <= 0) {
			result_add_note(out, "scaling.csv: run %s has %s, so its throughput is not computed", r->run,
					r->ndurs ? "no per-GPU batch in the manifest" : "no ProfilerStep ranges");
			continue;
		}
		table_set_ns(t, row, 3, (int64_t)r->step);
		table_set_int(t, row, 19, (int64_t)r->ndurs); /* the durations step_us is the median of */
		table_set_real(t, row, 4, r->sps);
		table_set_ns(t, row, 5, llround(r->comm_sum / (double)r->ndurs));
		table_set_real(t, row, 6, r->comm_sum / r->step_sum);
		if (r->log_step > 0)
			table_set_ns(t, row, 13, (int64_t)r->log_step);
		if (!r->base)
			continue;
		table_set_text(t, row, 7, r->base->run);
		table_set_real(t, row, 8, r->speedup);
		double nx = (double)r->gpus / (double)r->base->gpus, eff = r->speedup / nx;
		table_set_real(t, row, 9, eff);
		/* The same speedup on the training log's unprofiled iterations: the training, not the profiler. */
		double log_eff = NAN;
		if (r->log_step > 0 && r->base->log_step > 0) {
			double sp = ((double)(r->dp * r->batch) / r->log_step) /
				    ((double)(r->base->dp * r->base->batch) / r->base->log_step);
			log_eff = sp / nx;
			r->log_sp = sp;
			table_set_real(t, row, 14, sp);
			table_set_real(t, row, 15, log_eff);
		}
		/*
		 * Sanity: more than linear scaling is a measurement problem until shown
		 * otherwise, where it is beyond the medians' own noise.
		 */
		double pa = median_rel_se(out, r, 0), pb = median_rel_se(out, r->base, 0);
		double la = median_rel_se(out, r, 1), lb = median_rel_se(out, r->base, 1);
		int past = r->base != r && (past_linear(eff, pa, pb) || past_linear(log_eff, la, lb));
		table_set_int(t, row, 16, past);
		if (past)
			result_add_note(out, "scaling.csv: run %s scales past 100 %% against %s (efficiency %.0f %% on "
					"profiled steps%s%.0f %%%s): more than linear is not plausible for data "
					"parallelism; the likely cause is a baseline slower than its training (profiler "
					"overhead, profiler_overhead.csv), a host-bound baseline, or different work per "
					"step", r->run, r->base->run, eff * 100, isnan(log_eff) ? "" : ", ",
					isnan(log_eff) ? 0.0 : log_eff * 100, isnan(log_eff) ? "" : " on the log's unprofiled "
					"iterations");
		if (r->pbase)
			table_set_text(t, row, 10, r->pbase->run);
		if (!isnan(r->pred)) {
			const struct srun *m = r->pbase;
			table_set_real(t, row, 11, ring_factor(m->dp) / ring_factor(r->dp)); /* the eff predicted */
			table_set_real(t, row, 12, r->pred);
			if (!isnan(r->pred_log))
				table_set_real(t, row, 17, r->pred_log);
		} else if (r->base != r && r->gpus > 1 && !r->pbase && !noted++) {
			result_add_note(out, "scaling.csv: a predicted speedup needs a smaller run of the same model, "
					"strategy, per-GPU batch and tensor parallelism that communicates; %s has none, "
					"so it is a prediction base only (as is the smallest multi-GPU run of every "
					"strategy)", r->run);
		}
	}
	result_add_table(out, t);

	/*
	 * Mean squared error of the prediction, per model and strategy and over
	 * all (Fig. 15): against the logs' speedups (log_mse, the runs with a
	 * log on both sides) and against the profiled steps' (trace_mse).
	 */
	struct table *e = table_new("speedup_error", "Predicted against measured speedup: mean squared error",
				    TABLE_SCHEMA(SPEEDUP_ERROR_COLUMNS));
	double all = 0, all_log = 0;
	size_t nall = 0, nall_log = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(rs[i].pred))
			continue;
		all += (rs[i].pred - rs[i].speedup) * (rs[i].pred - rs[i].speedup);
		nall++;
		if (!isnan(rs[i].log_sp) && !isnan(rs[i].pred_log)) {
			all_log += (rs[i].pred_log - rs[i].log_sp) * (rs[i].pred_log - rs[i].log_sp);
			nall_log++;
		}
		int first = 1;
		for (size_t j = 0; j < i && first; j++)
			if (!isnan(rs[j].pred) && !strcmp(rs[j].model, rs[i].model) && !strcmp(rs[j].strategy, rs[i].strategy))
				first = 0;
		if (!first)
			continue;
		double sum = 0, sum_log = 0;
		size_t k = 0, k_log = 0;
		for (size_t j = i; j < n; j++)
			if (!isnan(rs[j].pred) && !strcmp(rs[j].model, rs[i].model) && !strcmp(rs[j].strategy, rs[i].strategy)) {
				sum += (rs[j].pred - rs[j].speedup) * (rs[j].pred - rs[j].speedup);
				k++;
				if (!isnan(rs[j].log_sp) && !isnan(rs[j].pred_log)) {
					sum_log += (rs[j].pred_log - rs[j].log_sp) * (rs[j].pred_log - rs[j].log_sp);
					k_log++;
				}
			}
		size_t row = table_add_row(e);
		table_set_text(e, row, 0, rs[i].model);
		table_set_text(e, row, 1, rs[i].strategy);
		table_set_text(e, row, 2, rs[i].shown); /* the figures' name of it: ZeRO-3 for fsdp */
		table_set_int(e, row, 3, (int64_t)k_log);
		if (k_log)
			table_set_real(e, row, 4, sum_log / (double)k_log);
		table_set_int(e, row, 5, (int64_t)k);
		table_set_real(e, row, 6, sum / (double)k);
	}
	if (nall) {
		size_t row = table_add_row(e);
		table_set_text(e, row, 0, "all");
		table_set_int(e, row, 3, (int64_t)nall_log);
		if (nall_log)
			table_set_real(e, row, 4, all_log / (double)nall_log);
		table_set_int(e, row, 5, (int64_t)nall);
		table_set_real(e, row, 6, all / (double)nall);
	}
	result_add_table(out, e);
	compute_model(ctx, out, rs, n);

	struct chart *c = speedup_chart(rs, n);
	int any_log = 0;
	for (size_t i = 0; i < n; i++)
		any_log |= !isnan(rs[i].log_sp);
	if (c)
		result_add_figure(out, c, any_log
			? "Measured speedup (samples/s against the baseline's) over the number of GPUs (log 2 axis), "
			  "one line per model and strategy starting at its baseline: 'unprofiled' from the training "
			  "logs' unprofiled iterations (scaling.csv log_speedup) and, beside it, 'profiled' from the "
			  "profiled steps (speedup), which the profiler slows unevenly (profiler_overhead.csv); a "
			  "line of profiled steps alone has no log on both sides. Lines of a baseline with more GPUs than the smallest "
			  "are raised by its GPU count over the smallest so that all share the dashed linear-scaling "
			  "line."
			: "Measured speedup (samples/s against the baseline's) over the number of GPUs (log 2 axis), "
			  "from the profiled steps (no run has a training log on both sides to give the unprofiled "
			  "speedup), one line per model and strategy starting at its baseline; lines of a baseline "
			  "with more GPUs than the smallest are raised by its GPU count over the smallest so that all "
			  "share the dashed linear-scaling line.");
	c = model_chart(rs, n, nall ? all / (double)nall : 0, nall_log ? all_log / (double)nall_log : 0, nall, nall_log);
	if (c)
		result_add_figure(out, c, nall_log
			? "Speedup estimated by the scalability model of Cheng et al. 2024 (Fig. 15) against the "
			  "evaluated speedup, per run with a prediction: the training log's (unprofiled, labelled "
			  "points: the prediction anchored on the logs against the log's speedup) and the profiled "
			  "steps' (unlabelled, the other marker: anchored on the profiled steps); the dashed "
			  "line is y = x and the key gives the mean squared error of each (speedup_error.csv log_mse "
			  "and trace_mse)."
			: "Speedup estimated by the scalability model of Cheng et al. 2024 (Fig. 15) against the "
			  "evaluated speedup from the profiled steps (no run has a training log on both sides), per "
			  "run with a prediction; the dashed line is y = x and the key gives the mean squared error.");
	result_add_method(out, "scaling.csv",
		"From the profiled steps (dispatch.csv), per run: step_us, the median of all its ranks' ProfilerStep "
		"durations pooled (step_samples of them, ranks x steps; not step_stats.csv's median_us, which takes "
		"each step's slowest rank); strategy_label: the strategy as the figures name it (ddp DDP, zero1 "
		"ZeRO-1, fsdp ZeRO-3); samples_per_s S = dp x per-GPU batch / step, dp = gpus / (tensor_parallel x pipeline_parallel), "
		"the replicas that take samples of their own; comm_us "
		"t_comm, the mean over ranks and steps of the union of communication kernels in the step; "
		"comm_share r_comm = total comm_us / total step time, and r_comp = 1 - r_comm (communication "
		"first: everything else is compute, dispatch included). baseline g: the manifest's "
		"scaling_baseline, else the run of the same model with the fewest GPUs among the runs of the same "
		"strategy and the 1-GPU runs (strategies are never mixed: a DDP run is not a ZeRO-1 run's "
		"baseline). One speedup for measured and predicted, a throughput ratio: speedup = S(n) / S(g), "
		"efficiency = speedup / (n / g). prediction_base m: the run of the same model, strategy, per-GPU "
		"batch and tensor parallelism with communication and the fewest GPUs below n (the baseline when it "
		"communicates; the smallest multi-GPU run when the baseline is a 1-GPU run, which has none). "
		"comm_efficiency eff: the network efficiency m -> n the prediction assumes, out of sample (from m "
		"alone, never n's own communication time): each GPU sends (p - 1) / p of the message in a ring "
		"collective over p = dp GPUs, at m's bandwidth, so eff = t_comm(m) / t_comm(n) = f(dp(m)) / "
		"f(dp(n)) with f(p) = (p - 1) / p (the measured ratio is comm_us(m) / comm_us(n) of the two "
		"rows); Cheng et al.'s t_iter(n) / t_iter(m) = r_comp(m) + "
		"r_comm(m) / eff at a fixed per-GPU batch gives the predicted S(n) = dp(n) x batch / (step(m) x "
		"(r_comp(m) + r_comm(m) / eff)) and predicted_speedup = predicted S(n) / S(g): the paper's "
		"iteration-time speedup t_iter(m) / t_iter(n) times the ratio of samples per step, so both columns "
		"are the same kind of number. The step times are the profiled ones, not the training log's "
		"(utilization.csv uses the log): the prediction needs the communication share of the very steps "
		"it times, which only the trace has, and the profiler slows the steps it records (bert-2gpu-ddp "
		"of the H200 example: 134.2 ms profiled, 75.1 ms in the log), so speedups here compare profiled "
		"steps with profiled steps. log_step_us: the median of the run's training log's unprofiled "
		"iterations (profiler_overhead.csv); log_speedup = S_log(n) / S_log(g) and log_efficiency = "
		"log_speedup / (n / g) with S_log = dp x per-GPU batch / log_step_us: the training's speedup, "
		"which the profiler does not distort; empty without a log on both sides. An efficiency over 100 % "
		"on either is flagged in the notes where it is beyond the noise of the two medians: over 1 + 2 x "
		"efficiency x sqrt(ra^2 + rb^2), r the relative standard error of each median, 1.2533 sigma / "
		"(median sqrt(n)) with sigma 1.4826 x the median absolute deviation (n the log's unprofiled "
		"iterations, or the profiled steps, a step's ranks pooled as one sample); with fewer than 5 "
		"samples on a side any efficiency over 100 % is flagged. past_linear: 1 where a run is flagged so. "
		"log_predicted_speedup: the same prediction anchored on the training logs, step(m) the median of m's "
		"unprofiled iterations and S(g) the baseline's S_log (the communication share r_comm(m) still from "
		"m's trace): dp(n) x batch / (log_step(m) x (r_comp(m) + r_comm(m) / eff)) / S_log(g); empty "
		"without a log for m and g.");
	result_add_method(out, "speedup_error.csv",
		"Per model and strategy (strategy: the manifest's key; strategy_label: the figures' name of it, "
		"DDP, ZeRO-1 to ZeRO-3 (fsdp is ZeRO-3), tensor parallel, pipeline parallel), and over all runs "
		"(model 'all'), the mean squared error of the prediction, "
		"as Cheng et al. 2024 report it for their Fig. 15: log_mse = (1/k) sum (log_predicted_speedup - "
		"log_speedup)^2 over the log_runs = k runs of scaling.csv with a log-anchored prediction and a "
		"training log on both sides (each prediction scored against the speedup of its own source) (the training's own speedup, unprofiled; empty where none has one); trace_mse = (1/k) "
		"sum (predicted_speedup - speedup)^2 over the runs = k runs with a prediction, against the "
		"profiled steps' speedup, which the profiler distorts unevenly (profiler_overhead.csv).");
	for (size_t i = 0; i < n; i++)
		free(rs[i].durs);
	free(rs);
	return 0;
}

const struct analysis_def analysis_def_scaling = {
	.name = "scaling",
	.run = analysis_scaling,
	.needs = ANALYSIS_TABLES("runs", "dispatch", "kernels", "profiler_overhead"),
	.makes = ANALYSIS_TABLES("compute_model", "scaling", "speedup_error"),
	.figures = ANALYSIS_NAMES("scaling", "speedup_model"),
};
