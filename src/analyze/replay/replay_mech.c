/*
 * replay_mech.c: the mechanisms the replay prices (replay_mech.h), the one
 * table of their words (replay_fixes.csv mechanism, What to fix first; the
 * findings and the report read them through rp_mechanism), and the rules
 * that pick each one's instances in a rank's model (replay.c removes them
 * and replays the step); and what removing them saves, per step and
 * against the noise (rp_savings_of).
 */
#include "analyze/replay/replay_mech.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/*
 * The mechanisms the replay prices, each: its id (replay_fixes.csv
 * mechanism), a few words (What to fix first), what it is, how the replay
 * removes it, and the fix to try. The one table of their words: findings.c
 * and the report read them through rp_mechanism().
 */
static const struct rp_mechanism mechanisms[NMECH] = {
	[M_HOST_GAP] = {"host_gap", "host time outside every operator",
			"host time outside every operator (a sleep, Python work)",
			"the stretches of 1 ms or more that no operator covers taken out",
			"remove that host work from the step or move it off the training thread"},
	[M_SYNC] = {"sync", "synchronisations",
		    "synchronisations that wait for the GPU (cudaDeviceSynchronize, cudaStreamSynchronize, "
		    "cudaEventSynchronize)",
		    "each returns at once", "remove the synchronize calls from the training loop"},
	[M_BLOCKING_COPY] = {"blocking_copy", "blocking device-to-host copies",
			     "blocking device-to-host copies (.item(), .cpu(), .tolist())",
			     "the copies no longer block the host",
			     "keep the values on the GPU, or read them every N steps"},
	[M_PAGEABLE] = {"pageable_copy", "pageable host-to-device copies", "pageable host-to-device copies",
			"the copies taken off the step's path, as a pinned buffer copied ahead of the step would be",
			"pin the host buffer (pin_memory=True) and copy it with non_blocking=True ahead of the step"},
	[M_IMPLICIT] = {"implicit_sync", "implicit synchronisations",
			"runtime calls that wait for the GPU without being a synchronize (cudaFree, cudaMalloc, a "
			"blocking copy of another kind)",
			"each returns at once",
			"keep the allocator's memory cached (no empty_cache) and the copies asynchronous"},
	[M_GPU_MEDIAN] = {"gpu_like_median", "GPU work beyond the other ranks'",
			  "GPU work beyond the other ranks' (longer kernels, or kernels that only this rank runs)",
			  "its kernels at the median duration of the same kernel on the other ranks, those most of "
			  "them do not run dropped",
			  "even out the ranks' work (the same batch and sequence lengths on every rank) and remove "
			  "work only this rank does"},
	[M_HOST_MEDIAN] = {"host_like_median", "host work beyond the other ranks'",
			   "host work beyond the other ranks' (slower operators, more Python)",
			   "its host time (between its runtime calls and in them, waits aside) scaled to the median of "
			   "the other ranks' totals",
			   "find what its host does more than the others (straggler_causes.csv's host rows) and even it "
			   "out"},
	[M_EXTRA] = {"extra_gpu_work", "GPU work beyond the reference run's",
		     "GPU work that a reference run of the same configuration does not do: the kernels of operator "
		     "calls beyond its count per step of the same operator and input shapes",
		     "those kernels dropped (no time on their stream)",
		     "remove that work from the step (the operator named), or run it less often"},
	/* decided by the nccl-path rule (replay/replay_nccl_path.c nccl_path_of), priced by replay.c add_nccl_path */
	[M_NCCL_PATH] = {"nccl_path", "collectives off NVLink",
			 "collectives over a path slower than the GPUs' NVLinks (the nccl-path finding: NCCL's bus "
			 "bandwidth under 1/8 of the links')",
			 "every rank's collective transfers scaled by the measured bus bandwidth over the one NCCL "
			 "reaches over NVLink (where says which), the ranks replayed together",
			 "let NCCL use NVLink: unset NCCL_P2P_DISABLE, NCCL_SHM_DISABLE and NCCL_NET"},
	/* decided by pipeline_stages.csv's imbalance (PP_SPLIT_IMBALANCE), priced by replay_run.c */
	[M_PIPE_BALANCE] = {"pipeline_balance", "pipeline stages computing unevenly",
			    "a pipeline's stages computing unevenly (pipeline_stages.csv imbalance above the threshold at which the bubble figure says the split, not the schedule, makes the bubble)",
			    "the pipeline's layers split anew by whole layers, the ranks replayed together with every "
			    "stage's kernels outside communication at their durations x its compute after the move over "
			    "its own (pipeline_stages.csv compute_us). A stage's layers: the smallest block (of at "
			    "most 1024) of its compute kernels (by name, in start order, in its first replayed step) whose runs of two or "
			    "more repeats in a row, the same block as many times, occur once in each of its micro-batches "
			    "(pipeline_stages.csv microbatches; so the micro-batches' own repeat is not taken for a "
			    "layer) and cover at least 3 % of its compute kernels' time; the repeats are its layer count "
			    "L and the run a forward; a layer's compute per step is 3 x its forward (a backward twice "
			    "its forward), taken as a share of the kernels' time of its compute, the rest the stage's "
			    "own work (embedding, head, loss), which stays. The split: the stages' layers in order, "
			    "contiguous, each stage at least one, a layer costing the compute of a layer of the stage it "
			    "moves to, that makes the slowest stage's compute least (ties: nearest the split as run); "
			    "where names the move and what every stage at the stages' mean compute, the most moving "
			    "layers could give, would save. Where a stage's layers are not found (one layer, no repeat) "
			    "or no move shortens the slowest stage, every stage at the stages' mean compute instead, "
			    "and where says why",
			    "move layers off the slowest stage (where says how many, to which stage)"},
};

const struct rp_mechanism *rp_mechanism(const char *id)
{
	for (size_t i = 0; id && i < NMECH; i++)
		if (!strcmp(mechanisms[i].id, id))
			return &mechanisms[i];
	return NULL;
}

/* A rank's host time over the window: the gaps between its calls (unrecorded stretches too) and their own costs. */
double rp_host_work(const struct rp_model *m)
{
	double w = 0;
	for (size_t i = 0; i < m->ncalls; i++) {
		const struct rp_call *c = &m->calls[i];
		if (c->gap > 0)
			w += (double)c->gap;
		w += (double)(c->wait_op >= 0 || c->throttled ? c->cost : c->dur);
	}
	return w;
}

/* Which mechanism a call's wait is. */
static int wait_mech(const struct rp_model *m, const struct rp_call *c)
{
	int kind = m->ops[c->wait_op].kind;
	if (kind == RP_OP_H2D_PAGEABLE)
		return M_PAGEABLE;
	if (kind == RP_OP_D2H)
		return M_BLOCKING_COPY;
	return c->sync ? M_SYNC : M_IMPLICIT;
}

/* The innermost host annotation (not ProfilerStep) around t, or the one that ended last before it. */
char *rp_where_at(struct store *s, const struct rank_data *d, int64_t t)
{
	const struct rk_range *best = NULL, *before = NULL;
	for (size_t i = 0; i < d->nannots && d->annots[i].start <= t; i++) {
		const struct rk_range *a = &d->annots[i];
		char *n = rank_name(s, a->key);
		int step = n && !strncmp(n, "ProfilerStep#", 13);
		free(n);
		if (step)
			continue;
		if (a->end > t && (!best || a->start >= best->start))
			best = a;
		else if (a->end <= t && (!before || a->end >= before->end))
			before = a;
	}
	if (best)
		return rank_name(s, best->key);
	if (before) {
		char *n = rank_name(s, before->key), *w = xasprintf("after %s", n ? n : "?");
		free(n);
		return w;
	}
	return xstrdup("outside every annotation");
}

/* Marks the instances of mechanism id in m into f. */
void rp_pick(const struct rp_model *m, int id, struct rp_fix *f)
{
	for (size_t i = 0; i < m->ncalls; i++) {
		const struct rp_call *c = &m->calls[i];
		if (id == M_HOST_GAP && c->gap_fixed >= RP_UNRECORDED_NS) {
			f->no_gap[i] = 1;
			f->instances++;
			f->removed += c->gap_fixed;
			if (c->gap_fixed > f->largest) {
				f->largest = c->gap_fixed;
				f->where_t = c->start - c->gap / 2;
			}
		} else if (id != M_HOST_GAP && c->wait_op >= 0 && wait_mech(m, c) == id) {
			f->no_wait[i] = 1;
			f->instances++;
			int64_t waited = c->start + c->dur - (m->ops[c->wait_op].start);
			if (waited > f->largest || !f->where_t) {
				f->largest = waited;
				f->where_t = c->start;
			}
		}
	}
	if (id == M_PAGEABLE)
		for (size_t j = 0; j < m->nops; j++)
			if (m->ops[j].kind == RP_OP_H2D_PAGEABLE && m->ops[j].call >= 0) {
				f->drop_op[j] = 1;
				if (!f->where_t)
					f->where_t = m->calls[m->ops[j].call].start;
			}
}

const struct rp_mechanism *rp_mechanism_at(int id)
{
	return &mechanisms[id];
}

/* The paired savings of base over alt (replay_mech.h). */
size_t rp_savings_of(const int64_t *base, const int64_t *alt, size_t nsteps, double mean, struct rp_savings *v)
{
	double sum = 0, sq = 0, smin = INFINITY, smax = -INFINITY, wsum = 0;
	size_t n = 0;
	for (size_t s = 0; s < nsteps; s++) {
		if (base[s] < 0 || alt[s] < 0)
			continue;
		double sv = (double)(base[s] - alt[s]);
		sum += sv;
		sq += sv * sv;
		wsum += (double)alt[s];
		smin = fmin(smin, sv);
		smax = fmax(smax, sv);
		n++;
	}
	if (!n)
		return 0;
	double sd = n > 2 ? sqrt(fmax(0, (sq - sum * sum / (double)n) / (double)(n - 1))) : 0;
	v->saving = sum / (double)n;
	v->smin = smin;
	v->smax = smax;
	v->without = wsum / (double)n;
	v->noise = fmax(2 * sd / sqrt((double)n), RP_SAVING_MIN * mean);
	v->stated = v->saving > v->noise && (n > 2 || smin > v->noise);
	return n;
}
