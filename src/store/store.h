/*
 * store.h: the SQLite store, DIR/perfstudy.db.
 *
 * Every reader's events land here, normalized; every analysis reads from
 * here. The schema (SCHEMA in schema.c, documented in docs/schema.md) is a
 * deliverable: users open the database with sqlite3 and query it. Times are
 * integer nanoseconds on each trace's own clock; names are interned in
 * `names`.
 *
 * The store owns its sqlite3 handle and prepared statements; store_close()
 * finalizes them. Functions return 0 (or a row id >= 1) and -1 after
 * reporting through diag.
 *
 * This header is the one door to SQLite, and does not include <sqlite3.h>:
 * code outside src/store/ (but the readers of SQLite inputs in src/ingest/
 * and util/sqlguard.c, which bounds them) queries the store through the
 * query API below: an opaque struct store_stmt (prepared by store_prepare
 * or store_query, stepped by store_next, read by store_column_*), whose
 * every failure is reported naming the database file and the statement's
 * purpose:
 *   out.tmp.42/perfstudy.db: error: sqlite: check ranks: no such table: traces
 * Other SQLite files (shards, a previous or another directory's store) are
 * opened here too (store_open_read, store_create_shard), every table is
 * created in schema.c, and the build's own SQL (the cache, the shards, the
 * rank checks) is here behind functions named for what they do;
 * tests/e2e/t_layout.sh checks that no SQLite name appears outside. The
 * analyses keep their SQL (it is their definition) but never hold SQLite's
 * handle or statement.
 */
#ifndef PERFSTUDY_STORE_H
#define PERFSTUDY_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/ingest.h"

struct store;

struct store_run {
	const char *experiment;
	const char *run;      /* run id within the experiment */
	const char *label;
	int position;         /* order in the manifest or on the command line */
	int gpus;             /* 0: from the traces */
	int batch;            /* 0: not given */
	const char *strategy; /* may be NULL */
	const char *model;    /* may be NULL */
	int64_t layers, hidden, heads, ffn, seq, vocab; /* 0: not given */
	int has_profiler_steps; /* the manifest's profiler_steps, for a run without traces */
	int64_t profiler_lo, profiler_hi;
};

/* Creates (or replaces) the database at path with the schema. */
int store_open(const char *path, struct store **out);
/* Finalizes statements and closes; returns -1 if the close failed. */
int store_close(struct store *s);

int store_begin(struct store *s);
int store_commit(struct store *s);
void store_rollback(struct store *s);

int store_add_experiment(struct store *s, const char *id, const char *title, const char *source_path,
			 const char *manifest_text, const char *classification);
int64_t store_add_run(struct store *s, const struct store_run *r);
/* A trace file of a run; rank is the position among the run's files until store_set_trace_info. */
int64_t store_add_trace(struct store *s, int64_t run_id, const char *path, int file_index);
/* Records what was read: format, size and hash, counts, time range. */
int store_finish_trace(struct store *s, int64_t trace_id, const char *format,
		       const struct source_meta *meta, const struct ingest_counts *counts);

/*
 * An ingest_sink whose events go to trace_id (its info callback records the
 * rank, world size and devices); ctx lives as long as s.
 */
void store_sink(struct store *s, int64_t trace_id, struct ingest_sink *sink);
/* The kinds of event store_sink takes (its callbacks, ctx NULL): what a reader ahead of the store records. */
void store_sink_kinds(struct ingest_sink *sink);

/*
 * Several devices inside one profile (a process driving 4 GPUs through
 * DataParallel, as nvprof recorded paper 000's runs): once trace_id's rows
 * are in, each device its activities are on beyond the first becomes a
 * traces row of its own (part_of trace_id, same path and clock, `device`
 * set), taking that device's activities, the runtime calls that launched
 * them (by correlation), their NCCL args, the GPU ranges on its streams and
 * its `devices` row; the host's ranges (annotations on_gpu = 0) are copied
 * to each; host operators and summary rows stay with trace_id, which keeps
 * the first device. A trace on one device only gets its `device` set.
 * *ndevices: how many devices the activities are on. Returns 0 or -1 after
 * diag.
 */
int store_split_devices(struct store *s, int64_t trace_id, int *ndevices);
/*
 * After a run's traces are in: when one of its files was split by device,
 * its ranks are numbered 0, 1, ... in order of the file's rank (position or
 * recorded rank), then device, so that each (file, device) is one rank.
 * Returns 0 or -1 after diag.
 */
int store_number_device_ranks(struct store *s, int64_t run_id);

/*
 * A run's input that is not a rank's trace (a training log, an Nsight
 * Compute CSV, nvidia-smi XML): like store_add_trace, with rank NULL.
 */
int64_t store_add_input(struct store *s, int64_t run_id, const char *path, int file_index);
/*
 * A sink for an experiment's own file (the manifest's hardware.nvidia_smi):
 * it keeps GPU descriptions (gpu_hardware rows with trace_id NULL and that
 * path) and rejects anything else as the wrong kind of file.
 */
void store_sink_experiment(struct store *s, const char *experiment, const char *path, struct ingest_sink *sink);

/*
 * Loads the rows of `names` into the interning table, after they were
 * copied in from a previous build's store (see study/cache.c); new names
 * get ids after the largest one. Returns 0 or -1 after diag.
 */
int store_reload_names(struct store *s);

/*
 * Indexes trace_id in every table that has it and holds two traces or
 * more, once the traces are read, and sets the statistics: the analyses
 * load one rank's rows at a time, and without the index each load scans
 * the whole table (quadratic in the number of ranks: 64 s of analysis for
 * 64 ranks of 100 MB). Returns 0 or -1 after diag.
 */
int store_index_traces(struct store *s);
/*
 * The same indexes before the last traces are stored, without the
 * statistics (store_index_traces still runs after reading, and finds them
 * made): rows stored after them are appended to the indexes one by one.
 * Returns 0 or -1 after diag.
 */
int store_index_early(struct store *s);

/* Interns a name; returns its id. */
int64_t store_name_id(struct store *s, const char *name);

/*
 * The query API. `what` says what the statement is for ("check ranks"),
 * for the message on failure: "<store file>: error: sqlite: <what>: <why>".
 * A struct store_stmt is a prepared statement of a store: it remembers its
 * store and its `what`, so that store_next reports its own failure.
 */
struct store_stmt;

/* Runs SQL with no result rows (schema changes, aggregates); 0, or -1 after diag. */
int store_exec(struct store *s, const char *sql, const char *what);
/*
 * Prepares sql into *st (the caller frees it with store_finalize; `what`
 * must live as long as it); 0, or -1 after diag with *st NULL.
 */
int store_prepare(struct store *s, const char *what, const char *sql, struct store_stmt **st);
/*
 * store_prepare without a diagnostic, for a probe of what may legitimately
 * be missing (a table of a file that may not be a shard): 0, or -1 with
 * *st NULL (store_errmsg says why).
 */
int store_prepare_quiet(struct store *s, const char *sql, struct store_stmt **st);
/*
 * Steps st: 1 with a row, 0 at the end, -1 after diag naming the store
 * file and the `what` st was prepared for. The one loop over a query's
 * rows:
 *	while ((rc = store_next(st)) > 0)
 *		... store_column_*(st, i) ...
 *	store_finalize(st);   (or store_reset, for a statement kept)
 *	if (rc < 0)
 *		return -1;    (already said)
 */
int store_next(struct store_stmt *st);
/*
 * Runs st (an INSERT, UPDATE ...: no result rows wanted) to its end, then
 * resets it and clears its bindings, for the next row's: 0, or -1 after
 * diag naming the `what` st was prepared for.
 */
int store_exec_stmt(struct store_stmt *st);
/* store_next, with the failure reported as `what`'s. */
int store_step(struct store *s, struct store_stmt *st, const char *what);
/*
 * Steps st without a diagnostic: STORE_ROW, STORE_DONE or STORE_ERROR,
 * for a statement that may legitimately fail (a previous store's, or a
 * file perfstudy did not write), whose caller says what a failure means.
 */
#define STORE_ROW 1
#define STORE_DONE 0
#define STORE_ERROR (-1)
int store_step_rc(struct store_stmt *st);
/* Runs st (an INSERT, UPDATE ...) to its end, then resets it and clears its bindings; 0, or -1 after diag. */
int store_step_done(struct store *s, struct store_stmt *st, const char *what);
/* Reports the database's last error as the failure of what; returns -1. */
int store_fail(struct store *s, const char *what);
/* The database file's path (for messages; owned by s). */
const char *store_path(const struct store *s);
/* The database's last error message, for notes that are not errors (owned by SQLite). */
const char *store_errmsg(struct store *s);
/*
 * Attaches the database at path as alias (a previous build's store); 0, or
 * -1 without a diagnostic (a missing or unreadable previous store is no
 * error: the caller says what it means, with store_errmsg). store_detach
 * undoes it, quietly.
 */
int store_attach(struct store *s, const char *path, const char *alias);
void store_detach(struct store *s, const char *alias);
/*
 * Probes, for what may legitimately be missing (an attached previous
 * store written by another perfstudy): no diagnostic. store_probe_text
 * runs a one-value query; store_file_meta reads the `meta` value of key
 * from the store file at path, opened read-only. Each returns a copy of
 * the text (the caller frees it), or NULL when the query fails or gives
 * no value.
 */
char *store_probe_text(struct store *s, const char *sql);
char *store_file_meta(const char *path, const char *key);

/*
 * Tables made after store_open, each at its moment of the build (the order
 * of sqlite_master follows the build's steps); every CREATE TABLE is in
 * schema.c. Each returns 0, or -1 after diag.
 *
 * store_add_cache_tables: trace_files and trace_warnings (study/cache.c).
 * store_add_site_files: site_files, made if missing and emptied.
 * The build history (analyze/history/history.c): store_history_stage makes
 * the staging tables temp.h_<name>; store_history_carry copies alias's
 * history_<name> into them (the previous store, attached), and returns NULL
 * or why not (a static string, no diagnostic; the staging tables are then
 * emptied); store_history_drop_build deletes a staged build of exp;
 * store_history_write writes them as main.history_<name> and makes the
 * empty history_thresholds.
 */
int store_add_cache_tables(struct store *s);
int store_add_site_files(struct store *s);
int store_history_stage(struct store *s);
const char *store_history_carry(struct store *s, const char *alias);
int store_history_drop_build(struct store *s, const char *exp, int64_t build);
int store_history_write(struct store *s);

/*
 * The build history's SQL (history.c; analyze/history/history.c decides
 * what a build's state is). Each returns 0, or -1 after diag, unless said.
 *
 * store_history_open: outside a transaction, before the analyses, stages
 * the history of the previous store prev_db (missing, unreadable or
 * without history: an empty one; unless quiet, stderr says why an
 * existing store's is not carried).
 * store_history_stage_build stages exp's runs, inputs and step times (one
 * per profiled step, the slowest rank's, and the training log's
 * iterations i of run_traces t that the SQL condition unprofiled keeps)
 * as build `build`. store_history_numbers prepares the insert of build's numbers of
 * exp (NULL after diag), store_history_put_number adds one (a value not
 * finite is left out; -1 without diag: store_fail says why).
 * store_history_parts prepares the insert of parts (NULL after diag),
 * store_history_put_part adds one.
 * store_history_last_build: the last build staged for exp (0: none) and
 * its digest (empty: none). store_history_add_build records build with the
 * time, perfstudy's version and the state's digest. store_history_adopt_parts
 * moves build + 1's staged parts of exp to build when build has none, and
 * gives build's inputs without a rank and format (a store written before
 * them) those of build + 1's input of the same run and path.
 * store_history_put_threshold adds a row to history_thresholds through *q
 * (prepared on first use, NULL before; the caller finalizes it).
 */
int store_history_open(struct store *s, const char *prev_db, int quiet);
int store_history_stage_build(struct store *s, const char *exp, int64_t build, const char *unprofiled);
struct store_stmt *store_history_numbers(struct store *s, const char *exp, int64_t build);
int store_history_put_number(struct store_stmt *ins, const char *run, const char *metric, double v);
struct store_stmt *store_history_parts(struct store *s);
int store_history_put_part(struct store *s, struct store_stmt *ins, const char *exp, int64_t build, const char *run,
			   const char *kind, const char *name, double value);
int store_history_last_build(struct store *s, const char *exp, int64_t *build, char digest[65]);
int store_history_add_build(struct store *s, const char *exp, int64_t build, int64_t built_at, const char *version,
			    const char *digest);
int store_history_adopt_parts(struct store *s, const char *exp, int64_t build);
int store_history_put_threshold(struct store *s, struct store_stmt **q, const char *exp, const char *metric,
				double value);

/*
 * One build's state of one experiment, as the history tables hold it
 * (hstate.c reads it back, for analyze/history/'s change table and
 * `perfstudy diff`).
 */
#define HSTATE_NO_RANK INT64_MIN
struct hstate_run {
	char *run;
	size_t ninputs;
	char **paths, **sha256;
	int64_t *sizes;
	int64_t *ranks; /* HSTATE_NO_RANK: none (an input that is no rank's, or a store written before them) */
	char **formats; /* the input's format (traces.format), '' unknown */
	size_t nnumbers;
	char **metrics;
	double *values;
	size_t nsteps, cap_steps;
	int64_t *steps; /* one per profiled step, the slowest rank's */
	size_t nlog, cap_log;
	int64_t *log;   /* the unprofiled iterations of its training log */
	size_t nparts, cap_parts; /* history_parts rows (analyze/history/parts.c): 0 for a build written before them */
	char **part_kinds, **part_names;
	double *part_values;
	/* kernel rows read; past HISTORY_MAX_KERNEL_ROWS the rest go into row other_kernels - 1 */
	size_t nkernel_rows, other_kernels;
};

/*
 * Kernel names a build keeps per run (the largest; the rest summed as one
 * row '(other kernels)'), and the kernel rows a store is read with: a
 * store perfstudy did not write may hold more, whose rest is summed the
 * same way, with a warning, so that diff's work stays bounded.
 */
#define PARTS_MAX_KERNELS 2000
#define HISTORY_MAX_KERNEL_ROWS (PARTS_MAX_KERNELS + 1)

struct hstate {
	int64_t build, built_at;
	size_t nruns;
	struct hstate_run *runs; /* sorted by run id (strcmp) */
};

/*
 * Loads build `build` of experiment exp from s's tables <prefix>builds,
 * <prefix>runs, ... (prefix "history_" in a store, "temp.h_" while
 * staging). Returns 0, or -1 after diag naming s's file.
 */
int hstate_load(struct store *s, const char *prefix, const char *exp, int64_t build, struct hstate *st);
void hstate_release(struct hstate *st);
/* st's run of id run (the first, should a damaged store repeat it), or NULL; binary search. */
struct hstate_run *hstate_find_run(const struct hstate *st, const char *run);
/* The first i with v[i] equal to s in v sorted by strcmp, or n. */
size_t hstate_find_str(char *const *v, size_t n, const char *s);

/*
 * The build cache's SQL (cache.c; study/cache.c decides what is unchanged).
 *
 * store_set_meta sets meta's key (the build id, the fingerprint); what
 * names it in a message.
 * The previous build's store, attached as "prev" (store_attach):
 * store_prev_check returns NULL when it may be reused by a build of
 * build_id, else why not (a static string, no diagnostic);
 * store_prev_open copies its names and prepares the copies of a trace
 * (every table with a trace_id column), store_prev_close finalizes them
 * and detaches "prev". store_prev_lookup finds the trace of path there: 1
 * with *t, 0 when it is not there (a failure too: reading it says what is
 * wrong). store_prev_copy_trace copies old_id's traces row and rows to the
 * new trace id; store_prev_warnings hands fn old_id's recorded warnings,
 * in order.
 * store_record_trace_file records what the next build compares a trace's
 * file with; store_record_trace_warnings records diag's warnings from
 * number `from` on as trace_id's.
 * store_add_site_file records a file of the built site (after
 * store_add_site_files); store_site_files hands fn every file a previous
 * build recorded, while fn returns 0: 0, or -1 (no diagnostic) when the
 * table cannot be read.
 * Each other returns 0, or -1 after diag.
 */
struct store_prev;
struct store_prev_trace {
	int64_t id, size, mtime_ns; /* size, mtime_ns -1: not recorded */
	char sha256[65];
	char file_id[48];           /* "device:inode", "" when not recorded */
};
int store_set_meta(struct store *s, const char *key, const char *value, const char *what);
const char *store_prev_check(struct store *s, const char *build_id);
int store_prev_open(struct store *s, struct store_prev **out);
void store_prev_close(struct store_prev *p);
int store_prev_lookup(struct store_prev *p, const char *path, struct store_prev_trace *t);
int store_prev_copy_trace(struct store_prev *p, int64_t id, int64_t old_id);
void store_prev_warnings(struct store_prev *p, int64_t old_id, void (*fn)(void *ctx, const char *message), void *ctx);
int store_record_trace_file(struct store *s, int64_t trace_id, int64_t mtime_ns, const char *file_id);
int store_record_trace_warnings(struct store *s, int64_t trace_id, size_t from);
int store_add_site_file(struct store *s, const char *path, int64_t size);
int store_site_files(struct store *s, int (*fn)(void *ctx, const char *path, int64_t size), void *ctx);

/*
 * A run's ranks once its traces are in (ranks.c), for study/read.c's
 * checks. store_duplicate_rank: 1 when two of run_id's traces record one
 * rank, with *rank and their paths (the caller frees them), 0 when none.
 * store_each_split_file hands fn each file of run_id split by device
 * (store_split_devices), in file order, with the run's number of ranks;
 * store_each_unranked_trace each trace that records no rank (its rank is
 * its position) with its format ("" when none). Strings are fn's until it
 * returns. Each returns 0 (or 1), or -1 after diag.
 */
struct store_split_file {
	const char *path;
	int devices;             /* the traces it became */
	const char *device_list; /* "0, 1, 2, 3" */
	int ranks;               /* the run's ranks */
};
int store_duplicate_rank(struct store *s, int64_t run_id, int *rank, char **first, char **second);
int store_each_split_file(struct store *s, int64_t run_id, void (*fn)(void *ctx, const struct store_split_file *f),
			  void *ctx);
int store_each_unranked_trace(struct store *s, int64_t run_id,
			      void (*fn)(void *ctx, const char *path, int rank, const char *format), void *ctx);
/*
 * Experiment exp's runs that have a rank's trace, in run order, each with
 * its ranks in order (ranks.c; the merged trace's processes): *out (the
 * caller frees it with store_ranked_runs_free), *n their count. Returns 0,
 * or -1 after diag.
 */
struct store_ranked_run {
	char *run;
	int64_t run_id;
	int position; /* the run's order */
	int *ranks;
	size_t nranks;
};
int store_ranked_runs(struct store *s, const char *exp, struct store_ranked_run **out, size_t *n);
void store_ranked_runs_free(struct store_ranked_run *r, size_t n);

/*
 * A shard database's rows (shard.c; study/shard.h says what a shard is),
 * db a store of store_create_shard or store_open_read. Writing:
 * store_shard_begin starts the one transaction, then store_shard_put_meta, store_shard_put_trace (size and mtime_ns NULL
 * unless known), store_shard_put_batch (data is not copied: it must live
 * until the call returns), then store_shard_index indexes the batches and
 * commits. Reading: store_shard_meta returns meta's key (the caller frees
 * it) or NULL, quietly; after store_shard_prepare_read, store_shard_trace
 * reads the trace at position: 1 with *t (t->path NULL when not text; the
 * caller frees it), 0 when there is none (a failure too: the caller says
 * the shard holds no such trace); store_shard_batches hands fn its batches
 * in order, stopping at fn's -1. Each other returns 0, or -1 after diag.
 */
struct store_shard_trace {
	char *path;
	int known; /* size recorded */
	int64_t size, mtime_ns;
};
int store_shard_begin(struct store *db);
int store_shard_put_meta(struct store *db, const char *key, const char *value);
int store_shard_put_trace(struct store *db, int64_t position, const char *path, int known, int64_t size,
			  int64_t mtime_ns);
int store_shard_put_batch(struct store *db, int64_t position, int64_t seq, const void *data, size_t len);
int store_shard_index(struct store *db);
char *store_shard_meta(struct store *db, const char *key);
int store_shard_prepare_read(struct store *db);
int store_shard_trace(struct store *db, int64_t position, struct store_shard_trace *t);
int store_shard_batches(struct store *db, int64_t position, int (*fn)(void *ctx, const char *data, size_t len),
			void *ctx);

/*
 * Other SQLite files through the same door (file.c), each a struct store
 * without the build's schema, closed with store_close; the query API above
 * reports their failures naming their path.
 *
 * store_open_read opens path read-only; -1 with *out NULL when SQLite
 * cannot, after "<path>: error: cannot open: <why>" unless quiet.
 * store_create_shard creates a shard database (its tables from schema.c)
 * at file, a new file, whose messages name `name` (the file it will be
 * renamed to); 0, or -1 after diag with *out NULL.
 */
int store_open_read(const char *path, int quiet, struct store **out);
int store_create_shard(const char *file, const char *name, struct store **out);
/*
 * A database perfstudy did not write (`perfstudy diff`'s stores), bounded
 * as util/sqlguard.h says: store_guard applies the limits and the step
 * budget of a file of bytes bytes (0, or -1 after diag), and store_fail
 * then reports a failure (the budget running out included) as the file's
 * fault, an error of the input, not of the system; store_readable is 0 when the schema can be read, 1 when the file is
 * not a SQLite database, -1 otherwise (store_errmsg says why);
 * store_not_plain is NULL for a plain or absent table, else what it is ("a
 * view"); store_has_table is 1 when the plain table exists.
 */
int store_guard(struct store *s, uint64_t bytes);
int store_readable(struct store *s);
/*
 * Whether path, the previous build's store, may be read by the build: it
 * is attached to the build's own connection (study/cache.c,
 * analyze/history/history.c), which has no step budget, so it is first
 * checked on a connection of its own under store_guard's bounds: every
 * table plain, no view but the store's own (which nothing reads through
 * the attached store), no trigger. A table of it replaced by a recursive
 * view (`meta`, `history_runs`) hung the build. 0, or -1 with why (the
 * caller frees it; no diagnostic: the caller says what it means).
 */
int store_check_previous(const char *path, char **why);
/*
 * A built site's store opened read-only to read its rows (`perfstudy
 * whatif`): checked as store_check_previous checks it, bounded as
 * store_guard says, and with views on only because each of its views is
 * byte for byte one the store's schema writes (`steps`, which the replay
 * and the training log's profiled window read), so that no query runs the
 * file's own SQL; the connection's own run_traces is made as store_open
 * makes it. 0, or -1 after diag naming path (an error of the input; of the
 * system where the file cannot be read).
 */
int store_open_site(const char *path, struct store **out);
const char *store_not_plain(struct store *s, const char *table);
int store_has_table(struct store *s, const char *table);

/*
 * A prepared statement's parameters and result columns. Parameters are
 * numbered from 1, columns from 0, as in SQLite. store_bind_text and
 * store_bind_blob keep the caller's pointer (it must live until st is
 * reset, bound again or finalized); store_bind_text_copy copies the text.
 * A column's text or blob is owned by st until its next step.
 */
void store_bind_text(struct store_stmt *st, int i, const char *v);
void store_bind_text_copy(struct store_stmt *st, int i, const char *v);
void store_bind_int64(struct store_stmt *st, int i, int64_t v);
void store_bind_int(struct store_stmt *st, int i, int v);
void store_bind_double(struct store_stmt *st, int i, double v);
void store_bind_null(struct store_stmt *st, int i);
void store_bind_blob(struct store_stmt *st, int i, const void *v, uint64_t n);
/* A column's type: one of these (SQLite's own fundamental types). */
enum store_type { STORE_INTEGER = 1, STORE_FLOAT = 2, STORE_TEXT = 3, STORE_BLOB = 4, STORE_NULL = 5 };
int store_column_type(struct store_stmt *st, int i);
int64_t store_column_int64(struct store_stmt *st, int i);
int store_column_int(struct store_stmt *st, int i);
double store_column_double(struct store_stmt *st, int i);
const unsigned char *store_column_text(struct store_stmt *st, int i);
const void *store_column_blob(struct store_stmt *st, int i);
int store_column_bytes(struct store_stmt *st, int i);
/* Resets st to run again (its bindings kept); store_clear_bindings sets them all NULL. */
void store_reset(struct store_stmt *st);
void store_clear_bindings(struct store_stmt *st);
/* The virtual-machine steps st has run since it was prepared (PERFSTUDY_TIMING's measure of a query's work). */
int store_vm_steps(struct store_stmt *st);
/* Frees st (NULL is allowed). */
void store_finalize(struct store_stmt *st);

/*
 * The caching allocator's events of a trace, as memory_events holds them
 * (memevents.c): rows (trace_id, chunk, events, data), each data a blob of
 * `events` events in order of time (file order among equal times), the
 * chunks in order. store_mem_decode writes a row's n events to out: 0, or
 * -1 when the blob is not n events. Only a GPU's events (device_type 1,
 * device 0 or more) with totals in [0, STORE_MEM_MAX] and bytes in
 * [-STORE_MEM_MAX, STORE_MEM_MAX] are stored. addr, tid, total_reserved:
 * -1 where the trace does not record them.
 */
#define STORE_MEM_MAX ((int64_t)1 << 50)
struct store_mem_event {
	int64_t ts_ns, bytes, addr, total_allocated, total_reserved, tid;
	int device;
};
int store_mem_decode(const void *data, size_t len, size_t n, struct store_mem_event *out);

/*
 * The analyses' query idiom (table_rows.c). store_query prepares sql for
 * what and binds exp (the experiment; NULL: nothing bound) as ?1: the
 * statement (the caller finalizes it, binds any other parameter), or NULL
 * after diag. store_rows_to_table appends a row to t for each row of st,
 * result column i into t's column i by its type (text; int; us from
 * integer ns; frac and real), a NULL left empty, and finalizes st; 0, or
 * -1 after diag naming st's purpose.
 *
 * Their SQL starts from run_traces, a TEMP view that store_open and
 * store_open_site make on the connection (never written into the file, so
 * not in docs/schema.md): each trace's columns with its run's (experiment,
 * run, label, position, gpus, batch, ...; run_id is the run's id), the
 * join of traces with runs said once:
 *   SELECT t.run, t.rank, s.step FROM steps s JOIN run_traces t ON t.id = s.trace_id
 *   WHERE t.experiment = ?1 ORDER BY t.position, t.rank
 */
struct table;
struct store_stmt *store_query(struct store *s, const char *what, const char *sql, const char *exp);
int store_rows_to_table(struct store_stmt *st, struct table *t);

/*
 * The SQLite application_id of a shard database ('pfsh'), written first, so
 * that a shard's temporary file left by a killed ingest is known as
 * perfstudy's from its header's bytes 68-71 alone (shard.c removes it).
 */
#define STORE_SHARD_APP_ID 0x70667368u
#define STORE_SHARD_APP_ID_TEXT "1885762408"

#endif
