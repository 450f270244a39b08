/*
 * replay_run.c: the fixes of replay_fixes.csv that are a run's, not one
 * rank's, priced where the run's ranks are replayed together (replay.c
 * prices each rank's): nccl_path, every rank's collectives over NVLink,
 * and pipeline_balance, a pipeline's layers moved between its stages.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/replay/replay_int.h"
#include "analyze/replay/replay_mech.h"
#include "analyze/replay/replay_nccl_path.h"
#include "analyze/pipeline/pipeline_balance.h"
#include "analyze/pipeline/pipeline_tables.h"
#include "util/xalloc.h"

#define RP_JOINT_TRUST 0.03 /* the mean absolute error of a joint replay that is priced from */

void rp_add_fix_row(struct table *t, const struct fix_row *f, const char *where)
{
	size_t row = table_add_row(t);
	table_set_text(t, row, 0, f->k->run);
	if (!f->run_wide)
		table_set_int(t, row, 1, f->k->rank);
	table_set_text(t, row, 2, f->mechanism);
	table_set_text(t, row, 3, where);
	table_set_real(t, row, 4, f->per_step);
	table_set_ns(t, row, 5, llround(f->step));
	table_set_ns(t, row, 6, llround(f->without));
	table_set_ns(t, row, 7, llround(f->saving));
	table_set_ns(t, row, 8, llround(f->smin));
	table_set_ns(t, row, 9, llround(f->smax));
	table_set_ns(t, row, 10, llround(f->noise));
	table_set_int(t, row, 11, f->stated);
	table_set_text(t, row, 12, f->joint ? "together" : "alone");
	table_set_ns(t, row, 13, llround(f->fast));
}

/* The mean replayed step of the ranks of sj together, each at factor f[q] and with op_scale scale[q] (NULL: none). */
double rp_joint_mean(struct rp_subject *sj, const double *f, double *const *scale, int64_t *steps)
{
	for (size_t q = 0; q < sj->n; q++)
		sj->ch[q] = (struct rp_change){.host_factor = f[q], .op_scale = scale ? scale[q] : NULL};
	rp_joint_replay(sj->joint, sj->ch, steps);
	double sum = 0;
	size_t n = 0;
	for (size_t s = 0; s < sj->m[0]->nsteps; s++)
		if (steps[s] >= 0) {
			sum += (double)steps[s];
			n++;
		}
	return n ? sum / (double)n : NAN;
}

/*
 * nccl_path, once per run whose ranks are replayed together: where the
 * nccl-path rule finds its collectives off its NVLinks (nccl_path_of),
 * every rank's collective kernels replayed with their transfer times
 * measured / reach (the bus bandwidth measured over the one NCCL reaches
 * over NVLink), against the replay at f; noise and statement as a rank's
 * fixes (add_fixes). A row of the run (rank empty).
 */
void rp_add_nccl_path(struct rp_ctx *x, const struct rank_key *k, struct rp_subject *sj, const double *flo)
{
	struct nccl_path p;
	if (!sj->joint || !nccl_path_of(x->res, k->run, &p) || !(p.reach > p.measured) || !(p.measured > 0))
		return;
	const struct rp_model *m0 = sj->m[0];
	double **scale = xcalloc(sj->n, sizeof(*scale));
	size_t comm = 0;
	for (size_t q = 0; q < sj->n; q++) {
		scale[q] = xmalloc((sj->m[q]->nops + 1) * sizeof(**scale));
		for (size_t j = 0; j < sj->m[q]->nops; j++) {
			scale[q][j] = sj->m[q]->ops[j].comm ? p.measured / p.reach : 1.0;
			comm += q == 0 && sj->m[q]->ops[j].comm;
		}
	}
	double step = rp_joint_mean(sj, sj->f, NULL, x->base);
	rp_joint_mean(sj, sj->f, scale, x->alt);
	struct rp_savings v;
	if (comm && rp_savings_of(x->base, x->alt, m0->nsteps, step, &v)) {
		double fast = rp_joint_mean(sj, flo, NULL, x->buf) - rp_joint_mean(sj, flo, scale, x->buf);
		struct fix_row fr = {k, 1, rp_mechanism_at(M_NCCL_PATH)->id, (double)comm / (double)m0->nsteps, step,
				     v.without, v.saving, v.smin, v.smax, v.noise, v.stated, 1, fast};
		char *where = p.reach_run ? xasprintf("%s at %.3g GB/s measured, replayed at %.3g GB/s: the same collective's "
						      "bus bandwidth over NVLink in run %s",
						      p.coll ? p.coll : "collectives", p.measured, p.reach, p.reach_run)
					  : xasprintf("%s at %.3g GB/s measured, replayed at %.3g GB/s: %.0f %% of NV%d x %.0f "
						      "GB/s, what NCCL's AllReduce reached over NVLink in %s",
						      p.coll ? p.coll : "collectives", p.measured, p.reach,
						      100 * p.reach_share, p.nv, p.per_link, p.reach_bundled);
		rp_add_fix_row(x->fixes, &fr, where);
		free(where);
	}
	for (size_t q = 0; q < sj->n; q++)
		free(scale[q]);
	free(scale);
}


/*
 * Whether the ranks of sj replayed together at host factor 1, unchanged,
 * reproduce the job's measured steps (rp_joint_measured) within
 * RP_JOINT_TRUST on average (the mean absolute error the replay is held
 * to, issue #52): a price is a difference of two replays, and means
 * nothing where the first is already off. buf, buf2: nsteps scratch each.
 */
static int joint_trusted(struct rp_subject *sj, int64_t *buf, int64_t *buf2)
{
	size_t nsteps = sj->m[0]->nsteps, n = 0;
	double *one = xmalloc((sj->n + 1) * sizeof(*one)), err = 0;
	for (size_t q = 0; q < sj->n; q++)
		one[q] = 1.0;
	rp_joint_mean(sj, one, NULL, buf);
	rp_joint_measured(sj->joint, buf2);
	for (size_t s = 0; s < nsteps; s++)
		if (buf[s] >= 0 && buf2[s] > 0) {
			err += fabs((double)(buf[s] - buf2[s])) / (double)buf2[s];
			n++;
		}
	free(one);
	return n && err / (double)n <= RP_JOINT_TRUST;
}

/* Each rank's kernels outside communication at to[q] / own[q] (1 where either is 0); *kernels: slow's. */
static double **pipe_scale(struct rp_subject *sj, const double *own, const double *to, size_t slow, size_t *kernels)
{
	double **scale = xcalloc(sj->n, sizeof(*scale));
	*kernels = 0;
	for (size_t q = 0; q < sj->n; q++) {
		const struct rp_model *m = sj->m[q];
		scale[q] = xmalloc((m->nops + 1) * sizeof(**scale));
		double s = own[q] > 0 && to[q] > 0 ? to[q] / own[q] : 1.0;
		for (size_t j = 0; j < m->nops; j++) {
			int compute = m->ops[j].kind == RP_OP_KERNEL && !m->ops[j].comm;
			scale[q][j] = compute ? s : 1.0;
			*kernels += compute && q == slow;
		}
	}
	return scale;
}

/*
 * The split by whole layers (replay_layers.c) of every pipeline of the
 * run: target[q], each replayed rank's compute after it. Returns the move
 * of slow's pipeline in words, and *why its layers and per-layer compute
 * (new strings); NULL where a stage's layers are not found or no move
 * shortens its slowest stage, with *why saying which.
 */
static char *layer_plan(const struct table *t, struct rp_subject *sj, const long *row, const double *own,
			size_t slow, double *target, char **why)
{
	size_t n = sj->n;
	size_t *qs = xmalloc(n * sizeof(*qs));
	int64_t *L = xmalloc(n * sizeof(*L)), *split = xmalloc(n * sizeof(*split));
	double *c = xmalloc(n * sizeof(*c)), *a = xmalloc(n * sizeof(*a));
	char *move = NULL;
	int ok = 1;
	for (size_t q0 = 0; ok && q0 < n; q0++) {
		if (row[q0] < 0 || target[q0] > 0 || !(own[q0] > 0))
			continue;
		int64_t pipe = table_cell(t, (size_t)row[q0], PS_PIPELINE)->v.i;
		int64_t stages = table_cell(t, (size_t)row[q0], PS_STAGES)->v.i;
		/* the pipeline's replayed ranks by stage */
		size_t ns = 0;
		for (int64_t st = 0; st < stages; st++)
			for (size_t q = 0; q < n; q++)
				if (row[q] >= 0 && own[q] > 0 &&
				    table_cell(t, (size_t)row[q], PS_PIPELINE)->v.i == pipe &&
				    table_cell(t, (size_t)row[q], PS_STAGE)->v.i == st) {
					qs[ns++] = q;
					break;
				}
		if (ns != (size_t)stages || ns < 2) {
			free(*why);
			*why = xasprintf("pipeline %lld: not every stage replayed", (long long)pipe);
			ok = 0;
			break;
		}
		for (size_t s = 0; ok && s < ns; s++) {
			struct rp_layers ly;
			const struct cell *mc = table_cell(t, (size_t)row[qs[s]], PS_MICROBATCHES);
			if (!rp_layers_of(sj->m[qs[s]], mc->null ? 0 : mc->v.i, own[qs[s]], &ly)) {
				free(*why);
				*why = xasprintf("stage %zu (rank %d): %s", s, sj->m[qs[s]]->rank, ly.why);
				ok = 0;
				break;
			}
			L[s] = ly.layers;
			c[s] = ly.per_layer;
			a[s] = ly.fixed;
		}
		if (!ok)
			break;
		rp_layer_split(ns, L, c, a, split);
		int has_slow = 0, moved = 0;
		for (size_t s = 0; s < ns; s++) {
			target[qs[s]] = a[s] + (double)split[s] * c[s];
			has_slow |= qs[s] == slow;
			moved |= split[s] != L[s];
		}
		if (!has_slow)
			continue;
		char lay[512] = "";
		size_t w = 0;
		for (size_t s = 0; s < ns && w < sizeof(lay); s++)
			w += (size_t)snprintf(lay + w, sizeof(lay) - w, "%sstage %zu has %lld layers of %.2f ms and %.2f ms outside them",
					      s ? "; " : "", s, (long long)L[s], c[s] / 1e6, a[s] / 1e6);
		free(*why);
		*why = xstrdup(lay);
		if (!moved) {
			free(*why);
			*why = xasprintf("no move of whole layers shortens the slowest stage (%s)", lay);
			ok = 0;
			break;
		}
		move = rp_layer_move_words(ns, L, split);
	}
	if (!ok) {
		free(move);
		move = NULL;
	}
	free(qs);
	free(L);
	free(split);
	free(c);
	free(a);
	return move;
}

/*
 * pipeline_balance, once per run with pipeline stages whose ranks are
 * replayed together: where a pipeline's imbalance (pipeline_stages.csv:
 * its slowest stage's compute over the stages' mean) exceeds
 * PP_SPLIT_IMBALANCE, what moving whole layers between its stages gives:
 * each stage's layers found in its trace and the split that minimises the
 * slowest stage (replay_layers.c, layer_plan), every stage's kernels
 * outside communication replayed at their durations x its compute after
 * the move over its own; every pipeline of the run at once (data-parallel
 * replicas hold one split). The where names the move and states, as its
 * bound, the saving with every stage at the stages' mean compute, the most
 * moving layers could give. Where a stage's layers are not found, or no
 * move shortens the slowest stage, the row prices that mean instead and
 * where says why. The step is the ranks' joint replay: the stages wait
 * for each other through their sends and receives, and for their hosts,
 * so a pipeline whose step a host holds gains what the replay says, not
 * what the stages' compute alone would. Against the replay at f; noise
 * and statement as a rank's fixes. A row of the run (rank empty); where
 * names the slowest stage of the most uneven pipeline. Not where the
 * ranks' unchanged replay together is off the measured steps
 * (joint_trusted).
 */
void rp_add_pipe_balance(struct rp_ctx *x, const struct rank_key *k, struct rp_subject *sj, const double *flo)
{
	const struct table *t = result_table(x->res, "pipeline_stages");
	if (!sj->joint || !t || !joint_trusted(sj, x->base, x->alt))
		return;
	/* each replayed rank's stage row: its pipeline's mean compute over its own */
	double *own = xcalloc(sj->n, sizeof(*own)), *mean = xcalloc(sj->n, sizeof(*mean));
	long *row = xmalloc(sj->n * sizeof(*row));
	double worst = 0;
	long slow = -1;
	for (size_t q = 0; q < sj->n; q++) {
		row[q] = -1;
		for (size_t r = 0; r < t->nrows; r++) {
			const char *rr = table_text(t, r, PS_RUN);
			const struct cell *rk = table_cell(t, r, PS_RANK);
			if (rr && !strcmp(rr, k->run) && !rk->null && rk->v.i == sj->m[q]->rank) {
				row[q] = (long)r;
				break;
			}
		}
	}
	for (size_t q = 0; q < sj->n; q++) {
		const struct cell *c = row[q] >= 0 ? table_cell(t, (size_t)row[q], PS_COMPUTE_US) : NULL;
		if (!c || c->null || c->v.i <= 0)
			continue;
		own[q] = (double)c->v.i;
		int64_t pipe = table_cell(t, (size_t)row[q], PS_PIPELINE)->v.i;
		/* the pipeline's mean over its stages' rows (every stage, replayed or not) */
		double sum = 0;
		size_t n = 0;
		for (size_t r = 0; r < t->nrows; r++) {
			const char *rr = table_text(t, r, PS_RUN);
			const struct cell *p = table_cell(t, r, PS_PIPELINE), *cr = table_cell(t, r, PS_COMPUTE_US);
			if (rr && !strcmp(rr, k->run) && !p->null && p->v.i == pipe && !cr->null) {
				sum += (double)cr->v.i;
				n++;
			}
		}
		mean[q] = n ? sum / (double)n : 0;
		if (mean[q] > 0 && own[q] / mean[q] > worst) {
			worst = own[q] / mean[q];
			slow = (long)q;
		}
	}
	if (slow >= 0 && worst > PP_SPLIT_IMBALANCE) {
		double *target = xcalloc(sj->n, sizeof(*target));
		char *why = NULL, *move = layer_plan(t, sj, row, own, (size_t)slow, target, &why);
		const struct rp_model *m0 = sj->m[0];
		double step = rp_joint_mean(sj, sj->f, NULL, x->base), bound = NAN;
		size_t kernels = 0;
		double **scale = pipe_scale(sj, own, mean, (size_t)slow, &kernels);
		if (move) {
			/* the mean balance, the most moving layers could give: the bound the where states */
			bound = step - rp_joint_mean(sj, sj->f, scale, x->alt);
			for (size_t q = 0; q < sj->n; q++)
				free(scale[q]);
			free(scale);
			scale = pipe_scale(sj, own, target, (size_t)slow, &kernels);
		}
		rp_joint_mean(sj, sj->f, scale, x->alt);
		struct rp_savings v;
		if (kernels && rp_savings_of(x->base, x->alt, m0->nsteps, step, &v)) {
			double fast = rp_joint_mean(sj, flo, NULL, x->buf) - rp_joint_mean(sj, flo, scale, x->buf);
			struct fix_row fr = {k, 1, rp_mechanism_at(M_PIPE_BALANCE)->id,
					     (double)kernels / (double)sj->m[slow]->nsteps, step, v.without, v.saving,
					     v.smin, v.smax, v.noise, v.stated, 1, fast};
			const struct cell *st = table_cell(t, (size_t)row[slow], PS_STAGE),
					  *sts = table_cell(t, (size_t)row[slow], PS_STAGES);
			char *head = xasprintf("stage %lld of %lld (rank %d) computes %.2f ms per step, %.2fx its "
					       "pipeline's mean of %.2f ms",
					       (long long)st->v.i, (long long)sts->v.i, sj->m[slow]->rank, own[slow] / 1e6,
					       worst, mean[slow] / 1e6);
			char *where = move ? xasprintf("%s: %s, %.2f ms after the move; %s (per step); replayed with "
						       "every stage's kernels at its compute after the move over its own; "
						       "every stage at the mean, the most moving layers could give, would "
						       "save %.2f ms",
						       move, head, target[slow] / 1e6, why, bound / 1e6)
					   : xasprintf("%s; replayed with its kernels at %.2fx their durations and every "
						       "other stage's at its own mean over its compute, the most moving "
						       "layers could give (layers not found: %s)",
						       head, mean[slow] / own[slow], why ? why : "none");
			rp_add_fix_row(x->fixes, &fr, where);
			free(where);
			free(head);
		}
		for (size_t q = 0; q < sj->n; q++)
			free(scale[q]);
		free(scale);
		free(target);
		free(move);
		free(why);
	}
	free(own);
	free(mean);
	free(row);
}
