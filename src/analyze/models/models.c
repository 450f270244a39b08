/*
 * models.c: analytical estimates next to the measurements (issue 5).
 *
 *   estimates.csv:   per run with a model: parameters (general form and
 *                    12ld^2), training FLOPs per step, activation memory,
 *                    model-state memory under its ZeRO stage, their sum
 *                    against the GPU's memory, communication bytes per GPU.
 *   utilization.csv: per run with a step time: achieved TFLOP/s per GPU and
 *                    MFU against the GPU's peak; the log's own TFLOP/s.
 *   memory_by_batch.csv: per run with a model, the projected memory per GPU
 *                    over batch sizes, and its figure.
 *   published.csv:   a study's own estimates beside perfstudy's
 *                    (models_published.c).
 *   throughput.csv, throughput_scaling.csv, relative.csv: numbers typed
 *                    in from a study (models_typed.c).
 *   hardware.csv:    the GPUs nvidia-smi -q -x describes (models_hardware.c).
 * Every formula is in estimate.h and, in words, in the Methods text below.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/layout.h"
#include "analyze/models/estimate.h"
#include "analyze/models/models.h"
#include "analyze/lib/profiled.h"
#include "analyze/time/profiler_overhead.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "analyze/time/step_stats.h"

/* The training log and the manifest agree when their global batch and TFLOP/s per GPU are within this share. */
#define LOG_AGREE 0.10

void models_est_model(const struct manifest_model *m, struct est_model *out)
{
	memset(out, 0, sizeof(*out));
	out->layers = m->layers;
	out->hidden = m->hidden;
	out->heads = m->heads;
	out->ffn = m->ffn;
	out->seq = m->seq;
	out->vocab = m->vocab;
	out->arch = !m->arch			      ? ARCH_GPT
		    : !strcmp(m->arch, "bert")	      ? ARCH_BERT
		    : !strcmp(m->arch, "encoder-lm") ? ARCH_ENCODER_LM
						      : ARCH_GPT;
	out->framework = !m->framework ? FW_FORMULA : !strcmp(m->framework, "megatron") ? FW_MEGATRON : FW_HUGGINGFACE;
	out->objective = !m->objective ? OBJ_DEFAULT
			 : !strcmp(m->objective, "none") ? OBJ_NONE
			 : !strcmp(m->objective, "mlm") ? OBJ_MLM : OBJ_MLM_NSP;
	out->vocab_multiple = m->vocab_multiple;
}

const char *models_params_method(const struct est_model *em)
{
	static const char *const gpt[] = {"formula", "huggingface", "megatron"};
	static const char *const bert[][4] = {
		{"formula", "formula", "formula", "formula"},
		{"huggingface BertModel", "huggingface BertModel", "huggingface BertForMaskedLM",
		 "huggingface BertForPreTraining"},
		{"megatron mlm+nsp", "megatron mlm", "megatron mlm", "megatron mlm+nsp"},
	};
	if (em->arch != ARCH_BERT)
		return gpt[em->framework];
	return bert[em->framework][em->objective];
}

/* What the store knows of a run: GPUs, step time and GPU, from traces, logs and hardware. */
struct run_facts {
	int gpus;
	double step_s;       /* 0: unknown */
	const char *step_source;
	double logged_tflops; /* mean over the same iterations; < 0: none */
	int64_t logged_batch; /* the log's global batch size (the largest it prints); 0: none */
	int64_t iterations;
	char *gpu_name;
	int64_t gpu_mem;     /* bytes; 0 unknown */
};

static int query_facts(struct store *s, const char *exp, const char *run, int64_t log_ns, struct run_facts *f)
{
	struct store_stmt *st;
	memset(f, 0, sizeof(*f));
	f->logged_tflops = -1;
	/*
	 * GPUs as in runs.csv; the mean ProfilerStep of all ranks; the log's
	 * unprofiled iterations (profiled.h: no start-up, none the profiler
	 * slowed; their median, log_ns, comes from profiler_overhead.csv); the
	 * first device its traces name, else the experiment's nvidia-smi GPU.
	 */
	static const char sql[] =
		"SELECT coalesce(r.gpus, (SELECT max(world_size) FROM traces t WHERE t.run_id = r.id),"
		"   (SELECT count(*) FROM traces t WHERE t.run_id = r.id AND t.rank IS NOT NULL)),"
		" (SELECT avg(s.dur_ns) FROM steps s JOIN traces t ON t.id = s.trace_id WHERE t.run_id = r.id),"
		" (SELECT avg(i.tflops_per_gpu) FROM iterations i JOIN traces t ON t.id = i.trace_id"
		"   WHERE t.run_id = r.id AND " SQL_UNPROFILED_ITERATION "),"
		" (SELECT count(*) FROM iterations i JOIN traces t ON t.id = i.trace_id"
		"   WHERE t.run_id = r.id AND " SQL_UNPROFILED_ITERATION "),"
		" coalesce((SELECT d.name FROM devices d JOIN traces t ON t.id = d.trace_id WHERE t.run_id = r.id"
		"   ORDER BY t.file_index LIMIT 1),"
		"   (SELECT h.product FROM gpu_hardware h WHERE h.experiment = r.experiment ORDER BY h.gpu LIMIT 1)),"
		" coalesce((SELECT d.total_mem FROM devices d JOIN traces t ON t.id = d.trace_id WHERE t.run_id = r.id"
		"   ORDER BY t.file_index LIMIT 1),"
		"   (SELECT h.memory_mib * 1048576 FROM gpu_hardware h WHERE h.experiment = r.experiment"
		"   ORDER BY h.gpu LIMIT 1)),"
		" (SELECT max(i.global_batch) FROM iterations i JOIN traces t ON t.id = i.trace_id WHERE t.run_id = r.id)"
		" FROM runs r WHERE r.experiment = ?1 AND r.run = ?2";
	st = store_query(s, "models: a run's facts", sql, exp);
	if (!st)
		return -1;
	store_bind_text(st, 2, run);
	int rc = store_next(st);
	if (rc > 0) {
		f->gpus = store_column_int(st, 0);
		if (log_ns > 0) {
			f->step_s = (double)log_ns / 1e9;
			f->step_source = "log";
			f->iterations = store_column_int64(st, 3);
			if (store_column_type(st, 2) != STORE_NULL)
				f->logged_tflops = store_column_double(st, 2);
		} else if (store_column_type(st, 1) != STORE_NULL) {
			f->step_s = store_column_double(st, 1) / 1e9;
			f->step_source = "trace";
		}
		if (store_column_type(st, 4) != STORE_NULL)
			f->gpu_name = xstrdup((const char *)store_column_text(st, 4));
		f->gpu_mem = store_column_int64(st, 5);
		if (store_column_type(st, 6) != STORE_NULL)
			f->logged_batch = store_column_int64(st, 6);
	}
	store_finalize(st);
	return rc < 0 ? -1 : 0;
}

int models_grad_bytes(const struct manifest_run *r)
{
	if (r->grad_bytes)
		return r->grad_bytes;
	enum est_precision p = est_precision_parse(r->model.precision);
	return p == PREC_FP32 || p == PREC_TF32 ? 4 : p == PREC_FP64 ? 8 : 2;
}

int models_has_model(const struct manifest_model *m)
{
	return m->layers && m->hidden && m->seq;
}

/*
 * Step time and achieved TFLOP/s per GPU, one bar per run of utilization.csv,
 * whatever each run's step time came from (a trace's ProfilerStep ranges, a
 * training log, or a number typed in from a paper): the figures that put runs
 * of different formats side by side. The source is in each bar's label.
 */
/* A bar's whisker: the run's fastest to slowest profiled step (step_stats.csv), where it has steps. */
static void spread_from_steps(struct chart *c, size_t cat, const struct table *stats, const char *run)
{
	for (size_t i = 0; stats && i < stats->nrows; i++)
		if (!strcmp(table_cell(stats, i, SS_RUN)->v.text, run)) {
			int cmin = SS_MIN_US, cmax = SS_MAX_US;
			chart_set_spread(c, cat, (double)table_cell(stats, i, (size_t)cmin)->v.i / 1e6,
					 (double)table_cell(stats, i, (size_t)cmax)->v.i / 1e6, NAN, NAN);
		}
}

/*
 * The step time's source (utilization.csv's step_source) in the words a
 * figure's run label shows: "log" alone would read like a log scale.
 */
static const char *step_source_words(const struct cell *src)
{
	if (src->null)
		return "?";
	if (!strcmp(src->v.text, "log"))
		return "training log";
	if (!strcmp(src->v.text, "trace"))
		return "profiled steps";
	return src->v.text; /* "manifest" */
}

static void utilization_figures(const struct table *u, const struct table *e, struct analysis_result *out)
{
	const struct table *stats = result_table(out, "step_stats");
	int crun = UT_RUN, cstep = UT_STEP_US;
	int csrc = UT_STEP_SOURCE, cach = UT_ACHIEVED_TFLOPS_PER_GPU;
	struct chart *st = chart_new(CHART_HBAR, "step_time", "Time per training step, by run", "step time (ms)");
	struct chart *tf = chart_new(CHART_HBAR, "achieved_tflops", "Achieved TFLOP/s per GPU, by run",
				     "model TFLOP/s per GPU");
	chart_add_series(st, "step time");
	chart_add_series(tf, "achieved");
	chart_set_x_axis(st, "run (source of its step time)", CHART_SCALE_LINEAR);
	chart_set_x_axis(tf, "run (source of its step time)", CHART_SCALE_LINEAR);
	struct buf label, novocab, fromtrace;
	buf_init(&label);
	buf_init(&novocab);
	buf_init(&fromtrace);
	for (size_t r = 0; r < u->nrows; r++) {
		const struct cell *step = table_cell(u, r, (size_t)cstep), *ach = table_cell(u, r, (size_t)cach);
		const struct cell *src = table_cell(u, r, (size_t)csrc);
		const char *run = table_cell(u, r, (size_t)crun)->v.text;
		/* estimates.csv's vocab_used and its source: the FLOPs without the logit layer where there is none */
		const char *vsrc = NULL;
		int unknown = 0;
		for (size_t k = 0; k < e->nrows; k++)
			if (!strcmp(table_cell(e, k, EST_RUN)->v.text, run)) {
				unknown = table_cell(e, k, EST_VOCAB_USED)->null;
				vsrc = unknown ? NULL : table_cell(e, k, EST_VOCAB_SOURCE)->v.text;
			}
		if (unknown)
			buf_printf(&novocab, "%s%s", novocab.len ? ", " : "", run);
		if (vsrc && !strcmp(vsrc, "trace"))
			buf_printf(&fromtrace, "%s%s", fromtrace.len ? ", " : "", run);
		buf_reset(&label);
		buf_printf(&label, "%s (%s)", run, step_source_words(src));
		if (!step->null && step->v.f == step->v.f) {
			size_t cat = chart_add_category(st, label.data);
			chart_set(st, cat, 0, step->v.f / 1000.0);
			if (!src->null && !strcmp(src->v.text, "trace"))
				spread_from_steps(st, cat, stats, table_cell(u, r, (size_t)crun)->v.text);
		}
		/* on the figure itself: a bar whose FLOPs leave the logit layer out says so */
		if (unknown)
			buf_adds(&label, ", no logit layer");
		if (!ach->null && ach->v.f == ach->v.f)
			chart_set(tf, chart_add_category(tf, label.data), 0, ach->v.f);
	}
	result_add_figure(out, st, "Time per training step of each run in milliseconds, from the source in "
				   "brackets: 'profiled steps', the mean ProfilerStep#N range of its traces; 'training "
				   "log', its training log; or 'manifest', the value typed into the manifest "
				   "(utilization.csv's step_source: trace, log, manifest); for profiled steps, the "
				   "whisker spans the fastest to the slowest profiled step of any rank (step_stats.csv).");
	buf_reset(&label);
	buf_adds(&label, "Achieved model TFLOP/s per GPU of each run: the estimated FLOPs per step over the step time "
		 "and the number of GPUs (utilization.csv; MFU there).");
	if (fromtrace.len)
		buf_printf(&label, " The vocabulary of %s is read from the trace's shapes (the logit layer's matrix "
			   "product, estimates.csv vocab_source).", fromtrace.data);
	if (novocab.len)
		buf_printf(&label, " 'no logit layer': %s has no vocabulary in the manifest or the trace's shapes, so "
			   "its FLOPs leave the logit layer (6BsdV) out and its TFLOP/s are too low.", novocab.data);
	result_add_figure(out, tf, label.data);
	buf_release(&label);
	buf_release(&novocab);
	buf_release(&fromtrace);
}

/*
 * The GPU's memory in bytes: the traces' device properties or nvidia-smi
 * (query_facts), else the manifest's hardware.gpu_memory_gb x 10^9 (as
 * system.csv prints GB); 0: unknown.
 */
static int64_t gpu_memory_bytes(const struct manifest *man, const struct run_facts *f)
{
	return f->gpu_mem > 0 ? f->gpu_mem : llround(manifest_hardware_number(man, "gpu_memory_gb") * 1e9);
}

/*
 * Memory per GPU of a run at per-GPU batch b, as estimates.csv counts it
 * (its Methods): activations by Korthikanti et al. for the run's tensor
 * parallelism and recomputation, model state of mixed-precision Adam under
 * its ZeRO stage over dp GPUs, P the parameters (all ranks of a replica:
 * each holds 1 / (tensor_parallel x pipeline_parallel) of them). A
 * pipeline's activations are not modelled: the estimate is the whole
 * model's at batch b, as if no stage held fewer layers.
 */
struct run_memory {
	double act, state;
};

static struct run_memory memory_per_gpu(const struct manifest_run *r, const struct est_model *em, int64_t P, int dp,
					double b)
{
	int tp = layout_tp(r);
	struct run_memory m = {0, 0};
	m.act = b > 0 ? est_activation_bytes(em, b, tp, (enum est_recompute)r->recompute) : 0;
	m.state = P ? est_model_state_bytes((double)P / layout_replica_ranks(r), layout_zero_stage(r), dp) : 0;
	return m;
}

/* memory_by_batch.csv's default batches, for runs with a published activation estimate. */
static const int default_batches[] = {1, 2, 4, 8, 16, 32, 64};

/*
 * Paper 002's projected memory over batch sizes: a run's memory_per_gpu()
 * at each batch of the manifest's memory_batches (every run with a model),
 * else of default_batches (the runs whose study published an activation
 * estimate), into t and one line of c; the GPU's memory mem (0: unknown).
 */
static void memory_by_batch_rows(const struct manifest *man, const struct manifest_run *r, const struct est_model *em,
				 int64_t P, int dp, int64_t mem, struct table *t, struct chart *c)
{
	const int *batches = man->nmemory_batches ? man->memory_batches : default_batches;
	size_t nb = man->nmemory_batches ? man->nmemory_batches : sizeof(default_batches) / sizeof(default_batches[0]);
	if ((!man->nmemory_batches && r->published.activation_gb <= 0) || !P ||
	    (em->heads <= 0 && r->recompute == RECOMP_NONE))
		return;
	if (!c->ncat)
		for (size_t k = 0; k < nb; k++) {
			char label[24];
			snprintf(label, sizeof(label), "b %d", batches[k]);
			chart_set_x(c, chart_add_category(c, label), batches[k]);
		}
	/* The run's own label, else its model's name (one line per model in paper 002's figure), else its id. */
	const char *name = r->label && strcmp(r->label, r->id) ? r->label : r->model.name ? r->model.name : r->id;
	size_t series = chart_add_series(c, name);
	for (size_t k = 0; k < nb; k++) {
		struct run_memory m = memory_per_gpu(r, em, P, dp, batches[k]);
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, r->id);
		if (r->model.name)
			table_set_text(t, row, 1, r->model.name);
		table_set_int(t, row, 2, batches[k]);
		table_set_real(t, row, 3, m.act);
		table_set_real(t, row, 4, m.state);
		table_set_real(t, row, 5, m.act + m.state);
		if (mem > 0) {
			table_set_int(t, row, 6, mem);
			table_set_text(t, row, 7, m.act + m.state > (double)mem ? "yes" : "no");
		}
		chart_set(c, k, series, (m.act + m.state) / 1e9);
	}
}

/* Adds memory_by_batch.csv and its figure when they have rows; frees them otherwise. */
static void memory_by_batch_add(struct table *t, struct chart *c, struct analysis_result *out)
{
	if (!t->nrows) {
		table_free(t);
		chart_free(c);
		return;
	}
	/* One horizontal line per GPU memory size the rows name. */
	int cm = MBB_GPU_MEMORY_BYTES;
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cell *m = table_cell(t, i, (size_t)cm);
		int seen = 0;
		for (size_t j = 0; j < i && !m->null && !seen; j++)
			seen = !table_cell(t, j, (size_t)cm)->null && table_cell(t, j, (size_t)cm)->v.i == m->v.i;
		if (m->null || seen)
			continue;
		char label[64];
		snprintf(label, sizeof(label), "GPU memory %.3g GB", (double)m->v.i / 1e9);
		chart_add_refline(c, label, 0, (double)m->v.i / 1e9, 1);
	}
	result_add_table(out, t);
	result_add_figure(out, c, "Memory one GPU needs to train each run's model against the batch size per GPU "
				  "(both axes logarithmic): activations plus model state as estimates.csv counts them "
				  "for the run's tensor parallelism, recomputation, ZeRO stage and GPUs "
				  "(memory_by_batch.csv), as paper 002 projects it; the dashed line is the GPU's "
				  "memory where known. Buffers and fragmentation are not counted.");
	result_add_method(out, "memory_by_batch.csv",
		"Per run and per-GPU batch b of the manifest's memory_batches (every run with layers, hidden and "
		"seq; without the key b = 1, 2, 4, ..., 64 for the runs whose study published an activation "
		"estimate, published.activation_gb): activation_bytes and model_state_bytes exactly as "
		"estimates.csv's activation_bytes_per_gpu and model_state_bytes_per_gpu (the same functions: "
		"Korthikanti et al. 2022 for the run's tensor parallelism and recomputation, which without either "
		"is Cheng et al.'s b(34sd + 5as^2)l; 16 bytes per parameter of mixed-precision Adam under the "
		"run's ZeRO stage over its data-parallel GPUs, 16P on one GPU), total_bytes their sum. "
		"gpu_memory_bytes: the GPU's memory from the traces or nvidia-smi, else hardware.gpu_memory_gb x "
		"10^9; exceeds_gpu_memory: total_bytes > gpu_memory_bytes. Paper 002's figure of projected memory "
		"over batch sizes; its printed activation numbers disagree with this formula (published.csv).");
}

/* Runs' estimates and utilization. */
static int estimates(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct manifest *man = ctx->manifest;
	struct table *e = table_new("estimates", "Analytical estimates per run (per GPU where it says so)",
				    TABLE_SCHEMA(ESTIMATES_COLUMNS));
	struct table *u = table_new("utilization", "Achieved TFLOP/s per GPU and model FLOPs utilization",
				    TABLE_SCHEMA(UTILIZATION_COLUMNS));
	struct table *mb = table_new("memory_by_batch", "Projected memory per GPU over batch sizes",
				     TABLE_SCHEMA(MEMORY_BY_BATCH_COLUMNS));
	struct chart *mbc = chart_new(CHART_XY, "memory_by_batch", "Projected training memory per GPU by batch size",
				      "activations + model state (GB)");
	chart_set_x_axis(mbc, "batch size per GPU", CHART_SCALE_LOG2);
	mbc->y_scale = CHART_SCALE_LOG10;
	mbc->entity_series = 1;
	int ret = 0;
	for (size_t i = 0; man && i < man->nruns; i++) {
		const struct manifest_run *r = &man->runs[i];
		if (!models_has_model(&r->model))
			continue;
		struct est_model em;
		models_est_model(&r->model, &em);
		struct run_facts f;
		/* The log's step: the median of its unprofiled iterations, as in scaling.csv. */
		if (query_facts(ctx->store, ctx->experiment, r->id, profiler_unprofiled_ns(out, r->id), &f) < 0) {
			ret = -1;
			break;
		}
		int p = r->gpus > 0 ? r->gpus : f.gpus, tp = layout_tp(r), mp = layout_replica_ranks(r), z = layout_zero_stage(r);
		int dp = p > 0 ? (p / mp > 0 ? p / mp : 1) : 1;
		int64_t P = est_params_as(&em, tp);
		double B = r->batch > 0 ? (double)r->batch * dp : 0;
		/*
		 * The logit layer is as wide as the vocabulary the framework builds
		 * (padded by Megatron); without the manifest's, the one the traces'
		 * shapes show (trace_vocab.c), for the FLOPs only: the parameter
		 * count stays the manifest's (a tied head; the trace's may not be).
		 */
		struct est_model emv = em;
		emv.vocab = est_vocab_padded(&em, tp);
		int vrank = -1;
		int64_t tv = em.vocab > 0 ? 0 : layout_trace_vocab(ctx->store, ctx->experiment, r->id, em.hidden,
								    est_ffn(&em), &vrank);
		if (tv < 0) {
			ret = -1;
			break;
		}
		if (tv > 0) {
			emv.vocab = tv;
			result_add_note(out, "estimates.csv: run %s: vocabulary %lld read from its trace (rank %d's "
					"aten::linear of weight [%lld, %lld], the logit layer): flops_per_step counts the "
					"logit layer with it; params still needs the manifest's vocab.", r->id, (long long)tv,
					vrank, (long long)tv, (long long)em.hidden);
		}
		double flops = B > 0 ? est_train_flops(&emv, B, (enum est_recompute)r->recompute, emv.vocab > 0) : -1;
		size_t row = table_add_row(e);
		table_set_text(e, row, EST_RUN, r->id);
		if (r->model.name)
			table_set_text(e, row, EST_MODEL, r->model.name);
		if (P)
			table_set_int(e, row, EST_PARAMS, P);
		table_set_int(e, row, EST_PARAMS_12LD2, est_params_simple(&em));
		if (B > 0)
			table_set_int(e, row, EST_GLOBAL_BATCH, (int64_t)B);
		if (flops >= 0)
			table_set_real(e, row, EST_FLOPS_PER_STEP, flops);
		struct run_memory rm = memory_per_gpu(r, &em, P, dp, r->batch);
		double act = rm.act, state = rm.state;
		int64_t mem = gpu_memory_bytes(man, &f);
		if (act > 0)
			table_set_real(e, row, EST_ACTIVATION_BYTES_PER_GPU, act);
		if (state > 0)
			table_set_real(e, row, EST_MODEL_STATE_BYTES_PER_GPU, state);
		if (act > 0 && state > 0) {
			table_set_real(e, row, EST_MEMORY_BYTES_PER_GPU, act + state);
			if (mem > 0) {
				table_set_int(e, row, EST_GPU_MEMORY_BYTES, mem);
				table_set_text(e, row, EST_EXCEEDS_GPU_MEMORY, act + state > (double)mem ? "yes" : "no");
			}
		}
		memory_by_batch_rows(man, r, &em, P, dp, mem, mb, mbc);
		table_set_int(e, row, EST_ZERO, z);
		if (P && p > 0)
			table_set_real(e, row, EST_COMM_BYTES_PER_GPU, est_comm_bytes((double)P / mp, z, dp, models_grad_bytes(r)));
		table_set_text(e, row, EST_PARAMS_METHOD, models_params_method(&em));
		table_set_int(e, row, EST_PARAMS_LAYERS, em.layers * est_layer_params(&em));
		if (emv.vocab > 0) {
			table_set_int(e, row, EST_VOCAB_USED, emv.vocab);
			table_set_text(e, row, EST_VOCAB_SOURCE, tv > 0 ? "trace" : "manifest");
		}
		if (!P)
			result_add_note(out, "estimates.csv: run %s: no parameter count without the model's vocab "
					     "(params_layers counts the layers alone).", r->id);
		if (r->batch <= 0)
			result_add_note(out, "estimates.csv: run %s: no FLOPs or activation memory without its batch.", r->id);

		/* Utilization: typed-in iteration time first, then the log, then the trace's steps. */
		double step_s = r->measured.iteration_ms > 0 ? r->measured.iteration_ms / 1e3 : f.step_s;
		const char *src = r->measured.iteration_ms > 0 ? "manifest" : f.step_source;
		if (r->measured.oom) {
			free(f.gpu_name);
			continue;
		}
		if (step_s <= 0 || flops < 0 || p <= 0) {
			if (flops >= 0)
				result_add_note(out, "utilization.csv: run %s: no step time (no ProfilerStep ranges, log "
						     "iterations or measured iteration_ms).", r->id);
			free(f.gpu_name);
			continue;
		}
		double achieved = flops / step_s / p / 1e12;
		enum est_precision prec = est_precision_parse(r->model.precision);
		const char *matched = NULL;
		double peak = man->hardware.peak_tflops;
		const char *peak_src = "manifest";
		if (peak <= 0) {
			peak = est_peak_tflops(f.gpu_name, prec, &matched);
			peak_src = "table";
		}
		/*
		 * Cross-checks against the training log, where it prints them: its
		 * global batch against the manifest's batch (per GPU) x data-parallel
		 * GPUs, and its own TFLOP/s per GPU against this one; more than
		 * LOG_AGREE apart, a warning naming both (a per-GPU batch given as the
		 * global one inflates every FLOP/s and MFU by the GPU count).
		 */
		if (f.logged_batch > 0 && B > 0 && fabs(B / (double)f.logged_batch - 1) > LOG_AGREE)
			result_add_note(out, "utilization.csv: warning: run %s: the manifest's batch %d per GPU x %d "
					"data-parallel GPUs makes a global batch of %.0f, its training log prints a global "
					"batch size of %lld; the manifest's batch is per GPU (every FLOP/s and MFU here "
					"scales with it)", r->id, r->batch, dp, B, (long long)f.logged_batch);
		if (f.logged_tflops > 0 && !strcmp(src, "log") && fabs(achieved / f.logged_tflops - 1) > LOG_AGREE)
			result_add_note(out, "utilization.csv: warning: run %s: %.1f TFLOP/s per GPU by perfstudy's count "
					"(estimates.csv flops_per_step / step time / GPUs) against %.1f by the training log's "
					"own (%.2fx): check the manifest's model and batch against the log's",
					r->id, achieved, f.logged_tflops, achieved / f.logged_tflops);
		size_t ur = table_add_row(u);
		table_set_text(u, ur, 0, r->id);
		table_set_int(u, ur, 1, p);
		table_set_int(u, ur, 2, (int64_t)B);
		table_set_real(u, ur, 3, step_s * 1e6);
		table_set_text(u, ur, 4, src);
		table_set_real(u, ur, 5, flops);
		table_set_real(u, ur, 6, achieved);
		if (r->measured.tflops_per_gpu > 0)
			table_set_real(u, ur, 7, r->measured.tflops_per_gpu);
		else if (f.logged_tflops >= 0 && !strcmp(src, "log"))
			table_set_real(u, ur, 7, f.logged_tflops);
		if (f.gpu_name)
			table_set_text(u, ur, 8, f.gpu_name);
		if (prec != PREC_UNKNOWN)
			table_set_text(u, ur, 9, est_precision_name(prec));
		if (peak > 0) {
			table_set_real(u, ur, 10, peak);
			table_set_text(u, ur, 11, peak_src);
			table_set_real(u, ur, 12, achieved / peak);
		} else {
			result_add_note(out, "utilization.csv: run %s: no peak FLOP/s: %s.", r->id,
					!f.gpu_name ? "no GPU name (traces, nvidia-smi) and no hardware.peak_tflops"
					: prec == PREC_UNKNOWN ? "the model's precision is not given"
					: "the GPU or its precision is not in the peak table; set hardware.peak_tflops");
		}
		free(f.gpu_name);
	}
	if (ret < 0 || !e->nrows) {
		table_free(e);
		table_free(u);
		table_free(mb);
		chart_free(mbc);
		return ret;
	}
	result_add_table(out, e);
	memory_by_batch_add(mb, mbc, out);
	if (u->nrows) {
		result_add_table(out, u);
		utilization_figures(u, e, out);
	} else {
		table_free(u);
	}
	result_add_method(out, "estimates.csv",
		"params: 12ld^2 + 13ld for the layers when f = 4d (in general per layer 4d^2 + 4d for the Q, K, V "
		"and output projections with biases, 2df + f + d for the feed-forward matrices with biases, 4d for "
		"two LayerNorms), plus the token and position embeddings (V + s)d; GPT adds a final LayerNorm (2d), "
		"BERT two token-type embeddings, an embedding LayerNorm and a pooler (4d + d^2 + d). params_12ld2: "
		"12ld^2, the weight matrices only (Cheng et al., SIGMETRICS 2024). global_batch: batch per GPU x "
		"data-parallel GPUs (gpus / (tensor_parallel x pipeline_parallel)). flops_per_step: (3 + r) x l x [2Bs(4d^2 + 2df) + "
		"4Bs^2d] + 3 x 2BsdV: the layers' forward once, the backward twice the forward, r = 1 with "
		"activation recomputation (one more forward), and the logit layer's forward and backward; with "
		"f = 4d and r = 0 this is Megatron-LM's 72Bsld^2 (1 + s/(6d) + V/(12ld)) (Narayanan et al., 2021). "
		"It is not paper 002's formula as printed: Cheng et al.'s b(72sd^2 + 12s^2d)l counts the "
		"transformer layers only, and flops_per_step adds the logit layer, 6BsdV, to it (published.csv's "
		"flops_tflop and compute_model.csv's flops_per_gpu use their formula without it). "
		"activation_bytes_per_gpu: l x sbd (10 + 24/t + 5as/(dt)) for per-GPU batch b and tensor-parallel "
		"size t (Korthikanti et al., 2022; with t = 1, b(34sd + 5as^2)l as in Cheng et al.), l x sbd (10 + "
		"24/t) with selective and l x 2sbd with full recomputation. model_state_bytes_per_gpu: "
		"mixed-precision Adam keeps 16 bytes per parameter (2 fp16 weights, 2 fp16 gradients, 12 fp32 "
		"master weights, momentum and variance; Rajbhandari et al., ZeRO, 2020): 16P without ZeRO, 4P + "
		"12P/p with ZeRO-1, 2P + 14P/p with ZeRO-2, 16P/p with ZeRO-3, P the parameters per rank of a model "
		"replica (all parameters over tensor_parallel x pipeline_parallel, each stage taken as an equal share) "
		"and p the data-parallel GPUs; for a pipeline the activation estimate is still the whole model's, "
		"which no stage holds. memory_bytes_per_gpu: their sum, compared with the GPU's memory "
		"(gpu_memory_bytes: the traces' device properties, else nvidia-smi, else hardware.gpu_memory_gb x 10^9; "
		"exceeds_gpu_memory); buffers, fragmentation and the framework's workspace are not counted. zero: "
		"the manifest's zero, else read from the strategy (zero1, zero2, zero3, fsdp), else 0. "
		"comm_bytes_per_gpu: bytes each GPU sends per step for its gradients of g bytes (2 for fp16/bf16, "
		"4 for fp32, or grad_bytes): one AllReduce 2(1 - 1/p) g P without ZeRO and with ZeRO-2 "
		"(ReduceScatter plus AllGather), and one more AllGather, 3(1 - 1/p) g P, with ZeRO-1 (of the "
		"updated parameters) and ZeRO-3 (Cheng et al.: AllReduce 4(1 - 1/p)P, AllGather and ReduceScatter "
		"2(1 - 1/p)P for fp16; per collective type in comm_types.csv). "
		"params_method: whose count params is (the model's 'framework' and 'objective'): 'formula' is the general form above, "
		"which is also Hugging Face's GPT2LMHeadModel (its LM head is the tied embedding) and BertModel; "
		"'huggingface BertForMaskedLM' drops the pooler (d^2 + d) and adds the masked-LM head (dense d^2 + "
		"d, LayerNorm 2d, output bias V), 'huggingface BertForPreTraining' keeps the pooler and adds that "
		"head and the next-sentence head (2d + 2); 'megatron' is what Megatron-LM prints for one "
		"model-parallel rank times the t ranks, as studies report it: the vocabulary padded up to a "
		"multiple of 128t (vocab_multiple x t), per layer 12d^2 + 7d split over the ranks and 6d (two "
		"LayerNorms, two row-parallel biases) held by every rank, likewise the position embedding sd and "
		"the final LayerNorm 2d; BERT without an embedding LayerNorm, with 2 token types, pooler, MLM head "
		"(d^2 + 3d held by every rank, the padded-vocabulary bias split) and next-sentence head (2d + 2, "
		"'mlm' leaves it out). These are counts of the modules, exact when the model is built as "
		"described; params_12ld2 is an approximation (it leaves out biases, LayerNorms and embeddings). "
		"params_layers: l times one layer's parameters, no embeddings (needs no vocabulary). vocab_used: "
		"the vocabulary of the embedding and the logit layer of flops_per_step (Megatron's padded one); "
		"vocab_source: manifest, or trace where the manifest gives none and the run's traces have shapes: "
		"the largest n of its aten::linear operators with an input of width d and a weight [n, d], n > 3d "
		"and n > f (wider than any matrix of a layer: the logit layer's [V, d]), used for flops_per_step "
		"only (params stays empty: the manifest's count assumes a head tied to the embedding).");
	result_add_method(out, "utilization.csv",
		"step_us: the manifest's measured iteration_ms, else the median elapsed time per iteration of the "
		"run's training log over its unprofiled iterations (profiler_overhead.csv: from the third on, "
		"without the profiler's warm-up, profiled and export iterations), else the mean ProfilerStep#N "
		"duration of its traces. The log comes before the traces because only its unprofiled iterations "
		"time training as it runs: the profiler slows the steps it records, by 1.04x to 2.10x in the H200 "
		"example (profiler_overhead.csv; scaling.csv times the profiled steps, for the reason its Methods "
		"give, and gives the log's speedup beside them). "
		"achieved_tflops_per_gpu: flops_per_step (estimates.csv) / "
		"step time / GPUs. logged_tflops_per_gpu: the log's own throughput per GPU, averaged over the same "
		"unprofiled iterations, or the manifest's measured tflops_per_gpu. peak_tflops: hardware.peak_tflops when "
		"given, else the dense (no sparsity) peak of the GPU named by the traces' deviceProperties or "
		"nvidia-smi at the model's precision, from NVIDIA's datasheets: V100 SXM2 15.7 fp32 / 125 fp16, "
		"V100 PCIe 14 / 112, A100 19.5 fp32 / 156 tf32 / 312 fp16 and bf16, H100 SXM and H200 67 / 494.5 / "
		"989.5 / 1979 fp8, H100 PCIe 51 / 378 / 756 / 1513, B200 1125 tf32 / 2250 / 4500, L40S, L4, A10 "
		"and T4, and AMD's: MI300X and MI325X 163.4 fp32 / 653.7 tf32 / 1307.4 fp16 and bf16 / 2614.9 fp8, "
		"MI355X 157.3 / 2516.6 / 5033.2, MI350X, MI250X 47.9 / 383, MI250 and MI210. mfu: achieved / peak (model FLOPs utilization).");
	return 0;
}

static int analysis_models(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	if (models_hardware(ctx, out) < 0 || estimates(ctx, out) < 0)
		return -1;
	models_published(ctx, out);
	models_throughput(ctx, out);
	models_relative(ctx, out);
	return 0;
}

const struct analysis_def analysis_def_models = {
	.name = "models",
	.run = analysis_models,
	.needs = ANALYSIS_TABLES("step_stats", "profiler_overhead"),
	.makes = ANALYSIS_TABLES("estimates", "utilization", "memory_by_batch", "published", "throughput",
		"throughput_scaling", "relative", "hardware"),
	.figures = ANALYSIS_NAMES("step_time", "achieved_tflops", "memory_by_batch"),
};
