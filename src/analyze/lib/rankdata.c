/* rankdata.c: one rank's events from the store into arrays, see rankdata.h. */
#include "analyze/lib/rankdata.h"
#include "analyze/lib/rankpack.h"
#include "analyze/lib/stats.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "util/diag.h"
#include "util/intmap.h"
#include "util/scratch.h"
#include "util/table.h"
#include "util/xalloc.h"

/*
 * The end of a stored span, start + dur, saturated at INT64_MAX (a negative
 * dur taken as 0). The store's sink refuses a span whose end is beyond int64
 * (store/sink.c), so this only keeps a store perfstudy did not write (a
 * forged previous store the cache reads) from overflowing here.
 */
static int64_t span_end(int64_t start, int64_t dur)
{
	if (dur < 0)
		return start;
	return start > INT64_MAX - dur ? INT64_MAX : start + dur;
}

/*
 * The last experiment's ranked runs, kept until rank_cache_clear: every
 * walk over the ranks (a dozen analyses) asked the store again, a sort of
 * every trace of the experiment each time.
 */
static const struct store *keys_store;
static char *keys_exp;
static struct store_ranked_run *keys_runs;
static size_t keys_nruns;

static void keys_clear(void)
{
	store_ranked_runs_free(keys_runs, keys_nruns);
	free(keys_exp);
	keys_runs = NULL;
	keys_nruns = 0;
	keys_exp = NULL;
	keys_store = NULL;
}

int rank_keys(struct store *s, const char *exp, struct rank_key **out, size_t *n)
{
	size_t total = 0;
	*out = NULL;
	*n = 0;
	if (keys_store != s || !keys_exp || strcmp(keys_exp, exp)) {
		keys_clear();
		if (store_ranked_runs(s, exp, &keys_runs, &keys_nruns) < 0)
			return -1;
		keys_store = s;
		keys_exp = xstrdup(exp);
	}
	const struct store_ranked_run *runs = keys_runs;
	size_t nruns = keys_nruns;
	for (size_t r = 0; r < nruns; r++)
		total += runs[r].nranks;
	if (total)
		*out = xcalloc(total, sizeof(**out));
	for (size_t r = 0; r < nruns; r++)
		for (size_t i = 0; i < runs[r].nranks; i++)
			(*out)[(*n)++] = (struct rank_key){xstrdup(runs[r].run), runs[r].run_id, runs[r].ranks[i],
							   runs[r].position};
	return 0;
}

void rank_bind(struct store_stmt *st, const struct rank_key *k)
{
	store_bind_int64(st, 1, k->run_db_id);
	store_bind_int(st, 2, k->rank);
}

struct store_stmt *rank_query(struct store *s, const char *what, const char *sql, const struct rank_key *k)
{
	struct store_stmt *st;
	if (store_prepare(s, what, sql, &st) < 0)
		return NULL;
	rank_bind(st, k);
	return st;
}

void rank_keys_free(struct rank_key *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i].run);
	free(k);
}

int for_each_rank(struct store *s, const char *exp,
		  int (*visit)(const struct rank_key *k, const struct rank_data *d, void *arg), void *arg)
{
	struct rank_key *keys;
	size_t nkeys;
	if (rank_keys(s, exp, &keys, &nkeys) < 0)
		return -1;
	struct classifier *cls = classifier_preset("default");
	int rc = 0;
	for (size_t k = 0; k < nkeys && !rc; k++) {
		struct rank_data d;
		if (rank_data_load(s, &keys[k], cls, &d) < 0) {
			rc = -1;
			break;
		}
		rc = visit(&keys[k], &d, arg);
		rank_data_release(&d);
	}
	classifier_free(cls);
	rank_keys_free(keys, nkeys);
	return rc < 0 ? -1 : 0;
}

static int cmp_act(const void *pa, const void *pb)
{
	const struct rk_act *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

/* By start, then the longer first, so an enclosing range comes before what it encloses. */
static int cmp_range(const void *pa, const void *pb)
{
	const struct rk_range *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

/*
 * Rows come back in the order they were stored, which for a Kineto trace
 * is nearly always already the order wanted: one pass finds out, and only
 * unsorted arrays are sorted (glibc's qsort is a merge sort, which is
 * stable, so skipping it on a sorted array changes nothing).
 */
static void sort_unless_sorted(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	const char *p = base;
	for (size_t i = 1; i < n; i++)
		if (cmp(p + (i - 1) * size, p + i * size) > 0) {
			qsort(base, n, size, cmp);
			return;
		}
}

/*
 * The statements of a rank's load, prepared once for the store and kept
 * until rank_cache_clear: a study of 10,000 one-kernel ranks spent more
 * time preparing its eight statements a rank than running them. kept()
 * hands one out reset, with its bindings cleared.
 */
enum kept_slot { KEPT_ACTS, KEPT_LAUNCHES, KEPT_ANNOTS, KEPT_GPU_ANNOTS, KEPT_CPU_OPS, KEPT_STEPS, KEPT_NAME,
		 KEPT_FORMATS, KEPT_N };
static struct store_stmt *kept_st[KEPT_N];
static const struct store *kept_store;

/* rank_query_kept's statements, by their SQL text */
static struct kept_sql {
	const char *sql;
	struct store_stmt *st;
} *kept_q;
static size_t nkept_q, kept_qcap;

static void kept_clear(void)
{
	for (int i = 0; i < KEPT_N; i++) {
		store_finalize(kept_st[i]);
		kept_st[i] = NULL;
	}
	for (size_t i = 0; i < nkept_q; i++)
		store_finalize(kept_q[i].st);
	free(kept_q);
	kept_q = NULL;
	nkept_q = kept_qcap = 0;
	kept_store = NULL;
}

/* The statement of slot for s (prepared from sql the first time), or NULL after diag. */
static struct store_stmt *kept(struct store *s, enum kept_slot slot, const char *what, const char *sql)
{
	if (kept_store != s) {
		kept_clear();
		kept_store = s;
	}
	if (!kept_st[slot] && store_prepare(s, what, sql, &kept_st[slot]) < 0)
		return NULL;
	store_reset(kept_st[slot]);
	store_clear_bindings(kept_st[slot]);
	return kept_st[slot];
}

struct store_stmt *rank_query_kept(struct store *s, const char *what, const char *sql, const struct rank_key *k)
{
	if (kept_store != s) {
		kept_clear();
		kept_store = s;
	}
	size_t i = 0;
	while (i < nkept_q && strcmp(kept_q[i].sql, sql))
		i++;
	if (i == nkept_q) {
		struct store_stmt *st;
		if (store_prepare(s, what, sql, &st) < 0)
			return NULL;
		kept_q = xgrow(kept_q, &kept_qcap, nkept_q + 1, sizeof(*kept_q));
		kept_q[nkept_q++] = (struct kept_sql){sql, st};
	}
	store_reset(kept_q[i].st);
	store_clear_bindings(kept_q[i].st);
	rank_bind(kept_q[i].st, k);
	return kept_q[i].st;
}

/* kept(), for a rank's load, bound to rank k: ?1 its run's id, ?2 its rank. NULL after diag. */
static struct store_stmt *kept_rank(struct store *s, enum kept_slot slot, const char *sql, const struct rank_key *k)
{
	struct store_stmt *st = kept(s, slot, "load a rank", sql);
	if (st)
		rank_bind(st, k);
	return st;
}

/* Rows (start, dur, tid, key) of sql bound to (run id, rank) into a sorted range array. */
static int load_ranges(struct store *s, enum kept_slot slot, const char *sql, const struct rank_key *k,
		       struct rk_range **out, size_t *n)
{
	struct store_stmt *st;
	*out = NULL;
	*n = 0;
	if (!(st = kept_rank(s, slot, sql, k)))
		return -1;
	size_t cap = 0;
	int rc;
	while ((rc = store_next(st)) > 0) {
		*out = xgrow(*out, &cap, *n + 1, sizeof(**out));
		struct rk_range *r = &(*out)[(*n)++];
		r->start = store_column_int64(st, 0);
		r->end = span_end(r->start, store_column_int64(st, 1));
		r->tid = store_column_type(st, 2) == STORE_NULL ? -1 : store_column_int64(st, 2);
		r->key = store_column_type(st, 3) == STORE_NULL ? -1 : store_column_int64(st, 3);
	}
	store_reset(st);
	if (rc < 0)
		return -1;
	sort_unless_sorted(*out, *n, sizeof(**out), cmp_range);
	return 0;
}

/*
 * The rows of table x of one rank's traces. A join, not `trace_id IN
 * (SELECT ...)`: SQLite costs an IN over a subquery as 25 values, and with
 * the exact statistics of store_index_traces (16 ranks: 9498 activities a
 * trace) that is more than the table, so it scanned the table for each rank
 * (16 ranks x 20 MB: temporal 0.18 -> 0.60 s). Rows come in trace order,
 * then row order, as from the index before.
 */
#define RANK_ROWS(x) " FROM traces rt JOIN " x " x ON x.trace_id = rt.id WHERE rt.run_id = ?1 AND rt.rank = ?2"

/*
 * The class of each (kind, name id) under one classifier, for one store:
 * a rank load looks names up only the first time one is seen, instead of
 * joining every row with names and hashing its text (a fifth of a reload).
 */
static const struct store *memo_store;
static const struct classifier *memo_cls;
static signed char *memo[4]; /* by activity_kind, then name id; 0: not yet, else 1 + rk_class */
static size_t memo_n[4];

static void memo_clear(void)
{
	for (int i = 0; i < 4; i++) {
		free(memo[i]);
		memo[i] = NULL;
		memo_n[i] = 0;
	}
	memo_store = NULL;
	memo_cls = NULL;
}

static int class_of(struct store *s, const struct classifier *cls, enum activity_kind kind, int64_t name_id,
		    enum rk_class *out)
{
	if (memo_store != s || memo_cls != cls) {
		memo_clear();
		memo_store = s;
		memo_cls = cls;
	}
	int k = kind >= ACT_KERNEL && kind <= ACT_MEMSET ? (int)kind : ACT_KERNEL;
	size_t id = name_id > 0 ? (size_t)name_id : 0;
	if (id >= memo_n[k]) {
		size_t n = memo_n[k] ? memo_n[k] : 256;
		while (n <= id)
			n *= 2;
		memo[k] = xrealloc(memo[k], n);
		memset(memo[k] + memo_n[k], 0, n - memo_n[k]);
		memo_n[k] = n;
	}
	if (!memo[k][id]) {
		struct store_stmt *nm = kept(s, KEPT_NAME, "look up a name", "SELECT name FROM names WHERE id = ?1");
		if (!nm)
			return -1;
		store_bind_int64(nm, 1, name_id);
		int rc = store_next(nm);
		if (rc < 0) {
			store_reset(nm);
			return -1;
		}
		const char *name = rc ? (const char *)store_column_text(nm, 0) : NULL;
		const char *g = classify(cls, (enum activity_kind)k, name ? name : "");
		enum rk_class c = !strcmp(g, "communication") ? RK_COMM : !strcmp(g, "memory") ? RK_MEMORY : RK_COMPUTE;
		store_reset(nm);
		memo[k][id] = (signed char)(1 + c);
	}
	*out = (enum rk_class)(memo[k][id] - 1);
	return 0;
}

static int load_uncached(struct store *s, const struct rank_key *k, const struct classifier *cls, struct rank_data *d)
{
	memset(d, 0, sizeof(*d));
	struct store_stmt *st = kept_rank(s, KEPT_ACTS,
				     "SELECT x.start_ns, x.dur_ns, x.correlation, x.kind, x.name_id, x.bytes, x.copy_kind, x.stream"
				     RANK_ROWS("activities"), k);
	if (!st)
		return -1;
	size_t cap = 0;
	int rc;
	while ((rc = store_next(st)) > 0) {
		d->acts = xgrow(d->acts, &cap, d->nacts + 1, sizeof(*d->acts));
		struct rk_act *a = &d->acts[d->nacts++];
		memset(a, 0, sizeof(*a));
		a->start = store_column_int64(st, 0);
		a->end = span_end(a->start, store_column_int64(st, 1));
		a->corr = store_column_type(st, 2) == STORE_NULL ? -1 : store_column_int64(st, 2);
		const char *kind = (const char *)store_column_text(st, 3);
		a->kind = !strcmp(kind, "kernel") ? ACT_KERNEL : !strcmp(kind, "memcpy") ? ACT_MEMCPY : ACT_MEMSET;
		a->name_id = store_column_int64(st, 4);
		if (class_of(s, cls, a->kind, a->name_id, &a->cls) < 0) {
			store_reset(st);
			goto fail;
		}
		a->bytes = store_column_type(st, 5) == STORE_NULL ? -1 : store_column_int64(st, 5);
		const char *ck = (const char *)store_column_text(st, 6);
		if (ck && strlen(ck) < sizeof(a->copy_kind))
			memcpy(a->copy_kind, ck, strlen(ck) + 1);
		a->stream = store_column_type(st, 7) == STORE_NULL ? -1 : store_column_int64(st, 7);
	}
	store_reset(st);
	if (rc < 0)
		goto fail;
	sort_unless_sorted(d->acts, d->nacts, sizeof(*d->acts), cmp_act);
	if (load_ranges(s, KEPT_LAUNCHES, "SELECT start_ns, dur_ns, tid, correlation" RANK_ROWS("launches"),
			k, &d->launches, &d->nlaunches) < 0 ||
	    load_ranges(s, KEPT_ANNOTS, "SELECT start_ns, dur_ns, tid, name_id" RANK_ROWS("annotations") " AND on_gpu = 0",
			k, &d->annots, &d->nannots) < 0 ||
	    load_ranges(s, KEPT_GPU_ANNOTS, "SELECT start_ns, dur_ns, tid, name_id" RANK_ROWS("annotations") " AND on_gpu = 1",
			k, &d->gpu_annots, &d->ngpu_annots) < 0 ||
	    load_ranges(s, KEPT_CPU_OPS, "SELECT start_ns, dur_ns, tid, name_id" RANK_ROWS("cpu_ops"),
			k, &d->cpu_ops, &d->ncpu_ops) < 0 ||
	    load_ranges(s, KEPT_STEPS, "SELECT start_ns, dur_ns, NULL, step" RANK_ROWS("steps"),
			k, &d->steps, &d->nsteps) < 0)
		goto fail;
	return 0;
fail:
	rank_data_release(d);
	return -1;
}

/*
 * Six analyses (temporal, steps_time, memops, ranks, phases, dispatch) walk
 * every rank of an experiment, each loading the rank's events from the
 * store and sorting them. A rank's arrays never change during the analyses
 * (nothing writes the event tables then), so they are kept in a cache for
 * the experiment: a hit hands out the cached arrays (d->cached set;
 * rank_data_release leaves them). The cache holds at most 0.8 times the
 * largest input file (at least 32 MiB, at most 512 MiB), so that a build
 * stays within issue 7's memory bound (1.2x the largest trace + 64 MiB)
 * however many ranks there are, or 32 MiB plus RANK_CACHE_PER_TRACE a
 * trace where that is more (at most 512 MiB): a thousand thin ranks,
 * packed, take about 30 KiB each, and without it 4096 of them reloaded
 * every rank in each of these analyses (memops 0.05 s at 1024 ranks,
 * 2.8 s at 4096). Once full it keeps what it has and later
 * ranks are loaded as before and freed on release: the analyses walk the
 * ranks in the same order one after the other, where evicting the least
 * recently used rank would miss every time. When the first rank loaded
 * shows that the study's ranks would not all fit as arrays, every rank is
 * kept packed instead (pack_rank, about a fifth of the size; a hit unpacks
 * a copy for the caller). rank_cache_clear() at the end of
 * analyze_experiment frees it all.
 *
 * Only part of that budget is memory: packed ranks beyond 0.8x the largest
 * input file (at least RANK_CACHE_MEM_MIN) go to a temporary file
 * (util/scratch.h) and a hit reads them back, so that a thousand thin ranks
 * keep the build within the memory bound too (issue 32: 1024 ranks of 0.3 MB
 * took 247 MiB with every rank in memory); reading a packed rank back from
 * the page cache costs about what unpacking it does.
 */
#define RANK_CACHE_MEM_MIN ((size_t)4 << 20)
#define RANK_CACHE_MIN ((size_t)32 << 20)
#define RANK_CACHE_MAX ((size_t)512 << 20)
#define RANK_CACHE_PER_TRACE ((size_t)40 << 10)

struct rank_cache_entry {
	const struct store *store;
	int64_t run_db_id;
	int rank;
	size_t bytes;
	struct rank_data data; /* the arrays, or */
	unsigned char *packed; /* them packed (rank_pack), when the study's ranks would not fit as arrays, or */
	off_t file_at;         /* where they are in cache_file, when packed is NULL and this is >= 0 */
};

/* Arrays grown by doubling give back what they do not use (up to half). */
static void *fit(void *p, size_t n, size_t size)
{
	if (!p || !n)
		return p;
	void *q = realloc(p, n * size);
	return q ? q : p;
}

static struct rank_cache_entry *cache;
static size_t cache_n, cache_cap, cache_bytes, cache_mem_bytes;
static struct scratch cache_file = SCRATCH_INIT; /* packed ranks over the memory budget */
static struct intmap cache_index; /* (run, rank) -> entry */

static int64_t cache_key(int64_t run_db_id, int rank)
{
	return (int64_t)((uint64_t)run_db_id << 32 | (uint32_t)rank);
}
static const struct store *budget_store; /* the store cache_budget was computed for */
static size_t cache_budget, cache_mem_budget;
static int cache_packed = -1; /* -1: not decided yet for budget_store; 1: ranks are kept packed */
static double inputs_total;  /* bytes of every trace of the store */

static size_t data_bytes(const struct rank_data *d)
{
	return d->nacts * sizeof(*d->acts) + (d->nlaunches + d->nannots + d->ngpu_annots + d->ncpu_ops + d->nsteps) *
						     sizeof(struct rk_range);
}

static void free_arrays(struct rank_data *d)
{
	free(d->acts);
	free(d->launches);
	free(d->annots);
	free(d->gpu_annots);
	free(d->cpu_ops);
	free(d->steps);
	free(d->lidx);
	memset(d, 0, sizeof(*d));
}

/*
 * The cache's budget for store s: 0.8 x its largest input file, or 32 MiB +
 * 40 KiB a trace where that is more, within [RANK_CACHE_MIN, RANK_CACHE_MAX].
 */
static size_t budget(struct store *s)
{
	if (budget_store == s)
		return cache_budget;
	struct store_stmt *st;
	double largest = 0, ntraces = 0;
	inputs_total = 0;
	if (store_prepare(s, "rankdata: trace sizes",
			"SELECT coalesce(max(size), 0), coalesce(sum(size), 0), count(*) FROM traces", &st) == 0) {
		if (store_next(st) > 0) {
			largest = store_column_double(st, 0);
			inputs_total = store_column_double(st, 1);
			ntraces = store_column_double(st, 2);
		}
		store_finalize(st);
	}
	cache_packed = -1;
	double b = 0.8 * largest, per = (double)RANK_CACHE_MIN + ntraces * (double)RANK_CACHE_PER_TRACE;
	if (per > b)
		b = per;
	cache_budget = b < (double)RANK_CACHE_MIN ? RANK_CACHE_MIN : b > (double)RANK_CACHE_MAX ? RANK_CACHE_MAX : (size_t)b;
	b = 0.8 * largest;
	cache_mem_budget = b < (double)RANK_CACHE_MEM_MIN ? RANK_CACHE_MEM_MIN : b > (double)cache_budget ? cache_budget : (size_t)b;
	/* Tests set PERFSTUDY_RANK_CACHE_BYTES (0: no cache) to take the path of studies that outgrow it. */
	const char *e = getenv("PERFSTUDY_RANK_CACHE_BYTES");
	if (e && *e)
		cache_budget = (size_t)strtoull(e, NULL, 10);
	/* and PERFSTUDY_RANK_CACHE_MEM_BYTES the part of it in memory (the rest goes to the scratch file) */
	e = getenv("PERFSTUDY_RANK_CACHE_MEM_BYTES");
	if (e && *e)
		cache_mem_budget = (size_t)strtoull(e, NULL, 10);
	if (cache_mem_budget > cache_budget)
		cache_mem_budget = cache_budget;
	budget_store = s;
	return cache_budget;
}

/* Bytes of the trace files of one rank. */
static double rank_input_bytes(struct store *s, const struct rank_key *k)
{
	struct store_stmt *st;
	double r = 0;
	st = rank_query(s, "load a rank", "SELECT coalesce(sum(size), 0) FROM traces WHERE run_id = ?1 AND rank = ?2",
			k);
	if (!st)
		return 0;
	if (store_next(st) > 0)
		r = store_column_double(st, 0);
	store_finalize(st);
	return r;
}

int rank_data_load(struct store *s, const struct rank_key *k, const struct classifier *cls, struct rank_data *d)
{
	/* by (run, rank) through a map: a search of the list made each walk quadratic in ranks */
	size_t at = intmap_get(&cache_index, cache_key(k->run_db_id, k->rank));
	if (at != SIZE_MAX) {
		struct rank_cache_entry *e = &cache[at];
		if (e->store == s) {
			if (e->packed) {
				rank_unpack(e->packed, d); /* the caller owns these arrays */
				return 0;
			}
			if (e->file_at >= 0) {
				unsigned char *p = xmalloc(e->bytes);
				scratch_read(&cache_file, p, e->bytes, e->file_at);
				rank_unpack(p, d);
				free(p);
				return 0;
			}
			*d = e->data;
			d->cached = 1;
			return 0;
		}
	}
	if (load_uncached(s, k, cls, d) < 0)
		return -1;
	d->acts = fit(d->acts, d->nacts, sizeof(*d->acts));
	d->launches = fit(d->launches, d->nlaunches, sizeof(struct rk_range));
	d->annots = fit(d->annots, d->nannots, sizeof(struct rk_range));
	d->gpu_annots = fit(d->gpu_annots, d->ngpu_annots, sizeof(struct rk_range));
	d->cpu_ops = fit(d->cpu_ops, d->ncpu_ops, sizeof(struct rk_range));
	d->steps = fit(d->steps, d->nsteps, sizeof(struct rk_range));
	size_t bytes = data_bytes(d), limit = budget(s);
	if (limit == 0)
		return 0;
	if (cache_packed < 0) {
		/*
		 * From the first rank loaded: would every rank's arrays fit in the
		 * memory budget, at this rank's bytes per input byte? If not, all
		 * are kept packed, in memory while that budget lasts, then in the file.
		 */
		double in = rank_input_bytes(s, k);
		cache_packed = in > 0 && (double)bytes / in * inputs_total > (double)cache_mem_budget;
	}
	unsigned char *packed = NULL;
	off_t file_at = -1;
	if (cache_packed) {
		packed = rank_pack(d, &bytes);
		if (cache_bytes + bytes > limit) {
			free(packed);
			return 0;
		}
		if (cache_mem_bytes + bytes > cache_mem_budget) {
			file_at = scratch_append(&cache_file, packed, bytes);
			free(packed);
			packed = NULL;
		}
	} else {
		bytes += rank_launch_index_bytes(d); /* kept with the arrays: built once, not by each analysis */
		if (cache_bytes + bytes > limit || cache_mem_bytes + bytes > cache_mem_budget)
			return 0; /* the cache is full: the caller owns d's arrays */
	}
	cache = xgrow(cache, &cache_cap, cache_n + 1, sizeof(*cache));
	intmap_index(&cache_index, cache_key(k->run_db_id, k->rank), cache_n);
	struct rank_cache_entry *e = &cache[cache_n++];
	memset(e, 0, sizeof(*e));
	e->store = s;
	e->run_db_id = k->run_db_id;
	e->rank = k->rank;
	e->bytes = bytes;
	e->file_at = file_at;
	cache_bytes += bytes;
	if (file_at >= 0)
		return 0; /* the caller keeps d's arrays */
	cache_mem_bytes += bytes;
	if (packed) {
		e->packed = packed; /* the caller keeps d's arrays */
		return 0;
	}
	d->lidx = launch_index_build(d);
	e->data = *d;
	d->cached = 1;
	return 0;
}

void rank_cache_clear(void)
{
	for (size_t i = 0; i < cache_n; i++) {
		free_arrays(&cache[i].data);
		free(cache[i].packed);
	}
	free(cache);
	cache = NULL;
	intmap_free(&cache_index);
	cache_n = cache_cap = cache_bytes = cache_mem_bytes = 0;
	scratch_close(&cache_file);
	budget_store = NULL;
	memo_clear();
	kept_clear();
	keys_clear();
}

void rank_data_release(struct rank_data *d)
{
	/* Cached arrays stay with the cache (entries are never evicted) until rank_cache_clear. */
	if (d->cached)
		memset(d, 0, sizeof(*d));
	else
		free_arrays(d);
}

char *rank_formats(struct store *s, const struct rank_key *k)
{
	char *r = NULL;
	struct store_stmt *st = kept(s, KEPT_FORMATS, "load a rank", "SELECT group_concat(format, ', ') FROM (SELECT DISTINCT"
				" format FROM traces WHERE run_id = ?1 AND rank = ?2 ORDER BY format)");
	if (!st)
		return xstrdup("unknown");
	rank_bind(st, k);
	if (store_next(st) > 0 && store_column_text(st, 0))
		r = xstrdup((const char *)store_column_text(st, 0));
	store_reset(st);
	return r ? r : xstrdup("unknown");
}

char *rank_name(struct store *s, int64_t name_id)
{
	char *r = NULL;
	struct store_stmt *st = kept(s, KEPT_NAME, "look up a name", "SELECT name FROM names WHERE id = ?1");
	if (!st)
		return NULL;
	store_bind_int64(st, 1, name_id);
	if (store_next(st) > 0)
		r = xstrdup((const char *)store_column_text(st, 0));
	store_reset(st);
	return r;
}

int64_t *rank_column_ids(struct store_stmt *st, size_t *n)
{
	*n = 0;
	size_t cap = 8;
	int64_t *ids = xmalloc(cap * sizeof(*ids));
	int rc;
	while ((rc = store_next(st)) > 0) {
		if (*n == cap)
			ids = xrealloc(ids, (cap *= 2) * sizeof(*ids));
		ids[(*n)++] = store_column_int64(st, 0);
	}
	store_finalize(st);
	if (rc < 0) {
		free(ids);
		return NULL;
	}
	return ids;
}

/* lower_bound predicates: a range (an activity) that starts before the int64_t key, or at it or before. */
static int range_starts_before(const void *elem, const void *key)
{
	return ((const struct rk_range *)elem)->start < *(const int64_t *)key;
}

static int range_starts_by(const void *elem, const void *key)
{
	return ((const struct rk_range *)elem)->start <= *(const int64_t *)key;
}

static int act_starts_before(const void *elem, const void *key)
{
	return ((const struct rk_act *)elem)->start < *(const int64_t *)key;
}

size_t rk_search(const struct rk_range *v, size_t n, int64_t t, int after)
{
	return lower_bound(v, n, sizeof(*v), &t, after ? range_starts_by : range_starts_before);
}

size_t rank_act_at(const struct rank_data *d, int64_t t)
{
	return lower_bound(d->acts, d->nacts, sizeof(*d->acts), &t, act_starts_before);
}

static int cmp_rank_row(const void *pa, const void *pb)
{
	const struct rank_row_at *a = pa, *b = pb;
	int c = strcmp(a->run, b->run);
	if (c)
		return c;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->row > b->row) - (a->row < b->row);
}

void rank_rows_init(struct rank_rows *rr, const struct table *t, int run_col, int rank_col)
{
	memset(rr, 0, sizeof(*rr));
	if (!t || !t->nrows || run_col < 0 || rank_col < 0)
		return;
	rr->v = xmalloc(t->nrows * sizeof(*rr->v));
	for (size_t r = 0; r < t->nrows; r++) {
		const struct cell *u = table_cell(t, r, (size_t)run_col), *k = table_cell(t, r, (size_t)rank_col);
		if (!u->null && !k->null)
			rr->v[rr->n++] = (struct rank_row_at){u->v.text, k->v.i, r};
	}
	if (rr->n > 1)
		qsort(rr->v, rr->n, sizeof(*rr->v), cmp_rank_row);
}

/* The row is before (run, rank, row 0): rank_rows_find's predicate. */
static int rank_row_before(const void *elem, const void *key)
{
	return cmp_rank_row(elem, key) < 0;
}

size_t rank_rows_find(const struct rank_rows *rr, const char *run, int64_t rank, const struct rank_row_at **first)
{
	struct rank_row_at key = {run, rank, 0};
	size_t lo = lower_bound(rr->v, rr->n, sizeof(*rr->v), &key, rank_row_before), hi = lo;
	while (hi < rr->n && rr->v[hi].rank == rank && !strcmp(rr->v[hi].run, run))
		hi++;
	*first = hi > lo ? &rr->v[lo] : NULL;
	return hi - lo;
}

void rank_rows_release(struct rank_rows *rr)
{
	free(rr->v);
	memset(rr, 0, sizeof(*rr));
}
