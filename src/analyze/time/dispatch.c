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

#include "analyze/analysis.h"
#include "analyze/time/time_tables.h"
#include "analyze/time/dispatch.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/xalloc.h"

static const char *const part_names[D_NPARTS] = {"communication", "compute", "memory", "intra-op dispatch",
						 "inter-op dispatch"};

struct rk_range *dispatch_top_level(const struct rank_data *d, size_t *n)
{
	struct {
		int64_t tid, end;
	} *open = NULL;
	size_t nopen = 0, cap = 0, ntop = 0, topcap = 0;
	struct rk_range *top = NULL;
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
		top = xgrow(top, &topcap, ntop + 1, sizeof(*top));
		top[ntop++] = *o;
		open[j].end = o->end;
	}
	free(open);
	*n = ntop;
	return top;
}

enum { NSETS = 9, NSUMS = 4 };

/* Every set and sum of s, for init and release. */
static void every_set(struct dispatch_sets *s, struct ivset *all[NSETS], struct ivsum *sums[NSUMS])
{
	struct ivset *v[NSETS] = {&s->C, &s->K, &s->M, &s->O, &s->Kc, &s->Mc, &s->intra, &s->busy, &s->tmp};
	struct ivsum *w[NSUMS] = {&s->sC, &s->sKc, &s->sMc, &s->sintra};
	memcpy(all, v, sizeof(v));
	memcpy(sums, w, sizeof(w));
}

void dispatch_sets_init(struct dispatch_sets *s)
{
	struct ivset *all[NSETS];
	struct ivsum *sums[NSUMS];
	every_set(s, all, sums);
	for (size_t i = 0; i < NSETS; i++)
		ivset_init(all[i]);
	for (size_t i = 0; i < NSUMS; i++)
		sums[i]->cum = NULL;
}

void dispatch_sets_release(struct dispatch_sets *s)
{
	struct ivset *all[NSETS];
	struct ivsum *sums[NSUMS];
	every_set(s, all, sums);
	for (size_t i = 0; i < NSETS; i++)
		ivset_release(all[i]);
	for (size_t i = 0; i < NSUMS; i++)
		ivsum_release(sums[i]);
}

void dispatch_sets_load(struct dispatch_sets *s, const struct rank_data *d)
{
	ivset_clear(&s->C);
	ivset_clear(&s->K);
	ivset_clear(&s->M);
	ivset_clear(&s->O);
	for (size_t i = 0; i < d->nacts; i++) {
		const struct rk_act *a = &d->acts[i];
		struct ivset *set = a->kind != ACT_KERNEL || a->cls == RK_MEMORY ? &s->M : a->cls == RK_COMM ? &s->C : &s->K;
		ivset_add(set, a->start, a->end);
	}
	ivset_normalize(&s->C);
	ivset_normalize(&s->K);
	ivset_normalize(&s->M);
	size_t ntop;
	struct rk_range *top = dispatch_top_level(d, &ntop);
	for (size_t i = 0; i < ntop; i++)
		ivset_add(&s->O, top[i].start, top[i].end);
	free(top);
	ivset_normalize(&s->O);
	/* a step's compute is |W ∩ K \ C| = |W ∩ Kc|, and so on: the differences once per rank */
	ivset_subtract(&s->K, &s->C, &s->Kc);
	ivset_union(&s->C, &s->Kc, &s->busy);
	ivset_subtract(&s->M, &s->busy, &s->Mc);
	ivset_clear(&s->tmp);
	ivset_add_all(&s->tmp, &s->busy);
	ivset_add_all(&s->tmp, &s->Mc);
	ivset_normalize(&s->tmp);
	ivset_subtract(&s->O, &s->tmp, &s->intra);
	ivsum_release(&s->sC);
	ivsum_release(&s->sKc);
	ivsum_release(&s->sMc);
	ivsum_release(&s->sintra);
	ivsum_init(&s->sC, &s->C);
	ivsum_init(&s->sKc, &s->Kc);
	ivsum_init(&s->sMc, &s->Mc);
	ivsum_init(&s->sintra, &s->intra);
}

void dispatch_step(const struct dispatch_sets *s, int64_t start, int64_t end, int64_t v[D_NPARTS])
{
	v[D_COMM] = ivsum_within(&s->sC, start, end);
	v[D_COMPUTE] = ivsum_within(&s->sKc, start, end);
	v[D_MEMORY] = ivsum_within(&s->sMc, start, end);
	/* idle = |W \ (C ∪ K ∪ M)|: the step less the three disjoint parts */
	int64_t idle_ns = (end > start ? end - start : 0) - v[D_COMM] - v[D_COMPUTE] - v[D_MEMORY];
	v[D_INTRA] = ivsum_within(&s->sintra, start, end);
	v[D_INTER] = idle_ns - v[D_INTRA];
}

/* What dispatch_rank writes to, from the analysis. */
struct dispatch_walk {
	const struct analysis_ctx *ctx;
	struct analysis_result *out;
	struct table *t;
	struct chart *c;
	struct dispatch_sets *sets;
	struct buf *label;
};

/* for_each_rank's visitor: one rank's rows of dispatch.csv and its bar. Returns 0. */
static int dispatch_rank(const struct rank_key *k, const struct rank_data *d, void *arg)
{
	struct dispatch_walk *w = arg;
	if (!d->nsteps) {
		result_add_note(w->out, "dispatch.csv: run %s rank %d has no ProfilerStep ranges", k->run, k->rank);
		return 0;
	}
	dispatch_sets_load(w->sets, d);
	int split = d->ncpu_ops > 0;
	if (!split) {
		char *fmt = rank_formats(w->ctx->store, k);
		result_add_note(w->out, "dispatch.csv: run %s rank %d (%s) records no host operators (cpu_op events, "
				"which PyTorch profiler traces carry and Nsight Systems and nvprof output does not), "
				"so its GPU idle time cannot be split into intra-op and inter-op dispatch", k->run,
				k->rank, fmt);
		free(fmt);
	}
	buf_reset(w->label);
	buf_printf(w->label, "%s r%d", k->run, k->rank);
	size_t cat = chart_add_category(w->c, w->label->data);
	int64_t sum[D_NPARTS] = {0}, steps = 0;
	for (size_t si = 0; si < d->nsteps; si++) {
		const struct rk_range *st = &d->steps[si];
		int64_t v[D_NPARTS], dur = st->end - st->start;
		dispatch_step(w->sets, st->start, st->end, v);
		size_t row = table_add_row(w->t);
		table_set_text(w->t, row, 0, k->run);
		table_set_int(w->t, row, 1, k->rank);
		table_set_int(w->t, row, 2, st->key);
		table_set_ns(w->t, row, 3, dur);
		table_set_ns(w->t, row, 4, v[D_COMM]);
		table_set_ns(w->t, row, 5, v[D_COMPUTE]);
		table_set_ns(w->t, row, 6, v[D_MEMORY]);
		table_set_ns(w->t, row, 7, v[D_INTRA] + v[D_INTER]);
		if (split) {
			table_set_ns(w->t, row, 8, v[D_INTRA]);
			table_set_ns(w->t, row, 9, v[D_INTER]);
		}
		for (int p = 0; p < D_NPARTS; p++)
			sum[p] += v[p];
		steps += dur;
	}
	for (int p = 0; p < D_NPARTS; p++)
		if (steps > 0)
			chart_set(w->c, cat, (size_t)p, (double)sum[p] / (double)steps);
	return 0;
}

static int analysis_dispatch(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct table *t = table_new("dispatch", "Communication-first step time and GPU idle split into dispatch",
				    TABLE_SCHEMA(DISPATCH_COLUMNS));
	struct chart *c = chart_new(CHART_STACKED_BAR, "dispatch", "Communication first, then compute and dispatch",
				    "share of step time");
	for (int p = 0; p < D_NPARTS; p++)
		chart_add_series(c, part_names[p]);
	struct dispatch_sets sets;
	dispatch_sets_init(&sets);
	struct buf label;
	buf_init(&label);
	int ret = -1;
	struct dispatch_walk w = {ctx, out, t, c, &sets, &label};
	if (for_each_rank(ctx->store, ctx->experiment, dispatch_rank, &w) < 0)
		goto out;
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
	dispatch_sets_release(&sets);
	table_free(t);
	chart_free(c);
	return ret;
}

const struct analysis_def analysis_def_dispatch = {
	.name = "dispatch",
	.run = analysis_dispatch,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("dispatch"),
	.figures = ANALYSIS_NAMES("dispatch"),
};
