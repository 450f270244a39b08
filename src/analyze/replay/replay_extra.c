/*
 * replay_extra.c: the GPU work a run does per step beyond its reference
 * run's, for replay.c's extra_gpu_work (issue #52): on one GPU there is no
 * other rank to compare with, but a study has a run of the same
 * configuration without the extra work.
 *
 * The reference of a run (rp_references): the run the manifest's `compare`
 * pairs with it as the reference ([reference, run]) where that run has the
 * same configuration (gpus, batch, strategy, model and its sizes, as the
 * runs table holds them, and where the manifest gives them, its tensor and
 * pipeline parallelism, schedule, micro-batches, ZeRO stage,
 * recomputation, gradient bytes, precision and architecture); else the run of the same configuration with the
 * smallest measured step: the training log's unprofiled median where every
 * run of the configuration has one, else the profiled step on the trace
 * (the first rank's mean, replay_steps.csv measured_us); ties go to the
 * earlier run. That run itself has no reference, nor has a run that
 * `compare` names as a reference and not as compared: a run is never its
 * own, and runs of different configurations are not compared.
 *
 * The extra work (rp_extra_pick), counted in operator calls: every
 * kernel launched in a profiled step (collectives aside: replay_joint.c
 * prices those) belongs to the host operator call that launched it (the
 * outermost operator of the launching thread around the launch, cpu_ops),
 * whose key is the operator's name with its input shapes where the trace
 * recorded them (record_shapes=True); a kernel without an operator is a
 * call of its own, keyed by the kernel's name. The reference's count of a
 * key per step is the median over its profiled steps (upper median, a key
 * absent from a step counting 0 there). In each step of the run, the calls
 * of a key beyond that count are extra: the latest ones launched in the
 * step. Calls of one key run the same operator on the same shapes, so which
 * of them are taken changes the replay only through where they sit; a
 * repeated block (a transformer layer's matrix products) added to a step
 * adds its calls after the others'. Then the same operator on other shapes
 * is other work, not extra work (a rank's longer sequences): in each step,
 * as many of a run's surplus calls of an operator as the reference's calls
 * of it (on other shapes) that the step lacks, by key against the
 * reference's count, are matched with those, the earliest first. Every
 * kernel of the calls left is extra; a call that launches more kernels
 * than the reference's (a larger tensor split in pieces) is not.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/replay/replay.h"
#include "analyze/lib/stats.h"
#include "analyze/time/profiler_overhead.h"
#include "util/buf.h"
#include "util/xalloc.h"

/*
 * The configuration columns of the runs table: runs of equal values are
 * compared. A value neither run gives (a manifest of one configuration's
 * causes need not repeat it; a build from directories knows only the
 * GPUs) is not taken as equal on trust: the traces decide it
 * (rp_ref.unknown, rp_extra_pick's contain): the run must make, in every
 * profiled step, each operator call (name and input shapes) the reference
 * makes per step, as many times. Another batch or sequence length changes
 * the shapes of every layer's calls, another model their names or count,
 * so a run that contains the reference's work is of its configuration as
 * far as the GPU's work can tell, and what it does beyond that is the
 * extra work; else nothing is priced.
 */
#define CONFIG_COLUMNS "gpus, batch, strategy, model, layers, hidden, heads, ffn, seq, vocab"
#define NCONFIG 10

struct run_row {
	int64_t id;
	char *run;
	char *config;  /* the configuration columns as one string */
	double step;   /* measured step, ns; <= 0: none */
	int has_log;
	int unknown;   /* some configuration value not given */
	size_t first_key; /* its first rank in keys */
};

/* The first rank's mean profiled step on the trace (replay_steps.csv measured_us), ns; 0 where none. */
static double trace_step(struct store *s, const struct rank_key *k)
{
	struct rp_model m;
	double mean = 0;
	if (rp_model_load(s, k, &m) < 0 || !m.nsteps) {
		rp_model_release(&m);
		return 0;
	}
	int64_t *v = xmalloc(m.nsteps * sizeof(*v));
	rp_measured(&m, v, NULL);
	size_t n = 0;
	for (size_t i = 0; i < m.nsteps; i++)
		if (v[i] >= 0) {
			mean += (double)v[i];
			n++;
		}
	free(v);
	rp_model_release(&m);
	return n ? mean / (double)n : 0;
}

int rp_references(struct store *s, const char *exp, const struct manifest *mf, const struct analysis_result *res,
		  const struct rank_key *keys, size_t nkeys, struct rp_ref **out, size_t *nout)
{
	struct store_stmt *st;
	*out = NULL;
	*nout = 0;
	if (store_prepare(s, "replay: the runs' configurations",
			  "SELECT id, run, " CONFIG_COLUMNS " FROM runs WHERE experiment = ?1 ORDER BY position, id", &st) < 0)
		return -1;
	store_bind_text_copy(st, 1, exp);
	struct run_row *r = NULL;
	size_t n = 0, cap = 0;
	int rc;
	struct buf b;
	buf_init(&b);
	while ((rc = store_next(st)) > 0) {
		r = xgrow(r, &cap, n + 1, sizeof(*r));
		struct run_row *x = &r[n++];
		memset(x, 0, sizeof(*x));
		x->id = store_column_int64(st, 0);
		x->run = xstrdup((const char *)store_column_text(st, 1));
		buf_reset(&b);
		for (int c = 0; c < NCONFIG; c++) {
			const unsigned char *v = store_column_text(st, 2 + c);
			buf_adds(&b, v ? (const char *)v : "\x01");
			x->unknown |= !v;
			buf_addc(&b, '\x1f');
		}
		/* and what the manifest says of the parallelism and the numbers, where it says it */
		for (size_t i = 0; mf && i < mf->nruns; i++) {
			const struct manifest_run *mr = &mf->runs[i];
			if (mr->id && !strcmp(mr->id, x->run))
				buf_printf(&b, "%d %d %d %d %d %d %d %s %s", mr->tensor_parallel, mr->pipeline_parallel,
					   mr->schedule, mr->microbatches, mr->zero, mr->recompute, mr->grad_bytes,
					   mr->model.precision ? mr->model.precision : "-",
					   mr->model.arch ? mr->model.arch : "-");
		}
		x->config = xstrdup(b.data);
		x->first_key = nkeys;
		for (size_t i = 0; i < nkeys; i++)
			if (keys[i].run_db_id == x->id) {
				x->first_key = i;
				break;
			}
		int64_t med = profiler_unprofiled_ns(res, x->run);
		x->has_log = med > 0;
		x->step = (double)med;
	}
	store_finalize(st);
	buf_release(&b);
	int ret = rc;
	if (rc < 0)
		goto out;
	/* a configuration where some run has no log: every run of it by its profiled step on the trace */
	for (size_t i = 0; i < n; i++) {
		int mixed = 0, others = 0;
		for (size_t j = 0; j < n; j++)
			if (!strcmp(r[i].config, r[j].config)) {
				others += j != i;
				mixed |= !r[j].has_log;
			}
		if (others && mixed)
			r[i].step = r[i].first_key < nkeys ? trace_step(s, &keys[r[i].first_key]) : 0;
	}
	*out = xcalloc(n ? n : 1, sizeof(**out));
	*nout = n;
	for (size_t i = 0; i < n; i++) {
		struct rp_ref *o = &(*out)[i];
		o->run_db_id = r[i].id;
		o->ref_db_id = -1;
		/* the manifest's compare pair [reference, run], of the same configuration */
		for (size_t p = 0; mf && p < mf->ncompare && o->ref_db_id < 0; p++) {
			if (strcmp(mf->compare[p].b, r[i].run))
				continue;
			for (size_t j = 0; j < n; j++)
				if (j != i && !strcmp(r[j].run, mf->compare[p].a) && !strcmp(r[j].config, r[i].config)) {
					o->ref_db_id = r[j].id;
					o->ref_run = xstrdup(r[j].run);
					o->named = 1;
					o->unknown = r[i].unknown;
				}
		}
		/* a run compare names only as a reference is the baseline: it has none */
		int baseline = 0;
		for (size_t p = 0; mf && p < mf->ncompare; p++)
			baseline |= !strcmp(mf->compare[p].a, r[i].run);
		if (o->ref_db_id >= 0 || baseline || !(r[i].step > 0))
			continue;
		/* else the configuration's fastest run, unless it is this one */
		size_t best = n;
		for (size_t j = 0; j < n; j++)
			if (!strcmp(r[j].config, r[i].config) && r[j].step > 0 && (best == n || r[j].step < r[best].step))
				best = j;
		if (best < n && best != i) {
			o->ref_db_id = r[best].id;
			o->ref_run = xstrdup(r[best].run);
			o->unknown = r[i].unknown;
		}
	}
out:
	for (size_t i = 0; i < n; i++) {
		free(r[i].run);
		free(r[i].config);
	}
	free(r);
	return ret;
}

void rp_references_free(struct rp_ref *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].ref_run);
	free(v);
}

/* One kernel launched in a profiled step, by its key. */
struct occ {
	int64_t host, dims, kernel; /* name ids; host and dims -1: not recorded; kernel -1: host's */
	int64_t call;               /* its (first) launching call: the order of launch */
	int64_t op;                 /* its (first) kernel */
	int step;
	int64_t inst;               /* the operator's call (index of cpu_ops), or -2 - op without one */
	int64_t dur;                /* its kernels' time */
};

static int cmp_inst(const void *pa, const void *pb)
{
	const struct occ *a = pa, *b = pb;
	if (a->inst != b->inst)
		return a->inst < b->inst ? -1 : 1;
	return (a->call > b->call) - (a->call < b->call);
}

static int cmp_occ(const void *pa, const void *pb)
{
	const struct occ *a = pa, *b = pb;
	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	if (a->dims != b->dims)
		return a->dims < b->dims ? -1 : 1;
	if (a->kernel != b->kernel)
		return a->kernel < b->kernel ? -1 : 1;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	return (a->call > b->call) - (a->call < b->call);
}

static int same_key(const struct occ *a, const struct occ *b)
{
	return a->host == b->host && a->dims == b->dims && a->kernel == b->kernel;
}

/* An outermost host operator of a thread (cpu_ops). */
struct hop {
	int64_t tid, start, end, name, dims;
};

static int cmp_hop(const void *pa, const void *pb)
{
	const struct hop *a = pa, *b = pb;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

/*
 * The operator calls of m that launched kernels in a profiled step (a
 * kernel without an operator: itself), with their keys, into *out (sorted
 * by key, step, launch), and when kern is set every such kernel with its
 * call into *kern (sorted by inst, launch; *nkern of them); the calls'
 * count, or -1 after diag.
 */
static long occurrences(struct store *s, const struct rank_key *k, const struct rp_model *m, struct occ **out,
			struct occ **kern, size_t *nkern)
{
	struct store_stmt *st;
	*out = NULL;
	st = rank_query(s, "replay: the operators that launched kernels",
			"SELECT coalesce(x.tid, 0), x.start_ns, x.dur_ns, x.name_id, coalesce(x.dims_id, -1)"
			" FROM traces rt JOIN cpu_ops x ON x.trace_id = rt.id WHERE rt.run_id = ?1 AND rt.rank = ?2",
			k);
	if (!st)
		return -1;
	struct hop *h = NULL;
	size_t nh = 0, cap = 0;
	int rc;
	while ((rc = store_next(st)) > 0) {
		h = xgrow(h, &cap, nh + 1, sizeof(*h));
		int64_t start = store_column_int64(st, 1);
		h[nh++] = (struct hop){store_column_int64(st, 0), start, start + store_column_int64(st, 2),
				       store_column_int64(st, 3), store_column_int64(st, 4)};
	}
	store_finalize(st);
	if (rc < 0) {
		free(h);
		return -1;
	}
	if (nh > 1)
		qsort(h, nh, sizeof(*h), cmp_hop);
	struct occ *v = xmalloc((m->nops ? m->nops : 1) * sizeof(*v));
	size_t n = 0;
	for (size_t j = 0; j < m->nops; j++) {
		const struct rp_op *o = &m->ops[j];
		if (o->kind != RP_OP_KERNEL || o->comm || o->call < 0 || m->calls[o->call].step < 0)
			continue;
		const struct rp_call *c = &m->calls[o->call];
		/* the last operator of the thread that started at or before the launch, and one around it */
		size_t lo = 0, hi = nh;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (h[mid].tid < c->tid || (h[mid].tid == c->tid && h[mid].start <= c->start))
				lo = mid + 1;
			else
				hi = mid;
		}
		struct occ x = {-1, -1, o->name_id, o->call, (int64_t)j, c->step, -2 - (int64_t)j, o->dur};
		/* the stored operators of a thread are the outermost and a few kept ranges inside them: look back a little */
		for (size_t i = lo, back = 0; i > 0 && back < 4; i--, back++) {
			const struct hop *p = &h[i - 1];
			if (p->tid != c->tid)
				break;
			if (p->end >= c->start) {
				x.host = p->name;
				x.dims = p->dims;
				x.kernel = -1;
				x.inst = (int64_t)(i - 1);
				break;
			}
		}
		v[n++] = x;
	}
	free(h);
	/* one per operator call: the first of its kernels, their time summed */
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_inst);
	if (kern) {
		*kern = xmalloc((n ? n : 1) * sizeof(**kern));
		memcpy(*kern, v, n * sizeof(*v));
		*nkern = n;
	}
	size_t u = 0;
	for (size_t i = 0; i < n; i++) {
		if (u && v[u - 1].inst == v[i].inst)
			v[u - 1].dur += v[i].dur;
		else
			v[u++] = v[i];
	}
	n = u;
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_occ);
	*out = v;
	return (long)n;
}

/* The steps of m the replay times (with a first activity). */
static size_t timed_steps(const struct rp_model *m)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nsteps; i++)
		n += m->steps[i].first_op >= 0;
	return n;
}

/* The reference's count per step of key x: the upper median over its timed steps. */
static int64_t ref_count(const struct occ *rv, size_t nr, const struct rp_model *rm, const struct occ *x, int64_t *cnt)
{
	size_t lo = 0, hi = nr;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		struct occ key = *x;
		key.step = -1;
		key.call = -1;
		if (cmp_occ(&rv[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = 0; i < rm->nsteps; i++)
		cnt[i] = 0;
	for (size_t i = lo; i < nr && same_key(&rv[i], x); i++)
		cnt[rv[i].step]++;
	size_t w = 0;
	for (size_t i = 0; i < rm->nsteps; i++)
		if (rm->steps[i].first_op >= 0)
			cnt[w++] = cnt[i];
	if (!w)
		return 0;
	qsort(cnt, w, sizeof(*cnt), stats_cmp_i64);
	return cnt[w / 2];
}

/* The same operator, shapes aside, or without an operator the same kernel, in one step: the second matching. */
static int same_loose(const struct occ *a, const struct occ *b)
{
	return a->host == b->host && a->kernel == b->kernel && a->step == b->step;
}

static int cmp_loose(const void *pa, const void *pb)
{
	const struct occ *a = pa, *b = pb;
	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	if (a->kernel != b->kernel)
		return a->kernel < b->kernel ? -1 : 1;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	return (a->call > b->call) - (a->call < b->call);
}

/* Occurrences of key x in v (sorted by key, step) per step of m into cnt (m->nsteps). */
static void count_steps(const struct occ *v, size_t n, const struct occ *x, const struct rp_model *m, int64_t *cnt)
{
	for (size_t i = 0; i < m->nsteps; i++)
		cnt[i] = 0;
	size_t lo = 0, hi = n;
	struct occ key = *x;
	key.step = -1;
	key.call = -1;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cmp_occ(&v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < n && same_key(&v[i], x); i++)
		cnt[v[i].step]++;
}

size_t rp_extra_pick(struct store *s, const struct rank_key *k, const struct rp_model *m, const struct rank_key *ref,
		     int contain, unsigned char *drop, struct rp_extra_where *w)
{
	struct rp_model rm;
	struct occ *v = NULL, *rv = NULL, *cand = NULL, *miss = NULL, *kern = NULL;
	long n = -1, nr = -1;
	size_t picked = 0, ncand = 0, nmiss = 0, cap = 0, nkern = 0;
	memset(w, 0, sizeof(*w));
	w->host = w->dims = w->kernel = -1;
	if (rp_model_load(s, ref, &rm) < 0)
		return 0;
	if (!timed_steps(&rm) || (nr = occurrences(s, ref, &rm, &rv, NULL, NULL)) < 0 ||
	    (n = occurrences(s, k, m, &v, &kern, &nkern)) < 0)
		goto out;
	size_t ns = rm.nsteps > m->nsteps ? rm.nsteps : m->nsteps;
	int64_t *cnt = xmalloc((ns ? ns : 1) * sizeof(*cnt)), *have = xmalloc((ns ? ns : 1) * sizeof(*have));
	/* exact keys: per step of the run, the occurrences beyond the reference's count, the latest launched */
	for (long i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && same_key(&v[j], &v[i]);)
			j++;
		int64_t want = ref_count(rv, (size_t)nr, &rm, &v[i], cnt);
		for (long a = i, b; a < j; a = b) {
			for (b = a + 1; b < j && v[b].step == v[a].step;)
				b++;
			for (long q = a + want; q < b; q++) {
				cand = xgrow(cand, &cap, ncand + 1, sizeof(*cand));
				cand[ncand++] = v[q];
			}
		}
	}
	/* and the reference's occurrences the run lacks, per step (the same operator on other shapes, say) */
	cap = 0;
	for (long i = 0, j; i < nr; i = j) {
		for (j = i + 1; j < nr && same_key(&rv[j], &rv[i]);)
			j++;
		int64_t want = ref_count(rv, (size_t)nr, &rm, &rv[i], cnt);
		count_steps(v, (size_t)n, &rv[i], m, have);
		for (size_t st = 0; st < m->nsteps; st++)
			if (m->steps[st].first_op >= 0 && have[st] < want) {
				miss = xgrow(miss, &cap, nmiss + 1, sizeof(*miss));
				miss[nmiss] = rv[i];
				miss[nmiss].step = (int)st;
				miss[nmiss++].call = want - have[st]; /* here: how many are missing */
			}
	}
	free(cnt);
	free(have);
	/* a configuration the inputs do not give whole: the run must contain the reference's work */
	if (contain && nmiss)
		goto out;
	/*
	 * The same operator on other shapes (and so, maybe, another kernel) is
	 * other work, not extra work: in each step, as many of the surplus as
	 * the reference's missing occurrences of that operator are matched with
	 * them (the earliest); the rest are extra.
	 */
	if (ncand > 1)
		qsort(cand, ncand, sizeof(*cand), cmp_loose);
	if (nmiss > 1)
		qsort(miss, nmiss, sizeof(*miss), cmp_loose);
	for (size_t i = 0, j, mi = 0; i < ncand; i = j) {
		struct occ g = cand[i];
		g.call = -1;
		for (j = i + 1; j < ncand && same_loose(&cand[j], &g);)
			j++;
		int64_t matched = 0;
		for (; mi < nmiss && !same_loose(&miss[mi], &g) && cmp_loose(&miss[mi], &g) < 0; mi++)
			;
		for (; mi < nmiss && same_loose(&miss[mi], &g); mi++)
			matched += miss[mi].call;
		for (size_t q = i + (size_t)(matched < (int64_t)(j - i) ? matched : (int64_t)(j - i)); q < j; q++) {
			/* every kernel of that operator call */
			size_t lo = 0, hi = nkern;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (kern[mid].inst < cand[q].inst)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < nkern && kern[lo].inst == cand[q].inst; lo++) {
				drop[kern[lo].op] = 1;
				picked++;
			}
		}
	}
	/* where: the exact key whose extra kernels take the most time, and its longest kernel */
	double most = 0, key_ns = 0;
	int64_t largest = -1;
	for (size_t i = 0; i < nkern; i++)
		if (drop[kern[i].op] && (largest < 0 || m->ops[kern[i].op].dur > m->ops[largest].dur))
			largest = kern[i].op;
	for (long i = 0; i < n; i++) {
		if (i && !same_key(&v[i], &v[i - 1]))
			key_ns = 0;
		if (!drop[v[i].op])
			continue;
		key_ns += (double)v[i].dur;
		if (key_ns > most) {
			most = key_ns;
			w->host = v[i].host;
			w->dims = v[i].dims;
			w->kernel = v[i].kernel;
		}
	}
	if (largest >= 0)
		w->t = m->calls[m->ops[largest].call].start;
out:
	free(v);
	free(rv);
	free(cand);
	free(miss);
	free(kern);
	rp_model_release(&rm);
	return picked;
}

char *rp_extra_words(struct store *s, const struct rp_extra_where *w)
{
	struct buf b;
	buf_init(&b);
	char *host = w->host >= 0 ? rank_name(s, w->host) : NULL;
	char *dims = w->dims >= 0 ? rank_name(s, w->dims) : NULL;
	if (host) {
		buf_adds(&b, host);
		if (dims && *dims)
			buf_printf(&b, " %s", dims);
	} else {
		char *kn = rank_name(s, w->kernel);
		/* a kernel's templated name can run to hundreds of characters: its start says which */
		buf_printf(&b, "kernel %.80s%s", kn ? kn : "?", kn && strlen(kn) > 80 ? "..." : "");
		free(kn);
	}
	free(host);
	free(dims);
	return buf_detach(&b);
}
