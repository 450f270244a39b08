/*
 * parallel_comm.c: communication time of every way to split a job over
 * tensor (TP), pipeline (PP) and data (DP) parallelism, estimated at
 * several inter-node bandwidths (parallel_comm.csv; figures
 * parallel_comm_pp_dp, parallel_comm_tp_dp, parallel_comm_tp_pp), as paper
 * 002 ("Model Parallelism") measures it at P0 5, P1 12.5 and P2 25 GB/s.
 *
 * The manifest's 'parallel_comm' names a run (model, batch, precision,
 * ZeRO stage), the GPUs G, the GPUs per node n and the bandwidths. For each
 * plane (#PP, #DP) with TP 1, (#TP, #DP) with PP 1, (#TP, #PP) with DP 1,
 * and each x dividing G (y = G / x), the bytes one GPU sends per step:
 *   B = the global batch (the manifest's global_batch, else the run's
 *     batch x G), b = B / DP the batch of one data-parallel replica;
 *   DP: est_comm_dp() over DP GPUs for the P / (TP x PP) parameters one
 *     GPU holds (P as estimates.csv counts it for TP ranks), gradients of
 *     g bytes (models_grad_bytes): Cheng et al.'s per-type volumes,
 *     AllReduce 2(1 - 1/p) g P, AllGather and ReduceScatter (1 - 1/p) g P;
 *   TP: est_comm_tp() for the ceil(l / PP) layers of one stage: 4
 *     AllReduces of b s d activation bytes per layer (2 forward, 2
 *     backward), 2(1 - 1/t) each, as Megatron-LM places them;
 *   PP: est_comm_pp(), 2 b s d activation bytes (a middle stage sends its
 *     activations forward and gradients backward; the micro-batch count
 *     does not change the bytes).
 * Placement as Megatron-LM orders ranks, TP innermost, then DP, then PP: a
 * TP group spans TP consecutive GPUs, a DP group TP x DP, the pipeline all
 * TP x DP x PP; a group whose span divides n lies in one node and uses the
 * intra-node bandwidth (intra_node_gbs, else hardware.p2p_gbs), any other
 * the inter-node one. time = bytes / bandwidth per group, summed over the
 * three (no overlap with compute or with each other; every GPU's traffic
 * gets the whole bandwidth, the node's NIC is not shared out). These are
 * volumes as the formulas count them, not measurements: NCCL's algorithms,
 * latency, the pipeline bubble and gradient accumulation are left out.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/layout.h"
#include "analyze/models/estimate.h"
#include "analyze/models/models.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/xalloc.h"

/* 1 when a group spanning span consecutive GPUs lies within one node of n GPUs. */
static int within_node(int span, int n)
{
	return span <= n && n % span == 0;
}

/* The three planes of the paper's figures: which of tp, pp, dp are x and y (the third is 1). */
static const struct plane {
	const char *name, *title, *axis;
	int x, y; /* 0 tp, 1 pp, 2 dp */
} planes[] = {
	{"pp_dp", "Communication time by (#PP, #DP), TP 1", "(#PP, #DP)", 1, 2},
	{"tp_dp", "Communication time by (#TP, #DP), PP 1", "(#TP, #DP)", 0, 2},
	{"tp_pp", "Communication time by (#TP, #PP), DP 1", "(#TP, #PP)", 0, 1},
};

struct setting {
	const struct manifest_run *r;
	struct est_model em;
	int gpus, per_node, zero, g, a;
	double global_batch, intra_gbs; /* samples per step, all replicas; GB/s */
};

/* A group's time at bandwidths intra/inter (GB/s); NaN when its bandwidth is unknown. */
static double group_time(double bytes, int intra, double intra_gbs, double inter_gbs)
{
	if (bytes <= 0)
		return 0;
	double bw = intra ? intra_gbs : inter_gbs;
	return bw > 0 ? bytes / (bw * 1e9) : NAN;
}

static void set_time(struct table *t, size_t row, size_t col, double s)
{
	if (!isnan(s))
		table_set_real(t, row, col, s);
}

static const char *link_name(int size, int intra)
{
	return size <= 1 ? "none" : intra ? "intra-node" : "inter-node";
}

/* Column indexes of parallel_comm.csv. */
enum {
	C_PLANE, C_RUN, C_TP, C_PP, C_DP, C_BATCH, C_BW, C_INTER, C_INTRA, C_TPLINK, C_PPLINK, C_DPLINK, C_DPAR, C_DPAG,
	C_DPRS, C_TPAR, C_PPSR, C_DPT, C_TPT, C_PPT, C_TIME, C_CONSTRAINT,
};

/* One configuration at bandwidth k: a row of t; returns its total time in s (NaN: unknown). */
static double config_row(struct table *t, const struct manifest *m, const struct setting *s, const char *plane,
			 int tp, int pp, int dp, size_t k)
{
	double inter = m->parallel_comm.bandwidth_gbs[k];
	struct est_model stage = s->em;
	stage.layers = (s->em.layers + pp - 1) / pp;
	double b = s->global_batch / dp;
	int64_t P = est_params_as(&s->em, tp);
	double dpv[NCOLL];
	est_comm_dp((double)P / ((double)tp * pp), s->zero, dp, s->g, dpv);
	double tpv = est_comm_tp(&stage, b, tp, s->a, (enum est_recompute)s->r->recompute);
	double ppv = est_comm_pp(&s->em, b, pp, s->a);
	int tp_in = within_node(tp, s->per_node), dp_in = within_node(tp * dp, s->per_node);
	int pp_in = within_node(tp * dp * pp, s->per_node);
	double dpb = dpv[COLL_ALLREDUCE] + dpv[COLL_ALLGATHER] + dpv[COLL_REDUCESCATTER];
	double dpt = group_time(dpb, dp_in, s->intra_gbs, inter), tpt = group_time(tpv, tp_in, s->intra_gbs, inter);
	double ppt = group_time(ppv, pp_in, s->intra_gbs, inter);
	size_t row = table_add_row(t);
	table_set_text(t, row, C_PLANE, plane);
	table_set_text(t, row, C_RUN, s->r->id);
	table_set_int(t, row, C_TP, tp);
	table_set_int(t, row, C_PP, pp);
	table_set_int(t, row, C_DP, dp);
	table_set_real(t, row, C_BATCH, b);
	table_set_text(t, row, C_BW, m->parallel_comm.bandwidth_labels[k]);
	table_set_real(t, row, C_INTER, inter);
	if (s->intra_gbs > 0)
		table_set_real(t, row, C_INTRA, s->intra_gbs);
	table_set_text(t, row, C_TPLINK, link_name(tp, tp_in));
	table_set_text(t, row, C_PPLINK, link_name(pp, pp_in));
	table_set_text(t, row, C_DPLINK, link_name(dp, dp_in));
	table_set_int(t, row, C_DPAR, llround(dpv[COLL_ALLREDUCE]));
	table_set_int(t, row, C_DPAG, llround(dpv[COLL_ALLGATHER]));
	table_set_int(t, row, C_DPRS, llround(dpv[COLL_REDUCESCATTER]));
	table_set_int(t, row, C_TPAR, llround(tpv));
	table_set_int(t, row, C_PPSR, llround(ppv));
	set_time(t, row, C_DPT, dpt);
	set_time(t, row, C_TPT, tpt);
	set_time(t, row, C_PPT, ppt);
	double total = dpt + tpt + ppt;
	set_time(t, row, C_TIME, total);
	struct buf why;
	buf_init(&why);
	if (s->em.heads > 0 && s->em.heads % tp)
		buf_printf(&why, "%d heads do not divide over TP %d", (int)s->em.heads, tp);
	if (s->em.layers % pp)
		buf_printf(&why, "%s%d layers do not divide over PP %d (the stage has %d)", why.len ? "; " : "",
			   (int)s->em.layers, pp, (int)stage.layers);
	if (why.len)
		table_set_text(t, row, C_CONSTRAINT, why.data);
	buf_release(&why);
	return total;
}

/* The run, GPUs, bandwidths and byte sizes of the grid; 0, or -1 when the manifest asks for none. */
static int setting_of(const struct manifest *m, struct setting *s, struct analysis_result *out)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; m && m->parallel_comm.run && i < m->nruns; i++)
		if (!strcmp(m->runs[i].id, m->parallel_comm.run))
			s->r = &m->runs[i];
	if (!s->r || m->parallel_comm.gpus_per_node <= 0 || !m->parallel_comm.nbandwidths)
		return -1;
	models_est_model(&s->r->model, &s->em);
	s->gpus = m->parallel_comm.gpus;
	s->per_node = m->parallel_comm.gpus_per_node;
	s->zero = m->parallel_comm.zero >= 0 ? m->parallel_comm.zero : layout_zero_stage(s->r);
	s->g = models_grad_bytes(s->r);
	enum est_precision prec = est_precision_parse(s->r->model.precision);
	s->a = prec == PREC_FP32 || prec == PREC_TF32 ? 4 : 2; /* activation bytes, as comm_types.csv */
	s->global_batch = m->parallel_comm.global_batch > 0 ? m->parallel_comm.global_batch
							    : (double)s->r->batch * s->gpus;
	s->intra_gbs = m->parallel_comm.intra_node_gbs > 0 ? m->parallel_comm.intra_node_gbs : manifest_hardware_number(m, "p2p_gbs");
	if (s->intra_gbs <= 0)
		result_add_note(out, "parallel_comm.csv: no intra-node bandwidth (parallel_comm.intra_node_gbs or "
				"hardware.p2p_gbs): groups within one node have no time, nor has their configuration.");
	if (!est_params_as(&s->em, 1))
		result_add_note(out, "parallel_comm.csv: run %s has no parameter count (the model's vocab), so no "
				"data-parallel bytes.", s->r->id);
	return 0;
}

static int analysis_parallel_comm(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct manifest *m = ctx->manifest;
	struct setting s;
	if (setting_of(m, &s, out) < 0)
		return 0;
	struct table *t = table_new("parallel_comm",
				    "Estimated communication per GPU and step of each TP x PP x DP split, per inter-node bandwidth",
				    TABLE_SCHEMA(PARALLEL_COMM_COLUMNS));
	struct buf label, cap, left_out;
	buf_init(&label);
	buf_init(&cap);
	buf_init(&left_out);
	for (size_t p = 0; p < sizeof(planes) / sizeof(planes[0]); p++) {
		const struct plane *pl = &planes[p];
		buf_reset(&label);
		buf_printf(&label, "parallel_comm_%s", pl->name);
		struct chart *c = chart_new(CHART_GROUPED_BAR, label.data, pl->title, "communication time per step (s)");
		buf_reset(&left_out);
		c->x_label = xstrdup(pl->axis);
		for (size_t k = 0; k < m->parallel_comm.nbandwidths; k++) {
			buf_reset(&label);
			buf_printf(&label, "%s %g GB/s", m->parallel_comm.bandwidth_labels[k], m->parallel_comm.bandwidth_gbs[k]);
			chart_add_series(c, label.data);
		}
		for (int x = 1; x <= s.gpus; x++) {
			if (s.gpus % x)
				continue;
			int d[3] = {1, 1, 1}; /* tp, pp, dp */
			d[pl->x] = x;
			d[pl->y] = s.gpus / x;
			buf_reset(&label);
			buf_printf(&label, "(%d, %d)", d[pl->x], d[pl->y]);
			double *time = xcalloc(m->parallel_comm.nbandwidths + 1, sizeof(*time));
			int refused = 0;
			for (size_t k = 0; k < m->parallel_comm.nbandwidths; k++) {
				time[k] = config_row(t, m, &s, pl->name, d[0], d[1], d[2], k);
				refused |= !table_cell(t, t->nrows - 1, t->ncols - 1)->null;
			}
			/* A split Megatron-LM would refuse is no candidate: out of the figure, named in the caption. */
			if (refused) {
				buf_printf(&left_out, "%s%s", left_out.len ? ", " : "", label.data);
			} else {
				size_t cat = chart_add_category(c, label.data);
				for (size_t k = 0; k < m->parallel_comm.nbandwidths; k++)
					chart_set(c, cat, k, isnan(time[k]) ? 0 : time[k]);
			}
			free(time);
		}
		buf_reset(&cap);
		buf_printf(&cap, "Estimated communication time per step of %s on %d GPUs (%d per node) for each split "
			   "%s with the third degree 1, one bar per inter-node bandwidth, as paper 002's model-parallelism "
			   "figures: the bytes each GPU sends for data parallelism (ZeRO-%d), tensor-parallel AllReduces "
			   "and pipeline Send/Recv over the bandwidth of the link each group uses (parallel_comm.csv); "
			   "formulas, not measurements.", s.r->label ? s.r->label : s.r->id, s.gpus, s.per_node, pl->axis,
			   s.zero);
		if (left_out.len)
			buf_printf(&cap, " Left out: %s, splits whose heads or layers do not divide by the degree "
				   "(Megatron-LM refuses them; parallel_comm.csv keeps them with their constraint).",
				   left_out.data);
		result_add_figure(out, c, cap.data);
	}
	buf_release(&label);
	buf_release(&cap);
	buf_release(&left_out);
	result_add_table(out, t);
	result_add_method(out, "parallel_comm.csv",
		"For the run named by the manifest's parallel_comm (its model, precision, recomputation and ZeRO "
		"stage, or parallel_comm.zero) on G = parallel_comm.gpus GPUs with n GPUs per node, every split "
		"into tensor (tp), pipeline (pp) and data (dp) parallel degrees of the three planes of paper 002's "
		"figures, (pp, dp) with tp = 1, (tp, dp) with pp = 1 and (tp, pp) with dp = 1, x times y = G, at "
		"each inter-node bandwidth of parallel_comm.bandwidths (GB/s = 10^9 bytes/s). Bytes one GPU sends "
		"per step, with the global batch B (parallel_comm.global_batch, else the run's batch x G) and "
		"replica_batch b = B / dp: dp_*: the data-parallel collectives as comm_types.csv counts them "
		"(Cheng et al., SIGMETRICS 2024), for the P / (tp x pp) parameters one GPU holds (P as "
		"estimates.csv counts it) and g-byte gradients: ZeRO-0 an AllReduce 2(1 - 1/dp) g P, ZeRO-1 that "
		"and an AllGather (1 - 1/dp) g P, ZeRO-2 a ReduceScatter and an AllGather, ZeRO-3 a ReduceScatter "
		"and two AllGathers; tp_allreduce_bytes: Megatron-LM's AllReduces of the b x s x d activations (a = "
		"2 bytes, 4 for fp32/tf32), two forward and two backward per layer (two more with full "
		"recomputation), 2(1 - 1/tp) b s d a each, for the ceil(l / pp) layers of one pipeline stage; "
		"pp_sendrecv_bytes: 2 b s d a, a middle stage's activations forward and gradients backward "
		"(micro-batches do not change the bytes). Links: ranks ordered as Megatron-LM orders them, tp "
		"innermost, then dp, then pp; a group spanning tp (TP), tp x dp (DP) or tp x dp x pp (PP) "
		"consecutive GPUs is intra-node when that span divides n, and then uses intra_node_gbs "
		"(parallel_comm.intra_node_gbs, else hardware.p2p_gbs), else inter_node_gbs. *_time_s = bytes / "
		"bandwidth, time_s their sum. Approximations: every GPU's traffic gets the whole bandwidth (the "
		"node's NIC is not divided among its GPUs), nothing overlaps, NCCL's algorithm and latency, the "
		"pipeline bubble and uneven stages (other than ceil(l / pp) layers) are not modelled. constraint: "
		"a split Megatron-LM would refuse (heads or layers not divisible).");
	return 0;
}

const struct analysis_def analysis_def_parallel_comm = {
	.name = "parallel_comm",
	.run = analysis_parallel_comm,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("parallel_comm"),
	.figures = ANALYSIS_NAMES("parallel_comm_*"),
};
