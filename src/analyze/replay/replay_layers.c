/*
 * replay_layers.c: a pipeline stage's layers found in its trace, and the
 * split of a pipeline's layers by whole layers that minimises its slowest
 * stage (replay_run.c's pipeline_balance prices that move; issue #52).
 *
 * The layers, model-agnostic: a stage's compute kernels (kernels outside
 * communication) of its first replayed step, in start order, by name. A
 * transformer stage's forward of one micro-batch runs its layer's block of
 * kernels L times in a row, and the step runs m forwards. The layer is the
 * smallest block (p kernels, p <= RP_LAYER_MAX_BLOCK) whose maximal runs of r >= 2 consecutive
 * repeats, the same block repeated the same r times, occur exactly m
 * times in the step (m: the stage's micro-batches, pipeline_stages.csv)
 * and cover at least RP_LAYER_SHARE of the step's compute kernels' time.
 * Requiring m runs keeps the micro-batch's own repeat (GPipe's m forwards
 * in a row, one run of m) from passing for the layer; a stage of one
 * layer has no repeat and is not found. L = r. The run's kernels are the
 * layers' forwards; a layer's compute per step is taken as
 * RP_LAYER_FWD_BWD x their time / L (a backward costs twice its forward:
 * the two matrix products of a gradient against the forward's one), as a
 * share of the step's compute kernels' time applied to the stage's compute
 * (pipeline_stages.csv's compute_us); what is left is the stage's fixed
 * work (embedding, head, loss, optimizer), which stays with the stage.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/replay/replay_int.h"
#include "util/xalloc.h"

struct run {
	size_t at, r;  /* first kernel, repeats */
	int64_t first; /* its block's first kernel's name */
	int done;      /* counted in a block's group */
};

static int same_block(const int64_t *nm, size_t i, size_t j, size_t p)
{
	return nm[i] == nm[j] && !memcmp(nm + i, nm + j, p * sizeof(*nm));
}

/* runs by repeats, then their block's first name, then position: a block's runs side by side */
static int cmp_run(const void *a, const void *b)
{
	const struct run *x = a, *y = b;
	if (x->r != y->r)
		return (x->r > y->r) - (x->r < y->r);
	if (x->first != y->first)
		return (x->first > y->first) - (x->first < y->first);
	return (x->at > y->at) - (x->at < y->at);
}

int rp_layers_of(const struct rp_model *m, int64_t micro, double compute, struct rp_layers *out)
{
	memset(out, 0, sizeof(*out));
	out->why = micro < 1 ? "its micro-batches are not known"
			     : "its compute kernels have no block that repeats in each of its micro-batches";
	if (!m->nsteps || micro < 1 || !(compute > 0))
		return 0;
	size_t n = 0;
	int64_t *nm = xmalloc((m->nops + 1) * sizeof(*nm));
	double *dur = xmalloc((m->nops + 1) * sizeof(*dur)), total = 0;
	for (size_t j = 0; j < m->nops; j++) {
		const struct rp_op *o = &m->ops[j];
		if (o->kind != RP_OP_KERNEL || o->comm || o->call < 0 || m->calls[o->call].step != 0)
			continue;
		nm[n] = o->name_id;
		dur[n++] = (double)o->dur;
		total += (double)o->dur;
	}
	struct run *rn = xmalloc((n + 1) * sizeof(*rn));
	size_t um = (size_t)micro;
	for (size_t p = 1; !out->found && total > 0 && 2 * p * um <= n && p <= RP_LAYER_MAX_BLOCK; p++) {
		/* the maximal runs of r >= 2 repeats of a block of p kernels */
		size_t nr = 0;
		for (size_t i = 0; i + 2 * p <= n;) {
			size_t r = 1;
			while (i + (r + 1) * p <= n && same_block(nm, i, i + r * p, p))
				r++;
			if (r < 2) {
				i++;
				continue;
			}
			rn[nr++] = (struct run){i, r, nm[i], 0};
			i += r * p;
		}
		qsort(rn, nr, sizeof(*rn), cmp_run);
		/* of the blocks whose runs qualify, the one that runs first */
		size_t best = nr;
		double best_t = 0;
		for (size_t a = 0; a < nr; a++) {
			if (rn[a].done)
				continue;
			size_t cnt = 0;
			double t = 0;
			for (size_t b = a; b < nr && rn[b].r == rn[a].r && rn[b].first == rn[a].first; b++)
				if (!rn[b].done && same_block(nm, rn[a].at, rn[b].at, p)) {
					rn[b].done = 1;
					cnt++;
					for (size_t j = rn[b].at; j < rn[b].at + rn[b].r * p; j++)
						t += dur[j];
				}
			if (cnt == um && t >= RP_LAYER_SHARE * total && (best == nr || rn[a].at < rn[best].at)) {
				best = a;
				best_t = t;
			}
		}
		if (best == nr)
			continue;
		out->found = 1;
		out->layers = (int64_t)rn[best].r;
		out->block = (int64_t)p;
		out->per_layer = compute * RP_LAYER_FWD_BWD * best_t / total / (double)rn[best].r;
		out->fixed = compute - (double)out->layers * out->per_layer;
		out->why = NULL;
		if (out->fixed < 0) {
			out->found = 0;
			out->why = "its layers' forwards x 3 exceed its compute";
		}
	}
	if (!out->found && out->why && n && 2 * um > n)
		out->why = "it runs fewer compute kernels than two a micro-batch";
	free(rn);
	free(nm);
	free(dur);
	return out->found;
}

double rp_layer_split(size_t ns, const int64_t *L, const double *c, const double *a, int64_t *split)
{
	int64_t total = 0;
	for (size_t s = 0; s < ns; s++)
		total += L[s];
	if (!ns || total < (int64_t)ns)
		return NAN;
	size_t w = (size_t)total + 1;
	/* best[s][k]: the least slowest stage of stages 0..s holding the first k layers; how[s][k]: stage s's count */
	double *best = xmalloc(ns * w * sizeof(*best));
	int64_t *how = xmalloc(ns * w * sizeof(*how));
	for (size_t s = 0; s < ns; s++)
		for (size_t k = 0; k < w; k++) {
			best[s * w + k] = INFINITY;
			how[s * w + k] = 0;
			for (int64_t h = 1; h <= (int64_t)k; h++) {
				double before = s ? best[(s - 1) * w + k - (size_t)h] : (h == (int64_t)k ? 0 : INFINITY);
				double v = fmax(before, a[s] + (double)h * c[s]);
				/* ties: the count nearest the stage's own, so that a split already best moves nothing */
				if (v < best[s * w + k] ||
				    (v == best[s * w + k] && llabs(h - L[s]) < llabs(how[s * w + k] - L[s]))) {
					best[s * w + k] = v;
					how[s * w + k] = h;
				}
			}
		}
	double v = best[(ns - 1) * w + (size_t)total];
	size_t k = (size_t)total;
	for (size_t s = ns; s-- > 0;) {
		split[s] = how[s * w + k];
		k -= (size_t)split[s];
	}
	free(best);
	free(how);
	return v;
}

char *rp_layer_move_words(size_t ns, const int64_t *L, const int64_t *split)
{
	char from[256] = "", to[256] = "";
	size_t f = 0, t = 0;
	for (size_t s = 0; s < ns; s++) {
		f += (size_t)snprintf(from + f, f < sizeof(from) ? sizeof(from) - f : 0, "%s%lld", s ? "+" : "",
				      (long long)L[s]);
		t += (size_t)snprintf(to + t, t < sizeof(to) ? sizeof(to) - t : 0, "%s%lld", s ? "+" : "",
				      (long long)split[s]);
	}
	if (ns == 2 && split[0] != L[0]) {
		int64_t d = split[0] - L[0];
		int fwd = d > 0; /* layers go from stage 1 to stage 0 */
		long long k = d > 0 ? d : -d;
		return xasprintf("move %lld layer%s from stage %d to stage %d: %s -> %s", k, k == 1 ? "" : "s",
				 fwd ? 1 : 0, fwd ? 0 : 1, from, to);
	}
	return xasprintf("move layers between stages: %s -> %s", from, to);
}
