/*
 * schema.c: the SQLite schema, opening and closing the store, its
 * transactions and the indexes made once the traces are in.
 *
 * Writes go through prepared statements inside one transaction per build
 * step, so a build that fails leaves no half-written database (the build
 * writes a new database in a temporary directory anyway).
 */
#include "store/store_int.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

/*
 * The schema; docs/schema.md documents each table.
 * 16 kB pages took 4% off the inserts of a 113 MB trace (bench/RESULTS.md);
 * a larger page cache and locking_mode=EXCLUSIVE measured no difference.
 */
static const char SCHEMA[] =
	"PRAGMA page_size=16384;\n"
	"PRAGMA journal_mode=OFF;\n"
	"PRAGMA synchronous=OFF;\n"
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);\n"
	"CREATE TABLE experiments(id TEXT PRIMARY KEY, title TEXT, source TEXT, manifest TEXT,\n"
	"  classification TEXT);\n"
	"CREATE TABLE runs(id INTEGER PRIMARY KEY, experiment TEXT NOT NULL REFERENCES experiments(id),\n"
	"  run TEXT NOT NULL, label TEXT, position INTEGER, gpus INTEGER, batch INTEGER, strategy TEXT,\n"
	"  model TEXT, layers INTEGER, hidden INTEGER, heads INTEGER, ffn INTEGER, seq INTEGER,\n"
	"  vocab INTEGER, profiler_lo INTEGER, profiler_hi INTEGER, UNIQUE(experiment, run));\n"
	"CREATE TABLE traces(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),\n"
	"  path TEXT NOT NULL, size INTEGER, sha256 TEXT, format TEXT, file_index INTEGER,\n"
	"  rank INTEGER, rank_from_trace INTEGER, world_size INTEGER, events INTEGER,\n"
	"  skipped INTEGER, first_ns INTEGER, last_ns INTEGER, epoch_offset_ns INTEGER, device INTEGER,\n"
	"  part_of INTEGER REFERENCES traces(id));\n"
	/*
	 * A rank's traces are looked up once per rank by every analysis that
	 * walks the ranks: without this index, a scan of the table each time,
	 * quadratic in ranks (4096 ranks: 16 million rows read per walk).
	 */
	"CREATE INDEX traces_by_rank ON traces(run_id, rank);\n"
	"CREATE TABLE devices(trace_id INTEGER NOT NULL REFERENCES traces(id), device INTEGER,\n"
	"  name TEXT, total_mem INTEGER, sm_count INTEGER, cc TEXT, mem_bandwidth INTEGER);\n"
	"CREATE TABLE trace_software(trace_id INTEGER NOT NULL REFERENCES traces(id), item TEXT NOT NULL,\n"
	"  value TEXT NOT NULL);\n"
	"CREATE TABLE names(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);\n"
	/*
	 * kind's check is written with OR, not IN (...): SQLite builds an
	 * ephemeral table for an IN list of three values on every insert, which
	 * made an activity row cost 3.7 us instead of 0.8 (bench/RESULTS.md).
	 */
	"CREATE TABLE activities(trace_id INTEGER NOT NULL REFERENCES traces(id),\n"
	"  kind TEXT NOT NULL CHECK(kind = 'kernel' OR kind = 'memcpy' OR kind = 'memset'),\n"
	"  name_id INTEGER NOT NULL REFERENCES names(id), device INTEGER, stream INTEGER,\n"
	"  start_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL, bytes INTEGER, copy_kind TEXT,\n"
	"  correlation INTEGER);\n"
	"CREATE TABLE launches(trace_id INTEGER NOT NULL REFERENCES traces(id),\n"
	"  name_id INTEGER NOT NULL REFERENCES names(id), tid INTEGER, start_ns INTEGER NOT NULL,\n"
	"  dur_ns INTEGER NOT NULL, correlation INTEGER, driver INTEGER);\n"
	"CREATE TABLE annotations(trace_id INTEGER NOT NULL REFERENCES traces(id),\n"
	"  name_id INTEGER NOT NULL REFERENCES names(id), on_gpu INTEGER, tid INTEGER,\n"
	"  start_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL);\n"
	"CREATE TABLE summaries(trace_id INTEGER NOT NULL REFERENCES traces(id),\n"
	"  kind TEXT NOT NULL CHECK(kind = 'kernel' OR kind = 'memcpy' OR kind = 'memset'),\n"
	"  name_id INTEGER NOT NULL REFERENCES names(id), copy_kind TEXT, calls INTEGER NOT NULL,\n"
	"  total_ns INTEGER NOT NULL, min_ns INTEGER, max_ns INTEGER, avg_ns INTEGER, time_pct REAL);\n"
	/*
	 * dims_id: the operator's "Input Dims" (record_shapes=True) as compact
	 * text in names, "[36,1024],[50257,1024]"; NULL when the trace has none.
	 */
	"CREATE TABLE cpu_ops(trace_id INTEGER NOT NULL REFERENCES traces(id),\n"
	"  name_id INTEGER NOT NULL REFERENCES names(id), tid INTEGER, start_ns INTEGER NOT NULL,\n"
	"  dur_ns INTEGER NOT NULL, external_id INTEGER, dims_id INTEGER REFERENCES names(id));\n"
	/*
	 * peer: a point-to-point op's peer as a global rank, "Dst Rank" of a
	 * send, "Src Rank" of a recv (record_param_comms args); NULL otherwise.
	 */
	"CREATE TABLE collectives(trace_id INTEGER NOT NULL REFERENCES traces(id),\n"
	"  start_ns INTEGER NOT NULL, correlation INTEGER, collective TEXT NOT NULL,\n"
	"  in_nelems INTEGER, out_nelems INTEGER, dtype TEXT, group_size INTEGER,\n"
	"  process_group TEXT, seq INTEGER, peer INTEGER);\n"
	/*
	 * The caching allocator's events of a GPU (Kineto "[memory]",
	 * profile_memory=True), a trace's in order of time, 4096 a row as one
	 * blob of varint differences (memevents.c; store_mem_decode reads them):
	 * 12-20 bytes an event where one row an event took about 50.
	 */
	"CREATE TABLE memory_events(trace_id INTEGER NOT NULL REFERENCES traces(id), chunk INTEGER NOT NULL,\n"
	"  events INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY(trace_id, chunk)) WITHOUT ROWID;\n"
	/*
	 * The host operators around the GPU allocations (memsites.c): every
	 * operator, at any depth, that encloses an allocation event (bytes > 0,
	 * device_type 1) on its thread; the columns of cpu_ops, and types_id,
	 * concrete_id: its "Input type" and "Concrete Inputs" (record_shapes=True)
	 * as compact text in names, "c10::BFloat16,float,,Scalar",
	 * "[8388608],15,,False" (kineto_json.cpp take_strings); NULL when absent.
	 */
	"CREATE TABLE memory_ops(trace_id INTEGER NOT NULL REFERENCES traces(id), tid INTEGER,\n"
	"  start_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL, name_id INTEGER NOT NULL REFERENCES names(id),\n"
	"  dims_id INTEGER REFERENCES names(id), types_id INTEGER REFERENCES names(id),\n"
	"  concrete_id INTEGER REFERENCES names(id));\n"
	/*
	 * The operators the per-operator model prices (modelops.c), at any
	 * depth, with "Input Dims": the columns of memory_ops, an input that is
	 * a list of tensors written "{T:E}" (its tensors and their elements,
	 * kineto_json.cpp take_dims), which cpu_ops and memory_ops leave out.
	 */
	"CREATE TABLE model_ops(trace_id INTEGER NOT NULL REFERENCES traces(id), tid INTEGER,\n"
	"  start_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL, name_id INTEGER NOT NULL REFERENCES names(id),\n"
	"  dims_id INTEGER REFERENCES names(id), types_id INTEGER REFERENCES names(id),\n"
	"  concrete_id INTEGER REFERENCES names(id));\n"
	"CREATE TABLE activity_groups(experiment TEXT NOT NULL, kind TEXT NOT NULL,\n"
	"  name_id INTEGER NOT NULL, grp TEXT NOT NULL, PRIMARY KEY(experiment, kind, name_id));\n"
	"CREATE TABLE group_times(experiment TEXT, run TEXT, rank INTEGER, grp TEXT,\n"
	"  time_ns INTEGER, fraction REAL);\n"
	"CREATE TABLE kernel_stats(experiment TEXT, run TEXT, rank INTEGER, name_id INTEGER,\n"
	"  grp TEXT, calls INTEGER, total_ns INTEGER, min_ns INTEGER, max_ns INTEGER);\n"
	"CREATE TABLE kernel_metrics(trace_id INTEGER NOT NULL REFERENCES traces(id), launch INTEGER,\n"
	"  name_id INTEGER NOT NULL REFERENCES names(id), device INTEGER, block TEXT, grid TEXT,\n"
	"  fp16_flops INTEGER, fp32_flops INTEGER, fp64_flops INTEGER, dram_bytes INTEGER, dur_ns INTEGER);\n"
	"CREATE TABLE iterations(trace_id INTEGER NOT NULL REFERENCES traces(id), iteration INTEGER,\n"
	"  iterations INTEGER, consumed_samples INTEGER, elapsed_ns INTEGER, tflops_per_gpu REAL,\n"
	"  global_batch INTEGER, loss REAL, launcher_rank INTEGER);\n"
	"CREATE TABLE phase_times(trace_id INTEGER NOT NULL REFERENCES traces(id), action TEXT,\n"
	"  calls INTEGER, mean_ns INTEGER, total_ns INTEGER, percent REAL);\n"
	"CREATE TABLE gpu_hardware(experiment TEXT, trace_id INTEGER, path TEXT, gpu INTEGER, dtd TEXT,\n"
	"  product TEXT, uuid TEXT, pci_bus TEXT, driver TEXT, cuda TEXT, memory_mib INTEGER,\n"
	"  max_graphics_mhz INTEGER, max_sm_mhz INTEGER, max_mem_mhz INTEGER, power_limit_w REAL,\n"
	"  pcie_gen_max INTEGER, pcie_gen_cur INTEGER, pcie_width_max INTEGER, pcie_width_cur INTEGER);\n"
	"CREATE TABLE gpu_links(experiment TEXT, trace_id INTEGER, path TEXT, a TEXT, b TEXT, link TEXT,\n"
	"  cpu_affinity TEXT, numa_affinity TEXT);\n"
	/*
	 * CROSS JOIN: the annotations first, their names found by id. With a
	 * plain JOIN SQLite started from the ProfilerStep#N names and read every
	 * trace's annotations once per name: steps x rows, 8 s for one query of
	 * 1024 ranks of 100 steps, 30 ms with this order.
	 */
	"CREATE VIEW steps AS SELECT a.trace_id AS trace_id,\n"
	"  CAST(substr(n.name, 14) AS INTEGER) AS step, a.start_ns AS start_ns, a.dur_ns AS dur_ns\n"
	"  FROM annotations a CROSS JOIN names n ON n.id = a.name_id\n"
	"  WHERE a.on_gpu = 0 AND n.name GLOB 'ProfilerStep#[0-9]*';\n"
	"CREATE VIEW gpu_activities AS SELECT r.experiment, r.run, t.rank, a.kind, n.name,\n"
	"  a.device, a.stream, a.start_ns, a.dur_ns, a.bytes, a.copy_kind, a.correlation\n"
	"  FROM activities a JOIN traces t ON t.id = a.trace_id JOIN runs r ON r.id = t.run_id\n"
	"  JOIN names n ON n.id = a.name_id;\n";

/*
 * The connection's own views, TEMP: never written into the store file
 * (whose schema docs/schema.md documents), made again by each opening
 * whose queries read them (store_open, store_open_site). run_traces is a
 * trace with its run's columns (run_id the run's id), the join the
 * analyses start from: "JOIN run_traces t ON t.id = x.trace_id WHERE
 * t.experiment = ?1". SQLite flattens the view into the query that reads
 * it, which then runs as the join it spells.
 */
static const char TEMP_VIEWS[] =
	"CREATE TEMP VIEW run_traces AS SELECT t.*, r.experiment, r.run, r.label, r.position, r.gpus,\n"
	"  r.batch, r.strategy, r.model, r.layers, r.hidden, r.heads, r.ffn, r.seq, r.vocab,\n"
	"  r.profiler_lo, r.profiler_hi FROM traces t JOIN runs r ON r.id = t.run_id;\n";

int store_add_temp_views(struct store *s)
{
	return store_exec(s, TEMP_VIEWS, "create the temporary views");
}

int store_own_view(const char *name, const char *sql)
{
	struct buf head;
	buf_init(&head);
	buf_printf(&head, "CREATE VIEW %s AS ", name);
	const char *p = strstr(SCHEMA, head.data), *end = p ? strchr(p, ';') : NULL;
	int own = end && sql && strlen(sql) == (size_t)(end - p) && !strncmp(sql, p, (size_t)(end - p));
	buf_release(&head);
	return own;
}

int store_open(const char *path, struct store **out)
{
	struct store *s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(path);
	unlink(path);
	/* One thread writes the store (the readers ahead of it never touch it): no mutexes, 5% faster inserts. */
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		diag_syserror(path, "cannot create database: %s", s->db ? sqlite3_errmsg(s->db) : "out of memory");
		store_close(s);
		return -1;
	}
	store_count_work(s->db);
	if (store_exec(s, SCHEMA, "create the schema") < 0 || store_add_temp_views(s) < 0 ||
	    store_exec(s, "INSERT INTO meta VALUES('schema_version','1'),('perfstudy_version','" PERFSTUDY_VERSION "');", "write meta") < 0 ||
	    store_sql_prepare(s, "prepare", "INSERT INTO names(id, name) VALUES(?1, ?2)", &s->ins_name) < 0 ||
	    store_row_buf_open(s, &s->act, "activities", 10, "insert activity") < 0 ||
	    store_row_buf_open(s, &s->launch, "launches", 7, "insert launch") < 0 ||
	    store_row_buf_open(s, &s->annot, "annotations", 6, "insert annotation") < 0 ||
	    store_sql_prepare(s, "prepare", "INSERT INTO devices VALUES(?1,?2,?3,?4,?5,?6,?7)", &s->ins_dev) < 0 ||
	    store_sql_prepare(s, "prepare", "INSERT INTO summaries VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)", &s->ins_sum) < 0 ||
	    store_row_buf_open(s, &s->cpu, "cpu_ops", 7, "insert cpu op") < 0 ||
	    store_row_buf_open(s, &s->mops, "model_ops", 8, "insert model op") < 0 ||
	    store_row_buf_open(s, &s->memops, "memory_ops", 8, "insert memory op") < 0) {
		store_close(s);
		return -1;
	}
	store_names_init(s);
	s->ops_sorted = 1;
	*out = s;
	return 0;
}

int store_close(struct store *s)
{
	int ret = 0;
	if (!s)
		return 0;
	sqlite3_finalize(s->ins_name);
	struct row_buf *bufs[] = {&s->act, &s->launch, &s->annot, &s->cpu, &s->mops, &s->memops};
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		store_row_buf_close(bufs[i]);
	sqlite3_finalize(s->ins_dev);
	sqlite3_finalize(s->ins_mem);
	sqlite3_finalize(s->ins_coll);
	sqlite3_finalize(s->ins_sum);
	sqlite3_finalize(s->ins_trace);
	sqlite3_finalize(s->upd_trace);
	sqlite3_finalize(s->upd_info);
	sqlite3_finalize(s->upd_device);
	sqlite3_finalize(s->ins_site);
	sqlite3_finalize(s->shard_ins_batch);
	sqlite3_finalize(s->shard_ins_trace);
	sqlite3_finalize(s->shard_trace);
	sqlite3_finalize(s->shard_batches);
	if (s->db && sqlite3_close(s->db) != SQLITE_OK) {
		diag_syserror(s->path, "cannot close database: %s", sqlite3_errmsg(s->db));
		ret = -1;
	}
	store_names_release(s);
	store_ops_release(s);
	free(s->path);
	free(s->reading);
	free(s);
	return ret;
}

int store_begin(struct store *s)
{
	s->names_at_begin = s->nnames;
	store_ops_reset(s);
	return store_exec(s, "BEGIN", "begin transaction");
}

int store_commit(struct store *s)
{
	if (store_rows_flush(s) < 0)
		return -1;
	return store_exec(s, "COMMIT", "commit");
}

void store_rollback(struct store *s)
{
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	store_rows_drop(s);
	store_ops_reset(s);
	store_names_forget_after(s, s->names_at_begin);
}

/*
 * Whether table t holds the rows of two traces or more: its first and last
 * rows' traces differ (rows go in trace by trace, in the order of trace
 * ids). 1, 0, or -1 after diag.
 */
static int several_traces(struct store *s, const char *t)
{
	char *q = xasprintf("SELECT (SELECT trace_id FROM \"%s\" ORDER BY rowid LIMIT 1) IS NOT"
			    " (SELECT trace_id FROM \"%s\" ORDER BY rowid DESC LIMIT 1)", t, t);
	sqlite3_stmt *st;
	int r = store_sql_prepare(s, "prepare", q, &st);
	free(q);
	if (r < 0)
		return -1;
	r = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : store_fail(s, "count traces");
	sqlite3_finalize(st);
	return r;
}

/*
 * The CREATE INDEX statements of store_index_traces, appended to sql, and
 * the statements that set their statistics to stats (when not NULL).
 */
static int index_sql(struct store *s, struct buf *sql, struct buf *stats)
{
	sqlite3_stmt *st;
	if (store_sql_prepare(s, "prepare", "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c"
		       " WHERE m.type = 'table' AND c.name = 'trace_id' AND c.pk = 0 ORDER BY m.name", &st) < 0)
		return -1;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		/* Table names are the schema's own (letters and '_'), never an input's. */
		/* collectives are looked up by (trace, start) for each communication kernel. */
		int two = !strcmp(t, "collectives");
		/*
		 * An index on trace_id alone says nothing while every row has the
		 * same one: a table of one trace (a one-GPU study) goes without
		 * (113 MB trace: 0.02 s of the 0.17 s read; its analyses are as
		 * fast, they read the whole table anyway). Once a table has two
		 * traces it keeps them, so an index made early is made late too.
		 */
		int several = two ? 1 : several_traces(s, t);
		if (several < 0) {
			sqlite3_finalize(st);
			return -1;
		}
		if (!several)
			continue;
		buf_printf(sql, "CREATE INDEX IF NOT EXISTS \"%s_by_trace\" ON \"%s\"(trace_id%s);\n", t, t,
			   two ? ", start_ns" : "");
		/*
		 * The four event tables get a second index, on (trace_id,
		 * start_ns): the merged trace of a cut run (report/trace_export.c)
		 * seeks a rank's events before a time and merges its tables by
		 * start. The one on trace_id alone stays: it is smaller, so the
		 * planner keeps it for a lookup by trace, which hands the rows
		 * over in the order they were stored (by start, the table lookups
		 * of the analyses that read a trace's rows cost 0.4 s more CPU on
		 * the h200 example).
		 */
		int by_start = !strcmp(t, "activities") || !strcmp(t, "annotations") || !strcmp(t, "cpu_ops") ||
			       !strcmp(t, "launches");
		if (by_start)
			buf_printf(sql, "CREATE INDEX IF NOT EXISTS \"%s_by_start\" ON \"%s\"(trace_id, start_ns);\n", t, t);
		if (!stats)
			continue;
		/*
		 * A sampled ANALYZE estimates from the index's pages, which differ
		 * when the index was made early (rows appended one by one) or after
		 * the last trace. These get their exact statistics instead, by
		 * ANALYZE's own formula (rows; rows per trace, rounded up; rows per
		 * (trace, start)), from a page count and a lookup per trace, so that
		 * the store is the same whatever --jobs did.
		 */
		buf_printf(stats,
			   "UPDATE sqlite_stat1 SET stat = (SELECT CASE WHEN d > 0 THEN n || ' ' || ((n + d - 1) / d)%s"
			   " ELSE stat END FROM (SELECT (SELECT count(*) FROM \"%s\") AS n, (SELECT count(*) FROM traces x"
			   " WHERE EXISTS (SELECT 1 FROM \"%s\" y WHERE y.trace_id = x.id)) AS d%s))"
			   " WHERE tbl = '%s' AND idx = '%s_by_trace';\n",
			   two ? " || ' ' || ((n + d2 - 1) / d2)" : "", t, t,
			   two ? ", (SELECT count(*) FROM (SELECT DISTINCT trace_id, start_ns FROM collectives)) AS d2" : "",
			   t, t);
		/* (ANALYZE's formula has the same rounding: 2 rows per (trace, start) where 10 % more rows than starts is 1) */
		if (by_start)
			buf_printf(stats,
				   "UPDATE sqlite_stat1 SET stat = (SELECT CASE WHEN d > 0 THEN n || ' ' || ((n + d - 1) / d)"
				   " || ' ' || (CASE WHEN (n + d2 - 1) / d2 = 2 AND n * 10 <= d2 * 11 THEN 1 ELSE (n + d2 - 1) / d2 END)"
				   " ELSE stat END FROM (SELECT (SELECT count(*) FROM \"%s\") AS n,"
				   " (SELECT count(*) FROM traces x WHERE EXISTS (SELECT 1 FROM \"%s\" y WHERE y.trace_id = x.id)) AS d,"
				   " (SELECT count(*) FROM (SELECT DISTINCT trace_id, start_ns FROM \"%s\")) AS d2))"
				   " WHERE tbl = '%s' AND idx = '%s_by_start';\n", t, t, t, t, t);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : store_fail(s, "list tables");
}

int store_index_early(struct store *s)
{
	struct buf sql;
	buf_init(&sql);
	int ret = index_sql(s, &sql, NULL);
	if (ret == 0)
		ret = store_exec(s, sql.data, "index traces");
	buf_release(&sql);
	return ret;
}

int store_index_traces(struct store *s)
{
	struct buf sql, stats;
	buf_init(&sql);
	buf_init(&stats);
	int ret = index_sql(s, &sql, &stats);
	/*
	 * Statistics, sampled (a few ms), so that the planner starts from the
	 * few traces of a rank and not from a scan of the event table; the
	 * exact ones of index_sql then, and the planner reads them again.
	 */
	buf_adds(&sql, "PRAGMA analysis_limit=1000; ANALYZE;");
	if (ret == 0)
		ret = store_exec(s, sql.data, "index traces");
	if (ret == 0)
		ret = store_exec(s, stats.data, "set index statistics");
	if (ret == 0)
		ret = store_exec(s, "ANALYZE sqlite_master;", "analyze");
	buf_release(&sql);
	buf_release(&stats);
	return ret;
}

/*
 * The tables made after the store is opened, each at its moment of the
 * build (so that the order of sqlite_master, which a dump shows, is the
 * order of the build's steps), and the shard database's: every CREATE
 * TABLE of perfstudy is in this file.
 */

/* A build's reuse of the previous store (study/cache.c): when it read each trace, and the warnings it gave. */
int store_add_cache_tables(struct store *s)
{
	return store_exec(s, "CREATE TABLE trace_files(trace_id INTEGER PRIMARY KEY REFERENCES traces(id),"
			  " mtime_ns INTEGER, file_id TEXT);\n"
			  "CREATE TABLE trace_warnings(trace_id INTEGER NOT NULL REFERENCES traces(id),"
			  " message TEXT NOT NULL);", "create the cache tables");
}

/* The files of the site a build wrote (study/cache.c's up-to-date check), emptied. */
int store_add_site_files(struct store *s)
{
	return store_exec(s, "CREATE TABLE IF NOT EXISTS site_files(path TEXT PRIMARY KEY, size INTEGER NOT NULL);"
			  "DELETE FROM site_files;", "create site_files");
}

/* A shard database of `ingest --shard` (study/shard.c): its meta, its traces, their batches of sink calls. */
const char store_shard_schema[] =
	/* 'pfsh' in the header's application_id: a shard (even one half written) says it is perfstudy's */
	"PRAGMA application_id=" STORE_SHARD_APP_ID_TEXT ";\n"
	"PRAGMA journal_mode=OFF;\n"
	"PRAGMA synchronous=OFF;\n"
	"CREATE TABLE shard_meta(key TEXT PRIMARY KEY, value TEXT);\n"
	"CREATE TABLE shard_traces(position INTEGER PRIMARY KEY, path TEXT NOT NULL, size INTEGER,\n"
	"  mtime_ns INTEGER);\n"
	"CREATE TABLE shard_batches(position INTEGER NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL);\n";

/*
 * The build history's tables (analyze/history/history.c): name after the
 * prefix, columns (docs/schema.md lists them), and the order of their rows
 * in the store. A build stages them as temp.h_<name>, carried over from
 * the previous store and added to, and writes them as main.history_<name>
 * at its end.
 */
static const struct {
	const char *name, *cols, *order;
	int optional; /* a store written before the table existed lacks it: carried as empty */
	const char *late; /* columns added later ("a b"): a store written before them carries NULL */
} history_tables[] = {
	{"builds", "experiment TEXT NOT NULL, build INTEGER NOT NULL, built_at INTEGER, perfstudy TEXT,"
		   " state_sha256 TEXT", "experiment, build", 0, ""},
	{"runs", "experiment TEXT NOT NULL, build INTEGER NOT NULL, run TEXT NOT NULL", "experiment, build, run", 0, ""},
	/* rank and format: what `diff` matches an input that moved by (history_inputs.c) */
	{"inputs", "experiment TEXT NOT NULL, build INTEGER NOT NULL, run TEXT NOT NULL, path TEXT NOT NULL,"
		   " size INTEGER, sha256 TEXT, rank INTEGER, format TEXT", "experiment, build, run, path", 0,
	 "rank format"},
	{"numbers", "experiment TEXT NOT NULL, build INTEGER NOT NULL, run TEXT NOT NULL, metric TEXT NOT NULL,"
		    " value REAL", "experiment, build, run, metric", 0, ""},
	{"steps", "experiment TEXT NOT NULL, build INTEGER NOT NULL, run TEXT NOT NULL, source TEXT NOT NULL,"
		  " dur_ns INTEGER NOT NULL", "experiment, build, run, source, dur_ns", 0, ""},
	/* each run's step in parts, per step (analyze/history/parts.c) */
	{"parts", "experiment TEXT NOT NULL, build INTEGER NOT NULL, run TEXT NOT NULL, kind TEXT NOT NULL,"
		  " name TEXT NOT NULL, value REAL", "experiment, build, run, kind, name", 1, ""},
};
#define NHISTORY (sizeof(history_tables) / sizeof(history_tables[0]))

/* The column names of a column list ("a TEXT, b INTEGER" -> "a, b"). */
static void col_names(const char *cols, struct buf *out)
{
	const char *p = cols;
	while (*p) {
		while (*p == ' ' || *p == ',')
			p++;
		const char *e = p;
		while (*e && *e != ' ')
			e++;
		if (out->len)
			buf_adds(out, ", ");
		buf_add(out, p, (size_t)(e - p));
		while (*e && *e != ',')
			e++;
		p = e;
	}
}

int store_history_stage(struct store *s)
{
	struct buf sql;
	buf_init(&sql);
	int ret = 0;
	for (size_t i = 0; i < NHISTORY && !ret; i++) {
		buf_reset(&sql);
		buf_printf(&sql, "CREATE TEMP TABLE h_%s(%s)", history_tables[i].name, history_tables[i].cols);
		ret = store_exec(s, sql.data, "create the history tables");
	}
	buf_release(&sql);
	return ret;
}

/* Whether the attached store alias has table history_<name>. */
static int carry_has(struct store *s, const char *alias, const char *name)
{
	char *sql = xasprintf("SELECT 1 FROM \"%s\".sqlite_master WHERE type = 'table' AND name = 'history_%s'", alias,
			      name);
	sqlite3_stmt *q;
	int has = sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	free(sql);
	return has;
}

/* Whether word w (of length n) is one of the space-separated words of list. */
static int has_word(const char *list, const char *w, size_t n)
{
	for (const char *p = list; *p;) {
		while (*p == ' ')
			p++;
		size_t l = strcspn(p, " ");
		if (l && l == n && !strncmp(p, w, n))
			return 1;
		p += l;
	}
	return 0;
}

/*
 * The select list that carries table i from alias: its column names, NULL
 * for each of its late columns the attached table lacks.
 */
static void carry_cols(struct store *s, const char *alias, size_t i, struct buf *out)
{
	struct buf names;
	buf_init(&names);
	col_names(history_tables[i].cols, &names);
	for (const char *p = names.data; *p;) {
		size_t l = strcspn(p, ",");
		int have = 1;
		if (has_word(history_tables[i].late, p, l)) { /* unquoted: "x" of no column is read as a string */
			char *sql = xasprintf("SELECT %.*s FROM \"%s\".history_%s LIMIT 0", (int)l, p, alias,
					      history_tables[i].name);
			sqlite3_stmt *q;
			have = sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) == SQLITE_OK;
			sqlite3_finalize(q);
			free(sql);
		}
		buf_printf(out, "%s%.*s", out->len ? ", " : "", have ? (int)l : 4, have ? p : "NULL");
		p += l;
		while (*p == ',' || *p == ' ')
			p++;
	}
	buf_release(&names);
}

const char *store_history_carry(struct store *s, const char *alias)
{
	struct buf sql, names;
	buf_init(&sql);
	buf_init(&names);
	const char *why = NULL;
	for (size_t i = 0; i < NHISTORY && !why; i++) {
		if (history_tables[i].optional && !carry_has(s, alias, history_tables[i].name))
			continue;
		buf_reset(&names);
		carry_cols(s, alias, i, &names);
		buf_reset(&sql);
		buf_printf(&sql, "INSERT INTO temp.h_%s SELECT %s FROM \"%s\".history_%s", history_tables[i].name,
			   names.data, alias, history_tables[i].name);
		if (sqlite3_exec(s->db, sql.data, NULL, NULL, NULL) != SQLITE_OK)
			why = "its history tables are not those of this perfstudy";
	}
	if (why)
		for (size_t i = 0; i < NHISTORY; i++) {
			buf_reset(&sql);
			buf_printf(&sql, "DELETE FROM temp.h_%s", history_tables[i].name);
			sqlite3_exec(s->db, sql.data, NULL, NULL, NULL);
		}
	buf_release(&sql);
	buf_release(&names);
	return why;
}

int store_history_drop_build(struct store *s, const char *exp, int64_t build)
{
	struct buf sql;
	buf_init(&sql);
	int ret = 0;
	for (size_t i = 0; i < NHISTORY && !ret; i++) {
		sqlite3_stmt *q;
		buf_reset(&sql);
		buf_printf(&sql, "DELETE FROM temp.h_%s WHERE experiment = ?1 AND build = ?2", history_tables[i].name);
		if (store_sql_prepare(s, "history: drop a staged build", sql.data, &q) < 0) {
			ret = -1;
			break;
		}
		sqlite3_bind_text(q, 1, exp, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 2, build);
		ret = store_sql_step_done(s, q, "history: drop a staged build");
		sqlite3_finalize(q);
	}
	buf_release(&sql);
	return ret;
}

int store_history_write(struct store *s)
{
	struct buf sql, names;
	buf_init(&sql);
	buf_init(&names);
	int ret = 0;
	for (size_t i = 0; i < NHISTORY && !ret; i++) {
		buf_reset(&names);
		col_names(history_tables[i].cols, &names);
		buf_reset(&sql);
		buf_printf(&sql, "CREATE TABLE main.history_%s(%s);\nINSERT INTO main.history_%s SELECT %s FROM temp.h_%s"
			   " ORDER BY %s;\nDROP TABLE temp.h_%s;", history_tables[i].name, history_tables[i].cols,
			   history_tables[i].name, names.data, history_tables[i].name, history_tables[i].order,
			   history_tables[i].name);
		ret = store_exec(s, sql.data, "write the history tables");
	}
	buf_release(&sql);
	buf_release(&names);
	if (!ret)
		ret = store_exec(s, "CREATE TABLE main.history_thresholds(experiment TEXT NOT NULL,"
				 " metric TEXT NOT NULL, value REAL)", "write the history thresholds");
	return ret;
}
