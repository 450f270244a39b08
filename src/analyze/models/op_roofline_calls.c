/*
 * op_roofline_calls.c: which operator call of model_ops each kernel of a
 * rank belongs to, for op_roofline.c (each call's GPU time) and for the
 * what-if roofline:OP=F change (analyze/replay/whatif.c: the kernels of
 * the calls it scales).
 *
 * A kernel's launch (by correlation) is a host runtime call, and the
 * kernel goes to the innermost model_ops call of the launching thread
 * whose range holds the launch; ATen's own kernels count only for the
 * operators whose kernels they are (op_roofline_aten_kernels).
 */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/lib/rankdata.h"
#include "analyze/models/op_roofline.h"
#include "store/store.h"
#include "util/xalloc.h"

static int cmp_mop(const void *pa, const void *pb)
{
	const struct mop *a = pa, *b = pb;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end > b->end ? -1 : a->end < b->end;
}

/* A kernel's time claimed by a call: the kernel's name id, the call's index, its time, its index in acts. */
struct claim {
	int64_t name;
	long op;
	int64_t ns;
	size_t act;
};

static int cmp_claim(const void *pa, const void *pb)
{
	const struct claim *a = pa, *b = pb;
	return a->name < b->name ? -1 : a->name > b->name;
}

/* The last call with (tid, start <= ts) in v sorted by cmp_mop, or -1. */
static long last_at(const struct mop *v, size_t n, int64_t tid, int64_t ts)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].tid < tid || (v[mid].tid == tid && v[mid].start <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || v[lo - 1].tid != tid)
		return -1;
	return (long)lo - 1;
}

int op_roofline_calls(struct store *s, const struct rank_key *k, const struct rank_data *d, struct mop **out,
		      size_t *nout, struct op_roofline_claim **kept, size_t *nkept)
{
	struct store_stmt *st = rank_query_kept(s, "op_roofline: model ops",
		/*
		 * An optimizer's concrete inputs (its learning rate, a step's bias
		 * corrections) change from step to step and its price does not read
		 * them: left out, so that its calls make one row.
		 */
		"SELECT x.tid, x.start_ns, x.dur_ns, x.name_id, x.dims_id, x.types_id,"
		" CASE WHEN n.name GLOB 'aten::_foreach_*' OR n.name GLOB 'aten::_fused_adam*' THEN NULL"
		" ELSE x.concrete_id END"
		" FROM traces rt JOIN model_ops x ON x.trace_id = rt.id JOIN names n ON n.id = x.name_id"
		" WHERE rt.run_id = ?1 AND rt.rank = ?2", k);
	if (!st)
		return -1;
	struct mop *v = NULL;
	size_t n = 0, cap = 0, nk = 0, capk = 0;
	int rc;
	*out = NULL;
	*nout = 0;
	if (kept) {
		*kept = NULL;
		*nkept = 0;
	}
	while ((rc = store_next(st)) > 0) {
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		int64_t start = store_column_int64(st, 1);
		int64_t c[4];
		for (int i = 0; i < 4; i++)
			c[i] = store_column_type(st, 3 + i) == STORE_NULL ? -1 : store_column_int64(st, 3 + i);
		v[n++] = (struct mop){store_column_type(st, 0) == STORE_NULL ? -1 : store_column_int64(st, 0), start,
				      start + store_column_int64(st, 2), c[0], c[1], c[2], c[3], -1, 0, 0};
	}
	store_reset(st); /* kept for the next rank (rank_query_kept) */
	if (rc < 0 || !n) {
		free(v);
		return rc < 0 ? -1 : 0;
	}
	qsort(v, n, sizeof(*v), cmp_mop);
	/* each call's parent: the innermost earlier call of its thread that holds its start */
	for (size_t i = 1; i < n; i++) {
		long p = v[i - 1].tid == v[i].tid ? (long)i - 1 : -1;
		while (p >= 0 && v[p].end < v[i].start)
			p = v[p].parent;
		v[i].parent = p;
	}
	for (size_t i = 0; i < n; i++) {
		if (!d->nsteps) {
			v[i].in_step = 1;
			continue;
		}
		size_t s = rk_search(d->steps, d->nsteps, v[i].start, 1);
		v[i].in_step = s > 0 && d->steps[s - 1].end > v[i].start;
	}
	struct launch_index *idx = d->nlaunches ? rank_launch_index(d) : NULL;
	struct claim *cl = NULL;
	size_t ncl = 0, capcl = 0;
	for (size_t i = 0; idx && i < d->nacts; i++) {
		const struct rk_act *a = &d->acts[i];
		if (a->kind != ACT_KERNEL || a->corr < 0)
			continue;
		const struct rk_range *l = rank_launch_of(d, idx, a->corr);
		if (!l)
			continue;
		long j = last_at(v, n, l->tid, l->start);
		while (j >= 0 && v[j].end < l->start)
			j = v[j].parent;
		if (j < 0)
			continue;
		cl = xgrow(cl, &capcl, ncl + 1, sizeof(*cl));
		cl[ncl++] = (struct claim){a->name_id, j, a->end - a->start, i};
	}
	rank_launch_index_release(d, idx);
	/*
	 * ATen's own kernels ("void at::native::..."; TraceLens's fallback
	 * rule for elementwise and reduce kernels) are an operator left out of
	 * model_ops inside the priced one, such as the casts autocast runs
	 * inside an aten::addmm before the inner bf16 one: not the product's
	 * or the attention's time, so left out; a norm's or an elementwise
	 * operator's own kernels are ATen's, and kept.
	 */
	if (ncl) /* cl is NULL when no kernel was claimed: qsort's pointer must not be */
		qsort(cl, ncl, sizeof(*cl), cmp_claim);
	int aten = 0;
	int64_t own[64]; /* operators whose own kernels are ATen's (norms, elementwise): name ids, -1 - id when not */
	size_t nown = 0;
	for (size_t i = 0; i < ncl; i++) {
		if (!i || cl[i].name != cl[i - 1].name) {
			char *kn = rank_name(s, cl[i].name);
			aten = kn && !strncmp(kn, "void at::native::", 17);
			free(kn);
		}
		if (aten) {
			int64_t op = v[cl[i].op].name;
			size_t k = 0;
			while (k < nown && own[k] != op && own[k] != -1 - op)
				k++;
			if (k == nown) {
				char *on = rank_name(s, op);
				int yes = on && op_roofline_aten_kernels(on);
				free(on);
				if (nown < sizeof(own) / sizeof(own[0]))
					own[nown++] = yes ? op : -1 - op;
				else if (!yes)
					continue;
			}
			if (k < nown && own[k] != op)
				continue;
		}
		v[cl[i].op].gpu_ns += cl[i].ns;
		if (kept) {
			*kept = xgrow(*kept, &capk, nk + 1, sizeof(**kept));
			(*kept)[nk++] = (struct op_roofline_claim){cl[i].act, cl[i].op};
		}
	}
	free(cl);
	if (kept)
		*nkept = nk;
	*out = v;
	*nout = n;
	return 0;
}

static int cmp_scale(const void *pa, const void *pb)
{
	const struct op_roofline_scale *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->name_id < b->name_id ? -1 : a->name_id > b->name_id;
}

/* qsort order of pointers to calls (op_roofline.h): one row of op_roofline.csv is a run of equal ones. */
int op_roofline_cmp_row(const void *pa, const void *pb)
{
	const struct mop *a = *(const struct mop *const *)pa, *b = *(const struct mop *const *)pb;
	int64_t x[4] = {a->name, a->dims, a->types, a->concrete}, y[4] = {b->name, b->dims, b->types, b->concrete};
	for (int i = 0; i < 4; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* The peaks of rank k's first named device (op_roofline.h). */
int op_roofline_rank_peaks(struct store *s, const struct rank_key *k, const struct device_peaks **pk)
{
	*pk = NULL;
	struct store_stmt *st = rank_query_kept(s, "op_roofline: device",
		"SELECT x.name FROM traces rt JOIN devices x ON x.trace_id = rt.id"
		" WHERE rt.run_id = ?1 AND rt.rank = ?2 AND x.name IS NOT NULL ORDER BY x.device LIMIT 1", k);
	if (!st)
		return -1;
	int rc = store_next(st);
	if (rc > 0)
		*pk = op_roofline_peaks((const char *)store_column_text(st, 0));
	store_reset(st);
	return rc < 0 ? -1 : 0;
}

int op_roofline_whatif(struct store *s, const struct rank_key *k, const struct rank_data *d, const char *pattern,
		       double frac, struct op_roofline_scale **out, size_t *nout, size_t *rows)
{
	struct mop *v;
	struct op_roofline_claim *cl;
	size_t n, ncl;
	*out = NULL;
	*nout = *rows = 0;
	if (op_roofline_calls(s, k, d, &v, &n, &cl, &ncl) < 0)
		return -1;
	const struct device_peaks *pk = NULL;
	int rc = n ? op_roofline_rank_peaks(s, k, &pk) : 0;
	double *scale = xmalloc((n + 1) * sizeof(*scale)); /* per call: its kernels' factor */
	struct mop **by = xmalloc((n + 1) * sizeof(*by));
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		scale[i] = 1.0;
		if (v[i].in_step)
			by[m++] = &v[i];
	}
	if (m)
		qsort(by, m, sizeof(*by), op_roofline_cmp_row);
	for (size_t i = 0, j; rc == 0 && pk && i < m; i = j) {
		int64_t gpu = 0, calls = 0;
		for (j = i; j < m && !op_roofline_cmp_row(&by[i], &by[j]); j++) {
			gpu += by[j]->gpu_ns;
			calls++;
		}
		char *name = by[i]->name >= 0 ? rank_name(s, by[i]->name) : NULL;
		char *dims = by[i]->dims >= 0 ? rank_name(s, by[i]->dims) : NULL;
		char *types = by[i]->types >= 0 ? rank_name(s, by[i]->types) : NULL;
		char *conc = by[i]->concrete >= 0 ? rank_name(s, by[i]->concrete) : NULL;
		struct op_cost c;
		if (gpu > 0 && name && !fnmatch(pattern, name, 0) && op_roofline_cost(name, dims, types, conc, &c)) {
			/* op_roofline.csv's roofline_us_per_step, for the row's calls (in ns) */
			double pf = op_roofline_peak_flops(pk, c.dtype), roof = NAN;
			if (c.flops > 0 && pf > 0 && pk->hbm > 0 && c.bytes > 0)
				roof = fmax(c.flops / pf, c.bytes / pk->hbm);
			else if (c.flops == 0 && pk->hbm > 0 && c.bytes > 0)
				roof = c.bytes / pk->hbm;
			if (!isnan(roof)) {
				double want = roof * 1e9 * (double)calls / frac, f = want < (double)gpu ? want / (double)gpu : 1.0;
				for (size_t q = i; q < j; q++)
					scale[by[q] - v] = f;
				(*rows)++;
			}
		}
		free(name);
		free(dims);
		free(types);
		free(conc);
	}
	free(by);
	size_t ns = 0, cap = 0;
	for (size_t i = 0; rc == 0 && i < ncl; i++)
		if (scale[cl[i].call] < 1.0) {
			const struct rk_act *a = &d->acts[cl[i].act];
			*out = xgrow(*out, &cap, ns + 1, sizeof(**out));
			(*out)[ns++] = (struct op_roofline_scale){a->start, a->name_id, scale[cl[i].call]};
		}
	if (ns)
		qsort(*out, ns, sizeof(**out), cmp_scale);
	*nout = ns;
	free(scale);
	free(cl);
	free(v);
	return rc;
}
