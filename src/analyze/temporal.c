/*
 * temporal.c: the temporal breakdown and the communication/computation
 * overlap, as Holistic Trace Analysis (HTA) defines them, so users can
 * compare (hta/analyzers/breakdown_analysis.py get_temporal_breakdown and
 * communication_analysis.py get_comm_comp_overlap; HTA drops the GPU work
 * of the last, incomplete step in hta/common/trace.py
 * _filter_irrelevant_gpu_kernels).
 *
 * Per rank, the events E are its GPU activities (kernels, memcpys, memsets)
 * whose launching runtime call (same correlation id) starts before the start
 * of the last ProfilerStep range when the rank has two or more steps; with
 * fewer steps, all of its activities. The last ProfilerStep range is the
 * latest to start of the host's ProfilerStep#N ranges and of the GPU-side
 * annotations whose name holds "ProfilerStep": HTA takes every event without
 * a stream for a CPU event, and a gpu_user_annotation has no stream, so its
 * ProfilerStep#N, which starts when the GPU reaches the step (after the
 * host's), counts too. The launches in between (the previous step's
 * loss.item() copy, say) are kept.
 *   span        = end of the last of E - start of the first
 *   idle        = span - |union of E|
 *   compute     = |union of the compute kernels of E|
 *   non_compute = span - compute - idle
 *   comm        = |union of the communication kernels of E|
 *   overlap     = |union(comm) ∩ union(compute)|, fraction = overlap / comm
 * Communication and memory are the groups of the `default` classification,
 * compute every other kernel. All sweeps over sorted intervals (intervals.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "intervals.h"
#include "rankdata.h"
#include "../util/buf.h"
#include "../util/xalloc.h"

struct temporal_row {
	int64_t span, idle, compute, comm, overlap;
	size_t nused;
};

/*
 * The activities HTA keeps: launched before the last step starts (see above).
 * step_ids: the sorted ids of the names that hold "ProfilerStep".
 */
static void temporal_of(const struct rank_data *d, const int64_t *step_ids, size_t nstep_ids,
			struct temporal_row *out)
{
	memset(out, 0, sizeof(*out));
	int filter = d->nsteps >= 2;
	int64_t last_step = INT64_MIN;
	for (size_t i = 0; i < d->nsteps; i++)
		if (d->steps[i].start > last_step)
			last_step = d->steps[i].start;
	for (size_t i = 0; i < d->ngpu_annots; i++)
		if (d->gpu_annots[i].start > last_step &&
		    bsearch(&d->gpu_annots[i].key, step_ids, nstep_ids, sizeof(*step_ids), rank_cmp_i64))
			last_step = d->gpu_annots[i].start;
	int64_t *idx = rank_launch_index(d), lo = 0, hi = 0;
	struct ivset all, comp, comm, both;
	ivset_init(&all);
	ivset_init(&comp);
	ivset_init(&comm);
	ivset_init(&both);
	for (size_t i = 0; i < d->nacts; i++) {
		const struct rk_act *a = &d->acts[i];
		if (filter) {
			const struct rk_range *l = rank_launch_of(d, idx, a->corr);
			if (!l || l->start >= last_step)
				continue;
		}
		/* A zero-length activity still marks where the span starts or ends. */
		if (!out->nused++ || a->start < lo)
			lo = a->start;
		if (out->nused == 1 || a->end > hi)
			hi = a->end;
		ivset_add(&all, a->start, a->end);
		if (a->kind == ACT_KERNEL && a->cls == RK_COMPUTE)
			ivset_add(&comp, a->start, a->end);
		else if (a->kind == ACT_KERNEL && a->cls == RK_COMM)
			ivset_add(&comm, a->start, a->end);
	}
	if (out->nused) {
		ivset_normalize(&all);
		ivset_normalize(&comp);
		ivset_normalize(&comm);
		out->span = hi - lo;
		out->idle = out->span - ivset_measure(&all);
		out->compute = ivset_measure(&comp);
		out->comm = ivset_measure(&comm);
		ivset_intersect(&comm, &comp, &both);
		out->overlap = ivset_measure(&both);
	}
	free(idx);
	ivset_release(&all);
	ivset_release(&comp);
	ivset_release(&comm);
	ivset_release(&both);
}

int analysis_temporal(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct rank_key *keys;
	size_t nkeys;
	if (rank_keys(ctx->store, ctx->experiment, &keys, &nkeys) < 0)
		return -1;
	size_t nstep_ids;
	int64_t *step_ids = rank_name_ids_containing(ctx->store, "ProfilerStep", &nstep_ids);
	if (!step_ids) {
		rank_keys_free(keys, nkeys);
		return -1;
	}
	struct classifier *cls = classifier_preset("default");
	struct table *t = table_new("temporal", "Temporal breakdown per rank, as Holistic Trace Analysis defines it",
				    "run:text,rank:int,span_us:us,idle_us:us,compute_us:us,non_compute_us:us");
	struct table *o = table_new("overlap", "Communication/computation overlap per rank",
				    "run:text,rank:int,comm_us:us,overlap_us:us,overlap_fraction:frac");
	struct chart *c = chart_new(CHART_STACKED_BAR, "temporal_breakdown", "Temporal breakdown (HTA)",
				    "share of the GPU span");
	chart_add_series(c, "compute");
	chart_add_series(c, "non-compute");
	chart_add_series(c, "idle");
	int ret = -1;
	struct buf label;
	buf_init(&label);
	for (size_t k = 0; k < nkeys; k++) {
		struct rank_data d;
		if (rank_data_load(ctx->store, &keys[k], cls, &d) < 0)
			goto out;
		struct temporal_row r;
		temporal_of(&d, step_ids, nstep_ids, &r);
		if (!r.nused) {
			result_add_note(out, "temporal.csv: run %s rank %d has no GPU activities%s; its row is left out",
					keys[k].run, keys[k].rank, d.nacts ? " launched before its last step" : "");
			rank_data_release(&d);
			continue;
		}
		if (d.nsteps < 2)
			result_add_note(out, "temporal.csv: run %s rank %d has %zu ProfilerStep ranges, so all of its "
					"GPU activities are counted (HTA drops the last step only when there are two or more)",
					keys[k].run, keys[k].rank, d.nsteps);
		rank_data_release(&d);
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, keys[k].run);
		table_set_int(t, row, 1, keys[k].rank);
		table_set_ns(t, row, 2, r.span);
		table_set_ns(t, row, 3, r.idle);
		table_set_ns(t, row, 4, r.compute);
		table_set_ns(t, row, 5, r.span - r.compute - r.idle);
		row = table_add_row(o);
		table_set_text(o, row, 0, keys[k].run);
		table_set_int(o, row, 1, keys[k].rank);
		table_set_ns(o, row, 2, r.comm);
		table_set_ns(o, row, 3, r.overlap);
		if (r.comm > 0)
			table_set_real(o, row, 4, (double)r.overlap / (double)r.comm);
		buf_reset(&label);
		buf_printf(&label, "%s r%d", keys[k].run, keys[k].rank);
		size_t cat = chart_add_category(c, label.data);
		if (r.span > 0) {
			chart_set(c, cat, 0, (double)r.compute / (double)r.span);
			chart_set(c, cat, 1, (double)(r.span - r.compute - r.idle) / (double)r.span);
			chart_set(c, cat, 2, (double)r.idle / (double)r.span);
		}
	}
	result_add_table(out, t);
	result_add_table(out, o);
	t = o = NULL;
	result_add_figure(out, c,
			  "Temporal breakdown per run and rank as Holistic Trace Analysis defines it: the span from "
			  "the first to the last GPU activity launched before the last profiled step, split into "
			  "compute kernels, other GPU work (communication, memory) and idle time.");
	c = NULL;
	result_add_method(out, "temporal.csv",
			  "As Holistic Trace Analysis's get_temporal_breakdown (HTA, Meta, 2022-2026): per rank, the "
			  "GPU activities (kernels, memcpys, memsets) whose launching CUDA runtime or driver call "
			  "(same correlation id) starts before the start of the last ProfilerStep range, when the "
			  "rank has two or more steps, else all of them. The last ProfilerStep range is the latest "
			  "to start among the host's ProfilerStep#N ranges and the GPU-side annotations named "
			  "ProfilerStep (HTA counts those, which have no stream, among the CPU events; they start "
			  "when the GPU reaches the step). span = end of the last of them minus start "
			  "of the first; idle = span minus the length of their union (overlaps counted once); "
			  "compute = length of the union of compute kernels (every kernel outside the communication "
			  "and memory groups of the default classification, whatever classification the report "
			  "uses); non_compute = span - compute - idle.");
	result_add_method(out, "overlap.csv",
			  "As HTA's get_comm_comp_overlap, on the same activities as temporal.csv: comm = length of "
			  "the union of communication kernels; overlap = the time during which both that union and "
			  "the union of compute kernels are active; overlap_fraction = overlap / comm, empty where a "
			  "rank has no communication.");
	ret = 0;
out:
	buf_release(&label);
	table_free(t);
	table_free(o);
	chart_free(c);
	classifier_free(cls);
	free(step_ids);
	rank_keys_free(keys, nkeys);
	return ret;
}
