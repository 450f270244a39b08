/*
 * causes_inputs.c: what straggler_causes.csv says of a straggler's inputs
 * and copies: its input shapes against the other ranks' (shapes) and the
 * rate pinned copies reach in the same run (pinned_gb_per_s).
 */
#include "analyze/ranks/causes_inputs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/lib/rankdata.h"
#include "analyze/lib/stats.h"
#include "util/search.h"
#include "util/buf.h"
#include "util/xalloc.h"

/*
 * Input shapes. Per rank, each operator name's first call (in order of
 * start, over the rank's traces) whose "Input Dims" the trace recorded
 * (cpu_ops.dims_id: record_shapes=True), among the operators the store
 * keeps (the outermost of each thread). The straggler's first call of a
 * name is matched with the others' first call of the same name; the
 * others' dims are those most of them have (ties: the lowest rank's).
 * Where they differ, the first input (position) whose dims differ gives
 * the shapes and the ratio of its element counts, straggler over others.
 * Of the operators that differ, the one with the largest ratio is stated;
 * ties (within 1e-9) go to the one the straggler called first. shapes:
 * "[12,1024] vs [8,1024] (1.50x)", empty when no trace recorded dims or
 * none differ.
 */

static int cmp_op_dims(const void *pa, const void *pb)
{
	const struct op_dims *a = pa, *b = pb;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* Rank k's first call with dims per operator name, sorted by name, into *out; their count, -1 on error. */
long causes_rank_op_dims(struct store *s, const struct rank_key *k, struct op_dims **out)
{
	struct store_stmt *st;
	*out = NULL;
	st = rank_query_kept(s, "straggler_causes: input dims",
			"SELECT x.name_id, x.dims_id, x.start_ns FROM traces rt JOIN cpu_ops x ON x.trace_id = rt.id"
			" WHERE rt.run_id = ?1 AND rt.rank = ?2 AND x.dims_id IS NOT NULL", k);
	if (!st)
		return -1;
	struct op_dims *v = NULL;
	size_t n = 0, cap = 0;
	int rc;
	while ((rc = store_next(st)) > 0) {
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n++] = (struct op_dims){store_column_int64(st, 0), store_column_int64(st, 1), store_column_int64(st, 2)};
	}
	store_reset(st);
	if (rc < 0) {
		free(v);
		return -1;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_op_dims);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!m || v[m - 1].name != v[i].name)
			v[m++] = v[i];
	*out = v;
	return (long)m;
}

/* The i-th input of compact dims text d ("[36,1024],[50257,1024]") into in[0 .. *len); 0 when there is none. */
static int dims_input(const char *d, size_t i, const char **in, size_t *len)
{
	const char *p = d;
	for (size_t k = 0;; k++) {
		const char *e = strchr(p, ']');
		if (*p != '[' || !e)
			return 0;
		if (k == i) {
			*in = p;
			*len = (size_t)(e - p) + 1;
			return 1;
		}
		p = e + 1;
		if (*p != ',')
			return 0;
		p++;
	}
}

/* The element count of one input "[36,1024]" (1 for "[]", a scalar); -1 when not a number list. */
static double dims_elems(const char *in, size_t len)
{
	double e = 1;
	const char *p = in + 1, *end = in + len - 1;
	while (p < end) {
		char *q;
		long long x = strtoll(p, &q, 10);
		if (q == p || x < 0)
			return -1;
		e *= (double)x;
		p = q < end && *q == ',' ? q + 1 : q;
	}
	return e;
}

static int dims_before(const void *elem, const void *key)
{
	return ((const struct op_dims *)elem)->name < *(const int64_t *)key;
}

/* The op_dims of name in v[0 .. n) (sorted by name, one per name), or NULL. */
static const struct op_dims *find_dims(const struct op_dims *v, size_t n, int64_t name)
{
	size_t lo = lower_bound(v, n, sizeof(*v), &name, dims_before);
	return lo < n && v[lo].name == name ? &v[lo] : NULL;
}

static int i64_before(const void *elem, const void *key)
{
	return *(const int64_t *)elem < *(const int64_t *)key;
}

static int i64_not_after(const void *elem, const void *key)
{
	return *(const int64_t *)elem <= *(const int64_t *)key;
}

/*
 * How many of v[0 .. n) (sorted) equal x: two binary searches, never a
 * walk over the equal ones (asked once per value, a walk made the ranks'
 * shapes quadratic in ranks when most agree: 2,048 ranks, 11.9 s).
 */
static size_t count_of(const int64_t *v, size_t n, int64_t x)
{
	return lower_bound(v, n, sizeof(*v), &x, i64_not_after) - lower_bound(v, n, sizeof(*v), &x, i64_before);
}

/*
 * The shapes text (see above) of the straggler s against the other ranks
 * into b (left empty: none differ), from each rank's op_dims od[r][0 .. nod[r]).
 */
void causes_rank_shapes(struct store *st, struct op_dims *const *od, const size_t *nod, size_t nr, size_t s,
			struct buf *b)
{
	double best = -1;
	int64_t best_start = 0;
	char *mine_t = NULL, *other_t = NULL;
	int64_t *vals = xmalloc(nr * sizeof(*vals));
	for (size_t i = 0; i < nod[s]; i++) {
		const struct op_dims *me = &od[s][i];
		size_t nv = 0;
		for (size_t r = 0; r < nr; r++) {
			const struct op_dims *x = r == s ? NULL : find_dims(od[r], nod[r], me->name);
			if (x)
				vals[nv++] = x->dims;
		}
		if (!nv)
			continue;
		int64_t *sorted = xmalloc(nv * sizeof(*sorted));
		memcpy(sorted, vals, nv * sizeof(*sorted));
		qsort(sorted, nv, sizeof(*sorted), stats_cmp_i64);
		size_t most = 0;
		for (size_t j = 0, c = 0; j < nv; j++) { /* c: the length of the run of equal values ending at j */
			c = j && sorted[j] == sorted[j - 1] ? c + 1 : 1;
			most = c > most ? c : most;
		}
		int64_t other = -1;
		for (size_t j = 0; j < nv && other < 0; j++) /* vals is in rank order: the lowest rank's on a tie */
			if (count_of(sorted, nv, vals[j]) == most)
				other = vals[j];
		free(sorted);
		if (other == me->dims)
			continue;
		char *a = rank_name(st, me->dims), *o = rank_name(st, other);
		const char *ia, *io;
		size_t la, lo;
		for (size_t k = 0; a && o && dims_input(a, k, &ia, &la) && dims_input(o, k, &io, &lo); k++) {
			if (la == lo && !memcmp(ia, io, la))
				continue;
			double ea = dims_elems(ia, la), eo = dims_elems(io, lo);
			double ratio = ea >= 0 && eo > 0 ? ea / eo : -1;
			if (ratio >= 0 && (ratio > best + 1e-9 || (ratio >= best - 1e-9 && me->start < best_start))) {
				best = ratio;
				best_start = me->start;
				free(mine_t);
				free(other_t);
				mine_t = xstrndup(ia, la);
				other_t = xstrndup(io, lo);
			}
			break;
		}
		free(a);
		free(o);
	}
	free(vals);
	if (mine_t)
		buf_printf(b, "%s vs %s (%.2fx)", mine_t, other_t, best);
	free(mine_t);
	free(other_t);
}

/*
 * pinned_gb_per_s of a pageable copy row: the rate of the copies in the
 * same direction from or to pinned memory, the row's name with "Pageable"
 * read as "Pinned" ("Memcpy HtoD (Pinned -> Device)"), over every rank of
 * the run: their bytes summed over their time summed (bytes per ns =
 * GB/s); NAN when the run has none.
 */
double causes_pinned_gbps(struct store *s, int64_t run_db_id, const char *name)
{
	const char *p = strstr(name, "Pageable");
	if (!p)
		return NAN;
	struct buf pn;
	buf_init(&pn);
	buf_printf(&pn, "%.*sPinned%s", (int)(p - name), name, p + 8);
	struct store_stmt *st;
	double r = NAN;
	if (store_prepare(s, "straggler_causes: pinned copies",
			  "SELECT sum(a.bytes), sum(a.dur_ns) FROM traces t JOIN activities a ON a.trace_id = t.id"
			  " JOIN names n ON n.id = a.name_id WHERE t.run_id = ?1 AND a.kind = 'memcpy' AND n.name = ?2"
			  " AND a.bytes > 0 AND a.dur_ns > 0", &st) == 0) {
		store_bind_int64(st, 1, run_db_id);
		store_bind_text(st, 2, pn.data);
		if (store_next(st) > 0 && store_column_type(st, 0) != STORE_NULL &&
		    store_column_int64(st, 1) > 0)
			r = (double)store_column_int64(st, 0) / (double)store_column_int64(st, 1);
		store_finalize(st);
	}
	buf_release(&pn);
	return r;
}
