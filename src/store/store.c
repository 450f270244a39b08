/*
 * store.c: the SQLite schema and the writes into it.
 *
 * Writes go through prepared statements inside one transaction per build
 * step, so a build that fails leaves no half-written database (the build
 * writes a new database in a temporary directory anyway). Names are interned
 * through an in-memory hash table in front of the `names` table: a trace has
 * thousands of events but a few hundred distinct kernel names.
 */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/diag.h"
#include "../util/xalloc.h"

/* The schema; the README's "Database schema" section documents each table. */
static const char SCHEMA[] =
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
	"  skipped INTEGER, first_ns INTEGER, last_ns INTEGER, epoch_offset_ns INTEGER);\n"
	"CREATE TABLE devices(trace_id INTEGER NOT NULL REFERENCES traces(id), device INTEGER,\n"
	"  name TEXT, total_mem INTEGER, sm_count INTEGER, cc TEXT);\n"
	"CREATE TABLE names(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);\n"
	"CREATE TABLE activities(trace_id INTEGER NOT NULL REFERENCES traces(id),\n"
	"  kind TEXT NOT NULL CHECK(kind IN ('kernel','memcpy','memset')),\n"
	"  name_id INTEGER NOT NULL REFERENCES names(id), device INTEGER, stream INTEGER,\n"
	"  start_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL, bytes INTEGER, copy_kind TEXT,\n"
	"  correlation INTEGER);\n"
	"CREATE TABLE launches(trace_id INTEGER NOT NULL REFERENCES traces(id),\n"
	"  name_id INTEGER NOT NULL REFERENCES names(id), tid INTEGER, start_ns INTEGER NOT NULL,\n"
	"  dur_ns INTEGER NOT NULL, correlation INTEGER, driver INTEGER);\n"
	"CREATE TABLE annotations(trace_id INTEGER NOT NULL REFERENCES traces(id),\n"
	"  name_id INTEGER NOT NULL REFERENCES names(id), on_gpu INTEGER, tid INTEGER,\n"
	"  start_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL);\n"
	"CREATE TABLE activity_groups(experiment TEXT NOT NULL, kind TEXT NOT NULL,\n"
	"  name_id INTEGER NOT NULL, grp TEXT NOT NULL, PRIMARY KEY(experiment, kind, name_id));\n"
	"CREATE TABLE group_times(experiment TEXT, run TEXT, rank INTEGER, grp TEXT,\n"
	"  time_ns INTEGER, fraction REAL);\n"
	"CREATE TABLE kernel_stats(experiment TEXT, run TEXT, rank INTEGER, name_id INTEGER,\n"
	"  grp TEXT, calls INTEGER, total_ns INTEGER, min_ns INTEGER, max_ns INTEGER);\n"
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

struct sink_ctx {
	struct store *s;
	int64_t trace_id;
};

struct store {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *ins_name, *ins_act, *ins_launch, *ins_annot, *ins_dev;
	struct name_slot *slots;
	size_t nslots, nnames;
	struct sink_ctx sink;
	int64_t first_ns, last_ns;
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

int store_open(const char *path, struct store **out)
{
	struct store *s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(path);
	unlink(path);
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		diag_syserror(path, "cannot create database: %s", s->db ? sqlite3_errmsg(s->db) : "out of memory");
		store_close(s);
		return -1;
	}
	if (store_exec(s, SCHEMA) < 0 ||
	    store_exec(s, "INSERT INTO meta VALUES('schema_version','1'),('perfstudy_version','" PERFSTUDY_VERSION "');") < 0 ||
	    prepare(s, "INSERT INTO names(id, name) VALUES(?1, ?2)", &s->ins_name) < 0 ||
	    prepare(s, "INSERT INTO activities VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)", &s->ins_act) < 0 ||
	    prepare(s, "INSERT INTO launches VALUES(?1,?2,?3,?4,?5,?6,?7)", &s->ins_launch) < 0 ||
	    prepare(s, "INSERT INTO annotations VALUES(?1,?2,?3,?4,?5,?6)", &s->ins_annot) < 0 ||
	    prepare(s, "INSERT INTO devices VALUES(?1,?2,?3,?4,?5,?6)", &s->ins_dev) < 0) {
		store_close(s);
		return -1;
	}
	s->nslots = 1024;
	s->slots = xcalloc(s->nslots, sizeof(*s->slots));
	*out = s;
	return 0;
}

int store_close(struct store *s)
{
	int ret = 0;
	if (!s)
		return 0;
	sqlite3_finalize(s->ins_name);
	sqlite3_finalize(s->ins_act);
	sqlite3_finalize(s->ins_launch);
	sqlite3_finalize(s->ins_annot);
	sqlite3_finalize(s->ins_dev);
	if (s->db && sqlite3_close(s->db) != SQLITE_OK) {
		diag_syserror(s->path, "cannot close database: %s", sqlite3_errmsg(s->db));
		ret = -1;
	}
	for (size_t i = 0; i < s->nslots; i++)
		free(s->slots[i].name);
	free(s->slots);
	free(s->path);
	free(s);
	return ret;
}

sqlite3 *store_db(struct store *s)
{
	return s->db;
}

int store_begin(struct store *s)
{
	return store_exec(s, "BEGIN");
}

int store_commit(struct store *s)
{
	return store_exec(s, "COMMIT");
}

void store_rollback(struct store *s)
{
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

static uint64_t fnv1a(const char *p)
{
	uint64_t h = 1469598103934665603ull;
	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

static void rehash(struct store *s)
{
	size_t n = s->nslots * 2;
	struct name_slot *slots = xcalloc(n, sizeof(*slots));
	for (size_t i = 0; i < s->nslots; i++) {
		if (!s->slots[i].name)
			continue;
		size_t j = s->slots[i].hash & (n - 1);
		while (slots[j].name)
			j = (j + 1) & (n - 1);
		slots[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = slots;
	s->nslots = n;
}

int64_t store_name_id(struct store *s, const char *name)
{
	uint64_t h = fnv1a(name);
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
	return rc < 0 ? -1 : sqlite3_last_insert_rowid(s->db);
}

int store_finish_trace(struct store *s, int64_t trace_id, const char *format,
		       const struct source_meta *meta, const struct ingest_counts *counts)
{
	sqlite3_stmt *st;
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
	if (rc < 0)
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
	sqlite3_stmt *st = s->ins_act;
	sqlite3_bind_int64(st, 1, c->trace_id);
	sqlite3_bind_text(st, 2, kind_text(a->kind), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, name);
	bind_opt(st, 4, a->device, a->device >= 0);
	bind_opt(st, 5, a->stream, a->stream >= 0);
	sqlite3_bind_int64(st, 6, a->start_ns);
	sqlite3_bind_int64(st, 7, a->dur_ns);
	bind_opt(st, 8, a->bytes, a->bytes >= 0);
	bind_text_opt(st, 9, a->copy_kind);
	bind_opt(st, 10, a->correlation, a->correlation >= 0);
	extend(s, a->start_ns, a->dur_ns);
	return step_done(s, st, "insert activity");
}

static int sink_runtime(void *ctx, const struct runtime_call *r)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	int64_t name = store_name_id(s, r->name);
	if (name < 0)
		return -1;
	sqlite3_stmt *st = s->ins_launch;
	sqlite3_bind_int64(st, 1, c->trace_id);
	sqlite3_bind_int64(st, 2, name);
	bind_opt(st, 3, r->tid, r->tid >= 0);
	sqlite3_bind_int64(st, 4, r->start_ns);
	sqlite3_bind_int64(st, 5, r->dur_ns);
	bind_opt(st, 6, r->correlation, r->correlation >= 0);
	sqlite3_bind_int(st, 7, r->is_driver);
	return step_done(s, st, "insert launch");
}

static int sink_annotation(void *ctx, const struct annotation *a)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	int64_t name = store_name_id(s, a->name);
	if (name < 0)
		return -1;
	sqlite3_stmt *st = s->ins_annot;
	sqlite3_bind_int64(st, 1, c->trace_id);
	sqlite3_bind_int64(st, 2, name);
	sqlite3_bind_int(st, 3, a->on_gpu);
	bind_opt(st, 4, a->tid, a->tid >= 0);
	sqlite3_bind_int64(st, 5, a->start_ns);
	sqlite3_bind_int64(st, 6, a->dur_ns);
	return step_done(s, st, "insert annotation");
}

void store_sink(struct store *s, int64_t trace_id, struct ingest_sink *sink)
{
	s->sink.s = s;
	s->sink.trace_id = trace_id;
	sink->ctx = &s->sink;
	sink->info = sink_info;
	sink->activity = sink_activity;
	sink->runtime = sink_runtime;
	sink->annotation = sink_annotation;
}
