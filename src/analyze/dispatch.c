/*
 * dispatch.c: communication-first time distribution and dispatch
 * (dispatch.csv), after Cheng et al. 2024 ("Communication-first":
 * "communication kernels are represented first and then the compute
 * kernel"; compute time dissected into kernel execution, intra-op and
 * inter-op dispatch).
 *
 * Per ProfilerStep#N host range W = [s, e) of a rank, with C, K, M the
 * unions of its communication kernels, compute kernels (every kernel
 * outside the communication and memory groups of the `default`
 * classification) and memory activities (memcpys, memsets, memory-group
 * kernels):
 *   comm     = |W ∩ C|
 *   compute  = |W ∩ K \ C|                 compute not under communication
 *   memory   = |W ∩ M \ (C ∪ K)|
 *   idle     = |W \ (C ∪ K ∪ M)|           the GPU runs nothing of this rank
 *   intra_op = |idle ∩ O|                  the host is inside a top-level operator
 *   inter_op = idle - intra_op             the host is between top-level operators
 * O is the union, over all host threads, of the top-level operators: the
 * cpu_op ranges not contained in another cpu_op range of the same thread.
 * While the GPU idles inside a top-level operator, that operator has not
 * yet launched the work that would keep the GPU busy (it is still
 * dispatching: argument checks, allocation, hooks, the launch itself);
 * between operators the GPU waits for the framework (Python, autograd,
 * the optimizer loop) to reach the next one. The parts sum to the step.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "intervals.h"
#include "rankdata.h"
#include "../util/buf.h"
#include "../util/xalloc.h"

enum { D_COMM, D_COMPUTE, D_MEMORY, D_INTRA, D_INTER, ND };
static const char *const part_names[ND] = {"communication", "compute", "memory", "intra-op dispatch",
					   "inter-op dispatch"};

/* Union of the top-level cpu_ops of d (cpu_ops are sorted by start, longer first). */
static void top_level_ops(const struct rank_data *d, struct ivset *out)
{
	struct {
		int64_t tid, end;
	} *open = NULL;
	size_t nopen = 0, cap = 0;
	for (size_t i = 0; i < d->ncpu_ops; i++) {
		const struct rk_range *o = &d->cpu_ops[i];
		size_t j = 0;
		while (j < nopen && open[j].tid != o->tid)
			j++;
		if (j == nopen) {
			open = xgrow(open, &cap, nopen + 1, sizeof(*open));
			open[nopen].tid = o->tid;
			open[nopen++].end = INT64_MIN;
		}
		/* Contained in the thread's current top-level operator: not top-level. */
		if (o->end <= open[j].end)
			continue;
		ivset_add(out, o->start, o->end);
		open[j].end = o->end;
	}
	free(open);
	ivset_normalize(out);
}

int analysis_dispatch(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct rank_key *keys;
	size_t nkeys;
	if (rank_keys(ctx->store, ctx->experiment, &keys, &nkeys) < 0)
		return -1;
	struct classifier *cls = classifier_preset("default");
	struct table *t = table_new("dispatch", "Communication-first step time and GPU idle split into dispatch",
				    "run:text,rank:int,step:int,step_us:us,comm_us:us,compute_us:us,memory_us:us,"
				    "idle_us:us,intra_op_us:us,inter_op_us:us");
	struct chart *c = chart_new(CHART_STACKED_BAR, "dispatch", "Communication first, then compute and dispatch",
				    "share of step time");
	for (int p = 0; p < ND; p++)
		chart_add_series(c, part_names[p]);
	struct ivset C, K, M, O, win, w_c, w_k, w_m, busy, tmp, idle, intra, o_win;
	struct ivset *all[] = {&C, &K, &M, &O, &win, &w_c, &w_k, &w_m, &busy, &tmp, &idle, &intra, &o_win};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		ivset_init(all[i]);
	struct buf label;
	buf_init(&label);
	int ret = -1;
	for (size_t k = 0; k < nkeys; k++) {
		struct rank_data d;
		if (rank_data_load(ctx->store, &keys[k], cls, &d) < 0)
			goto out;
		if (!d.nsteps) {
			result_add_note(out, "dispatch.csv: run %s rank %d has no ProfilerStep ranges", keys[k].run,
					keys[k].rank);
			rank_data_release(&d);
			continue;
		}
		ivset_clear(&C);
		ivset_clear(&K);
		ivset_clear(&M);
		ivset_clear(&O);
		for (size_t i = 0; i < d.nacts; i++) {
			const struct rk_act *a = &d.acts[i];
			struct ivset *s = a->kind != ACT_KERNEL || a->cls == RK_MEMORY ? &M : a->cls == RK_COMM ? &C : &K;
			ivset_add(s, a->start, a->end);
		}
		ivset_normalize(&C);
		ivset_normalize(&K);
		ivset_normalize(&M);
		top_level_ops(&d, &O);
		int split = d.ncpu_ops > 0;
		if (!split) {
			char *fmt = rank_formats(ctx->store, &keys[k]);
			result_add_note(out, "dispatch.csv: run %s rank %d (%s) records no host operators (cpu_op events, "
					"which PyTorch profiler traces carry and Nsight Systems and nvprof output does not), "
					"so its GPU idle time cannot be split into intra-op and inter-op dispatch", keys[k].run,
					keys[k].rank, fmt);
			free(fmt);
		}
		buf_reset(&label);
		buf_printf(&label, "%s r%d", keys[k].run, keys[k].rank);
		size_t cat = chart_add_category(c, label.data);
		int64_t sum[ND] = {0}, steps = 0;
		for (size_t si = 0; si < d.nsteps; si++) {
			const struct rk_range *st = &d.steps[si];
			int64_t v[ND], dur = st->end - st->start;
			ivset_clear(&win);
			ivset_add(&win, st->start, st->end);
			ivset_clip(&C, st->start, st->end, &w_c);
			v[D_COMM] = ivset_measure(&w_c);
			ivset_clip(&K, st->start, st->end, &tmp);
			ivset_subtract(&tmp, &w_c, &w_k);
			v[D_COMPUTE] = ivset_measure(&w_k);
			ivset_union(&w_c, &w_k, &busy);
			ivset_clip(&M, st->start, st->end, &tmp);
			ivset_subtract(&tmp, &busy, &w_m);
			v[D_MEMORY] = ivset_measure(&w_m);
			ivset_clear(&tmp);
			ivset_add_all(&tmp, &busy);
			ivset_add_all(&tmp, &w_m);
			ivset_normalize(&tmp);
			ivset_subtract(&win, &tmp, &idle);
			int64_t idle_ns = ivset_measure(&idle);
			ivset_clip(&O, st->start, st->end, &o_win);
			ivset_intersect(&idle, &o_win, &intra);
			v[D_INTRA] = ivset_measure(&intra);
			v[D_INTER] = idle_ns - v[D_INTRA];
			size_t row = table_add_row(t);
			table_set_text(t, row, 0, keys[k].run);
			table_set_int(t, row, 1, keys[k].rank);
			table_set_int(t, row, 2, st->key);
			table_set_ns(t, row, 3, dur);
			table_set_ns(t, row, 4, v[D_COMM]);
			table_set_ns(t, row, 5, v[D_COMPUTE]);
			table_set_ns(t, row, 6, v[D_MEMORY]);
			table_set_ns(t, row, 7, idle_ns);
			if (split) {
				table_set_ns(t, row, 8, v[D_INTRA]);
				table_set_ns(t, row, 9, v[D_INTER]);
			}
			for (int p = 0; p < ND; p++)
				sum[p] += v[p];
			steps += dur;
		}
		for (int p = 0; p < ND; p++)
			if (steps > 0)
				chart_set(c, cat, (size_t)p, (double)sum[p] / (double)steps);
		rank_data_release(&d);
	}
	result_add_table(out, t);
	t = NULL;
	result_add_figure(out, c,
			  "Share of step time per run and rank, communication first (Cheng et al. 2024): communication "
			  "kernels, then compute kernels not under communication, memory operations, and the GPU's idle "
			  "time split into intra-op dispatch (host inside a top-level operator) and inter-op dispatch "
			  "(host between top-level operators).");
	c = NULL;
	result_add_method(out, "dispatch.csv",
			  "Communication-first distribution after Cheng et al. 2024 (communication kernels counted "
			  "first, then compute kernels). Per ProfilerStep#N host range W and rank, with C, K, M the "
			  "unions of communication kernels, compute kernels (outside the communication and memory "
			  "groups of the default classification) and memory activities (memcpys, memsets, memory-group "
			  "kernels): comm_us = |W ∩ C|; compute_us = |W ∩ K minus C|; memory_us = |W ∩ M minus (C ∪ K)|; "
			  "idle_us = |W minus (C ∪ K ∪ M)|, the time this rank's GPU runs nothing. A top-level operator "
			  "is a host cpu_op range not contained in another cpu_op range of the same thread; O is the "
			  "union of all top-level operators of all threads. intra_op_us = |idle ∩ O|: the GPU idles "
			  "while the host is inside a top-level operator that has not yet launched the work to keep it "
			  "busy; inter_op_us = idle_us - intra_op_us: the GPU idles while the host is between top-level "
			  "operators. The parts comm + compute + memory + intra_op + inter_op sum to step_us. Both "
			  "dispatch columns are empty for a rank without cpu_op events. The figure shows each part's "
			  "share of the summed step time.");
	ret = 0;
out:
	buf_release(&label);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		ivset_release(all[i]);
	table_free(t);
	chart_free(c);
	classifier_free(cls);
	rank_keys_free(keys, nkeys);
	return ret;
}
