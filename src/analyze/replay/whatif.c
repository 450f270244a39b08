/*
 * whatif.c: `perfstudy whatif` (whatif.h): a run's ranks loaded as
 * replay models, its host factor calibrated as the replay analysis
 * calibrates it (replay_calibrate.c, to the training log's unprofiled
 * median read from the store), then every profiled step replayed as
 * profiled and under the user's changes.
 *
 * The job's step: one rank's step where the run has one; for ranks
 * replayed together (at most RP_JOINT_MAX ranks whose collectives match),
 * from the earliest start of a step on any rank to the earliest of the
 * next (replay_joint.c); for ranks that cannot be (a pipeline's sends, more
 * ranks), each rank is replayed alone at its own calibrated factor and the
 * job's step is its slowest rank's: the ranks then do not wait for each
 * other in the model, so a change to one rank moves the job's step only
 * as far as that rank's own.
 */
#include "analyze/replay/whatif.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/classify.h"
#include "analyze/lib/intervals.h"
#include "analyze/lib/rankdata.h"
#include "analyze/models/op_roofline.h"
#include "analyze/replay/replay.h"
#include "analyze/time/profiler_overhead.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/table.h"
#include "util/xalloc.h"

void whatif_result_release(struct whatif_result *r)
{
	free(r->experiment);
	free(r->run);
	free(r->steps);
	*r = (struct whatif_result){0};
}

/*
 * Finds run (RUN, or EXPERIMENT/RUN) among the store's runs: sets *exp and
 * *name (the caller frees them). 0; WHATIF_USAGE after saying which runs
 * there are; -1 after diag.
 */
static int find_run(struct store *s, const char *db, const char *run, char **exp, char **name)
{
	struct store_stmt *st;
	if (store_prepare(s, "whatif: list the runs", "SELECT experiment, run FROM runs ORDER BY experiment, position",
			  &st) < 0)
		return -1;
	struct buf all, hits;
	buf_init(&all);
	buf_init(&hits);
	size_t nhits = 0, nruns = 0;
	int rc;
	*exp = *name = NULL;
	while ((rc = store_next(st)) > 0) {
		const char *e = (const char *)store_column_text(st, 0), *r = (const char *)store_column_text(st, 1);
		if (!e || !r)
			continue;
		char *full = xasprintf("%s/%s", e, r);
		buf_printf(&all, "%s%s", nruns++ ? ", " : "", r);
		if (!strcmp(r, run) || !strcmp(full, run)) {
			buf_printf(&hits, "%s%s", nhits++ ? ", " : "", full);
			if (nhits == 1) {
				*exp = xstrdup(e);
				*name = xstrdup(r);
			}
		}
		free(full);
	}
	store_finalize(st);
	int ret = rc;
	if (rc == 0 && nhits != 1) {
		if (!nhits)
			diag_error(db, "no run '%s' (%s: %s)", run, nruns ? "its runs" : "it has no runs",
				   nruns ? all.data : "build one first");
		else
			diag_error(db, "run '%s' is in several experiments: name one as EXPERIMENT/RUN (%s)", run,
				   hits.data);
		ret = WHATIF_USAGE;
	}
	if (ret) {
		free(*exp);
		free(*name);
		*exp = *name = NULL;
	}
	buf_release(&all);
	buf_release(&hits);
	return ret;
}

/*
 * Per call of m, the host time of its gap inside the rank's
 * enumerate(DataLoader)... ranges (their union) into cut. Returns how
 * many such ranges the rank has, or -1 after diag.
 */
static int64_t loader_cut(struct store *s, const struct rank_key *k, const struct rp_model *m, int64_t *cut)
{
	struct store_stmt *st;
	st = rank_query(s, "whatif: read the DataLoader ranges",
			"SELECT x.start_ns, x.dur_ns FROM traces rt JOIN cpu_ops x ON x.trace_id = rt.id JOIN names n "
			"ON n.id = x.name_id WHERE rt.run_id = ?1 AND rt.rank = ?2 AND n.name GLOB 'enumerate(DataLoader)*'",
			k);
	if (!st)
		return -1;
	struct ival *v = NULL;
	size_t n = 0, cap = 0;
	int rc;
	while ((rc = store_next(st)) > 0) {
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n].start = store_column_int64(st, 0);
		v[n].end = v[n].start + store_column_int64(st, 1);
		n++;
	}
	store_finalize(st);
	if (rc < 0) {
		free(v);
		return -1;
	}
	int64_t ranges = (int64_t)n;
	size_t w = ival_union(v, n); /* their union, sorted */
	for (size_t i = 0; i < m->ncalls; i++) {
		const struct rp_call *c = &m->calls[i];
		cut[i] = 0;
		if (c->gap <= 0)
			continue;
		int64_t a = c->start - c->gap, b = c->start;
		for (size_t j = ival_first_ending_after(v, w, a); j < w && v[j].start < b; j++)
			cut[i] += (v[j].end < b ? v[j].end : b) - (v[j].start > a ? v[j].start : a);
	}
	free(v);
	return ranges;
}

/* The ids of the names that match pattern, sorted; *n set. NULL with -1 in *n after diag. */
static int64_t *matching_names(struct store *s, const char *pattern, size_t *n)
{
	struct store_stmt *st;
	*n = 0;
	if (store_prepare(s, "whatif: read the names", "SELECT id, name FROM names ORDER BY id", &st) < 0)
		return NULL;
	int64_t *ids = NULL;
	size_t cap = 0;
	int rc;
	while ((rc = store_next(st)) > 0) {
		const char *name = (const char *)store_column_text(st, 1);
		if (name && !fnmatch(pattern, name, 0)) {
			ids = xgrow(ids, &cap, *n + 1, sizeof(*ids));
			ids[(*n)++] = store_column_int64(st, 0);
		}
	}
	store_finalize(st);
	if (rc < 0) {
		free(ids);
		return NULL;
	}
	if (!ids)
		ids = xmalloc(sizeof(*ids));
	return ids;
}

static int has_id(const int64_t *ids, size_t n, int64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo] == id;
}

/* One rank's change: its arrays, owned. */
struct rank_change {
	struct rp_change c;
	double *scale;
	unsigned char *no_gap, *no_wait;
	int64_t *cut;
};

static void rank_change_release(struct rank_change *r)
{
	free(r->scale);
	free(r->no_gap);
	free(r->no_wait);
	free(r->cut);
}

/* The state of one whatif_run. */
struct job {
	struct store *s;
	const char *db;
	struct whatif_result *out;
	struct rank_key *keys;
	size_t nkeys;
	struct rp_model *m;
	const struct rp_model **mp;
	const struct rank_key **kp;
	double *f, *flo; /* each rank's host factor, and the bottom of the range its log allows */
	size_t have;
	struct rp_joint *joint;
	struct rank_change *rc;
	int64_t matched_kernels, matched_comm, loader_ranges;
};

static int cmp_scale_key(const void *key, const void *elem)
{
	const struct rp_op *o = key;
	const struct op_roofline_scale *e = elem;
	if (o->start != e->start)
		return o->start < e->start ? -1 : 1;
	return o->name_id < e->name_id ? -1 : o->name_id > e->name_id;
}

/*
 * roofline:OP=F: on every rank, the kernels of the rows of op_roofline.csv
 * whose operator matches OP scaled so that each row runs at F of its
 * roofline, or as measured where it does better (op_roofline_whatif); a
 * kernel of the replay's model is found by its start and name. 0 or -1
 * after diag; a pattern that matches no priced row is a warning.
 */
static int roofline_change(struct job *j, const struct whatif_change *c)
{
	struct classifier *cls = classifier_preset("default");
	size_t rows = 0;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < j->have; i++) {
		struct rank_data d;
		struct op_roofline_scale *sc = NULL;
		size_t nsc = 0, r = 0;
		if (rank_data_load(j->s, j->kp[i], cls, &d) < 0) {
			rc = -1;
			break;
		}
		rc = op_roofline_whatif(j->s, j->kp[i], &d, c->pattern, c->factor, &sc, &nsc, &r);
		rank_data_release(&d);
		rows += r;
		const struct rp_model *m = j->mp[i];
		for (size_t o = 0; rc == 0 && nsc && o < m->nops; o++) {
			if (m->ops[o].kind != RP_OP_KERNEL)
				continue;
			const struct op_roofline_scale *e = bsearch(&m->ops[o], sc, nsc, sizeof(*sc), cmp_scale_key);
			if (e)
				j->rc[i].scale[o] *= e->scale;
		}
		free(sc);
	}
	classifier_free(cls);
	if (rc == 0 && !rows)
		diag_warning(j->db, "argument %d '%s': no operator of run '%s' matching '%s' has a roofline in "
				    "op_roofline.csv (shapes recorded, a device whose peaks are known): it changes nothing",
			     c->position, c->arg, j->out->run, c->pattern);
	return rc;
}

/*
 * The changes of every rank into j->rc: each rank at its factor f[i],
 * times host=X. Returns 0, WHATIF_USAGE or -1 after diag.
 */
static int build_changes(struct job *j, const struct whatif_change *c, size_t n)
{
	double host = 1.0;
	int gaps = 0, syncs = 0, loader = 0;
	for (size_t q = 0; q < n; q++) {
		host *= c[q].kind == WI_HOST ? c[q].factor : 1.0;
		gaps |= c[q].kind == WI_GAPS;
		syncs |= c[q].kind == WI_SYNCS;
		loader |= c[q].kind == WI_DATA_LOADING;
		if (c[q].kind != WI_RANK_MEDIAN)
			continue;
		size_t r = 0;
		while (r < j->have && j->kp[r]->rank != c[q].rank)
			r++;
		if (r == j->have) {
			diag_error(j->db, "argument %d '%s': run '%s' has no rank %lld with profiled steps", c[q].position,
				   c[q].arg, j->out->run, (long long)c[q].rank);
			return WHATIF_USAGE;
		}
		if (!j->joint) {
			diag_error(j->db, "argument %d '%s': run '%s' %s, so no rank can be set to the median rank's: "
					  "rank=R:median needs ranks replayed together",
				   c[q].position, c[q].arg, j->out->run,
				   j->have < 2 ? "has one rank" :
				   j->have > RP_JOINT_MAX ? "has more ranks than are replayed together" :
							    "has ranks whose collectives do not match (replayed alone)");
			return WHATIF_USAGE;
		}
	}
	j->rc = xcalloc(j->have, sizeof(*j->rc));
	for (size_t i = 0; i < j->have; i++) {
		const struct rp_model *m = j->mp[i];
		struct rank_change *rc = &j->rc[i];
		rc->scale = xmalloc((m->nops + 1) * sizeof(*rc->scale));
		for (size_t o = 0; o < m->nops; o++)
			rc->scale[o] = 1.0;
		if (gaps || syncs) {
			rc->no_gap = xcalloc(m->ncalls + 1, 1);
			rc->no_wait = xcalloc(m->ncalls + 1, 1);
			for (size_t k = 0; k < m->ncalls; k++) {
				rc->no_gap[k] = (unsigned char)gaps;
				rc->no_wait[k] = syncs && m->calls[k].wait_op >= 0;
			}
		}
		if (loader) {
			rc->cut = xcalloc(m->ncalls + 1, sizeof(*rc->cut));
			int64_t got = loader_cut(j->s, j->kp[i], m, rc->cut);
			if (got < 0)
				return -1;
			j->loader_ranges += got;
		}
		rc->c = (struct rp_change){.host_factor = j->f[i] * host, .no_gap = rc->no_gap, .no_wait = rc->no_wait,
					   .op_scale = rc->scale, .gap_cut = rc->cut};
	}
	for (size_t q = 0; q < n; q++) {
		if (c[q].kind == WI_ROOFLINE) {
			if (roofline_change(j, &c[q]) < 0)
				return -1;
			continue;
		}
		size_t nids = 0;
		int64_t *ids = NULL;
		if (c[q].kind == WI_KERNELS && !(ids = matching_names(j->s, c[q].pattern, &nids)))
			return -1;
		int64_t matched = 0;
		for (size_t i = 0; i < j->have; i++) {
			const struct rp_model *m = j->mp[i];
			double *scale = j->rc[i].scale;
			if (c[q].kind == WI_RANK_MEDIAN && j->kp[i]->rank == c[q].rank) {
				double *med = xmalloc((m->nops + 1) * sizeof(*med));
				rp_joint_median(j->joint, i, med);
				for (size_t o = 0; o < m->nops; o++)
					scale[o] *= med[o];
				free(med);
			}
			for (size_t o = 0; o < m->nops; o++) {
				const struct rp_op *op = &m->ops[o];
				int hit = (c[q].kind == WI_COLLECTIVES && op->comm) ||
					  (c[q].kind == WI_KERNELS && op->kind == RP_OP_KERNEL && has_id(ids, nids, op->name_id));
				if (hit) {
					scale[o] *= c[q].factor;
					matched++;
				}
			}
		}
		free(ids);
		if (c[q].kind == WI_KERNELS || c[q].kind == WI_COLLECTIVES) {
			if (!matched)
				diag_warning(j->db, "argument %d '%s': no %s of run '%s' matches: it changes nothing", c[q].position,
					     c[q].arg, c[q].kind == WI_KERNELS ? "kernel" : "collective kernel", j->out->run);
		}
	}
	if (loader && !j->loader_ranges)
		diag_warning(j->db, "run '%s': no enumerate(DataLoader) range recorded on its profiled ranks: "
				    "data-loading=0 changes nothing", j->out->run);
	return 0;
}

/* The calibrated host factor of every rank into j->f (replay.c's rule); 0 or -1 after diag. */
static int calibrate(struct job *j, int64_t *buf)
{
	int64_t median, count;
	if (profiler_unprofiled_median(j->s, j->out->experiment, j->out->run, &median, &count) < 0)
		return -1;
	j->out->log_median = median;
	struct rp_change *ch = xcalloc(j->have, sizeof(*ch));
	double lo, hi, one = 1.0;
	for (size_t i = 0; i < j->have; i++)
		j->f[i] = j->flo[i] = 1.0;
	if (median > 0 && j->joint) {
		struct rp_subject sj = {j->mp, j->have, j->joint, j->f, ch};
		double f = rp_calibrate(&sj, (double)median, buf, &lo, &hi);
		for (size_t i = 0; i < j->have; i++) {
			j->f[i] = f;
			j->flo[i] = rp_factor_lo(f, lo, hi);
		}
	} else if (median > 0) {
		for (size_t i = 0; i < j->have; i++) {
			struct rp_subject sj = {&j->mp[i], 1, NULL, &one, ch};
			j->f[i] = rp_calibrate(&sj, (double)median, buf, &lo, &hi);
			j->flo[i] = rp_factor_lo(j->f[i], lo, hi);
		}
	}
	free(ch);
	return 0;
}

/* rank i's change at the bottom of its host factors' range: c's factor times flo / f */
static struct rp_change at_lo(const struct job *j, size_t i, struct rp_change c)
{
	c.host_factor = c.host_factor * j->flo[i] / j->f[i];
	return c;
}

/*
 * The job's steps into out->steps: measured, replayed at the calibrated
 * factors, and under the changes, where all three have a time; and the
 * last two again at the bottom of the factors' range.
 */
static void replay_job(struct job *j)
{
	const struct rp_model *m0 = j->mp[0];
	size_t ns = m0->nsteps;
	int64_t *v[5];
	for (int t = 0; t < 5; t++)
		v[t] = xmalloc((ns + 1) * sizeof(int64_t));
	if (j->joint) {
		struct rp_change *ch[4];
		for (int t = 0; t < 4; t++)
			ch[t] = xcalloc(j->have, sizeof(*ch[t]));
		for (size_t i = 0; i < j->have; i++) {
			ch[0][i] = (struct rp_change){.host_factor = j->f[i]};
			ch[1][i] = j->rc[i].c;
			ch[2][i] = at_lo(j, i, ch[0][i]);
			ch[3][i] = at_lo(j, i, ch[1][i]);
		}
		rp_joint_measured(j->joint, v[0]);
		for (int t = 0; t < 4; t++) {
			rp_joint_replay(j->joint, ch[t], v[t + 1]);
			free(ch[t]);
		}
	} else {
		/* each rank alone; the job's step k is the slowest rank's step of the same number */
		for (int t = 0; t < 5; t++)
			for (size_t k = 0; k < ns; k++)
				v[t][k] = -1;
		for (size_t i = 0; i < j->have; i++) {
			const struct rp_model *m = j->mp[i];
			int64_t *r[5];
			for (int t = 0; t < 5; t++)
				r[t] = xmalloc((m->nsteps + 1) * sizeof(int64_t));
			struct rp_change base = {.host_factor = j->f[i]}, blo = at_lo(j, i, base), wlo = at_lo(j, i, j->rc[i].c);
			rp_measured(m, r[0], NULL);
			rp_replay(m, &base, r[1]);
			rp_replay(m, &j->rc[i].c, r[2]);
			rp_replay(m, &blo, r[3]);
			rp_replay(m, &wlo, r[4]);
			for (size_t k = 0; k < ns; k++) {
				size_t q = 0;
				while (q < m->nsteps && m->steps[q].number != m0->steps[k].number)
					q++;
				for (int t = 0; q < m->nsteps && t < 5; t++)
					if (r[t][q] > v[t][k])
						v[t][k] = r[t][q];
			}
			for (int t = 0; t < 5; t++)
				free(r[t]);
		}
	}
	j->out->steps = xcalloc(ns + 1, sizeof(*j->out->steps));
	for (size_t k = 0; k < ns; k++)
		if (v[0][k] >= 0 && v[1][k] >= 0 && v[2][k] >= 0 && v[3][k] >= 0 && v[4][k] >= 0)
			j->out->steps[j->out->nsteps++] =
				(struct whatif_step){m0->steps[k].number, v[0][k], v[1][k], v[2][k], v[3][k], v[4][k]};
	for (int t = 0; t < 5; t++)
		free(v[t]);
}

static void add_row(struct table *t, const struct whatif_result *r, const char *change, const char *step,
		    const double *v)
{
	size_t row = table_add_row(t);
	table_set_text(t, row, 0, r->run);
	table_set_text(t, row, 1, change);
	table_set_text(t, row, 2, step);
	table_set_ns(t, row, 3, llround(v[0]));
	table_set_ns(t, row, 4, llround(v[1]));
	table_set_ns(t, row, 5, llround(v[2]));
	table_set_ns(t, row, 6, llround(v[1] - v[2]));
	if (!isnan(r->host_factor)) {
		table_set_real(t, row, 7, r->host_factor);
		table_set_real(t, row, 8, r->host_factor_lo);
	}
	table_set_ns(t, row, 9, llround(v[3] - v[4]));
}

void whatif_table_add(struct table *t, const struct whatif_result *r, const char *change, double *mean)
{
	double sum[5] = {0, 0, 0, 0, 0};
	for (size_t k = 0; k < r->nsteps; k++) {
		const struct whatif_step *s = &r->steps[k];
		char step[32];
		double v[5] = {(double)s->measured, (double)s->replayed, (double)s->whatif, (double)s->replayed_fast,
			       (double)s->whatif_fast};
		snprintf(step, sizeof(step), "%lld", (long long)s->number);
		add_row(t, r, change, step, v);
		for (int i = 0; i < 5; i++)
			sum[i] += v[i];
	}
	for (int i = 0; i < 5; i++)
		mean[i] = r->nsteps ? sum[i] / (double)r->nsteps : 0;
	add_row(t, r, change, "mean", mean);
}

int whatif_run(struct store *s, const char *db, const char *run, const struct whatif_change *c, size_t n,
	       struct whatif_result *out)
{
	struct job j = {.s = s, .db = db, .out = out};
	*out = (struct whatif_result){.host_factor = NAN, .host_factor_lo = NAN};
	int ret = find_run(s, db, run, &out->experiment, &out->run);
	if (ret)
		return ret;
	if (rank_keys(s, out->experiment, &j.keys, &j.nkeys) < 0)
		return -1;
	j.m = xcalloc(j.nkeys + 1, sizeof(*j.m));
	j.mp = xcalloc(j.nkeys + 1, sizeof(*j.mp));
	j.kp = xcalloc(j.nkeys + 1, sizeof(*j.kp));
	j.f = xcalloc(j.nkeys + 1, sizeof(*j.f));
	j.flo = xcalloc(j.nkeys + 1, sizeof(*j.flo));
	size_t max_steps = 1;
	for (size_t i = 0; i < j.nkeys && !ret; i++) {
		if (strcmp(j.keys[i].run, out->run))
			continue;
		if (rp_model_load(s, &j.keys[i], &j.m[j.have]) < 0) {
			ret = -1;
		} else if (!j.m[j.have].nsteps) {
			rp_model_release(&j.m[j.have]);
		} else {
			j.mp[j.have] = &j.m[j.have];
			j.kp[j.have] = &j.keys[i];
			if (j.m[j.have].nsteps > max_steps)
				max_steps = j.m[j.have].nsteps;
			j.have++;
		}
	}
	int64_t *buf = xmalloc(max_steps * sizeof(*buf));
	size_t timed = 0;
	for (size_t i = 0; !ret && i < j.have; i++)
		timed += rp_measured(j.mp[i], buf, NULL);
	if (!ret && !timed) {
		diag_error(db, "run '%s': no replayable step (a ProfilerStep#N range that launches GPU work, on some "
			       "rank, with its runtime calls)", out->run);
		ret = -1;
	}
	if (!ret) {
		j.joint = j.have > 1 && j.have <= RP_JOINT_MAX ? rp_joint_new(j.mp, j.have) : NULL;
		out->ranks = j.have;
		out->joint = j.joint != NULL;
		ret = calibrate(&j, buf);
	}
	if (!ret)
		ret = build_changes(&j, c, n);
	if (!ret) {
		if (j.joint || j.have == 1) {
			out->host_factor = j.f[0];
			out->host_factor_lo = j.flo[0];
		}
		replay_job(&j);
		if (!out->nsteps) {
			diag_error(db, "run '%s': no replayable step (no profiled step has a time on every replay)", out->run);
			ret = -1;
		}
	}
	free(buf);
	for (size_t i = 0; j.rc && i < j.have; i++)
		rank_change_release(&j.rc[i]);
	free(j.rc);
	rp_joint_free(j.joint);
	for (size_t i = 0; i < j.nkeys; i++)
		if (j.mp[i])
			rp_model_release(&j.m[i]);
	free(j.m);
	free(j.mp);
	free(j.kp);
	free(j.f);
	free(j.flo);
	rank_keys_free(j.keys, j.nkeys);
	return ret;
}
