/*
 * rankdata.h: one rank's events, loaded from the store into memory for the
 * time-accounting analyses (temporal, steps, dispatch, phases, ranks, ...).
 *
 * Every activity carries its class under the `default` classification
 * (communication, memory, or compute for every other kernel), whatever
 * classification the experiment uses: the issue defines those terms by the
 * default preset so that numbers stay comparable across studies. Times are
 * integer ns on the trace's own clock. A rank_data owns its arrays and
 * strings; rank_data_release() frees them.
 */
#ifndef PERFSTUDY_RANKDATA_H
#define PERFSTUDY_RANKDATA_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "analyze/lib/classify.h"

enum rk_class { RK_COMPUTE, RK_COMM, RK_MEMORY };

struct rk_act {
	int64_t start, end, corr; /* corr -1: none */
	enum activity_kind kind;
	enum rk_class cls;
	int64_t name_id, bytes;   /* bytes -1: unknown */
	int64_t stream;           /* the trace's stream id; -1 unknown */
	char copy_kind[8];        /* "HtoD", ...; "" unknown or not a memcpy */
};

struct rk_range {
	int64_t start, end, tid, key; /* key: name id, correlation or step number */
};

struct rank_key {
	char *run;
	int64_t run_db_id;
	int rank;
	int position; /* the run's order */
};

struct rank_data {
	size_t nacts, nlaunches, nannots, ngpu_annots, ncpu_ops, nsteps;
	struct rk_act *acts;         /* sorted by start */
	struct rk_range *launches;   /* key: correlation; sorted by start */
	struct rk_range *annots;     /* host user annotations, key: name id; sorted by start */
	struct rk_range *gpu_annots; /* key: name id; sorted by start */
	struct rk_range *cpu_ops;    /* key: name id; sorted by start, then longest first */
	struct rk_range *steps;      /* ProfilerStep#N host ranges, key: N; sorted by start */
	int cached;                  /* non-zero: the arrays belong to the rank cache (rankdata.c) */
	struct launch_index *lidx;   /* the cache's index of the launches (rank_launch_index), or NULL */
};

/* Every (run, rank) of the experiment in run order, then rank; *n set. Caller frees with rank_keys_free. */
int rank_keys(struct store *s, const char *exp, struct rank_key **out, size_t *n);
void rank_keys_free(struct rank_key *k, size_t n);

/*
 * Loads one rank; cls is the default preset. The arrays may be shared with
 * a cache (d->cached): read them, never write them. Returns 0, or -1 after diag.
 */
int rank_data_load(struct store *s, const struct rank_key *k, const struct classifier *cls, struct rank_data *d);
void rank_data_release(struct rank_data *d);
/*
 * Calls visit(k, d, arg) for every (run, rank) of the experiment in
 * rank_keys order (run order, then rank), with d the rank loaded under the
 * default preset and released after the call. The keys stay valid until
 * for_each_rank returns, so a visitor may keep the previous one. Stops at
 * the first visit that returns non-zero. Returns 0, or -1 when a rank
 * failed to load (after diag) or a visit returned < 0.
 */
int for_each_rank(struct store *s, const char *exp,
		  int (*visit)(const struct rank_key *k, const struct rank_data *d, void *arg), void *arg);
/*
 * Frees the ranks kept between analyses and finalizes the statements that
 * rank_data_load, rank_formats and rank_name keep prepared for the store
 * (before it may be closed); analyze_experiment calls it when done.
 */
void rank_cache_clear(void);

/* Binds rank k to st: ?1 its run's id, ?2 its rank. */
void rank_bind(struct store_stmt *st, const struct rank_key *k);
/* sql prepared for what and bound to rank k (rank_bind): the statement (caller finalizes), or NULL after diag. */
struct store_stmt *rank_query(struct store *s, const char *what, const char *sql, const struct rank_key *k);
/*
 * rank_query for a statement run once a rank: prepared once for the store
 * (by its SQL text) and kept, like a rank's load's own statements, until
 * rank_cache_clear; each call hands it out reset and bound to k. The caller
 * ends with store_reset, never store_finalize. NULL after diag.
 */
struct store_stmt *rank_query_kept(struct store *s, const char *what, const char *sql, const struct rank_key *k);

/* The formats of the rank's trace files, e.g. "nsys" or "kineto" (a new string, caller frees). */
char *rank_formats(struct store *s, const struct rank_key *k);
/* The name of a name id (a new string, caller frees), or NULL. */
char *rank_name(struct store *s, int64_t name_id);
/*
 * Column 0 of every row of a prepared, bound statement (caller frees); *n
 * set; the statement is finalized. NULL on error (after diag).
 */
int64_t *rank_column_ids(struct store_stmt *st, size_t *n);

/*
 * In ranges sorted by start: the index of the first whose start is at
 * least t (after = 0) or greater than t (after = 1); n when there is none.
 */
size_t rk_search(const struct rk_range *v, size_t n, int64_t t, int after);
/* The index of the first activity of d starting at t or later; d->nacts when there is none. */
size_t rank_act_at(const struct rank_data *d, int64_t t);

/*
 * A rank's runtime calls by correlation, for rank_launch_of (launch_index.c
 * says how): a cached rank's own, built once when it was cached, or one
 * built for the call; either way given back with rank_launch_index_release.
 */
struct launch_index;
struct launch_index *rank_launch_index(const struct rank_data *d);
void rank_launch_index_release(const struct rank_data *d, struct launch_index *x);
/* The index's bytes, as the rank cache counts them. */
size_t rank_launch_index_bytes(const struct rank_data *d);
/* A new index of d's launches (rank_launch_index builds with it; the caller frees). */
struct launch_index *launch_index_build(const struct rank_data *d);
/* The runtime call with this correlation (the earliest where one repeats), or NULL; x may be NULL. */
const struct rk_range *rank_launch_of(const struct rank_data *d, const struct launch_index *x, int64_t corr);

/*
 * The rows of a result table by (run, rank), for a walk over a run's ranks
 * that reads each rank's row of a per-rank table (clock_offsets,
 * rank_spread): the rows whose run (text) and rank (int) cells are set,
 * sorted once by run, rank and row, each rank found by binary search (a
 * scan of the table per rank is quadratic in ranks: 3.1 s for 16,384).
 * rank_rows_find gives the first of the rows of (run, rank) in v (the
 * others follow it, in table order) and their count; 0 where it has none.
 */
struct table;
struct rank_row_at {
	const char *run;
	int64_t rank;
	size_t row;
};
struct rank_rows {
	struct rank_row_at *v;
	size_t n;
};
void rank_rows_init(struct rank_rows *rr, const struct table *t, int run_col, int rank_col);
size_t rank_rows_find(const struct rank_rows *rr, const char *run, int64_t rank, const struct rank_row_at **first);
void rank_rows_release(struct rank_rows *rr);

#endif
