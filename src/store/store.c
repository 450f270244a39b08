/*
 * store.c: the SQLite schema and the writes into it.
 *
 * Writes go through prepared statements inside one transaction per build
 * step, so a build that fails leaves no half-written database (the build
 * writes a new database in a temporary directory anyway). Names are interned
 * through an in-memory hash table in front of the `names` table: a trace has
 * thousands of events but a few hundred distinct kernel names.
 */
#include "store/store.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

/*
 * The schema; the README's "Database schema" section documents each table.
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
	"  vocab INTEGER, UNIQUE(experiment, run));\n"
	"CREATE TABLE traces(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),\n"
	"  path TEXT NOT NULL, size INTEGER, sha256 TEXT, format TEXT, file_index INTEGER,\n"
	"  rank INTEGER, rank_from_trace INTEGER, world_size INTEGER, events INTEGER,\n"
	"  skipped INTEGER, first_ns INTEGER, last_ns INTEGER, epoch_offset_ns INTEGER, device INTEGER,\n"
	"  part_of INTEGER REFERENCES traces(id));\n"
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
	"CREATE TABLE cpu_ops(trace_id INTEGER NOT NULL REFERENCES traces(id),\n"
	"  name_id INTEGER NOT NULL REFERENCES names(id), tid INTEGER, start_ns INTEGER NOT NULL,\n"
	"  dur_ns INTEGER NOT NULL, external_id INTEGER);\n"
	"CREATE TABLE collectives(trace_id INTEGER NOT NULL REFERENCES traces(id),\n"
	"  start_ns INTEGER NOT NULL, correlation INTEGER, collective TEXT NOT NULL,\n"
	"  in_nelems INTEGER, out_nelems INTEGER, dtype TEXT, group_size INTEGER,\n"
	"  process_group TEXT, seq INTEGER);\n"
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
	"CREATE VIEW steps AS SELECT a.trace_id AS trace_id,\n"
	"  CAST(substr(n.name, 14) AS INTEGER) AS step, a.start_ns AS start_ns, a.dur_ns AS dur_ns\n"
	"  FROM annotations a JOIN names n ON n.id = a.name_id\n"
	"  WHERE a.on_gpu = 0 AND n.name GLOB 'ProfilerStep#[0-9]*';\n"
	"CREATE VIEW gpu_activities AS SELECT r.experiment, r.run, t.rank, a.kind, n.name,\n"
	"  a.device, a.stream, a.start_ns, a.dur_ns, a.bytes, a.copy_kind, a.correlation\n"
	"  FROM activities a JOIN traces t ON t.id = a.trace_id JOIN runs r ON r.id = t.run_id\n"
	"  JOIN names n ON n.id = a.name_id;\n";

struct name_slot {
	char *name;
	uint64_t hash;
	int64_t id;
};

struct store;

/* A host operator (cpu_op) held until its trace ends: see flush_cpu_ops. */
struct pending_op {
	int64_t start, dur, tid, external_id, name_id;
	int keep; /* stored whatever its nesting: an enumerate(DataLoader)... range */
};

/*
 * One thread's host operators while they come in order of start: the ops
 * of the latest start, not decided yet, and the end of the last stored one
 * (see sink_cpu_op).
 */
struct op_thread {
	int64_t tid;
	int used, have_end;
	int64_t group_start, end;
	struct pending_op *group;
	size_t ngroup, groupcap;
};

/*
 * Rows of one event table waiting to be inserted ROWS_PER_INSERT at a time
 * by one statement of that many rows (INSERT ... VALUES (...), (...), ...):
 * SQLite's cost per statement (step, reset, program start) is then paid once
 * for 32 rows; a standalone test of 120k rows went 0.53 -> 0.29 us a row
 * (bench/RESULTS.md). The rows keep their order, so the table's rowids are
 * the same as one insert a row; what is pending goes in (through the one-row
 * statement) at the end of each trace, before any statement reads the table
 * and at commit, and is dropped by a rollback.
 */
#define ROWS_PER_INSERT 32
#define ROW_MAX_COLS 10

enum cell_type { CELL_NULL, CELL_INT, CELL_TEXT, CELL_TEXT_PTR };

struct cell {
	int64_t v;
	enum cell_type type;
	union {
		char text[16];   /* CELL_TEXT: a short text (kind, copy kind), NUL-terminated */
		const char *ptr; /* CELL_TEXT_PTR: a longer one, valid until the flush that must follow */
	};
};

struct row_buf {
	sqlite3_stmt *one, *many; /* INSERT of one row, of ROWS_PER_INSERT rows */
	const char *what;         /* for messages: "insert activity" */
	int ncols, n;
	struct cell cells[ROWS_PER_INSERT * ROW_MAX_COLS];
};

struct sink_ctx {
	struct store *s;
	int64_t trace_id;          /* 0: an experiment's own input (store_sink_experiment) */
	const char *experiment, *path;
};

struct store {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *ins_name, *ins_dev, *ins_sum;
	struct row_buf act, launch, annot, cpu; /* the event tables' rows, ROWS_PER_INSERT at a time */
	struct name_slot *slots;
	size_t nslots, nnames;
	struct sink_ctx sink;
	sqlite3_stmt *ins_coll; /* prepared on first use */
	int64_t first_ns, last_ns;
	struct pending_op *ops; /* the trace's stored host operators, or all since they came out of order */
	size_t nops, opscap;
	int ops_sorted;         /* they came in order of start per thread so far: stored as they come */
	struct op_thread *threads; /* open addressing on tid; nthreads_cap a power of two */
	size_t nthreads, nthreads_cap;
	size_t names_at_begin; /* nnames at store_begin: a rollback forgets the names after it */
};

static int db_error(struct store *s, const char *what)
{
	diag_syserror(s->path, "sqlite: %s: %s", what, sqlite3_errmsg(s->db));
	return -1;
}

int store_exec(struct store *s, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		diag_syserror(s->path, "sqlite: %s", msg ? msg : "error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int prepare(struct store *s, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return db_error(s, "prepare");
	return 0;
}

static int step_rebind(struct store *s, sqlite3_stmt *st, const char *what);

/* Prepares the one-row and the ROWS_PER_INSERT-row inserts of table (ncols columns). */
static int row_buf_open(struct store *s, struct row_buf *b, const char *table, int ncols, const char *what)
{
	b->ncols = ncols;
	b->what = what;
	b->n = 0;
	struct buf sql;
	buf_init(&sql);
	/* Table names are the schema's own, never an input's. */
	buf_printf(&sql, "INSERT INTO %s VALUES", table);
	for (int r = 0; r < ROWS_PER_INSERT; r++) {
		buf_adds(&sql, r ? ",(" : "(");
		for (int c = 0; c < ncols; c++)
			buf_adds(&sql, c ? ",?" : "?");
		buf_addc(&sql, ')');
		if (r == 0 && prepare(s, sql.data, &b->one) < 0) {
			buf_release(&sql);
			return -1;
		}
	}
	int rc = prepare(s, sql.data, &b->many);
	buf_release(&sql);
	return rc;
}

static void bind_cell(sqlite3_stmt *st, int i, const struct cell *c)
{
	if (c->type == CELL_INT)
		sqlite3_bind_int64(st, i, c->v);
	else if (c->type == CELL_TEXT)
		sqlite3_bind_text(st, i, c->text, -1, SQLITE_STATIC);
	else if (c->type == CELL_TEXT_PTR)
		sqlite3_bind_text(st, i, c->ptr, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* Inserts the pending rows: ROWS_PER_INSERT at once when that many, else one by one. */
static int row_buf_flush(struct store *s, struct row_buf *b)
{
	int n = b->n;
	b->n = 0;
	if (n == ROWS_PER_INSERT) {
		for (int k = 0; k < n * b->ncols; k++)
			bind_cell(b->many, k + 1, &b->cells[k]);
		return step_rebind(s, b->many, b->what);
	}
	for (int r = 0; r < n; r++) {
		for (int c = 0; c < b->ncols; c++)
			bind_cell(b->one, c + 1, &b->cells[r * b->ncols + c]);
		if (step_rebind(s, b->one, b->what) < 0)
			return -1;
	}
	return 0;
}

/* The next pending row's cells, after making room. NULL when a flush failed. */
static struct cell *row_buf_add(struct store *s, struct row_buf *b)
{
	if (b->n == ROWS_PER_INSERT && row_buf_flush(s, b) < 0)
		return NULL;
	return &b->cells[b->n++ * b->ncols];
}

static void cell_int(struct cell *c, int64_t v)
{
	c->type = CELL_INT;
	c->v = v;
}

static void cell_opt(struct cell *c, int64_t v, int present)
{
	c->type = present ? CELL_INT : CELL_NULL;
	c->v = v;
}

/*
 * A text; NULL is SQL NULL. A short one is copied into the cell; a longer
 * one is only pointed to, and -1 says that the caller must flush before t
 * goes away.
 */
static int cell_text(struct cell *c, const char *t)
{
	if (!t) {
		c->type = CELL_NULL;
		return 0;
	}
	size_t n = strlen(t);
	if (n >= sizeof(c->text)) {
		c->type = CELL_TEXT_PTR;
		c->ptr = t;
		return -1;
	}
	c->type = CELL_TEXT;
	memcpy(c->text, t, n + 1);
	return 0;
}

/* Every event table's pending rows in. */
static int flush_rows(struct store *s)
{
	struct row_buf *bufs[] = {&s->act, &s->launch, &s->annot, &s->cpu};
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		if (row_buf_flush(s, bufs[i]) < 0)
			return -1;
	return 0;
}

static void drop_rows(struct store *s)
{
	s->act.n = s->launch.n = s->annot.n = s->cpu.n = 0;
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
	if (store_exec(s, SCHEMA) < 0 ||
	    store_exec(s, "INSERT INTO meta VALUES('schema_version','1'),('perfstudy_version','" PERFSTUDY_VERSION "');") < 0 ||
	    prepare(s, "INSERT INTO names(id, name) VALUES(?1, ?2)", &s->ins_name) < 0 ||
	    row_buf_open(s, &s->act, "activities", 10, "insert activity") < 0 ||
	    row_buf_open(s, &s->launch, "launches", 7, "insert launch") < 0 ||
	    row_buf_open(s, &s->annot, "annotations", 6, "insert annotation") < 0 ||
	    prepare(s, "INSERT INTO devices VALUES(?1,?2,?3,?4,?5,?6,?7)", &s->ins_dev) < 0 ||
	    prepare(s, "INSERT INTO summaries VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)", &s->ins_sum) < 0 ||
	    row_buf_open(s, &s->cpu, "cpu_ops", 6, "insert cpu op") < 0) {
		store_close(s);
		return -1;
	}
	s->nslots = 1024;
	s->slots = xcalloc(s->nslots, sizeof(*s->slots));
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
	struct row_buf *bufs[] = {&s->act, &s->launch, &s->annot, &s->cpu};
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) {
		sqlite3_finalize(bufs[i]->one);
		sqlite3_finalize(bufs[i]->many);
	}
	sqlite3_finalize(s->ins_dev);
	sqlite3_finalize(s->ins_coll);
	sqlite3_finalize(s->ins_sum);
	if (s->db && sqlite3_close(s->db) != SQLITE_OK) {
		diag_syserror(s->path, "cannot close database: %s", sqlite3_errmsg(s->db));
		ret = -1;
	}
	for (size_t i = 0; i < s->nslots; i++)
		free(s->slots[i].name);
	free(s->slots);
	free(s->ops);
	for (size_t i = 0; i < s->nthreads_cap; i++)
		free(s->threads[i].group);
	free(s->threads);
	free(s->path);
	free(s);
	return ret;
}

sqlite3 *store_db(struct store *s)
{
	return s->db;
}

/* Forgets the host operators held for a trace; the next come in order until shown otherwise. */
static void ops_reset(struct store *s)
{
	s->nops = 0;
	s->ops_sorted = 1;
	for (size_t i = 0; i < s->nthreads_cap; i++) {
		free(s->threads[i].group);
		memset(&s->threads[i], 0, sizeof(s->threads[i]));
	}
	s->nthreads = 0;
}

int store_begin(struct store *s)
{
	s->names_at_begin = s->nnames;
	ops_reset(s);
	return store_exec(s, "BEGIN");
}

int store_commit(struct store *s)
{
	if (flush_rows(s) < 0)
		return -1;
	return store_exec(s, "COMMIT");
}

/* The names table loses the transaction's names: so does the in-memory index. */
static void forget_names_after(struct store *s, size_t last_id);

void store_rollback(struct store *s)
{
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	drop_rows(s);
	ops_reset(s);
	forget_names_after(s, s->names_at_begin);
}

/*
 * The name index's hash: eight bytes at a time (multiply, fold the high
 * half in), about 8x faster than byte-wise FNV-1a on kernel names of 100
 * bytes and more; it is called for every stored event. Ids are given in
 * order of first appearance, so the hash never shows in the store.
 */
static uint64_t name_hash(const char *p)
{
	size_t n = strlen(p);
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	uint64_t w = 0;
	memcpy(&w, p, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

/*
 * Moves the name index into a fresh table of n slots, keeping the names
 * with ids up to last_id (freeing the others): open addressing cannot just
 * clear a slot.
 */
static void reinsert(struct store *s, size_t n, size_t last_id)
{
	struct name_slot *slots = xcalloc(n, sizeof(*slots));
	for (size_t i = 0; i < s->nslots; i++) {
		if (!s->slots[i].name)
			continue;
		if ((size_t)s->slots[i].id > last_id) {
			free(s->slots[i].name);
			continue;
		}
		size_t j = s->slots[i].hash & (n - 1);
		while (slots[j].name)
			j = (j + 1) & (n - 1);
		slots[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = slots;
	s->nslots = n;
}

static void rehash(struct store *s)
{
	reinsert(s, s->nslots * 2, SIZE_MAX);
}

static void forget_names_after(struct store *s, size_t last_id)
{
	if (s->nnames <= last_id)
		return;
	reinsert(s, s->nslots, last_id);
	s->nnames = last_id;
}

int64_t store_name_id(struct store *s, const char *name)
{
	uint64_t h = name_hash(name);
	size_t j = h & (s->nslots - 1);
	while (s->slots[j].name) {
		if (s->slots[j].hash == h && !strcmp(s->slots[j].name, name))
			return s->slots[j].id;
		j = (j + 1) & (s->nslots - 1);
	}
	int64_t id = (int64_t)s->nnames + 1;
	sqlite3_bind_int64(s->ins_name, 1, id);
	sqlite3_bind_text(s->ins_name, 2, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s->ins_name);
	sqlite3_reset(s->ins_name);
	if (rc != SQLITE_DONE)
		return db_error(s, "insert name");
	s->slots[j].name = xstrdup(name);
	s->slots[j].hash = h;
	s->slots[j].id = id;
	if (++s->nnames * 2 > s->nslots)
		rehash(s);
	return id;
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
	int r = prepare(s, q, &st);
	free(q);
	if (r < 0)
		return -1;
	r = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : db_error(s, "count traces");
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
	if (prepare(s, "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c"
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
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_error(s, "list tables");
}

int store_index_early(struct store *s)
{
	struct buf sql;
	buf_init(&sql);
	int ret = index_sql(s, &sql, NULL);
	if (ret == 0)
		ret = store_exec(s, sql.data);
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
		ret = store_exec(s, sql.data);
	if (ret == 0)
		ret = store_exec(s, stats.data);
	if (ret == 0)
		ret = store_exec(s, "ANALYZE sqlite_master;");
	buf_release(&sql);
	buf_release(&stats);
	return ret;
}

int store_reload_names(struct store *s)
{
	sqlite3_stmt *st;
	if (prepare(s, "SELECT id, name FROM names", &st) < 0)
		return -1;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		uint64_t h = name_hash(name);
		size_t j = h & (s->nslots - 1);
		while (s->slots[j].name && !(s->slots[j].hash == h && !strcmp(s->slots[j].name, name)))
			j = (j + 1) & (s->nslots - 1);
		if (!s->slots[j].name) {
			s->slots[j].name = xstrdup(name);
			s->slots[j].hash = h;
			s->slots[j].id = id;
			/* New names continue after the largest id; nnames >= names held keeps the table sparse. */
			if ((size_t)id > s->nnames)
				s->nnames = (size_t)id;
			while (s->nnames * 2 > s->nslots)
				rehash(s);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(s, "read names");
	return 0;
}

static void bind_opt(sqlite3_stmt *st, int i, int64_t v, int present)
{
	if (present)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

static void bind_text_opt(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int step_done(struct store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return db_error(s, what);
	return 0;
}

/*
 * step_done without clearing the bindings, for the per-event inserts: they
 * bind every parameter of every row (NULLs included), and clearing them
 * each time costs as much as a bind.
 */
static int step_rebind(struct store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_error(s, what);
	return 0;
}

int store_add_experiment(struct store *s, const char *id, const char *title, const char *source_path,
			 const char *manifest_text, const char *classification)
{
	sqlite3_stmt *st;
	if (prepare(s, "INSERT INTO experiments VALUES(?1,?2,?3,?4,?5)", &st) < 0)
		return -1;
	bind_text_opt(st, 1, id);
	bind_text_opt(st, 2, title);
	bind_text_opt(st, 3, source_path);
	bind_text_opt(st, 4, manifest_text);
	bind_text_opt(st, 5, classification);
	int r = step_done(s, st, "insert experiment");
	sqlite3_finalize(st);
	return r;
}

int64_t store_add_run(struct store *s, const struct store_run *r)
{
	sqlite3_stmt *st;
	if (prepare(s, "INSERT INTO runs(experiment, run, label, position, gpus, batch, strategy, model,"
		       " layers, hidden, heads, ffn, seq, vocab) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)",
		    &st) < 0)
		return -1;
	bind_text_opt(st, 1, r->experiment);
	bind_text_opt(st, 2, r->run);
	bind_text_opt(st, 3, r->label ? r->label : r->run);
	sqlite3_bind_int(st, 4, r->position);
	bind_opt(st, 5, r->gpus, r->gpus > 0);
	bind_opt(st, 6, r->batch, r->batch > 0);
	bind_text_opt(st, 7, r->strategy);
	bind_text_opt(st, 8, r->model);
	bind_opt(st, 9, r->layers, r->layers > 0);
	bind_opt(st, 10, r->hidden, r->hidden > 0);
	bind_opt(st, 11, r->heads, r->heads > 0);
	bind_opt(st, 12, r->ffn, r->ffn > 0);
	bind_opt(st, 13, r->seq, r->seq > 0);
	bind_opt(st, 14, r->vocab, r->vocab > 0);
	int rc = step_done(s, st, "insert run");
	sqlite3_finalize(st);
	return rc < 0 ? -1 : sqlite3_last_insert_rowid(s->db);
}

int64_t store_add_trace(struct store *s, int64_t run_id, const char *path, int file_index)
{
	sqlite3_stmt *st;
	if (prepare(s, "INSERT INTO traces(run_id, path, file_index, rank, rank_from_trace)"
		       " VALUES(?1,?2,?3,?3,0)", &st) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	bind_text_opt(st, 2, path);
	sqlite3_bind_int(st, 3, file_index);
	int rc = step_done(s, st, "insert trace");
	sqlite3_finalize(st);
	s->first_ns = INT64_MAX;
	s->last_ns = INT64_MIN;
	ops_reset(s);
	return rc < 0 ? -1 : sqlite3_last_insert_rowid(s->db);
}

static int flush_cpu_ops(struct store *s, int64_t trace_id);

int store_finish_trace(struct store *s, int64_t trace_id, const char *format,
		       const struct source_meta *meta, const struct ingest_counts *counts)
{
	sqlite3_stmt *st;
	if (flush_cpu_ops(s, trace_id) < 0 || flush_rows(s) < 0)
		return -1;
	if (prepare(s, "UPDATE traces SET format=?2, size=?3, sha256=?4, events=?5, skipped=?6,"
		       " first_ns=?7, last_ns=?8 WHERE id=?1", &st) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, trace_id);
	bind_text_opt(st, 2, format);
	sqlite3_bind_int64(st, 3, meta->size);
	bind_text_opt(st, 4, meta->sha256);
	sqlite3_bind_int64(st, 5, counts->events);
	sqlite3_bind_int64(st, 6, counts->skipped);
	bind_opt(st, 7, s->first_ns, s->first_ns != INT64_MAX);
	bind_opt(st, 8, s->last_ns, s->last_ns != INT64_MIN);
	int rc = step_done(s, st, "update trace");
	sqlite3_finalize(st);
	return rc;
}

/*
 * One device's share of a trace file that drives several (see
 * store_split_devices): a new traces row, part_of the file's first row,
 * takes that device's activities and what belongs to them. The SQL runs in
 * this order, each statement with ?1 the file's row, ?2 the new row, ?3 the
 * device, the activities moved last (the others find theirs through them).
 */
static const char *const split_sql[] = {
	/* A copy of the file's row: same clock, path and file index; the file's own counts stay on its row. */
	"INSERT INTO traces(run_id, path, size, sha256, format, file_index, rank, rank_from_trace,"
	" first_ns, last_ns, epoch_offset_ns, device, part_of) SELECT run_id, path, size, sha256, format,"
	" file_index, rank, 0, first_ns, last_ns, epoch_offset_ns, ?3, id FROM traces WHERE id = ?1",
	/* NCCL args, keyed by their kernel's start and correlation. */
	"UPDATE collectives SET trace_id = ?2 WHERE trace_id = ?1 AND EXISTS (SELECT 1 FROM activities a"
	" WHERE a.trace_id = ?1 AND a.device = ?3 AND a.start_ns = collectives.start_ns"
	" AND a.correlation IS collectives.correlation)",
	/* A runtime call goes with the activity it launched (same correlation). */
	"UPDATE launches SET trace_id = ?2 WHERE trace_id = ?1 AND correlation IN (SELECT correlation"
	" FROM activities WHERE trace_id = ?1 AND device = ?3 AND correlation IS NOT NULL)",
	/* A GPU range goes with the device whose streams it is on, when no other device uses that stream id. */
	"UPDATE annotations SET trace_id = ?2 WHERE trace_id = ?1 AND on_gpu = 1"
	" AND tid IN (SELECT stream FROM activities WHERE trace_id = ?1 AND device = ?3)"
	" AND tid NOT IN (SELECT stream FROM activities WHERE trace_id = ?1 AND device != ?3 AND stream IS NOT NULL)",
	/* The host's ranges (ProfilerStep#N, forward, ...) hold for every device the process drives. */
	"INSERT INTO annotations SELECT ?2, name_id, on_gpu, tid, start_ns, dur_ns FROM annotations"
	" WHERE trace_id = ?1 AND on_gpu = 0 ORDER BY rowid",
	"UPDATE devices SET trace_id = ?2 WHERE trace_id = ?1 AND device = ?3",
	"UPDATE activities SET trace_id = ?2 WHERE trace_id = ?1 AND device = ?3",
};

int store_split_devices(struct store *s, int64_t trace_id, int *ndevices)
{
	*ndevices = 0;
	if (flush_rows(s) < 0)
		return -1;
	sqlite3_stmt *st;
	if (prepare(s, "SELECT DISTINCT device FROM activities WHERE trace_id = ?1 AND device IS NOT NULL"
		       " ORDER BY device", &st) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, trace_id);
	int64_t *devs = NULL;
	size_t n = 0, cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		devs = xgrow(devs, &cap, n + 1, sizeof(*devs));
		devs[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	int ret = rc == SQLITE_DONE ? 0 : db_error(s, "list devices");
	/*
	 * The file's row keeps its first device; a process's world size counts
	 * processes, not the devices each drives, so a split file records none.
	 */
	if (ret == 0 && n > 0 &&
	    prepare(s, "UPDATE traces SET device = ?2, world_size = CASE WHEN ?3 > 1 THEN NULL ELSE world_size END,"
		       " rank_from_trace = CASE WHEN ?3 > 1 THEN 0 ELSE rank_from_trace END WHERE id = ?1", &st) == 0) {
		sqlite3_bind_int64(st, 1, trace_id);
		sqlite3_bind_int64(st, 2, devs[0]);
		sqlite3_bind_int64(st, 3, (int64_t)n);
		ret = step_done(s, st, "set trace device");
		sqlite3_finalize(st);
	} else if (ret == 0 && n > 0) {
		ret = -1;
	}
	for (size_t d = 1; ret == 0 && d < n; d++) {
		int64_t piece = 0;
		for (size_t k = 0; ret == 0 && k < sizeof(split_sql) / sizeof(split_sql[0]); k++) {
			if (prepare(s, split_sql[k], &st) < 0) {
				ret = -1;
				break;
			}
			/* Each statement's largest parameter is ?3, so all three bind. */
			sqlite3_bind_int64(st, 1, trace_id);
			sqlite3_bind_int64(st, 2, piece);
			sqlite3_bind_int64(st, 3, devs[d]);
			ret = step_done(s, st, "split trace by device");
			sqlite3_finalize(st);
			if (k == 0)
				piece = sqlite3_last_insert_rowid(s->db);
		}
	}
	free(devs);
	if (ret == 0)
		*ndevices = (int)n;
	return ret;
}

int store_number_device_ranks(struct store *s, int64_t run_id)
{
	sqlite3_stmt *sel, *upd;
	/* Ranks before: the file's (every share of a file has it); then the device. */
	if (prepare(s, "SELECT id FROM traces WHERE run_id = ?1 AND rank IS NOT NULL"
		       " AND EXISTS (SELECT 1 FROM traces p WHERE p.run_id = ?1 AND p.part_of IS NOT NULL)"
		       " ORDER BY rank, device, id", &sel) < 0)
		return -1;
	if (prepare(s, "UPDATE traces SET rank = ?2, rank_from_trace = 0 WHERE id = ?1", &upd) < 0) {
		sqlite3_finalize(sel);
		return -1;
	}
	sqlite3_bind_int64(sel, 1, run_id);
	int rc, ret = 0, rank = 0;
	int64_t *ids = NULL;
	size_t n = 0, cap = 0;
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		ids = xgrow(ids, &cap, n + 1, sizeof(*ids));
		ids[n++] = sqlite3_column_int64(sel, 0);
	}
	if (rc != SQLITE_DONE)
		ret = db_error(s, "number ranks");
	sqlite3_finalize(sel);
	for (size_t i = 0; ret == 0 && i < n; i++, rank++) {
		sqlite3_bind_int64(upd, 1, ids[i]);
		sqlite3_bind_int(upd, 2, rank);
		ret = step_done(s, upd, "number ranks");
	}
	sqlite3_finalize(upd);
	free(ids);
	return ret;
}

/*
 * The software versions a trace names, as trace_software rows: 'nccl' as
 * written, 'cuda_runtime' and 'cuda_driver' from CUDA's integer form
 * 1000 major + 10 minor (13000 -> "13.0", 12040 -> "12.4").
 */
static int sink_software(struct store *s, int64_t trace_id, const struct trace_info *info)
{
	char ver[2][32];
	const char *item[3] = {"nccl", "cuda_runtime", "cuda_driver"}, *value[3] = {info->nccl_version, NULL, NULL};
	int64_t cuda[2] = {info->cuda_runtime_version, info->cuda_driver_version};
	for (int k = 0; k < 2; k++)
		if (cuda[k] > 0) {
			snprintf(ver[k], sizeof(ver[k]), "%lld.%lld", (long long)(cuda[k] / 1000),
				 (long long)(cuda[k] % 1000 / 10));
			value[k + 1] = ver[k];
		}
	if (!value[0] && !value[1] && !value[2])
		return 0;
	sqlite3_stmt *st;
	if (prepare(s, "INSERT INTO trace_software VALUES(?1,?2,?3)", &st) < 0)
		return -1;
	int rc = 0;
	for (int k = 0; k < 3 && rc == 0; k++)
		if (value[k]) {
			sqlite3_bind_int64(st, 1, trace_id);
			sqlite3_bind_text(st, 2, item[k], -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 3, value[k], -1, SQLITE_TRANSIENT);
			rc = step_done(s, st, "insert trace software");
		}
	sqlite3_finalize(st);
	return rc;
}

static int sink_info(void *ctx, const struct trace_info *info)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	sqlite3_stmt *st;
	if (prepare(s, "UPDATE traces SET rank=coalesce(?2, rank), rank_from_trace=?2 IS NOT NULL,"
		       " world_size=?3, epoch_offset_ns=?4 WHERE id=?1", &st) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, c->trace_id);
	bind_opt(st, 2, info->rank, info->rank >= 0);
	bind_opt(st, 3, info->world_size, info->world_size > 0);
	bind_opt(st, 4, info->epoch_offset_ns, info->epoch_offset_ns >= 0);
	int rc = step_done(s, st, "update trace");
	sqlite3_finalize(st);
	if (rc < 0 || sink_software(s, c->trace_id, info) < 0)
		return -1;
	for (size_t i = 0; i < info->ndevices; i++) {
		const struct device_info *d = &info->devices[i];
		char cc[32];
		snprintf(cc, sizeof(cc), "%d.%d", d->cc_major, d->cc_minor);
		sqlite3_bind_int64(s->ins_dev, 1, c->trace_id);
		sqlite3_bind_int(s->ins_dev, 2, d->id);
		bind_text_opt(s->ins_dev, 3, d->name);
		bind_opt(s->ins_dev, 4, d->total_mem, d->total_mem >= 0);
		bind_opt(s->ins_dev, 5, d->sm_count, d->sm_count >= 0);
		bind_text_opt(s->ins_dev, 6, d->cc_major >= 0 ? cc : NULL);
		bind_opt(s->ins_dev, 7, d->mem_bandwidth, d->mem_bandwidth > 0);
		if (step_done(s, s->ins_dev, "insert device") < 0)
			return -1;
	}
	return 0;
}

static const char *kind_text(enum activity_kind k)
{
	return k == ACT_KERNEL ? "kernel" : k == ACT_MEMCPY ? "memcpy" : "memset";
}

static void extend(struct store *s, int64_t start, int64_t dur)
{
	if (start < s->first_ns)
		s->first_ns = start;
	if (start + dur > s->last_ns)
		s->last_ns = start + dur;
}

static int sink_activity(void *ctx, const struct gpu_activity *a)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	int64_t name = store_name_id(s, a->name);
	if (name < 0)
		return -1;
	extend(s, a->start_ns, a->dur_ns);
	struct cell *row = row_buf_add(s, &s->act);
	if (!row)
		return -1;
	cell_int(&row[0], c->trace_id);
	cell_text(&row[1], kind_text(a->kind));
	cell_int(&row[2], name);
	cell_opt(&row[3], a->device, a->device >= 0);
	cell_opt(&row[4], a->stream, a->stream >= 0);
	cell_int(&row[5], a->start_ns);
	cell_int(&row[6], a->dur_ns);
	cell_opt(&row[7], a->bytes, a->bytes >= 0);
	cell_opt(&row[9], a->correlation, a->correlation >= 0);
	/* A copy kind too long for a cell is bound from where it is: the rows go in now, this one last. */
	if (cell_text(&row[8], a->copy_kind) < 0 && row_buf_flush(s, &s->act) < 0)
		return -1;
	if (!a->collective)
		return 0;
	/* The NCCL args of a communication kernel, keyed by its start and correlation. */
	if (!s->ins_coll && prepare(s, "INSERT INTO collectives VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)", &s->ins_coll) < 0)
		return -1;
	sqlite3_stmt *st = s->ins_coll;
	sqlite3_bind_int64(st, 1, c->trace_id);
	sqlite3_bind_int64(st, 2, a->start_ns);
	bind_opt(st, 3, a->correlation, a->correlation >= 0);
	sqlite3_bind_text(st, 4, a->collective, -1, SQLITE_TRANSIENT);
	bind_opt(st, 5, a->in_nelems, a->in_nelems > 0);
	bind_opt(st, 6, a->out_nelems, a->out_nelems > 0);
	bind_text_opt(st, 7, a->dtype);
	bind_opt(st, 8, a->group_size, a->group_size > 0);
	bind_text_opt(st, 9, a->process_group);
	bind_opt(st, 10, a->seq, a->has_seq);
	return step_rebind(s, st, "insert collective");
}

/*
 * Only the outermost host operators are stored (issue 7: store what the
 * analyses use): per thread, in order of start (longer first, then name
 * id), an operator ending no later than the thread's last stored operator
 * is inside it and left out; enumerate(DataLoader)... ranges are stored at
 * any depth. Every left-out operator lies inside a stored one of its
 * thread, so the union of the stored ranges is the union of all of them:
 * what step_breakdown (host time, data loading first) and dispatch
 * (top-level operators) use, with a quarter of the rows on Kineto traces.
 *
 * Kineto writes each thread's operators in order of start, so they are
 * decided as they come: a thread's operators of one start wait until a
 * later start shows up (they are sorted among themselves then), and the
 * trace's end decides the last ones. Should an operator start before the
 * last one of its thread, the rows stored so far are deleted and all the
 * trace's operators, which are held until its end anyway, are sorted and
 * decided at the end instead (flush_cpu_ops): the same rows either way.
 */
static int cmp_op(const void *a, const void *b)
{
	const struct pending_op *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->name_id < y->name_id ? -1 : x->name_id > y->name_id;
}

/*
 * Stores o unless it lies inside the thread's last stored operator (*end,
 * when *have_end); 1 when stored, 0 when not, -1 on error.
 */
static int decide_op(struct store *s, int64_t trace_id, const struct pending_op *o, int *have_end, int64_t *end)
{
	int inside = *have_end && o->start + o->dur <= *end;
	if (!inside) {
		*have_end = 1;
		*end = o->start + o->dur;
	} else if (!o->keep) {
		return 0;
	}
	struct cell *row = row_buf_add(s, &s->cpu);
	if (!row)
		return -1;
	cell_int(&row[0], trace_id);
	cell_int(&row[1], o->name_id);
	cell_opt(&row[2], o->tid, o->tid >= 0);
	cell_int(&row[3], o->start);
	cell_int(&row[4], o->dur);
	cell_opt(&row[5], o->external_id, o->external_id >= 0);
	return 1;
}

static void ops_add(struct store *s, const struct pending_op *o)
{
	s->ops = xgrow(s->ops, &s->opscap, s->nops + 1, sizeof(*s->ops));
	s->ops[s->nops++] = *o;
}

/*
 * Decides a thread's operators of one start; those stored are kept in
 * store.ops, should later ones come out of order (see sink_cpu_op).
 */
static int decide_group(struct store *s, int64_t trace_id, struct op_thread *t)
{
	/* Insertion sort: operators sharing a start are a handful (a call and the ones it makes first). */
	for (size_t i = 1; i < t->ngroup; i++) {
		struct pending_op k = t->group[i];
		size_t j = i;
		for (; j > 0 && cmp_op(&t->group[j - 1], &k) > 0; j--)
			t->group[j] = t->group[j - 1];
		t->group[j] = k;
	}
	for (size_t i = 0; i < t->ngroup; i++) {
		int r = decide_op(s, trace_id, &t->group[i], &t->have_end, &t->end);
		if (r < 0)
			return -1;
		if (r)
			ops_add(s, &t->group[i]);
	}
	t->ngroup = 0;
	return 0;
}

/* The thread's state, added when new. */
static struct op_thread *op_thread(struct store *s, int64_t tid)
{
	if ((s->nthreads + 1) * 2 > s->nthreads_cap) {
		size_t cap = s->nthreads_cap ? s->nthreads_cap * 2 : 16;
		struct op_thread *t = xcalloc(cap, sizeof(*t));
		for (size_t i = 0; i < s->nthreads_cap; i++) {
			if (!s->threads[i].used)
				continue;
			size_t j = (size_t)((uint64_t)s->threads[i].tid * 0x9e3779b97f4a7c15ull >> 32) & (cap - 1);
			while (t[j].used)
				j = (j + 1) & (cap - 1);
			t[j] = s->threads[i];
		}
		free(s->threads);
		s->threads = t;
		s->nthreads_cap = cap;
	}
	size_t j = (size_t)((uint64_t)tid * 0x9e3779b97f4a7c15ull >> 32) & (s->nthreads_cap - 1);
	while (s->threads[j].used && s->threads[j].tid != tid)
		j = (j + 1) & (s->nthreads_cap - 1);
	struct op_thread *t = &s->threads[j];
	if (!t->used) {
		t->used = 1;
		t->tid = tid;
		s->nthreads++;
	}
	return t;
}

static int sink_cpu_op(void *ctx, const struct cpu_op *op)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	int64_t name = store_name_id(s, op->name);
	if (name < 0)
		return -1;
	struct pending_op po = {op->start_ns, op->dur_ns, op->tid, op->external_id, name,
				!strncmp(op->name, "enumerate(DataLoader)", 21)};
	if (!s->ops_sorted) {
		ops_add(s, &po);
		return 0;
	}
	struct op_thread *t = op_thread(s, op->tid);
	if (t->ngroup && op->start_ns < t->group_start) {
		/*
		 * Out of order: start again at the end, from the operators stored so
		 * far, those not decided yet and all that come. Those not stored can be
		 * left out: each lies inside one that comes before it in cmp_op's
		 * order, which is inside, or is, a stored one, so it would not be
		 * stored again, and leaves the ends that decide the others as they
		 * are. (Keeping every operator instead took 48 bytes each: 500 MB for
		 * a 4.5 GB trace, faulted in on the thread that stores.)
		 */
		for (size_t i = 0; i < s->nthreads_cap; i++) {
			struct op_thread *u = &s->threads[i];
			for (size_t k = 0; u->used && k < u->ngroup; k++)
				ops_add(s, &u->group[k]);
			u->ngroup = 0;
		}
		ops_add(s, &po);
		s->ops_sorted = 0;
		sqlite3_stmt *st;
		if (row_buf_flush(s, &s->cpu) < 0 || prepare(s, "DELETE FROM cpu_ops WHERE trace_id = ?1", &st) < 0)
			return -1;
		sqlite3_bind_int64(st, 1, c->trace_id);
		int rc = step_done(s, st, "delete cpu ops");
		sqlite3_finalize(st);
		return rc;
	}
	if (t->ngroup && op->start_ns > t->group_start && decide_group(s, c->trace_id, t) < 0)
		return -1;
	if (!t->ngroup)
		t->group_start = op->start_ns;
	t->group = xgrow(t->group, &t->groupcap, t->ngroup + 1, sizeof(*t->group));
	t->group[t->ngroup++] = po;
	return 0;
}

/* At the end of a trace: decides the operators not decided yet (all of them when they came out of order). */
static int flush_cpu_ops(struct store *s, int64_t trace_id)
{
	if (s->ops_sorted) {
		for (size_t i = 0; i < s->nthreads_cap; i++)
			if (s->threads[i].used && decide_group(s, trace_id, &s->threads[i]) < 0)
				return -1;
		ops_reset(s);
		return 0;
	}
	qsort(s->ops, s->nops, sizeof(*s->ops), cmp_op);
	int64_t tid = 0, end = 0;
	int have_end = 0;
	for (size_t i = 0; i < s->nops; i++) {
		const struct pending_op *o = &s->ops[i];
		if (i == 0 || o->tid != tid) {
			tid = o->tid;
			have_end = 0;
		}
		if (decide_op(s, trace_id, o, &have_end, &end) < 0)
			return -1;
	}
	ops_reset(s);
	return 0;
}

static int sink_runtime(void *ctx, const struct runtime_call *r)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	int64_t name = store_name_id(s, r->name);
	if (name < 0)
		return -1;
	struct cell *row = row_buf_add(s, &s->launch);
	if (!row)
		return -1;
	cell_int(&row[0], c->trace_id);
	cell_int(&row[1], name);
	cell_opt(&row[2], r->tid, r->tid >= 0);
	cell_int(&row[3], r->start_ns);
	cell_int(&row[4], r->dur_ns);
	cell_opt(&row[5], r->correlation, r->correlation >= 0);
	cell_int(&row[6], r->is_driver);
	return 0;
}

static int sink_annotation(void *ctx, const struct annotation *a)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	int64_t name = store_name_id(s, a->name);
	if (name < 0)
		return -1;
	struct cell *row = row_buf_add(s, &s->annot);
	if (!row)
		return -1;
	cell_int(&row[0], c->trace_id);
	cell_int(&row[1], name);
	cell_int(&row[2], a->on_gpu);
	cell_opt(&row[3], a->tid, a->tid >= 0);
	cell_int(&row[4], a->start_ns);
	cell_int(&row[5], a->dur_ns);
	return 0;
}

static int sink_summary(void *ctx, const struct summary_row *r)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	int64_t name = store_name_id(s, r->name);
	if (name < 0)
		return -1;
	sqlite3_stmt *st = s->ins_sum;
	sqlite3_bind_int64(st, 1, c->trace_id);
	sqlite3_bind_text(st, 2, kind_text(r->kind), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, name);
	bind_text_opt(st, 4, r->copy_kind);
	sqlite3_bind_int64(st, 5, r->calls);
	sqlite3_bind_int64(st, 6, r->total_ns);
	bind_opt(st, 7, r->min_ns, r->min_ns >= 0);
	bind_opt(st, 8, r->max_ns, r->max_ns >= 0);
	bind_opt(st, 9, r->avg_ns, r->avg_ns >= 0);
	if (r->time_pct >= 0)
		sqlite3_bind_double(st, 10, r->time_pct);
	else
		sqlite3_bind_null(st, 10);
	return step_done(s, st, "insert summary");
}

/* Inputs that are not per-rank traces: the rows say which trace file they came from. */

static int sink_metrics(void *ctx, const struct kernel_metrics *m)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	int64_t name = store_name_id(s, m->name);
	sqlite3_stmt *st;
	if (name < 0 || prepare(s, "INSERT INTO kernel_metrics VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)", &st) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, c->trace_id);
	sqlite3_bind_int64(st, 2, m->id);
	sqlite3_bind_int64(st, 3, name);
	bind_opt(st, 4, m->device, m->device >= 0);
	bind_text_opt(st, 5, m->block);
	bind_text_opt(st, 6, m->grid);
	bind_opt(st, 7, m->fp16_flops, m->fp16_flops >= 0);
	bind_opt(st, 8, m->fp32_flops, m->fp32_flops >= 0);
	bind_opt(st, 9, m->fp64_flops, m->fp64_flops >= 0);
	bind_opt(st, 10, m->dram_bytes, m->dram_bytes >= 0);
	bind_opt(st, 11, m->dur_ns, m->dur_ns >= 0);
	int rc = step_done(s, st, "insert kernel metrics");
	sqlite3_finalize(st);
	return rc;
}

static int sink_iteration(void *ctx, const struct log_iteration *it)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	sqlite3_stmt *st;
	if (prepare(s, "INSERT INTO iterations VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)", &st) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, c->trace_id);
	sqlite3_bind_int64(st, 2, it->iteration);
	bind_opt(st, 3, it->iterations, it->iterations >= 0);
	bind_opt(st, 4, it->consumed_samples, it->consumed_samples >= 0);
	bind_opt(st, 5, it->elapsed_ns, it->elapsed_ns >= 0);
	if (it->tflops_per_gpu >= 0)
		sqlite3_bind_double(st, 6, it->tflops_per_gpu);
	bind_opt(st, 7, it->global_batch, it->global_batch >= 0);
	if (it->has_loss)
		sqlite3_bind_double(st, 8, it->loss);
	bind_opt(st, 9, it->launcher_rank, it->launcher_rank >= 0);
	int rc = step_done(s, st, "insert iteration");
	sqlite3_finalize(st);
	return rc;
}

static int sink_phase(void *ctx, const struct phase_time *p)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	sqlite3_stmt *st;
	if (prepare(s, "INSERT INTO phase_times VALUES(?1,?2,?3,?4,?5,?6)", &st) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, c->trace_id);
	bind_text_opt(st, 2, p->action);
	bind_opt(st, 3, p->calls, p->calls >= 0);
	bind_opt(st, 4, p->mean_ns, p->mean_ns >= 0);
	bind_opt(st, 5, p->total_ns, p->total_ns >= 0);
	if (p->percent >= 0)
		sqlite3_bind_double(st, 6, p->percent);
	int rc = step_done(s, st, "insert phase time");
	sqlite3_finalize(st);
	return rc;
}

static int sink_hardware(void *ctx, const struct gpu_hardware *g)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	sqlite3_stmt *st;
	if (prepare(s, "INSERT INTO gpu_hardware VALUES(coalesce(?1, (SELECT r.experiment FROM traces t"
		       " JOIN runs r ON r.id = t.run_id WHERE t.id = ?2)), ?2, coalesce(?3, (SELECT path FROM traces"
		       " WHERE id = ?2)), ?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19)", &st) < 0)
		return -1;
	bind_text_opt(st, 1, c->experiment);
	bind_opt(st, 2, c->trace_id, c->trace_id > 0);
	bind_text_opt(st, 3, c->path);
	sqlite3_bind_int(st, 4, g->index);
	bind_text_opt(st, 5, g->dtd);
	bind_text_opt(st, 6, g->product);
	bind_text_opt(st, 7, g->uuid);
	bind_text_opt(st, 8, g->pci_bus);
	bind_text_opt(st, 9, g->driver);
	bind_text_opt(st, 10, g->cuda);
	bind_opt(st, 11, g->memory_mib, g->memory_mib >= 0);
	bind_opt(st, 12, g->max_graphics_mhz, g->max_graphics_mhz >= 0);
	bind_opt(st, 13, g->max_sm_mhz, g->max_sm_mhz >= 0);
	bind_opt(st, 14, g->max_mem_mhz, g->max_mem_mhz >= 0);
	if (g->power_limit_w >= 0)
		sqlite3_bind_double(st, 15, g->power_limit_w);
	bind_opt(st, 16, g->pcie_gen_max, g->pcie_gen_max >= 0);
	bind_opt(st, 17, g->pcie_gen_cur, g->pcie_gen_cur >= 0);
	bind_opt(st, 18, g->pcie_width_max, g->pcie_width_max >= 0);
	bind_opt(st, 19, g->pcie_width_cur, g->pcie_width_cur >= 0);
	int rc = step_done(s, st, "insert gpu hardware");
	sqlite3_finalize(st);
	return rc;
}

/* One pair of nvidia-smi topo -m, for the experiment like sink_hardware. */
static int sink_link(void *ctx, const struct gpu_link *l)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	sqlite3_stmt *st;
	if (prepare(s, "INSERT INTO gpu_links VALUES(coalesce(?1, (SELECT r.experiment FROM traces t"
		       " JOIN runs r ON r.id = t.run_id WHERE t.id = ?2)), ?2, coalesce(?3, (SELECT path FROM traces"
		       " WHERE id = ?2)), ?4, ?5, ?6, ?7, ?8)", &st) < 0)
		return -1;
	bind_text_opt(st, 1, c->experiment);
	bind_opt(st, 2, c->trace_id, c->trace_id > 0);
	bind_text_opt(st, 3, c->path);
	bind_text_opt(st, 4, l->a);
	bind_text_opt(st, 5, l->b);
	bind_text_opt(st, 6, l->link);
	bind_text_opt(st, 7, l->cpu_affinity);
	bind_text_opt(st, 8, l->numa_affinity);
	int rc = step_done(s, st, "insert gpu link");
	sqlite3_finalize(st);
	return rc;
}

int64_t store_add_input(struct store *s, int64_t run_id, const char *path, int file_index)
{
	int64_t id = store_add_trace(s, run_id, path, file_index);
	if (id > 0) {
		char sql[96];
		snprintf(sql, sizeof(sql), "UPDATE traces SET rank = NULL, rank_from_trace = NULL WHERE id = %lld", (long long)id);
		if (store_exec(s, sql) < 0)
			return -1;
	}
	return id;
}

/* An experiment's own file (the manifest's nvidia_smi) may only describe hardware. */
static int reject_event(struct sink_ctx *c)
{
	diag_error(c->path, "expected an nvidia-smi -q -x file, found a trace");
	return -1;
}
static int reject_activity(void *ctx, const struct gpu_activity *a) { (void)a; return reject_event(ctx); }
static int reject_runtime(void *ctx, const struct runtime_call *r) { (void)r; return reject_event(ctx); }
static int reject_annotation(void *ctx, const struct annotation *a) { (void)a; return reject_event(ctx); }
static int reject_metrics(void *ctx, const struct kernel_metrics *m) { (void)m; return reject_event(ctx); }
static int reject_iteration(void *ctx, const struct log_iteration *i) { (void)i; return reject_event(ctx); }
static int reject_phase(void *ctx, const struct phase_time *p) { (void)p; return reject_event(ctx); }
static int ignore_info(void *ctx, const struct trace_info *i) { (void)ctx; (void)i; return 0; }

void store_sink_experiment(struct store *s, const char *experiment, const char *path, struct ingest_sink *sink)
{
	memset(sink, 0, sizeof(*sink));
	s->sink.s = s;
	s->sink.trace_id = 0;
	s->sink.experiment = experiment;
	s->sink.path = path;
	sink->ctx = &s->sink;
	sink->info = ignore_info;
	sink->activity = reject_activity;
	sink->runtime = reject_runtime;
	sink->annotation = reject_annotation;
	sink->metrics = reject_metrics;
	sink->iteration = reject_iteration;
	sink->phase = reject_phase;
	sink->hardware = sink_hardware;
	sink->link = sink_link;
}

void store_sink_kinds(struct ingest_sink *sink)
{
	memset(sink, 0, sizeof(*sink));
	sink->metrics = sink_metrics;
	sink->iteration = sink_iteration;
	sink->phase = sink_phase;
	sink->hardware = sink_hardware;
	sink->link = sink_link;
	sink->info = sink_info;
	sink->activity = sink_activity;
	sink->runtime = sink_runtime;
	sink->annotation = sink_annotation;
	sink->cpu_op = sink_cpu_op;
	sink->summary = sink_summary;
}

void store_sink(struct store *s, int64_t trace_id, struct ingest_sink *sink)
{
	s->sink.experiment = NULL;
	s->sink.path = NULL;
	s->sink.s = s;
	s->sink.trace_id = trace_id;
	store_sink_kinds(sink);
	sink->ctx = &s->sink;
}
