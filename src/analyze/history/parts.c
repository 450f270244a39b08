/*
 * parts.c: the parts of each run's profiled step, per step and normalised,
 * that a build keeps in its history (history_parts) so that `perfstudy
 * diff` can say where a change of the step time went (history_explain.c).
 *
 * The parts partition the step: each instant of a rank's steps belongs to
 * exactly one part, so the parts add up to the step time, and their
 * changes to its change. Per rank, W = the union of its ProfilerStep#N
 * host ranges, and its step = |W| / its number of steps. Its GPU
 * activities (kernels, memcpys, memsets) claim the instants of W in
 * priority order, as step_breakdown.csv does: first the compute kernels
 * (every kernel outside the communication and memory groups of the
 * default classification), then the memory activities (memcpys, memsets,
 * copy kernels), then the communication kernels; within one class the
 * activity that started first holds an instant that several cover. So an
 * activity's part is the time of W it alone covers after those before it:
 * times that overlap are counted once, never added. What no activity
 * covers is idle (nothing on the GPU). Each part is divided by the rank's
 * number of steps, and a run's part is the mean over its ranks with steps
 * (ranks without a ProfilerStep range are left out).
 *
 * Rows of temp.h_parts (experiment, build, run, kind, name, value), value
 * in us per step unless said:
 *   step       ''        the run's step (mean over ranks)
 *   idle       ''        its idle part
 *   kernel     NAME      one activity name's part ('(other kernels)': the
 *                        names past the PARTS_MAX_KERNELS largest, summed)
 *   group      GROUP     the kernel groups of the experiment's classification
 *   region     PHASE     the phase (phases.c) of the host instant the
 *                        activity was launched from, '(no phase)' else
 *   rank       N         the rank's own step (us per step, not divided by
 *                        the ranks: rank N adds (its step) / ranks)
 *   rank_work  N         of it, the part its compute kernels and copies
 *                        hold (not communication, not idle): which rank
 *                        did more work, where all ranks wait for it
 *   busy_frac  N         per ProfilerStep#N, the mean over the ranks of the
 *                        step's busy share (union of activities / step): a
 *                        fraction, the samples gpu_busy_frac is tested on
 * So step = idle + the sum of the kernel rows = idle + the groups = idle +
 * the regions = the sum of rank / ranks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/history/history.h"
#include "analyze/lib/classify.h"
#include "analyze/lib/intervals.h"
#include "analyze/lib/rankdata.h"
#include "analyze/time/phases.h"
#include "util/intmap.h"
#include "util/xalloc.h"

struct pname {
	int64_t id;
	enum activity_kind kind;
	double ns; /* sum over ranks of ns / the rank's steps */
};

struct pstep {
	int64_t n;
	double frac;
	size_t ranks;
};

/* One run's parts, summed over its ranks so far. */
struct prun {
	char *run;
	size_t ranks;
	double step_ns, idle_ns;
	struct intmap names_ix;
	struct pname *names;
	size_t nnames, cap_names;
	double *region_ns; /* nph + 1: the last '(no phase)' */
	int *rank_ids;
	double *rank_ns, *rank_work_ns;
	size_t nrank, cap_rank;
	struct intmap steps_ix;
	struct pstep *steps;
	size_t nsteps, cap_steps;
};

struct pwalk {
	struct store *s;
	const char *exp;
	const struct classifier *cls;
	int64_t build;
	struct store_stmt *ins;
	const struct phase *ph;
	size_t nph;
	struct phase_names nm;
	struct ivset *host;
	int64_t *calls;
	struct prun r;
	int failed;
};

static int insert(struct pwalk *w, const char *kind, const char *name, double value)
{
	return store_history_put_part(w->s, w->ins, w->exp, w->build, w->r.run, kind, name, value);
}

static int cmp_pname(const void *pa, const void *pb)
{
	const struct pname *a = pa, *b = pb;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* A group's sum, keyed by the classifier's group string. */
struct pgroup {
	const char *group;
	double ns;
};

/* Writes the run gathered in w->r and clears it. Returns 0 or -1 after diag. */
static int flush(struct pwalk *w)
{
	struct prun *r = &w->r;
	int rc = 0;
	if (r->run && r->ranks) {
		double per = 1000.0 * (double)r->ranks; /* ns summed over ranks -> us per step, mean over ranks */
		rc = insert(w, "step", "", r->step_ns / per);
		if (!rc)
			rc = insert(w, "idle", "", r->idle_ns / per);
		if (r->nnames > 1)
			if (r->nnames > 1) /* qsort's array may be NULL when empty: not even a 0-length call */
				qsort(r->names, r->nnames, sizeof(*r->names), cmp_pname);
		struct pgroup *g = NULL;
		size_t ng = 0, capg = 0;
		double rest = 0;
		for (size_t i = 0; i < r->nnames && !rc; i++) {
			char *name = rank_name(w->s, r->names[i].id);
			const char *grp = w->cls ? classify(w->cls, r->names[i].kind, name ? name : "") : "other";
			size_t k = 0;
			while (k < ng && strcmp(g[k].group, grp))
				k++;
			if (k == ng) {
				g = xgrow(g, &capg, ng + 1, sizeof(*g));
				g[ng++] = (struct pgroup){grp, 0};
			}
			g[k].ns += r->names[i].ns;
			if (i < PARTS_MAX_KERNELS)
				rc = insert(w, "kernel", name ? name : "(unnamed)", r->names[i].ns / per);
			else
				rest += r->names[i].ns;
			free(name);
		}
		if (!rc && r->nnames > PARTS_MAX_KERNELS)
			rc = insert(w, "kernel", "(other kernels)", rest / per);
		for (size_t k = 0; k < ng && !rc; k++)
			rc = insert(w, "group", g[k].group, g[k].ns / per);
		free(g);
		for (size_t p = 0; p <= w->nph && !rc; p++)
			if (r->region_ns[p] != 0)
				rc = insert(w, "region", p < w->nph ? w->ph[p].name : "(no phase)", r->region_ns[p] / per);
		char num[32];
		for (size_t i = 0; i < r->nrank && !rc; i++) {
			snprintf(num, sizeof(num), "%d", r->rank_ids[i]);
			rc = insert(w, "rank", num, r->rank_ns[i] / 1000.0);
			if (!rc)
				rc = insert(w, "rank_work", num, r->rank_work_ns[i] / 1000.0);
		}
		for (size_t i = 0; i < r->nsteps && !rc; i++) {
			snprintf(num, sizeof(num), "%" PRId64, r->steps[i].n);
			rc = insert(w, "busy_frac", num, r->steps[i].frac / (double)r->steps[i].ranks);
		}
	}
	free(r->run);
	intmap_free(&r->names_ix);
	free(r->names);
	free(r->region_ns);
	free(r->rank_ids);
	free(r->rank_ns);
	free(r->rank_work_ns);
	intmap_free(&r->steps_ix);
	free(r->steps);
	memset(r, 0, sizeof(*r));
	return rc;
}

/* Adds t ns of activity a (of rank data d), divided by the rank's steps, to its name and region. */
static void claim(struct pwalk *w, const struct rk_act *a, int region, int64_t t, double nsteps)
{
	struct prun *r = &w->r;
	size_t i = intmap_index(&r->names_ix, a->name_id, r->nnames);
	if (i == r->nnames) {
		r->names = xgrow(r->names, &r->cap_names, r->nnames + 1, sizeof(*r->names));
		r->names[r->nnames++] = (struct pname){a->name_id, a->kind, 0};
	}
	r->names[i].ns += (double)t / nsteps;
	r->region_ns[region >= 0 ? (size_t)region : w->nph] += (double)t / nsteps;
}

/* for_each_rank's visitor: one rank's parts into its run's sums. */
static int parts_rank(const struct rank_key *k, const struct rank_data *d, void *arg)
{
	struct pwalk *w = arg;
	if (!w->r.run || strcmp(w->r.run, k->run)) {
		if (flush(w) < 0)
			return -1;
		w->r.run = xstrdup(k->run);
		w->r.region_ns = xcalloc(w->nph + 1, sizeof(*w->r.region_ns));
	}
	struct ivset win, cls[3], high, hw[3], all;
	ivset_init(&win);
	ivset_init(&high);
	ivset_init(&all);
	for (int c = 0; c < 3; c++) {
		ivset_init(&cls[c]);
		ivset_init(&hw[c]);
	}
	for (size_t i = 0; i < d->nsteps; i++)
		ivset_add(&win, d->steps[i].start, d->steps[i].end);
	ivset_normalize(&win);
	int64_t span = ivset_measure(&win);
	if (!d->nsteps || span <= 0)
		goto out;
	/* priority: compute, memory, communication (rk_class order differs) */
	static const enum rk_class order[3] = {RK_COMPUTE, RK_MEMORY, RK_COMM};
	for (size_t i = 0; i < d->nacts; i++)
		for (int c = 0; c < 3; c++)
			if (d->acts[i].cls == order[c])
				ivset_add(&cls[c], d->acts[i].start, d->acts[i].end);
	for (int c = 0; c < 3; c++) {
		ivset_normalize(&cls[c]);
		/* hw[c]: the instants of the steps that classes before c hold */
		ivset_intersect(&high, &win, &hw[c]);
		struct ivset u;
		ivset_init(&u);
		ivset_union(&high, &cls[c], &u);
		ivset_release(&high);
		high = u;
	}
	all = high;
	ivset_init(&high);
	phase_host_time(w->s, &w->nm, w->ph, w->nph, d, w->host, w->calls);
	struct launch_index *idx = d->nlaunches ? rank_launch_index(d) : NULL;
	double nsteps = (double)d->nsteps;
	int64_t busy = 0, work = 0;
	for (int c = 0; c < 3; c++) {
		int64_t frontier = INT64_MIN;
		for (size_t i = 0; i < d->nacts; i++) {
			const struct rk_act *a = &d->acts[i];
			if (a->cls != order[c])
				continue;
			int64_t lo = a->start > frontier ? a->start : frontier, hi = a->end;
			if (a->end > frontier)
				frontier = a->end;
			if (hi <= lo)
				continue;
			int64_t t = ivset_measure_within(&win, lo, hi) - ivset_measure_within(&hw[c], lo, hi);
			if (t <= 0)
				continue;
			const struct rk_range *l = idx ? rank_launch_of(d, idx, a->corr) : NULL;
			claim(w, a, l ? phase_at(w->host, w->nph, l->start) : -1, t, nsteps);
			busy += t;
			if (order[c] != RK_COMM)
				work += t;
		}
	}
	rank_launch_index_release(d, idx);
	struct prun *r = &w->r;
	r->ranks++;
	r->step_ns += (double)span / nsteps;
	r->idle_ns += (double)(span - busy) / nsteps;
	r->rank_ids = xgrow(r->rank_ids, &r->cap_rank, r->nrank + 1, sizeof(*r->rank_ids));
	r->rank_ns = xrealloc(r->rank_ns, r->cap_rank * sizeof(*r->rank_ns));
	r->rank_work_ns = xrealloc(r->rank_work_ns, r->cap_rank * sizeof(*r->rank_work_ns));
	r->rank_work_ns[r->nrank] = (double)work / nsteps;
	r->rank_ids[r->nrank] = k->rank;
	r->rank_ns[r->nrank++] = (double)span / nsteps;
	struct ivsum all_sum; /* a step's busy time in O(log n), however the steps overlap */
	ivsum_init(&all_sum, &all);
	for (size_t i = 0; i < d->nsteps; i++) {
		int64_t len = d->steps[i].end - d->steps[i].start;
		if (len <= 0)
			continue;
		size_t j = intmap_index(&r->steps_ix, d->steps[i].key, r->nsteps);
		if (j == r->nsteps) {
			r->steps = xgrow(r->steps, &r->cap_steps, r->nsteps + 1, sizeof(*r->steps));
			r->steps[r->nsteps++] = (struct pstep){d->steps[i].key, 0, 0};
		}
		r->steps[j].frac += (double)ivsum_within(&all_sum, d->steps[i].start, d->steps[i].end) / (double)len;
		r->steps[j].ranks++;
	}
	ivsum_release(&all_sum);
out:
	ivset_release(&win);
	ivset_release(&high);
	ivset_release(&all);
	for (int c = 0; c < 3; c++) {
		ivset_release(&cls[c]);
		ivset_release(&hw[c]);
	}
	return 0;
}

int history_parts_stage(struct store *s, const char *exp, const struct manifest *m, const struct classifier *cls,
			int64_t build)
{
	struct pwalk w;
	memset(&w, 0, sizeof(w));
	w.s = s;
	w.exp = exp;
	w.cls = cls;
	w.build = build;
	w.ins = store_history_parts(s);
	if (!w.ins)
		return -1;
	struct phase *ph = phase_list(m, &w.nph);
	w.ph = ph;
	w.host = xcalloc(w.nph ? w.nph : 1, sizeof(*w.host));
	w.calls = xcalloc(w.nph ? w.nph : 1, sizeof(*w.calls));
	for (size_t p = 0; p < w.nph; p++)
		ivset_init(&w.host[p]);
	int rc = for_each_rank(s, exp, parts_rank, &w);
	if (flush(&w) < 0)
		rc = -1;
	for (size_t p = 0; p < w.nph; p++)
		ivset_release(&w.host[p]);
	free(w.host);
	free(w.calls);
	phase_names_release(&w.nm);
	free(ph);
	store_finalize(w.ins);
	return rc;
}
