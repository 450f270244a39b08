/*
 * comm_volume.c: communication bytes measured in the trace beside the
 * estimate (comm_volume.csv, issue 5 item 4).
 *
 * Per run with more than one GPU and rank whose NCCL kernels record their
 * message size (Kineto's "In/Out msg nelems" and "dtype"):
 *   message_bytes_per_step = sum over calls of S / steps, S = max(in, out)
 *     elements x the dtype's size (collectives.csv's bytes), steps = the
 *     rank's ProfilerStep#N ranges;
 *   measured_bytes_per_gpu = sum over calls of S x f / steps, the bytes one
 *     GPU sends under the ring algorithms: f = 2(n-1)/n for AllReduce,
 *     (n-1)/n for AllGather (S its output), ReduceScatter (S its input),
 *     Broadcast, Reduce and AllToAll (S(n-1) bytes cross links in all,
 *     spread over n GPUs), 1 for Send/Recv, n the group size;
 *   estimated_bytes_per_gpu = 2(1 - 1/p) g P (ZeRO 0-2) or 3(1 - 1/p) g P
 *     (ZeRO-3), est_comm_bytes() as in estimates.csv, but with g the size
 *     of the dtype the trace's gradient collectives carry (the AllReduce or
 *     ReduceScatter calls with the most bytes): mixed precision with
 *     autocast computes in bf16 while parameters and gradients stay fp32,
 *     so the model's precision is not what goes over the wire;
 *   ratio = measured / estimated.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/layout.h"
#include "analyze/models/estimate.h"
#include "analyze/models/models.h"
#include "analyze/ranks/collectives.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

/* Bytes one GPU sends per byte of message S, ring algorithms (see above). */
static double send_factor(const char *type, int64_t n)
{
	if (n <= 1)
		return 0;
	double r = (double)(n - 1) / (double)n;
	if (!strcmp(type, "AllReduce"))
		return 2 * r;
	if (!strcmp(type, "Send") || !strcmp(type, "Recv") || !strcmp(type, "SendRecv"))
		return 1;
	return r; /* AllGather, ReduceScatter, Broadcast, Reduce, AllToAll */
}

/* The type's index in est_coll_names (Send and Recv count as SendRecv), or -1. */
static int coll_type(const char *type)
{
	if (!strcmp(type, "Send") || !strcmp(type, "Recv"))
		return COLL_SENDRECV;
	for (int i = 0; i < NCOLL; i++)
		if (!strcmp(type, est_coll_names[i]))
			return i;
	return -1;
}

struct rank_comm {
	int64_t rank, steps;
	double message, sent;       /* summed over the trace */
	double type_sent[NCOLL];    /* sent, per collective type of estimate.h (AllToAll counts in none) */
	double type_msg[NCOLL];     /* message bytes, per type */
	int64_t type_calls[NCOLL];
	char grad_dtype[32];        /* dtype of the gradient collectives */
	double grad_best;           /* their bytes, to pick the largest dtype */
	int unknown;                /* calls with no size or unknown dtype */
	int64_t group;              /* largest group size seen */
};

/* The collectives of one run, per rank. Returns the number of ranks in *out, or -1. */
static int load_run(struct store *s, const char *exp, const char *run, int gpus, struct rank_comm **out, size_t *n)
{
	struct store_stmt *st;
	*out = NULL;
	*n = 0;
	st = store_query(s, "comm_volume: a run's collectives",
			 "SELECT t.rank, c.collective, c.dtype, c.in_nelems, c.out_nelems, c.group_size,"
			 " (SELECT count(*) FROM steps s WHERE s.trace_id = t.id)"
			 " FROM collectives c JOIN run_traces t ON t.id = c.trace_id"
			 " WHERE t.experiment = ?1 AND t.run = ?2 AND t.rank IS NOT NULL"
			 " ORDER BY t.rank, c.start_ns", exp);
	if (!st)
		return -1;
	store_bind_text(st, 2, run);
	size_t cap = 0;
	struct buf type;
	buf_init(&type);
	struct {
		char dtype[32];
		double bytes;
	} grad[8];
	size_t ngrad = 0;
	int rc;
	while ((rc = store_next(st)) > 0) {
		int64_t rank = store_column_int64(st, 0);
		if (!*n || (*out)[*n - 1].rank != rank) {
			*out = xgrow(*out, &cap, *n + 1, sizeof(**out));
			memset(&(*out)[*n], 0, sizeof(**out));
			(*out)[*n].rank = rank;
			(*out)[*n].steps = store_column_int64(st, 6);
			++*n;
			ngrad = 0;
		}
		struct rank_comm *rc_ = &(*out)[*n - 1];
		buf_reset(&type);
		collective_canonical((const char *)store_column_text(st, 1), &type);
		const char *dtype = (const char *)store_column_text(st, 2);
		int64_t in = store_column_int64(st, 3), outn = store_column_int64(st, 4);
		int64_t group = store_column_type(st, 5) == STORE_NULL ? gpus : store_column_int64(st, 5);
		if (group > rc_->group)
			rc_->group = group;
		int size = collective_dtype_size(dtype);
		if (size <= 0 || (in <= 0 && outn <= 0)) {
			rc_->unknown++;
			continue;
		}
		double S = (double)collective_message_nelems(type.data, in, outn) * size;
		rc_->message += S;
		rc_->sent += S * send_factor(type.data, group);
		int ty = coll_type(type.data);
		if (ty >= 0) {
			rc_->type_sent[ty] += S * send_factor(type.data, group);
			rc_->type_msg[ty] += S;
			rc_->type_calls[ty]++;
		}
		if (strcmp(type.data, "AllReduce") && strcmp(type.data, "ReduceScatter"))
			continue;
		/* The gradients' dtype: the one the reductions carry most bytes in. */
		size_t k;
		for (k = 0; k < ngrad && strcmp(grad[k].dtype, dtype); k++)
			;
		if (k == ngrad && ngrad < sizeof(grad) / sizeof(grad[0])) {
			snprintf(grad[k].dtype, sizeof(grad[k].dtype), "%s", dtype);
			grad[k].bytes = 0;
			ngrad++;
		}
		if (k < ngrad) {
			grad[k].bytes += S;
			if (grad[k].bytes > rc_->grad_best) {
				rc_->grad_best = grad[k].bytes;
				snprintf(rc_->grad_dtype, sizeof(rc_->grad_dtype), "%s", grad[k].dtype);
			}
		}
	}
	buf_release(&type);
	store_finalize(st);
	return rc;
}

/*
 * comm_types.csv rows of one run: per collective type, the bytes one GPU
 * sends per step, measured (the mean over the ranks with steps) beside the
 * estimate: data parallelism as Cheng et al. count it per type
 * (est_comm_dp), tensor-parallel AllReduces of the activations
 * (est_comm_tp) and pipeline Send/Recv (est_comm_pp). rk may be empty (a
 * run typed in from a study: estimates only).
 */
static void type_rows(struct table *t, const struct manifest_run *r, const struct rank_comm *rk, size_t n, double P,
		      int dp, int g)
{
	static const char *const rule[NCOLL] = {
		"gradients (ZeRO-0, -1): 2(1 - 1/p) g P",
		"parameters (ZeRO-1, -2: (1 - 1/p) g P; ZeRO-3: twice)",
		"gradients (ZeRO-2, -3): (1 - 1/p) g P",
		"none estimated",
		"none estimated (ZeroRedundancyOptimizer sends the ZeRO-1 AllGather as Broadcasts)",
		"pipeline activations and gradients: 2 b s d a",
	};
	int tp = r->tensor_parallel > 0 ? r->tensor_parallel : 1, pp = r->pipeline_parallel > 0 ? r->pipeline_parallel : 1;
	struct est_model em;
	models_est_model(&r->model, &em);
	enum est_precision prec = est_precision_parse(r->model.precision);
	int a = prec == PREC_FP32 || prec == PREC_TF32 ? 4 : 2; /* activation bytes */
	double est[NCOLL];
	est_comm_dp(P, layout_zero_stage(r), dp, g, est);
	double tpv = r->batch > 0 ? est_comm_tp(&em, r->batch, tp, a, (enum est_recompute)r->recompute) : 0;
	est[COLL_ALLREDUCE] += tpv;
	est[COLL_SENDRECV] += r->batch > 0 ? est_comm_pp(&em, r->batch, pp, a) : 0;
	/*
	 * PyTorch's ZeroRedundancyOptimizer sends ZeRO-1's AllGather of the
	 * updated shards as Broadcasts: where the trace has Broadcasts and no
	 * AllGather, the estimate goes on the Broadcast row, so that measured
	 * and estimated stand in one row, under one definition.
	 */
	double seen[NCOLL] = {0};
	for (size_t i = 0; i < n; i++)
		for (int ty = 0; ty < NCOLL; ty++)
			seen[ty] += rk[i].type_sent[ty];
	int zero1_bcast = layout_zero_stage(r) == 1 && seen[COLL_BROADCAST] > 0 && seen[COLL_ALLGATHER] <= 0 &&
			  est[COLL_ALLGATHER] > 0;
	if (zero1_bcast) {
		est[COLL_BROADCAST] += est[COLL_ALLGATHER];
		est[COLL_ALLGATHER] = 0;
	}
	for (int ty = 0; ty < NCOLL; ty++) {
		double sent = 0, msg = 0, calls = 0;
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (rk[i].steps > 0) {
				sent += rk[i].type_sent[ty] / (double)rk[i].steps;
				msg += rk[i].type_msg[ty] / (double)rk[i].steps;
				calls += (double)rk[i].type_calls[ty] / (double)rk[i].steps;
				k++;
			}
		if (est[ty] <= 0 && sent <= 0)
			continue;
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, r->id);
		table_set_text(t, row, 1, est_coll_names[ty]);
		if (r->gpus > 0)
			table_set_int(t, row, 2, r->gpus);
		if (k) {
			table_set_real(t, row, 3, calls / (double)k);
			table_set_int(t, row, 4, llround(msg / (double)k));
			table_set_int(t, row, 5, llround(sent / (double)k));
		}
		if (est[ty] > 0) {
			table_set_int(t, row, 6, llround(est[ty]));
			if (k)
				table_set_real(t, row, 7, sent / (double)k / est[ty]);
		}
		struct buf why;
		buf_init(&why);
		buf_adds(&why, ty == COLL_BROADCAST && zero1_bcast
				       ? "parameters (ZeRO-1): (1 - 1/p) g P, sent by ZeroRedundancyOptimizer as Broadcasts "
					 "in place of one AllGather"
				       : rule[ty]);
		if (ty == COLL_ALLREDUCE && tpv > 0)
			buf_printf(&why, "; tensor parallel %d: 2(1 - 1/t) b s d a x %d l", tp, r->recompute == 2 ? 6 : 4);
		table_set_text(t, row, 8, why.data);
		buf_release(&why);
	}
}

static int analysis_comm_volume(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct manifest *man = ctx->manifest;
	struct table *t = table_new("comm_volume", "Communication bytes per GPU and step: measured in the trace and estimated",
				    TABLE_SCHEMA(COMM_VOLUME_COLUMNS));
	struct table *ty = table_new("comm_types", "Communication bytes per GPU and step, per collective type: measured and estimated",
				     TABLE_SCHEMA(COMM_TYPES_COLUMNS));
	int ret = 0;
	for (size_t i = 0; man && i < man->nruns; i++) {
		const struct manifest_run *r = &man->runs[i];
		if (r->gpus == 1 || r->measured.oom)
			continue;
		struct rank_comm *rk;
		size_t n;
		if (load_run(ctx->store, ctx->experiment, r->id, r->gpus, &rk, &n) < 0) {
			ret = -1;
			break;
		}
		struct est_model em;
		models_est_model(&r->model, &em);
		/* A data-parallel rank of a model split tp x pp ways holds about 1 / (tp pp) of P. */
		int tp = r->tensor_parallel > 0 ? r->tensor_parallel : 1, mp = layout_replica_ranks(r);
		int z = layout_zero_stage(r);
		/* The parameters as estimates.csv counts them (the model's framework). */
		int64_t P = r->model.layers && r->model.hidden && r->model.seq ? est_params_as(&em, tp) : 0;
		for (size_t k = 0; k < n; k++) {
			struct rank_comm *c = &rk[k];
			if (c->message <= 0)
				continue;
			int p = r->gpus > 0 ? r->gpus : (int)c->group;
			int dp = p > 0 ? (p / mp > 0 ? p / mp : 1) : 0;
			int g = c->grad_dtype[0] ? collective_dtype_size(c->grad_dtype) : models_grad_bytes(r);
			size_t row = table_add_row(t);
			table_set_text(t, row, 0, r->id);
			table_set_int(t, row, 1, c->rank);
			if (p > 0)
				table_set_int(t, row, 2, p);
			table_set_int(t, row, 3, z);
			if (P)
				table_set_int(t, row, 4, P);
			if (c->grad_dtype[0])
				table_set_text(t, row, 5, c->grad_dtype);
			table_set_int(t, row, 6, g);
			double est = P && dp > 1 ? est_comm_bytes((double)P / mp, z, dp, g) : 0;
			if (est > 0)
				table_set_int(t, row, 7, llround(est));
			table_set_int(t, row, 8, c->steps);
			if (c->steps > 0) {
				double sent = c->sent / (double)c->steps;
				table_set_int(t, row, 9, llround(c->message / (double)c->steps));
				table_set_int(t, row, 10, llround(sent));
				if (est > 0)
					table_set_real(t, row, 11, sent / est);
			} else {
				result_add_note(out, "comm_volume.csv: run %s rank %lld: no ProfilerStep ranges, so no bytes "
						"per step.", r->id, (long long)c->rank);
			}
			if (c->unknown)
				result_add_note(out, "comm_volume.csv: run %s rank %lld: %d collective calls record no "
						"message size or an unknown dtype and are not counted.", r->id,
						(long long)c->rank, c->unknown);
			if (k == 0 && c->grad_dtype[0] && g != models_grad_bytes(r))
				result_add_note(out, "comm_volume.csv: run %s: the gradient collectives carry %s (%d bytes per "
						"element) where the manifest's precision or grad_bytes says %d; the estimate "
						"here uses the trace's %d (estimates.csv keeps the manifest's).", r->id,
						c->grad_dtype, g, models_grad_bytes(r), g);
			if (!P && k == 0)
				result_add_note(out, "comm_volume.csv: run %s: no estimate without the model's layers, "
						"hidden, seq and vocab.", r->id);
		}
		/* Per type: the gradients' dtype as above (rank 0's), else the manifest's. */
		int g = n && rk[0].grad_dtype[0] ? collective_dtype_size(rk[0].grad_dtype) : models_grad_bytes(r);
		int p = r->gpus > 0 ? r->gpus : n ? (int)rk[0].group : 0;
		if (p > 1 && (P || n))
			type_rows(ty, r, rk, n, (double)P / mp, p / mp > 0 ? p / mp : 1, g);
		free(rk);
	}
	if (ret < 0) {
		table_free(t);
		table_free(ty);
		return ret;
	}
	result_add_table(out, t);
	result_add_table(out, ty);
	result_add_method(out, "comm_types.csv",
		"Per run on several GPUs and collective type (AllReduce, AllGather, ReduceScatter, Reduce, Broadcast, "
		"SendRecv: Send and Recv together, and a fused send and recv kernel with both its directions, "
		"as collectives.csv counts them; AllToAll is in no row): calls_per_step, message_bytes_per_step and "
		"measured_bytes_per_gpu as in comm_volume.csv for that type's calls, the mean over the run's ranks; "
		"estimated_bytes_per_gpu as Cheng et al. (SIGMETRICS 2024) count each collective (one AllReduce of P "
		"elements of g bytes sends 2(1 - 1/p) g P per GPU, one AllGather, ReduceScatter, Reduce or Broadcast "
		"(1 - 1/p) g P): data parallelism over p = gpus / (tensor_parallel x pipeline_parallel) GPUs with ZeRO-0 "
		"one AllReduce of the gradients, ZeRO-1 that AllReduce and an AllGather of the updated parameter "
		"shards, ZeRO-2 a ReduceScatter of the gradients and an AllGather, ZeRO-3 a ReduceScatter and two "
		"AllGathers (forward and backward); P and g as in comm_volume.csv. Tensor parallelism over t GPUs "
		"(Megatron-LM) adds AllReduces of the b x s x d activations (a = 2 bytes, 4 for fp32/tf32): two "
		"forward and two backward per layer, two more with full recomputation, 2(1 - 1/t) b s d a x l x 4 "
		"(or 6), b the per-GPU batch; pipeline parallelism adds Send/Recv of 2 b s d a per step (a middle "
		"stage: activations forward, gradients backward). ratio = measured / estimated. PyTorch's "
		"ZeroRedundancyOptimizer gathers the updated shards by Broadcasts rather than one AllGather: where a ZeRO-1 "
		"run's trace has Broadcasts and no AllGather, the AllGather's estimate, (1 - 1/p) g P, stands on the "
		"Broadcast row beside what the Broadcasts measure. measured is what the trace's collectives carry "
		"(their message sizes) times the ring algorithm's share per GPU, an assumption, since the bytes on the "
		"links are not in the trace; estimated comes from the model's parameter count; they agree where the "
		"collectives carry exactly the parameters, which is what this checks. Runs typed in from a study have "
		"estimates only.");
	if (!t->nrows)
		return 0;
	result_add_method(out, "comm_volume.csv",
		"Per run on several GPUs and rank whose NCCL kernels record their message size (Kineto's In/Out msg "
		"nelems and dtype kernel args). message_bytes_per_step: the sum over calls of S = max(In, Out msg "
		"nelems) x the dtype's size (as in collectives.csv), divided by the rank's ProfilerStep#N ranges "
		"(steps). Bytes are rounded to the byte. measured_bytes_per_gpu: not a measurement of the links: the "
		"observed message bytes times the share one GPU would send under NCCL's ring algorithms (an "
		"assumption: the trace records neither the algorithm NCCL chose nor the bytes on the wire), the "
		"sum of S x f / steps with f = 2(n-1)/n for AllReduce (ReduceScatter then AllGather), (n-1)/n for "
		"AllGather (S its output), ReduceScatter (S its input), Broadcast, Reduce and AllToAll (S(n-1) bytes "
		"cross links in all, over n GPUs), 1 for Send/Recv, n the collective's group size. "
		"estimated_bytes_per_gpu: as comm_bytes_per_gpu in estimates.csv, the sum of comm_types.csv's "
		"data-parallel estimates: 2(1 - 1/p) g P for ZeRO 0 and 2 (one AllReduce of the gradients, or its "
		"ReduceScatter plus AllGather), 3(1 - 1/p) g P for ZeRO-1 (that AllReduce and an AllGather of the "
		"updated parameters, as Cheng et al., SIGMETRICS 2024, count it) and ZeRO-3 (Rajbhandari et al., "
		"ZeRO, 2020; Cheng et al. write 4(1 - 1/p)P for an AllReduce of fp16 gradients), P perfstudy's parameter count over the ranks of one model replica (tensor_parallel x pipeline_parallel; each stage taken as holding an equal share), p the data-parallel GPUs, but "
		"with g the size of the dtype that the trace's gradient reductions carry (grad_dtype: the dtype of "
		"the AllReduce or ReduceScatter calls with the most bytes), because that is what crosses the wire: "
		"bf16 autocast computes in bf16 but keeps fp32 parameters and gradients, so DDP reduces fp32 "
		"(g = 4). Without such calls g is the manifest's (grad_bytes, else 4 for fp32/tf32, 2 otherwise). "
		"ratio: measured / estimated. Differences come from parameters the estimate does not count (a "
		"model's extra heads) and buffers DDP broadcasts every step.");
	return 0;
}

const struct analysis_def analysis_def_comm_volume = {
	.name = "comm_volume",
	.run = analysis_comm_volume,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("comm_volume", "comm_types"),
};
