/*
 * replay.c: each rank's profiled steps replayed from their dependency
 * graph (replay.h), calibrated to the training log, and each fix priced by
 * replaying without its cause (issue #52).
 *
 * replay_steps.csv, per run, rank and profiled step: measured_us, the
 * step on the trace (the start of the first GPU activity launched in the
 * step to that of the next step; the last step to the end of its last
 * activity or call), and replayed_us, the replay of the unchanged graph
 * with the host as profiled (host factor 1).
 *
 * replay_calibration.csv, per run and rank with a training log whose
 * unprofiled iterations have a median (profiler_overhead.csv): the host
 * factor f that scales host time (the gaps between calls, but for the
 * stretches no operator covers, and each call's own cost) so that the
 * replay's mean step is the log's median. The replayed mean is
 * non-decreasing in f; the range of f that reproduces the log within
 * RP_F_TOL is found by bisection in [RP_F_MIN, 1] (the profiler does not
 * speed the host up; replay_calibrate.c, which `perfstudy whatif` shares),
 * and f is its top, the slowest host the log allows. A GPU-bound run's log
 * cannot tell the host's speed (the step is the GPU's whatever the host
 * does, below the top): its range runs down to RP_F_MIN. Without a log,
 * f = 1 (the profiled steps).
 *
 * replay_fixes.csv, per run, rank and mechanism found (the table
 * `mechanisms` in replay_mech.c, beside the rule that picks each one's
 * instances):
 * the replayed step at f, the step replayed with the mechanism's instances
 * removed as `removed` says, and the saving per step (mean over the
 * profiled steps, with the smallest and largest step's). A saving is
 * stated only where it exceeds the noise: twice the standard error of the
 * saving (its step-to-step spread over the square root of the steps: the
 * same steps replayed with and without the cause, paired) and
 * RP_SAVING_MIN of the step; with fewer than 3 steps, where no spread can
 * be told, each step's saving must exceed RP_SAVING_MIN of the step.
 * Where the log leaves the host's speed open (host_factor_lo below f) a
 * fix is also stated where that rule holds at the range's bottom and its
 * saving at the top exceeds RP_SAVING_MIN of the step: at the top a step
 * can turn host-bound without the cause, a spread the fast host's steps do
 * not have, and the log allows both ends.
 * saving_fast_host_us: the same saving with the host at the bottom of the
 * range of f the log allows (host_factor_lo). Over that range the step
 * with the cause reproduces the log (within RP_F_TOL) while the step
 * without it can only shorten with a faster host: where the run is
 * GPU-bound (the range runs down to RP_F_MIN, the step is the GPU's floor
 * all along it) the stated saving, at the top, is the least the log
 * allows and saving_fast_host_us the most; where the log pins f the two
 * differ by at most 2 RP_F_TOL of the step.
 * extra_gpu_work compares a run with its reference run, another run of
 * the same configuration (replay_extra.c says which, and which kernels).
 * gpu_like_median and host_like_median compare a rank with the other ranks
 * replayed with it; not in a run with pipeline stages (pipeline_stages.csv),
 * whose stages run different layers, so that "like the others" is no fix.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/replay/replay.h"
#include "analyze/replay/replay_mech.h"
#include "analyze/lib/stats.h"
#include "analyze/replay/replay_int.h"
#include "analyze/replay/replay_nccl_path.h"
#include "analyze/time/profiler_overhead.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include "analyze/pipeline/pipeline_tables.h"
#include "analyze/ranks/ranks_tables.h"

#define RP_JOINT_PRICED 4  /* of a run replayed together, the ranks whose fixes are priced: the latest ones */

/* A rank's stated fixes that remove instances, each with its masks (saving_all_causes_us, saving_same_place_us). */
struct fix_union {
	size_t rows[NMECH]; /* their rows in replay_fixes (a mechanism gives a rank one row at most) */
	unsigned char *gap[NMECH], *wait[NMECH], *drop[NMECH];
	size_t nrows;
};

/* ORs n flags of b into a (b NULL: none). */
static void or_into(unsigned char *a, const unsigned char *b, size_t n)
{
	for (size_t i = 0; b && i < n; i++)
		a[i] |= b[i];
}

/* The same rank of k's reference run (extra_gpu_work) and, in *ref, that run's row; NULL where it has none. */
static const struct rank_key *reference_of(const struct rp_ctx *x, const struct rank_key *k, const struct rp_ref **ref)
{
	for (size_t i = 0; i < x->nrefs; i++) {
		if (x->refs[i].run_db_id != k->run_db_id || x->refs[i].ref_db_id < 0)
			continue;
		for (size_t j = 0; j < x->nkeys; j++)
			if (x->keys[j].run_db_id == x->refs[i].ref_db_id && x->keys[j].rank == k->rank) {
				*ref = &x->refs[i];
				return &x->keys[j];
			}
	}
	return NULL;
}

/* Whether run has pipeline stages (pipeline_stages.csv rows). */
static int run_is_pipeline(const struct analysis_result *res, const char *run)
{
	const struct table *t = result_table(res, "pipeline_stages");
	int crun = t ? PS_RUN : -1;
	for (size_t r = 0; crun >= 0 && r < t->nrows; r++) {
		const char *rr = table_text(t, r, crun);
		if (rr && !strcmp(rr, run))
			return 1;
	}
	return 0;
}

/*
 * The savings of change c on rank r of sj with every rank's host factor
 * from flo instead (c's own factor times flo[r] / sj->f[r]) into *v, by
 * rp_savings_of (its noise rule too); 0 where no step replayed.
 */
static size_t savings_at(struct rp_ctx *x, const struct rp_subject *sj, size_t r, const struct rp_change *c,
			 const double *flo, double mean, struct rp_savings *v)
{
	const struct rp_model *m = sj->m[r];
	struct rp_subject sl = *sj;
	sl.f = flo;
	struct rp_change cl = *c;
	cl.host_factor = c->host_factor * flo[r] / sj->f[r];
	int64_t *alt = xmalloc((m->nsteps ? m->nsteps : 1) * sizeof(*alt));
	rp_subject_replay(&sl, r, NULL, x->buf);
	rp_subject_replay(&sl, r, &cl, alt);
	size_t n = rp_savings_of(x->buf, alt, m->nsteps, mean, v);
	free(alt);
	return n;
}

/*
 * Rank r's steps replayed with the fixes of u that pick marks removed at
 * once, where they are two or more: the saving set in column col of each
 * of their rows.
 */
static void price_together(struct rp_ctx *x, struct rp_subject *sj, size_t r, const struct fix_union *u,
			   const unsigned char *pick, int col, double mean)
{
	const struct rp_model *m = sj->m[r];
	size_t n = 0;
	for (size_t i = 0; i < u->nrows; i++)
		n += pick[i];
	if (n < 2)
		return;
	unsigned char *gap = xcalloc(m->ncalls + 1, 1), *wait = xcalloc(m->ncalls + 1, 1),
		      *drop = xcalloc(m->nops + 1, 1);
	for (size_t i = 0; i < u->nrows; i++)
		if (pick[i]) {
			or_into(gap, u->gap[i], m->ncalls);
			or_into(wait, u->wait[i], m->ncalls);
			or_into(drop, u->drop[i], m->nops);
		}
	struct rp_change c = {.host_factor = sj->f[r], .no_gap = gap, .no_wait = wait, .drop_op = drop};
	rp_subject_replay(sj, r, &c, x->alt);
	struct rp_savings v;
	if (rp_savings_of(x->base, x->alt, m->nsteps, mean, &v))
		for (size_t i = 0; i < u->nrows; i++)
			if (pick[i])
				table_set_ns(x->fixes, u->rows[i], col, llround(v.saving));
	free(gap);
	free(wait);
	free(drop);
}

/*
 * saving_all_causes_us of the rows u holds (rank r's stated fixes that
 * remove instances): where there are two or more, the saving with all of
 * them removed in one replay (their savings overlap: each alone counts the
 * time the others' removal would also give back), set on each; else null.
 */
static void all_causes(struct rp_ctx *x, struct rp_subject *sj, size_t r, const struct fix_union *u, double mean)
{
	unsigned char all[NMECH];
	memset(all, 1, sizeof(all));
	price_together(x, sj, r, u, all, RF_SAVING_ALL_CAUSES_US, mean);
}

/*
 * Whether a replay_fixes where names a phase of the step (a host
 * annotation's range, or after one): not "outside every annotation", not
 * another run's ("against ..."), not empty.
 */
static int where_is_phase(const char *w)
{
	return w && *w && strcmp(w, "outside every annotation") && strncmp(w, "against ", 8);
}

/*
 * saving_same_place_us of the rows u holds: where two or more of them lie
 * in the same phase of the step (the same where), the saving with all of
 * those removed in one replay, set on each; else null. A wait and the host
 * work after it are one cause where they meet: `.item()` and the Python
 * after it. Removing the host work alone still waits for the GPU to drain;
 * removing the wait alone still runs that host work with the GPU idle once
 * the queue empties; only both let the host run ahead again.
 */
static void same_place(struct rp_ctx *x, struct rp_subject *sj, size_t r, const struct fix_union *u, double mean)
{
	unsigned char done[NMECH] = {0};
	for (size_t i = 0; i < u->nrows; i++) {
		const char *w = table_text(x->fixes, u->rows[i], RF_WHERE);
		if (done[i] || !where_is_phase(w))
			continue;
		unsigned char pick[NMECH] = {0};
		for (size_t j = i; j < u->nrows; j++) {
			const char *wj = table_text(x->fixes, u->rows[j], RF_WHERE);
			pick[j] = !done[j] && wj && !strcmp(w, wj);
			done[j] |= pick[j];
		}
		price_together(x, sj, r, u, pick, RF_SAVING_SAME_PLACE_US, mean);
	}
}

/*
 * Prices every mechanism of rank r (of s) by replaying without it, into
 * replay_fixes.csv; flo: each rank's host factor at the bottom of the
 * range its log allows (saving_fast_host_us).
 */
static void add_fixes(struct rp_ctx *x, const struct rank_key *k, struct rp_subject *sj, size_t r, const double *flo)
{
	const struct rp_model *m = sj->m[r];
	double f = sj->f[r];
	struct rank_data d;
	int have_d = rank_data_load(x->a->store, k, x->a->cls, &d) == 0;
	rp_subject_replay(sj, r, NULL, x->base);
	size_t n = 0;
	double sum = 0;
	for (size_t s = 0; s < m->nsteps; s++)
		if (x->base[s] >= 0) {
			sum += (double)x->base[s];
			n++;
		}
	if (!n)
		goto out;
	double mean = sum / (double)n;
	/* a pipeline's stages run different layers: "like the other ranks" is no fix there */
	int pipe = run_is_pipeline(x->res, k->run);
	struct fix_union u = {{0}, {NULL}, {NULL}, {NULL}, 0};
	for (int id = 0; id < NMECH; id++) {
		if (((id == M_GPU_MEDIAN || id == M_HOST_MEDIAN) && (!sj->joint || pipe)) || id == M_NCCL_PATH || id == M_PIPE_BALANCE)
			continue; /* nccl_path, pipeline_balance: the run's, replay_run.c */
		double host_scale = 1.0;
		if (id == M_HOST_MEDIAN) {
			/* the median of the other ranks' host work over this rank's; only a rank with more */
			double *w = xmalloc(sj->n * sizeof(*w)), mine = rp_host_work(m);
			size_t nw = 0;
			for (size_t q = 0; q < sj->n; q++)
				if (q != r)
					w[nw++] = rp_host_work(sj->m[q]);
			qsort(w, nw, sizeof(*w), stats_cmp_double);
			double med = nw ? (nw % 2 ? w[nw / 2] : (w[nw / 2 - 1] + w[nw / 2]) / 2) : mine;
			free(w);
			if (!(mine > 0) || med >= mine)
				continue;
			host_scale = med / mine;
		}
		const struct rp_ref *ref = NULL;
		const struct rank_key *refk = id == M_EXTRA ? reference_of(x, k, &ref) : NULL;
		if (id == M_EXTRA && !refk)
			continue;
		struct rp_fix fx = {xcalloc(m->ncalls + 1, 1), xcalloc(m->ncalls + 1, 1), xcalloc(m->nops + 1, 1), 0, 0, 0, 0};
		double *scale = NULL;
		char *what = NULL; /* extra_gpu_work: its largest key in words */
		if (id == M_EXTRA) {
			struct rp_extra_where ew;
			fx.instances = rp_extra_pick(x->a->store, k, m, refk, ref->unknown, fx.drop_op, &ew);
			fx.where_t = ew.t;
			if (fx.instances)
				what = rp_extra_words(x->a->store, &ew);
		} else if (id == M_GPU_MEDIAN) {
			scale = xmalloc((m->nops + 1) * sizeof(*scale));
			rp_joint_median(sj->joint, r, scale);
			/* instances: the kernels it changes; where: the one whose time changes most */
			double most = 0;
			for (size_t j = 0; j < m->nops; j++)
				if (scale[j] != 1.0) {
					fx.instances++;
					double dt = (1.0 - scale[j]) * (double)m->ops[j].dur;
					if (dt > most) {
						most = dt;
						fx.where_t = m->ops[j].call >= 0 ? m->calls[m->ops[j].call].start : m->ops[j].start;
					}
				}
		} else if (id == M_HOST_MEDIAN) {
			fx.instances = m->nsteps; /* once per step: the whole of its host time */
			fx.where_t = m->ncalls ? m->calls[0].start : 0;
		} else {
			rp_pick(m, id, &fx);
		}
		if (fx.instances) {
			struct rp_change c = {.host_factor = f * host_scale, .no_gap = fx.no_gap, .no_wait = fx.no_wait,
					      .drop_op = fx.drop_op, .op_scale = scale};
			rp_subject_replay(sj, r, &c, x->alt);
			struct rp_savings v;
			if (rp_savings_of(x->base, x->alt, m->nsteps, mean, &v)) {
				double saving = v.saving;
				/* a rank no slower than the others: evening it out saves nothing, and is not listed */
				if (!((id == M_GPU_MEDIAN || id == M_HOST_MEDIAN) && saving <= 0)) {
					int differ = 0;
					for (size_t q = 0; q < sj->n; q++)
						differ |= flo[q] != sj->f[q];
					/*
					 * Where the log leaves the host's speed open, the cause is
					 * told from the noise anywhere in the range it allows: at
					 * the top a step can turn host-bound without the cause and
					 * widen the spread that the fast host's steps do not have.
					 * The saving stated stays the top's, the least the log
					 * allows, and must pass the floor (RP_SAVING_MIN) there.
					 */
					struct rp_savings vlo = v;
					if (differ && !savings_at(x, sj, r, &c, flo, mean, &vlo))
						vlo = v;
					int stated = v.stated || (vlo.stated && saving > RP_SAVING_MIN * mean);
					struct fix_row fr = {k, 0, rp_mechanism_at(id)->id,
							     (double)fx.instances / (double)m->nsteps, mean,
							     v.without, saving, v.smin, v.smax, v.noise, stated,
							     sj->joint != NULL, vlo.saving};
					char *where = have_d ? rp_where_at(x->a->store, &d, fx.where_t) : xstrdup("");
					if (what) {
						/* which run it was compared with, and the work that takes the most time */
						int in = strncmp(where, "after ", 6) && strncmp(where, "outside ", 8);
						char *w = xasprintf("against %s, %s: %s %s%s", ref->ref_run,
								    ref->named ? "its reference in compare"
									       : "the fastest run of its configuration",
								    what, in ? "in " : "", where);
						free(where);
						where = w;
					}
					rp_add_fix_row(x->fixes, &fr, where);
					free(where);
					size_t row = x->fixes->nrows - 1;
					if (id == M_HOST_GAP)
						table_set_ns(x->fixes, row, RF_GAP_US_PER_STEP,
							     llround((double)fx.removed / (double)m->nsteps));
					/* removed by masks alone (not the rank made like the others): into the union */
					if (stated && saving > 0 && !scale && host_scale == 1.0) {
						/* its masks move into u */
						u.gap[u.nrows] = fx.no_gap;
						u.wait[u.nrows] = fx.no_wait;
						u.drop[u.nrows] = fx.drop_op;
						fx.no_gap = fx.no_wait = fx.drop_op = NULL;
						u.rows[u.nrows++] = row;
					}
				}
			}
		}
		free(scale);
		free(what);
		free(fx.no_gap);
		free(fx.no_wait);
		free(fx.drop_op);
	}
	all_causes(x, sj, r, &u, mean);
	same_place(x, sj, r, &u, mean);
	for (size_t i = 0; i < u.nrows; i++) {
		free(u.gap[i]);
		free(u.wait[i]);
		free(u.drop[i]);
	}
out:
	if (have_d)
		rank_data_release(&d);
}

/* The calibration's columns of replay_calibration.csv row r. */
static void cal_row(struct rp_ctx *x, size_t r, int64_t median, int64_t samples, double f, double lo, double hi,
		    double at)
{
	table_set_ns(x->cal, r, 4, median);
	table_set_int(x->cal, r, 5, samples);
	table_set_real(x->cal, r, 6, f);
	const char *basis;
	if (lo < 0) {
		table_set_real(x->cal, r, 7, RP_F_MIN);
		table_set_real(x->cal, r, 8, -lo);
		basis = "GPU-bound: even the fastest host replays longer than the log (the GPU's floor); the host "
			"factor is the largest that keeps that floor, the slowest host the log allows";
	} else if (hi > 0) {
		table_set_real(x->cal, r, 7, lo);
		table_set_real(x->cal, r, 8, hi);
		basis = lo <= RP_F_MIN ? "GPU-bound: every host factor up to the top reproduces the log (host slack): "
					 "the top, the slowest host the log allows"
				       : "fitted to the log: the top of the range that reproduces it";
	} else {
		basis = "no host factor up to 1 reproduces the log: 1";
	}
	table_set_ns(x->cal, r, 9, llround(at));
	table_set_real(x->cal, r, 10, (at - (double)median) / (double)median);
	table_set_text(x->cal, r, 11, basis);
}

/*
 * Writes the replay_steps.csv and replay_calibration.csv rows of rank k,
 * whose model is *mp, and sets *fp to its host factor: calibrated to the
 * log where the rank is replayed alone, else left to the run's row, and
 * *flop to the bottom of the range of host factors the log allows (f
 * where it allows none but f).
 * Returns 1 where a step was replayed, else 0.
 */
static int one_rank(const struct rank_key *k, struct rp_ctx *x, int alone, struct rp_model *mp, double *fp, double *flop)
{
	struct rp_model m = *mp;
	if (m.nsteps > x->cap) {
		x->cap = m.nsteps;
		x->buf = xrealloc(x->buf, x->cap * sizeof(*x->buf));
		x->base = xrealloc(x->base, x->cap * sizeof(*x->base));
		x->alt = xrealloc(x->alt, x->cap * sizeof(*x->alt));
	}
	/* the profiled steps, replayed as profiled */
	struct rp_change same = {.host_factor = 1.0};
	rp_measured(&m, x->base, NULL);
	rp_replay(&m, &same, x->alt);
	double replayed_sum = 0;
	size_t nrep = 0;
	for (size_t s = 0; s < m.nsteps; s++) {
		if (x->base[s] < 0 || x->alt[s] < 0)
			continue;
		size_t r = table_add_row(x->steps);
		table_set_text(x->steps, r, 0, k->run);
		table_set_int(x->steps, r, 1, k->rank);
		table_set_int(x->steps, r, 2, m.steps[s].number);
		table_set_ns(x->steps, r, 3, x->base[s]);
		table_set_ns(x->steps, r, 4, x->alt[s]);
		table_set_real(x->steps, r, 5, x->base[s] ? (double)(x->alt[s] - x->base[s]) / (double)x->base[s] : 0);
		replayed_sum += (double)x->alt[s];
		nrep++;
	}
	/* calibrated to the training log's unprofiled iterations */
	double f = 1.0, lo = 0, hi = 0;
	int64_t median = profiler_unprofiled_ns(x->res, k->run);
	size_t r = table_add_row(x->cal);
	table_set_text(x->cal, r, 0, k->run);
	table_set_int(x->cal, r, 1, k->rank);
	table_set_int(x->cal, r, 2, (int64_t)nrep);
	if (nrep)
		table_set_ns(x->cal, r, 3, llround(replayed_sum / (double)nrep));
	if (!alone) {
		table_set_text(x->cal, r, 11, "replayed with the run's other ranks, their collectives joined: the run's row");
	} else if (median > 0 && nrep) {
		const struct rp_model *one = &m;
		double f1 = 1.0;
		struct rp_change ch;
		struct rp_subject sj = {&one, 1, NULL, &f1, &ch};
		f = rp_calibrate(&sj, (double)median, x->buf, &lo, &hi);
		double at = rp_subject_mean(&sj, f, x->buf);
		cal_row(x, r, median, profiler_unprofiled_count(x->res, k->run), f, lo, hi, at);
	} else {
		table_set_real(x->cal, r, 6, 1.0);
		table_set_text(x->cal, r, 11, "no training log with unprofiled iterations: the host as profiled");
	}
	table_set_int(x->cal, r, 12, m.queue);
	*fp = f;
	*flop = rp_factor_lo(f, lo, hi);
	return nrep > 0;
}

/* one_run's note on a run without a training log's unprofiled iterations. */
static void no_log_note(struct rp_ctx *x, const char *run)
{
	result_add_note(x->out,
			"%s: no training log with unprofiled iterations was given or found beside the traces (a run "
			"directory's *.log): the replay prices fixes on the profiled steps, with the host as the "
			"profiler slowed it (replay_calibration.csv)",
			run);
}

/*
 * A run of more than RP_JOINT_MAX ranks, each replayed alone: one rank's
 * model at a time, loaded, calibrated, priced and freed, so that memory
 * does not grow with the ranks (a model holds every activity of its
 * window); the same rows in the same order as one_run's.
 */
static int one_run_alone(const struct rank_key *keys, size_t n, struct rp_ctx *x)
{
	size_t have = 0;
	int ret = 0;
	for (size_t i = 0; i < n && ret == 0; i++) {
		struct rp_model m;
		if (rp_model_load(x->a->store, &keys[i], &m) < 0) {
			ret = -1;
			break;
		}
		if (m.nsteps) {
			have++;
			double f = 0, flo = 0;
			if (one_rank(&keys[i], x, 1, &m, &f, &flo)) {
				x->ranks_replayed++;
				const struct rp_model *mp = &m;
				struct rp_change ch;
				memset(&ch, 0, sizeof(ch));
				struct rp_subject sj = {&mp, 1, NULL, &f, &ch};
				add_fixes(x, &keys[i], &sj, 0, &flo);
			}
		}
		rp_model_release(&m);
	}
	if (ret == 0 && have && profiler_unprofiled_ns(x->res, keys[0].run) <= 0)
		no_log_note(x, keys[0].run);
	return ret;
}

/*
 * The ranks keys[0..n) of one run: each replayed and calibrated, then the
 * fixes priced, with the ranks replayed together where their collectives
 * match (at most RP_JOINT_MAX ranks), else each alone.
 */
static int one_run(const struct rank_key *keys, size_t n, struct rp_ctx *x)
{
	if (n > RP_JOINT_MAX)
		return one_run_alone(keys, n, x);
	struct rp_model *m = xcalloc(n, sizeof(*m));
	const struct rp_model **mp = xcalloc(n, sizeof(*mp));
	const struct rank_key **kp = xcalloc(n, sizeof(*kp));
	double *f = xcalloc(n, sizeof(*f)), *flo = xcalloc(n, sizeof(*flo));
	size_t have = 0;
	int ret = 0;
	for (size_t i = 0; i < n && ret == 0; i++) {
		if (rp_model_load(x->a->store, &keys[i], &m[have]) < 0) {
			ret = -1;
		} else if (!m[have].nsteps) {
			rp_model_release(&m[have]);
		} else {
			mp[have] = &m[have];
			kp[have] = &keys[i];
			have++;
		}
	}
	/* the ranks together where their collectives match (sends and receives by peer), at most RP_JOINT_MAX */
	struct rp_joint *joint = ret == 0 && have > 1 && have <= RP_JOINT_MAX ? rp_joint_new(mp, have) : NULL;
	size_t used = 0;
	for (size_t i = 0; ret == 0 && i < have; i++) {
		if (one_rank(kp[i], x, !joint, &m[i], &f[i], &flo[i]))
			used++;
		else if (!joint)
			mp[i] = NULL; /* no step replayed: no fixes */
	}
	x->ranks_replayed += used;
	struct rp_change *ch = xcalloc(have ? have : 1, sizeof(*ch));
	int64_t median = profiler_unprofiled_ns(x->res, keys[0].run);
	if (have && median <= 0)
		no_log_note(x, keys[0].run);
	if (joint && median > 0) {
		/* one host factor for the run: the ranks' replay together against the one log */
		struct rp_subject sj = {mp, have, joint, f, ch};
		double lo, hi, fj = rp_calibrate(&sj, (double)median, x->buf, &lo, &hi);
		double at = rp_subject_mean(&sj, fj, x->buf);
		for (size_t i = 0; i < have; i++) {
			f[i] = fj;
			flo[i] = rp_factor_lo(fj, lo, hi);
		}
		size_t r = table_add_row(x->cal);
		table_set_text(x->cal, r, 0, keys[0].run);
		table_set_int(x->cal, r, 2, (int64_t)m[0].nsteps);
		cal_row(x, r, median, profiler_unprofiled_count(x->res, keys[0].run), fj, lo, hi, at);
		table_set_text(x->cal, r, 11, "the run's ranks replayed together, their collectives joined: one host factor");
	}
	/*
	 * Priced: every rank replayed alone; of ranks replayed together, the
	 * RP_JOINT_PRICED that started last at the most collectives (a rank the
	 * others never waited for cannot shorten the job's step), so that the
	 * work grows with the ranks, not with their square.
	 */
	size_t *latest = xcalloc(have ? have : 1, sizeof(*latest));
	if (joint)
		rp_joint_latest(joint, latest);
	for (size_t i = 0; ret == 0 && i < have; i++) {
		if (!mp[i])
			continue;
		if (joint) {
			size_t above = 0;
			for (size_t q = 0; q < have; q++)
				above += latest[q] > latest[i] || (latest[q] == latest[i] && q < i);
			if (!latest[i] || above >= RP_JOINT_PRICED)
				continue;
		}
		struct rp_subject sj = {joint ? mp : &mp[i], joint ? have : 1, joint, joint ? f : &f[i], ch};
		add_fixes(x, kp[i], &sj, joint ? i : 0, joint ? flo : &flo[i]);
	}
	if (ret == 0 && joint) {
		struct rp_subject sj = {mp, have, joint, f, ch};
		rp_add_nccl_path(x, kp[0], &sj, flo);
		rp_add_pipe_balance(x, kp[0], &sj, flo);
	}
	free(latest);
	free(ch);
	rp_joint_free(joint);
	for (size_t i = 0; i < have; i++)
		rp_model_release(&m[i]);
	free(m);
	free(mp);
	free(kp);
	free(f);
	free(flo);
	return ret;
}

static int analysis_replay(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct rank_key *keys = NULL;
	size_t nkeys = 0;
	if (rank_keys(ctx->store, ctx->experiment, &keys, &nkeys) < 0)
		return -1;
	struct rp_ctx x = {.a = ctx, .keys = keys, .nkeys = nkeys, .res = out, .out = out};
	if (rp_references(ctx->store, ctx->experiment, ctx->manifest, out, keys, nkeys, &x.refs, &x.nrefs) < 0) {
		rank_keys_free(keys, nkeys);
		return -1;
	}
	x.steps = table_new("replay_steps", "Each profiled step measured and replayed from its dependency graph",
			    TABLE_SCHEMA(REPLAY_STEPS_COLUMNS));
	x.cal = table_new("replay_calibration",
			  "The replay calibrated to the training log's unprofiled iterations (host factor)",
			  TABLE_SCHEMA(REPLAY_CALIBRATION_COLUMNS));
	x.fixes = table_new("replay_fixes", "What each fix saves per step, from the replay without its cause",
			    TABLE_SCHEMA(REPLAY_FIXES_COLUMNS));
	int ret = 0;
	for (size_t i = 0, j; i < nkeys && ret == 0; i = j) {
		for (j = i + 1; j < nkeys && keys[j].run_db_id == keys[i].run_db_id;)
			j++;
		ret = one_run(&keys[i], j - i, &x);
	}
	free(x.buf);
	free(x.base);
	free(x.alt);
	rp_references_free(x.refs, x.nrefs);
	rank_keys_free(keys, nkeys);
	if (ret < 0 || !x.ranks_replayed) {
		table_free(x.steps);
		table_free(x.cal);
		table_free(x.fixes);
		return ret;
	}
	result_add_table(out, x.steps);
	result_add_table(out, x.cal);
	result_add_table(out, x.fixes);
	struct buf b;
	buf_init(&b);
	buf_printf(&b,
		   "Each rank's profiled steps are rebuilt as a graph and simulated. The host runs its CUDA runtime "
		   "calls in order (every thread that launches GPU work, merged: the autograd thread launches the "
		   "backward pass while the main thread waits), with the measured host time between calls, from the "
		   "first step's start; a launch waits for a free slot of the launch queue (the depth the trace shows "
		   "it blocking at, else %d pending operations), and its GPU activity is ready when it returns. An "
		   "activity starts once it is ready and its stream's previous activity ended, and, where it started "
		   "more than 5 us after both, once the activity of another stream that ended last before it ended "
		   "(an event wait, inferred). A call that can wait (a synchronize, a copy, a free or allocation, the "
		   "synchronous memset) of 20 us or more waited for its own copy where that ended within 50 us of the "
		   "call's end (a pageable copy), else for the GPU activity that ended during it within 50 us of its "
		   "end (a synchronize: the last that ended during it, however late it woke): replayed, it returns "
		   "when that activity ends. GPU work queued before the window keeps its measured start. What is left "
		   "of each measured time is kept, so the unchanged graph replays the measured step (measured_us, "
		   "replayed_us). A step runs from the start of the first GPU activity launched in it to that of the "
		   "next step (the last step: to the end of its last activity or call). The ranks of a run of at most "
		   "%d ranks whose collective kernels match are replayed together, their collectives joined in "
		   "groups: a send or receive whose peer the trace records (collectives.peer) with its peer's, the "
		   "k-th send of rank a to rank b with the k-th receive of b from a (and the k-th fused sendrecv of a "
		   "with b with the k-th of b with a), in start order, so that a pipeline's stages are joined whatever "
		   "their schedule and however many neighbours each has; every other collective kernel, the i-th of "
		   "every rank among them, as one of all ranks. A group's transfer starts when its last member's "
		   "kernel starts and takes the measured wait-free time (median over its members of their end minus "
		   "the last start); the job's step runs from the earliest start of a step on any rank to the earliest "
		   "of the next. Where the peers do not pair up or are not recorded, every collective kernel is joined "
		   "by order, the i-th of every rank as one (a two-stage pipeline's sends and receives so pair in "
		   "GPipe's order but not always in 1F1B's), and ranks whose counts then differ are replayed rank by "
		   "rank. Not modelled: host threads waiting for each other outside the merged order, GPU contention "
		   "(each activity keeps its measured duration, whatever runs beside it), and clocks of different "
		   "hosts. The fixes that compare a rank with the other ranks "
		   "(gpu_like_median, host_like_median) are not priced in a run with pipeline stages "
		   "(pipeline_stages.csv): its stages run different layers.",
		   RP_QUEUE_DEFAULT, RP_JOINT_MAX);
	result_add_method(out, "replay_steps.csv", b.data);
	buf_reset(&b);
	buf_printf(&b,
		   "The profiler slows the host. The host factor f scales the host time between calls and each "
		   "call's own cost, but not stretches of %d ms or more that no operator covers on any thread (a "
		   "sleep, Python work the profiler does not slow). host_factor_lo and host_factor_hi: the range of f "
		   "in [%.1f, 1] whose replayed mean step equals the median of the training log's unprofiled "
		   "iterations within %.0f %% (the replay is non-decreasing in f; found by bisection); f is its top, "
		   "the slowest host the log allows. Where the run is host-bound the range is narrow: the log pins "
		   "f. Where it is GPU-bound the step is the GPU's whatever the host's speed below the top, so the "
		   "log cannot tell the host's speed and the range runs down to %.1f (GPU-bound: where even the "
		   "fastest host replays longer than the log, the range of f that keeps the replay within %.0f %% "
		   "of that floor). No usual factor is assumed inside the range: a fix is priced at its top, where "
		   "the saving is the least the log allows, and at its bottom (replay_fixes.csv "
		   "saving_fast_host_us). error: the replay at f against the log's median.",
		   RP_UNRECORDED_NS / 1000000, RP_F_MIN, RP_F_TOL * 100, RP_F_MIN, RP_F_TOL * 100);
	result_add_method(out, "replay_calibration.csv", b.data);
	buf_reset(&b);
	buf_printf(&b,
		   "A fix's saving is the replayed step at the calibrated host factor minus the step replayed with "
		   "the mechanism's instances removed (per step, mean over the profiled steps; min and max of the "
		   "steps), with the run's ranks together (replayed = together) where they are replayed together, "
		   "else the rank alone (of ranks replayed together, the %d that started last at the most "
		   "collectives are priced: one the others never waited for cannot shorten the job's step); "
		   "the mechanisms of a rank against the other ranks (gpu_like_median, host_like_median) are listed "
		   "only where they save something. Stated (stated = 1) only where it exceeds the noise: twice the "
		   "saving's standard error (the per-step savings' spread over the square root of the steps; each "
		   "step replayed with and without the cause) and %.0f %% of the step; with fewer than 3 profiled "
		   "steps, where no spread can be told, every step's saving must exceed %.0f %% of the step. Where the "
		   "log leaves the host's speed open (host_factor_lo below the host factor), a fix is also stated "
		   "where that rule holds with the host at the range's bottom and its saving at the top exceeds %.0f %% "
		   "of the step: at the top a step can turn host-bound without the cause, a spread the fast host's "
		   "steps do not have, and the log allows both. "
		   "saving_fast_host_us: the same saving with every rank's host at the bottom of the range of host "
		   "factors its log allows (replay_calibration.csv host_factor_lo): over that range the step with "
		   "the cause reproduces the log while the step without it can only shorten with a faster host. "
		   "Where the run is GPU-bound (the range runs down to %.1f: the step is the GPU's all along it) "
		   "saving_us_per_step, at the range's top, is the least the log allows and saving_fast_host_us "
		   "the most; where the log pins the factor they differ by at most %.0f %% of the step. "
		   "saving_all_causes_us: where a rank has two or more stated fixes that remove instances (not "
		   "gpu_like_median or host_like_median, which make the rank like the others), the saving with all "
		   "of them removed in one replay, on each of them; their own savings overlap (each alone counts time "
		   "that removing another would also give back) and do not add. "
		   "saving_same_place_us: where two or more of those lie in the same phase of the step (the same "
		   "where, a host annotation's range or after one), the saving with those removed in one replay, on "
		   "each of them: a wait and the host work after it are one cause (`.item()` and the Python after "
		   "it: without the host work the host still waits for the GPU to drain, without the wait it still "
		   "works with the GPU idle once the queue is empty), and the finding states that saving, with each "
		   "part's own beside it. "
		   "gap_us_per_step: host_gap's only, the host time it takes out per step (the stretches of 1 ms or "
		   "more that no recorded operator on any thread covers); the rest of the host time outside every "
		   "operator (critical_path.csv host_outside_ops_us) stays. "
		   "Mechanisms and how each is removed:",
		   RP_JOINT_PRICED, 100 * RP_SAVING_MIN, 100 * RP_SAVING_MIN, 100 * RP_SAVING_MIN, RP_F_MIN,
		   200 * RP_F_TOL);
	for (int i = 0; i < NMECH; i++)
		buf_printf(&b, " %s, %s: %s (fix: %s);", rp_mechanism_at(i)->id, rp_mechanism_at(i)->what, rp_mechanism_at(i)->removed,
			   rp_mechanism_at(i)->fix);
	buf_printf(&b,
		 " extra_gpu_work's reference run: the run the manifest's compare pairs with it as the reference "
		 "([reference, run]) where that has the same configuration (gpus, batch, strategy, model, and the "
		 "manifest's parallelism, micro-batches, ZeRO stage, recomputation and precision; where neither run "
		 "gives a value, the traces decide: the run must make, in every profiled step, each operator call "
		 "(name and input shapes) the reference makes per step, as many times, else nothing is priced), "
		 "else the run of "
		 "the same configuration with the smallest step (the training logs' unprofiled medians where every "
		 "run of the configuration has one, else the first rank's profiled step on the trace; ties: the "
		 "earlier run), which itself has no reference, nor has a run compare names only as a reference; "
		 "where names it. The extra work is counted in host operator calls: each kernel (collectives "
		 "aside) belongs to the call of the outermost operator of its thread around its launch, keyed by "
		 "the operator's name and input shapes where recorded (a kernel without an operator: its own call, "
		 "keyed by the kernel's name); the reference's count of a key per step is the median over its "
		 "profiled steps; in each step of the run the latest launched calls beyond it are extra, but as "
		 "many of an operator as the step lacks of the reference's calls of it on other shapes (the same "
		 "work on other shapes, not extra work); the kernels of the extra calls are dropped, and where "
		 "names the key whose extra kernels take the most time. nccl_path is a run's (rank empty), priced "
		 "only where its ranks are replayed together and the nccl-path finding's rule holds (findings.csv "
		 "says it), with every rank's collective kernels changed at once: their transfer times scaled by the "
		 "run's measured bus bandwidth (collective_busbw.csv, its AllReduce, else the collective type with "
		 "the most bytes) over the one NCCL reaches over NVLink, the largest the same collective measured "
		 "over NVLink in another run of the experiment, else, from a bundled run on the same GPU, %.0f %% of "
		 "the links' NV# x per-link GB/s on H200 (what NCCL's AllReduce reached over NV18 on 2 x H200 in the "
		 "bundled tp2-p2p run) or %.0f %% on H100 (2 x H100, NV18, the gpt2-2gpu-ddp run of h100x4-papers), "
		 "else none: not priced, the finding says so; where says which. "
		 "It keeps the other kernels' durations as measured: the compute that NCCL's long kernels slowed "
		 "beside them stays slowed, so the saving is a floor.",
		   100 * NCCL_NVLINK_REACH, 100 * NCCL_NVLINK_REACH_H100);
	result_add_method(out, "replay_fixes.csv", b.data);
	buf_release(&b);
	return 0;
}

const struct analysis_def analysis_def_replay = {
	.name = "replay",
	.run = analysis_replay,
	.needs = ANALYSIS_TABLES("profiler_overhead", "pipeline_stages", "collective_busbw", "interconnect", "system"),
	.makes = ANALYSIS_TABLES("replay_steps", "replay_calibration", "replay_fixes"),
};
