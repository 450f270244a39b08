/*
 * op_roofline.c: each operator against its roofline (issue 56):
 * op_roofline.csv, one row per rank, operator and shapes, from the store's
 * model_ops (the operators the model prices, at any depth, with their
 * shapes) and the rank's kernels.
 *
 * A kernel's time goes to one operator: its launch (by correlation) is a
 * host runtime call, and the kernel goes to the innermost model_ops
 * operator of the launching thread whose range holds the call (an
 * aten::mm inside aten::linear gets it, not the linear), so each kernel
 * counts once however the operators nest. Only calls starting inside a
 * ProfilerStep#N range count (every call when the rank has no steps), and
 * per step means over the rank's steps. FLOPs and bytes per call come from
 * op_roofline_model.c (TraceLens's definitions); the peaks from its table,
 * by the device name of the rank's trace.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/rankdata.h"
#include "analyze/models/op_roofline.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"

#define OP_ROOFLINE_COLUMNS(X)                      \
	X(ORL_RUN, "run", text)                     \
	X(ORL_RANK, "rank", int)                    \
	X(ORL_OP, "op", text)                       \
	X(ORL_SHAPES, "shapes", text)               \
	X(ORL_DTYPE, "dtype", text)                 \
	X(ORL_CALLS_PER_STEP, "calls_per_step", real) \
	X(ORL_GPU_US_PER_STEP, "gpu_us_per_step", real) \
	X(ORL_FLOPS_PER_CALL, "flops_per_call", real) \
	X(ORL_BYTES_PER_CALL, "bytes_per_call", real) \
	X(ORL_TFLOPS, "tflops", real)               \
	X(ORL_TBPS, "tbps", real)                   \
	X(ORL_INTENSITY, "intensity", real)         \
	X(ORL_PEAK_SHARE, "peak_share", frac)       \
	X(ORL_ROOFLINE_US_PER_STEP, "roofline_us_per_step", real) \
	X(ORL_LOST_US_PER_STEP, "lost_us_per_step", real)
enum op_roofline_col { OP_ROOFLINE_COLUMNS(TABLE_COL_ENUM) ORL_NCOLS };

/* A rank's rows of the table and its device's peaks, for the run's figure. */
struct orl_rank {
	char *run;
	int rank;
	size_t from, to;
	const struct device_peaks *pk;
	double step_us; /* the rank's mean ProfilerStep#N, us; NAN without steps */
};

/* A device's peaks with the manifest's hardware.peaks put over them. */
struct orl_peaks {
	const struct device_peaks *base; /* the table's entry, or NULL */
	struct device_peaks p;
	char source[320];
};

struct orl {
	struct store *s;
	struct table *t;
	struct orl_rank *ranks;
	size_t nranks, cap;
	const struct manifest *mf;
	struct orl_peaks over[16];
	size_t nover;
};

/* Whether the manifest gives any of hardware.peaks. */
static int manifest_peaks(const struct manifest *m)
{
	return m && (m->hardware.peaks.bf16 > 0 || m->hardware.peaks.fp16 > 0 || m->hardware.peaks.tf32 > 0 ||
		     m->hardware.peaks.fp32 > 0 || m->hardware.peaks.memory_gbs > 0);
}

/*
 * The peaks of a device whose table entry is base (NULL: not in the table)
 * with each value the manifest's hardware.peaks gives put in its place, the
 * source saying which; base itself where the manifest gives none.
 */
static const struct device_peaks *with_manifest(struct orl *w, const struct device_peaks *base)
{
	if (!manifest_peaks(w->mf))
		return base;
	for (size_t i = 0; i < w->nover; i++)
		if (w->over[i].base == base)
			return &w->over[i].p;
	if (w->nover == sizeof(w->over) / sizeof(w->over[0]))
		return base;
	struct orl_peaks *o = &w->over[w->nover++];
	const struct manifest_peaks *m = &w->mf->hardware.peaks;
	o->base = base;
	o->p = base ? *base : (struct device_peaks){.match = "manifest"};
	double *dst[] = {&o->p.bf16, &o->p.fp16, &o->p.tf32, &o->p.fp32, &o->p.hbm};
	const double src[] = {m->bf16 * 1e12, m->fp16 * 1e12, m->tf32 * 1e12, m->fp32 * 1e12, m->memory_gbs * 1e9};
	static const char *const names[] = {"bf16", "fp16", "tf32", "fp32", "memory bandwidth"};
	size_t n = snprintf(o->source, sizeof(o->source), "manifest (hardware.peaks:");
	for (int i = 0, k = 0; i < 5; i++)
		if (src[i] > 0) {
			*dst[i] = src[i];
			if (n < sizeof(o->source))
				n += snprintf(o->source + n, sizeof(o->source) - n, "%s %s", k++ ? "," : "", names[i]);
		}
	if (n < sizeof(o->source))
		snprintf(o->source + n, sizeof(o->source) - n, ")%s%s", base ? "; the rest " : "",
			 base ? base->source : "");
	o->p.source = o->source;
	return &o->p;
}

static char *name_of(struct store *s, int64_t id)
{
	return id >= 0 ? rank_name(s, id) : NULL;
}

/* Adds a row per priced (operator, shapes) group of rank k. */
static int add_groups(struct orl *w, const struct rank_key *k, struct mop *v, size_t n, double nsteps,
		      const struct device_peaks *pk)
{
	struct mop **by = xmalloc((n ? n : 1) * sizeof(*by));
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].in_step)
			by[m++] = &v[i];
	qsort(by, m, sizeof(*by), op_roofline_cmp_row);
	for (size_t i = 0; i < m;) {
		size_t j = i;
		int64_t gpu = 0, calls = 0;
		for (; j < m && !op_roofline_cmp_row(&by[i], &by[j]); j++) {
			gpu += by[j]->gpu_ns;
			calls++;
		}
		char *name = name_of(w->s, by[i]->name), *dims = name_of(w->s, by[i]->dims);
		char *types = name_of(w->s, by[i]->types), *conc = name_of(w->s, by[i]->concrete);
		struct op_cost c;
		if (gpu > 0 && name && op_roofline_cost(name, dims, types, conc, &c)) {
			struct table *t = w->t;
			size_t row = table_add_row(t);
			double us = (double)gpu / 1e3 / nsteps, per = (double)calls / nsteps;
			double rate = c.flops * per / (us * 1e-6), bw = c.bytes * per / (us * 1e-6);
			table_set_text(t, row, ORL_RUN, k->run);
			table_set_int(t, row, ORL_RANK, k->rank);
			table_set_text(t, row, ORL_OP, name);
			table_set_text(t, row, ORL_SHAPES, dims);
			if (c.dtype)
				table_set_text(t, row, ORL_DTYPE, c.dtype);
			table_set_real(t, row, ORL_CALLS_PER_STEP, per);
			table_set_real(t, row, ORL_GPU_US_PER_STEP, us);
			table_set_real(t, row, ORL_FLOPS_PER_CALL, c.flops);
			table_set_real(t, row, ORL_BYTES_PER_CALL, c.bytes);
			table_set_real(t, row, ORL_TFLOPS, rate / 1e12);
			table_set_real(t, row, ORL_TBPS, bw / 1e12);
			if (c.bytes > 0 && c.flops > 0)
				table_set_real(t, row, ORL_INTENSITY, c.flops / c.bytes);
			/*
			 * The roofline's time of a call: max(flops / the dtype's dense
			 * peak, bytes / the memory bandwidth), bytes alone for an
			 * operator of no FLOPs; time lost: the GPU time over it.
			 */
			double pf = op_roofline_peak_flops(pk, c.dtype), roof = NAN;
			if (c.flops > 0 && pf > 0 && pk->hbm > 0 && c.bytes > 0) {
				double bound = c.flops / c.bytes * pk->hbm;
				table_set_real(t, row, ORL_PEAK_SHARE, rate / (bound < pf ? bound : pf));
				roof = c.flops / pf > c.bytes / pk->hbm ? c.flops / pf : c.bytes / pk->hbm;
			} else if (c.flops == 0 && pk && pk->hbm > 0 && c.bytes > 0) {
				table_set_real(t, row, ORL_PEAK_SHARE, bw / pk->hbm);
				roof = c.bytes / pk->hbm;
			}
			if (!isnan(roof)) {
				table_set_real(t, row, ORL_ROOFLINE_US_PER_STEP, roof * per * 1e6);
				table_set_real(t, row, ORL_LOST_US_PER_STEP, us - roof * per * 1e6);
			}
		}
		free(name);
		free(dims);
		free(types);
		free(conc);
		i = j;
	}
	free(by);
	return 0;
}

static int visit(const struct rank_key *k, const struct rank_data *d, void *arg)
{
	struct orl *w = arg;
	struct mop *v;
	size_t n;
	int rc = op_roofline_calls(w->s, k, d, &v, &n, NULL, NULL);
	if (rc < 0 || !n)
		return rc;
	/* the device of the rank's trace, for its peaks */
	const struct device_peaks *pk = NULL;
	if (op_roofline_rank_peaks(w->s, k, &pk) < 0) {
		free(v);
		return -1;
	}
	pk = with_manifest(w, pk);
	size_t from = w->t->nrows;
	rc = rc < 0 ? -1 : add_groups(w, k, v, n, d->nsteps ? (double)d->nsteps : 1, pk);
	free(v);
	if (rc == 0 && w->t->nrows > from) {
		double step = 0;
		for (size_t i = 0; i < d->nsteps; i++)
			step += (double)(d->steps[i].end - d->steps[i].start) / 1e3;
		w->ranks = xgrow(w->ranks, &w->cap, w->nranks + 1, sizeof(*w->ranks));
		w->ranks[w->nranks++] = (struct orl_rank){xstrdup(k->run), k->rank, from, w->t->nrows, pk,
							  d->nsteps ? step / (double)d->nsteps : NAN};
	}
	return rc;
}

/*
 * The roofline of a run's first rank with rows: each (operator, shapes) a
 * point at its intensity and achieved TFLOP/s, both axes log; the memory
 * roof (intensity x bandwidth) and the compute roof (the bf16 dense peak)
 * cross at the ridge. Without the device's peaks, the points alone.
 */
static void add_figure(const struct orl *w, const struct orl_rank *r, struct analysis_result *out)
{
	struct buf title, cap;
	buf_init(&title);
	buf_init(&cap);
	char *name = fs_figure_name("op_roofline_", r->run, NULL);
	buf_printf(&title, "Each operator against its roofline, %s rank %d", r->run, r->rank);
	struct chart *c = chart_new(CHART_XY, name, title.data, "achieved TFLOP/s");
	chart_set_x_axis(c, "arithmetic intensity (FLOP per byte)", CHART_SCALE_LOG10);
	c->y_scale = CHART_SCALE_LOG10;
	c->markers_only = 1;
	c->sparse = 1;
	size_t sg = chart_add_series(c, "matrix products"), sa = chart_add_series(c, "attention");
	size_t so = chart_add_series(c, "norms, softmax, elementwise");
	double most = 0;
	for (size_t i = r->from; i < r->to; i++)
		most = fmax(most, table_num(w->t, i, ORL_GPU_US_PER_STEP));
	for (size_t i = r->from; i < r->to; i++) {
		const char *op = table_text(w->t, i, ORL_OP), *shapes = table_text(w->t, i, ORL_SHAPES);
		if (!(table_num(w->t, i, ORL_INTENSITY) > 0) || !(table_num(w->t, i, ORL_TFLOPS) > 0))
			continue; /* no FLOPs (embedding): no point on log axes */
		struct buf lab;
		buf_init(&lab);
		buf_printf(&lab, "%s %s", op, shapes ? shapes : "");
		size_t cat = chart_add_category(c, lab.data);
		buf_release(&lab);
		chart_set_x(c, cat, table_num(w->t, i, ORL_INTENSITY));
		/* the marker's area grows with the GPU time per step: radius 1 to 4 times the usual */
		if (most > 0)
			chart_set_point_size(c, cat, 1 + 3 * sqrt(table_num(w->t, i, ORL_GPU_US_PER_STEP) / most));
		size_t at = strstr(op, "attention") ? sa : strstr(op, "mm") ? sg : so;
		for (size_t k = 0; k < 3; k++)
			chart_set(c, cat, k, k == at ? table_num(w->t, i, ORL_TFLOPS) : NAN);
	}
	if (r->pk && r->pk->bf16 > 0 && r->pk->hbm > 0) {
		char lab[96];
		snprintf(lab, sizeof(lab), "memory roof, %.2f TB/s", r->pk->hbm / 1e12);
		chart_add_refline(c, lab, r->pk->hbm / 1e12, 0, 1);
		snprintf(lab, sizeof(lab), "bf16 dense peak, %.0f TFLOP/s", r->pk->bf16 / 1e12);
		chart_add_refline(c, lab, 0, r->pk->bf16 / 1e12, 0); /* solid black: a key of its own colour */
		buf_printf(&cap, "Each priced operator and shape of %s rank %d (op_roofline.csv): its arithmetic "
			   "intensity against the TFLOP/s it achieved, its marker's area growing with its GPU time per "
			   "step (radius 1 to 4 times the usual, the largest for the longest); the dashed grey line is the memory "
			   "roof and the solid black one the bf16 dense compute roof of the device (%s); they cross at the "
			   "ridge, %.0f FLOP per byte, and an operator's roofline is the lower of the two at its intensity.",
			   r->run, r->rank, r->pk->source, r->pk->bf16 / r->pk->hbm);
	} else {
		buf_printf(&cap, "Each priced operator and shape of %s rank %d (op_roofline.csv): its arithmetic "
			   "intensity against the TFLOP/s it achieved, its marker's area growing with its GPU time per "
			   "step; no roofs, the device is not in perfstudy's "
			   "table of peaks.", r->run, r->rank);
	}
	result_add_figure(out, c, cap.data);
	free(name);
	buf_release(&title);
	buf_release(&cap);
}

/* A row of op_roofline.csv with its time lost, and its rank. */
struct lost {
	size_t row;
	const struct orl_rank *r;
	double us;
};

static int cmp_lost(const void *pa, const void *pb)
{
	const struct lost *a = pa, *b = pb;
	if (a->us != b->us)
		return a->us > b->us ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/* Whether rows a and b of op_roofline.csv are the same operator, shapes and dtype. */
static int same_op(const struct table *t, size_t a, size_t b)
{
	static const int c[] = {ORL_OP, ORL_SHAPES, ORL_DTYPE};
	for (int i = 0; i < 3; i++) {
		const char *x = table_text(t, a, c[i]), *y = table_text(t, b, c[i]);
		if (!x != !y || (x && strcmp(x, y)))
			return 0;
	}
	return 1;
}

/*
 * op_roofline_top.csv: per run, its rows by time lost, largest first, each
 * operator, shapes and dtype once (at the rank where it loses the most,
 * with the number of the run's ranks that have it), at most
 * OP_ROOFLINE_TOP_N; NULL when no row has a time lost.
 */
static struct table *top_table(const struct orl *w)
{
	struct table *top = table_new("op_roofline_top", "The operators that lose the most time against their roofline",
				      TABLE_SCHEMA(OP_ROOFLINE_TOP_COLUMNS));
	const struct table *t = w->t;
	for (size_t i = 0, j; i < w->nranks; i = j) {
		size_t n = 0, cap = 0;
		struct lost *v = NULL;
		for (j = i; j < w->nranks && !strcmp(w->ranks[j].run, w->ranks[i].run); j++)
			for (size_t row = w->ranks[j].from; row < w->ranks[j].to; row++) {
				double us = table_num(t, row, ORL_LOST_US_PER_STEP);
				if (isnan(us))
					continue;
				v = xgrow(v, &cap, n + 1, sizeof(*v));
				v[n++] = (struct lost){row, &w->ranks[j], us};
			}
		if (n > 1)
			qsort(v, n, sizeof(*v), cmp_lost);
		int order = 0;
		for (size_t a = 0; a < n && order < OP_ROOFLINE_TOP_N; a++) {
			size_t b = 0;
			while (b < a && !same_op(t, v[b].row, v[a].row))
				b++;
			if (b < a)
				continue;
			int64_t ranks = 0;
			for (size_t c = 0; c < n; c++) {
				size_t e = 0;
				while (e < c && !(v[e].r == v[c].r && same_op(t, v[e].row, v[a].row)))
					e++;
				ranks += same_op(t, v[c].row, v[a].row) && e == c;
			}
			size_t src = v[a].row, row = table_add_row(top);
			const struct orl_rank *r = v[a].r;
			const char *dtype = table_text(t, src, ORL_DTYPE);
			double flops = table_num(t, src, ORL_FLOPS_PER_CALL), bytes = table_num(t, src, ORL_BYTES_PER_CALL);
			double pf = op_roofline_peak_flops(r->pk, dtype);
			table_set_text(top, row, ORT_RUN, r->run);
			table_set_int(top, row, ORT_ORDER, ++order);
			table_set_int(top, row, ORT_RANK, r->rank);
			table_set_int(top, row, ORT_RANKS, ranks);
			table_set_text(top, row, ORT_OP, table_text(t, src, ORL_OP));
			table_set_text(top, row, ORT_SHAPES, table_text(t, src, ORL_SHAPES));
			if (dtype)
				table_set_text(top, row, ORT_DTYPE, dtype);
			table_set_real(top, row, ORT_GPU_US_PER_STEP, table_num(t, src, ORL_GPU_US_PER_STEP));
			table_set_real(top, row, ORT_ROOFLINE_US_PER_STEP, table_num(t, src, ORL_ROOFLINE_US_PER_STEP));
			table_set_real(top, row, ORT_LOST_US_PER_STEP, v[a].us);
			if (!isnan(r->step_us)) {
				table_set_real(top, row, ORT_STEP_US, r->step_us);
				table_set_real(top, row, ORT_LOST_SHARE, v[a].us / r->step_us);
			}
			table_set_real(top, row, ORT_PEAK_SHARE, table_num(t, src, ORL_PEAK_SHARE));
			table_set_text(top, row, ORT_BOUND, flops > 0 && pf > 0 && flops / pf >= bytes / r->pk->hbm
							   ? "compute" : "memory");
		}
		free(v);
	}
	if (!top->nrows) {
		table_free(top);
		return NULL;
	}
	return top;
}

/*
 * No row: where the traces have host operators, the Methods say why there
 * is no op_roofline.csv (no shapes recorded, or none of the operators
 * priced); traces without host operators (Nsight Systems, nvprof) say
 * nothing. 0, or -1 after diag.
 */
static int say_none(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct store_stmt *st = store_query(ctx->store, "op_roofline: operators and shapes",
		"SELECT EXISTS (SELECT 1 FROM run_traces t JOIN cpu_ops x ON x.trace_id = t.id WHERE t.experiment = ?1),"
		" EXISTS (SELECT 1 FROM run_traces t JOIN cpu_ops x ON x.trace_id = t.id WHERE t.experiment = ?1"
		" AND x.dims_id IS NOT NULL)", ctx->experiment);
	if (!st)
		return -1;
	int rc = store_next(st);
	int ops = rc > 0 && store_column_int64(st, 0), dims = rc > 0 && store_column_int64(st, 1);
	store_finalize(st);
	if (rc < 0)
		return -1;
	if (ops)
		result_add_method(out, "op_roofline",
			dims ? "No operator against its roofline: none of the traces' operators with recorded shapes is "
			       "one the per-operator model prices (matrix products, attention, layer norm, SiLU, GELU, softmax, "
			       "convolution, embedding) "
			       "with kernels of its own, so there is no op_roofline.csv and no roofline figure."
			     : "No operator against its roofline: the traces record no operator input shapes (the "
			       "profiler's record_shapes=True), from which the per-operator model takes FLOPs and bytes, "
			       "so there is no op_roofline.csv and no roofline figure.");
	return 0;
}

static int analysis_op_roofline(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct orl w = {.s = ctx->store, .mf = ctx->manifest};
	w.t = table_new("op_roofline", "Each operator against its roofline", TABLE_SCHEMA(OP_ROOFLINE_COLUMNS));
	int rc = for_each_rank(ctx->store, ctx->experiment, visit, &w);
	if (rc < 0 || !w.t->nrows) {
		table_free(w.t);
		if (rc >= 0)
			rc = say_none(ctx, out);
		goto out;
	}
	result_add_table(out, w.t);
	if (manifest_peaks(ctx->manifest)) {
		const struct manifest_peaks *m = &ctx->manifest->hardware.peaks;
		const double v[] = {m->bf16, m->fp16, m->tf32, m->fp32, m->memory_gbs};
		static const char *const what[] = {"bf16 %g TFLOP/s", "fp16 %g TFLOP/s", "tf32 %g TFLOP/s",
						   "fp32 %g TFLOP/s", "memory bandwidth %g GB/s"};
		struct buf b;
		buf_init(&b);
		buf_adds(&b, "The device's peaks in op_roofline.csv, op_roofline_top.csv and the roofline figures are, "
			     "where the manifest gives them (hardware.peaks; source: manifest), the manifest's: ");
		for (int i = 0, k = 0; i < 5; i++)
			if (v[i] > 0) {
				buf_adds(&b, k++ ? ", " : "");
				buf_printf(&b, what[i], v[i]);
			}
		buf_adds(&b, "; the others from perfstudy's table of datasheet peaks, by the device name in the trace.");
		result_add_method(out, "op_roofline peaks", b.data);
		buf_release(&b);
	}
	struct table *top = top_table(&w);
	if (top)
		result_add_table(out, top);
	for (size_t i = 0; i < w.nranks; i++)
		if (!i || strcmp(w.ranks[i].run, w.ranks[i - 1].run))
			add_figure(&w, &w.ranks[i], out);
	result_add_method(out, "op_roofline.csv",
		"One row per rank, operator and input shapes, for the operators whose FLOPs and bytes follow from "
		"their recorded shapes (record_shapes=True): the matrix products aten::mm, addmm, bmm, baddbmm and "
		"_scaled_mm, scaled-dot-product attention (flash, memory-efficient and cuDNN, forward and "
		"backward), aten::native_layer_norm and its backward, aten::silu and gelu, softmax and "
		"log-softmax forward and backward, aten::convolution and its backward, aten::embedding, and the "
		"optimizers' aten::_fused_adam_, _fused_adamw_ and _foreach_ operators. A "
		"kernel's time goes "
		"to the innermost such operator around its launch on the launching thread (by correlation), so "
		"each kernel counts once however the operators nest (an aten::mm inside aten::linear gets it); "
		"ATen's own kernels (void at::native::...) count only for the norms, elementwise operators and "
		"optimizers, "
		"those inside a product being another operator's (autocast's casts); only calls starting inside a "
		"ProfilerStep#N range count. calls_per_step and "
		"gpu_us_per_step (its kernels' time): per step of the rank. flops_per_call and bytes_per_call are "
		"TraceLens's perf model (PerfModel/perf_model.py): a product of A [M, K] and B [K, N] does 2MNK FLOPs "
		"(plus MN for addmm's bias) and moves (MK + KN + MN) elements (plus N for the bias) of A's type, "
		"times the batch for bmm; attention with queries [B, H, N, d] and keys and values [B, Hkv, Nkv, d] "
		"does 4BHN*Nkv*d FLOPs forward (QK^T and PV, softmax left out) and moves Q, K, V and the output, and "
		"backward does four such products (five for flash attention, which recomputes QK^T) and moves Q, K, "
		"V and dO read and dQ, dK, dV written; causal attention halves the FLOPs (the masked half is not "
		"computed), whereas the analytical model's flops_per_step (estimates.csv: 4Bs^2d a layer for QK^T and "
		"PV) counts attention at full size, so that to compare the two, a causal attention row counts twice "
		"(as tests/e2e/t_roofline.sh's check of the products' and attention's FLOPs per step against "
		"flops_per_step, within 2 %, does for GPT-2, whose attention is causal). A layer norm over N elements, "
		"C of them normalised, does 6C + 5N FLOPs and moves 2N + 6C elements forward, and 9N FLOPs and 3N + "
		"4C elements backward (by its output mask); a unary elementwise operator N FLOPs and 2N elements; "
		"a softmax or log-softmax 3N FLOPs and 2N elements forward and twice both backward (TraceLens's "
		"Softmax, which its operator map does not use). A convolution of input [N, C, H, W] and weight "
		"[K, C / groups, R, S] into [N, K, P, Q] (P, Q from the stride, padding and dilation) does 2 x N x K "
		"x C x R x S x P x Q / groups FLOPs (TraceLens's CONV, after torch.utils.flop_counter: 2 prod(output) "
		"prod(weight[1:]), in any number of spatial dimensions), plus prod(output) with a bias, and moves "
		"the input, weight and output (and K bias elements) in the input's type; its backward does that "
		"product once for grad_input and once for grad_weight and prod(output) for the bias gradient, "
		"moving grad_output, weight and input for each of the first two and grad_output and K for the "
		"bias, each by output_mask (TraceLens prices all three whatever the mask, and takes no bias from "
		"aten::convolution's recorded shapes); transposed convolutions are not priced. aten::embedding "
		"(weight [V, D], N indices), perfstudy's own model (TraceLens has none): no FLOPs, the N indices "
		"read in their type and N x D elements read and N x D written in the weight's type. "
		"The optimizers, perfstudy's own model (TraceLens has none): a list of tensors among the inputs (a "
		"TensorList) is written in shapes {T:E}, its T tensors and their E elements in all, and taken as fp32 "
		"(the trace gives no element type for a list; mixed-precision training keeps the parameters and the "
		"optimizer's state in fp32): the fused Adam and AdamW move 7E elements (param, grad, exp_avg and "
		"exp_avg_sq read, param, exp_avg and exp_avg_sq written; 9E with amsgrad, max_exp_avg_sq read and "
		"written) and read one per step tensor, and do 16E FLOPs, 17E with amsgrad (the operations per "
		"element of torch.optim.AdamW's documented algorithm: weight decay 2, the two moments 3 and 4, the "
		"bias corrections 2, the update 5); a _foreach_ operator over L lists of E elements moves (L + 1)E "
		"(each list read, one written; addcmul_ reads its two factors once when their shapes match, as Adam's "
		"addcmul_(exp_avg_sq, grad, grad) does) and does E FLOPs, 3E for lerp, addcmul and addcdiv; an "
		"optimizer's concrete inputs (its learning rate, a step's bias corrections) are left out of its row, "
		"so that its calls with the same shapes make one. "
		"Unlike TraceLens, which "
		"takes 2 bytes per attention element whatever the type, the element size here is the query's type, "
		"and aten::gelu, which TraceLens does not price, is priced as its unary operators are. "
		"tflops and tbps: FLOPs and bytes per step over gpu_us_per_step; intensity: flops_per_call / "
		"bytes_per_call, empty for an operator of no FLOPs (and no point in the figure); peak_share: tflops over the roofline's bound at that intensity, the lesser of the "
		"device's dense peak for the dtype (bf16, fp16, or fp32 without TF32) and intensity times its memory "
		"bandwidth (for an operator of no FLOPs, tbps over the bandwidth), from the vendors' datasheets "
		"(NVIDIA H100, H200 and A100 Tensor Core GPU datasheets), by the device name in the trace; empty "
		"where the device or dtype is not in that table. "
		"roofline_us_per_step: the time the roofline allows the calls of a step, calls_per_step x "
		"max(flops_per_call / the dtype's dense peak, bytes_per_call / the memory bandwidth) (bytes alone "
		"for an operator of no FLOPs); lost_us_per_step: gpu_us_per_step minus it, the time the operator "
		"takes beyond its roofline (gpu_us_per_step x (1 - peak_share)).");
	if (top)
		result_add_method(out, "op_roofline_top.csv",
			"Per run, the operators and shapes of op_roofline.csv that lose the most time against their "
			"roofline (lost_us_per_step, largest first; order 1 the largest), each operator, shapes and dtype "
			"once, at the rank where it loses the most (ranks: how many of the run's ranks have a row of it), "
			"at most " OP_ROOFLINE_TOP_N_TEXT " per run. step_us: that rank's mean ProfilerStep#N, "
			"lost_share: lost_us_per_step over it; bound: compute where the roofline's time is the FLOPs' at "
			"the dtype's dense peak, memory where it is the bytes' at the memory bandwidth. The time lost is "
			"what the operator's kernels take beyond the roofline, not what the step would gain: kernels "
			"beside it on other streams, and the host, may hide or set the step.");
out:
	for (size_t i = 0; i < w.nranks; i++)
		free(w.ranks[i].run);
	free(w.ranks);
	return rc < 0 ? -1 : 0;
}

const struct analysis_def analysis_def_op_roofline = {
	.name = "op_roofline",
	.run = analysis_op_roofline,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("op_roofline", "op_roofline_top"),
	.figures = ANALYSIS_NAMES("op_roofline_*"),
};
