/*
 * sqlitedb.c: opening a profiler's SQLite export from memory, and the
 * checks every SQLite reader needs (tables, columns, integer cells), each
 * failure named by file and table; walking a table's rows, and handing
 * activities, annotations and devices to the sink with their counts.
 */
#include "ingest/sqlitedb.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/sqlguard.h"
#include "util/xalloc.h"

int sdb_magic(const char *head, size_t n)
{
	return n >= 16 && !memcmp(head, "SQLite format 3", 16);
}

void sdb_error(const struct source *src, const char *table, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (table)
		diag_error(src->path, "table '%s': %s", table, msg);
	else
		diag_error(src->path, "%s", msg);
}

/*
 * A profiler's export is read with a few queries, each a scan of a real
 * table (with lookups by id): work in proportion to the file. A crafted
 * file can ask for far more, so only real tables are read (sdb_has_table)
 * and every connection is bounded as util/sqlguard.h says (limits, no
 * views, a budget of SQLite steps in proportion to the file's size).
 */

/* What went wrong in db's last call, in words: the step budget, or SQLite's message. */
static const char *sdb_why(const struct source *src, sqlite3 *db, char *tmp, size_t n)
{
	if (sqlite3_errcode(db) == SQLITE_INTERRUPT) {
		snprintf(tmp, n, "stopped after %llu million SQLite steps, far more than a %zu-byte profiler export needs"
			 " (a crafted database?)", (unsigned long long)(sqlguard_budget_steps(src->len) / 1000000), src->len);
		return tmp;
	}
	if (sqlite3_errcode(db) == SQLITE_TOOBIG) {
		snprintf(tmp, n, "a string or row larger than %d MiB", SQLGUARD_MAX_LENGTH >> 20);
		return tmp;
	}
	return sqlite3_errmsg(db);
}

int sdb_open(const struct source *src, int quiet, sqlite3 **out)
{
	sqlite3 *db = NULL;
	*out = NULL;
	if (src->len < 100 || src->len > (size_t)INT64_MAX) {
		if (!quiet)
			sdb_error(src, NULL, "truncated SQLite database (%zu bytes)", src->len);
		return -1;
	}
	/*
	 * A database last written in WAL mode says so in header bytes 18-19;
	 * memdb cannot open WAL, and the -wal file is not ours to read anyway:
	 * reading the main file as a rollback-journal database gives its
	 * last checkpoint. Only our in-memory copy is changed.
	 */
	if (src->data[18] == 2 && src->data[19] == 2)
		src->data[18] = src->data[19] = 1;
	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		if (!quiet)
			diag_syserror(src->path, "sqlite: cannot open an in-memory database");
		sqlite3_close(db);
		return -1;
	}
	if (sqlguard_apply(db, src->len) < 0) {
		if (!quiet)
			diag_syserror(src->path, "sqlite: cannot set up the connection");
		sqlite3_close(db);
		return -1;
	}
	int rc = sqlite3_deserialize(db, "main", (unsigned char *)src->data, (sqlite3_int64)src->len,
				     (sqlite3_int64)src->len, SQLITE_DESERIALIZE_READONLY);
	sqlite3_stmt *st = NULL;
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
	if (rc == SQLITE_OK && sqlite3_step(st) != SQLITE_ROW)
		rc = SQLITE_CORRUPT;
	if (rc != SQLITE_OK) {
		if (!quiet)
			sdb_error(src, NULL, "corrupt SQLite database: %s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		sqlite3_close(db);
		return -1;
	}
	sqlite3_finalize(st);
	*out = db;
	return 0;
}

/* 1 when db has a table or a view (of any kind) called table. */
static int sdb_has_name(sqlite3 *db, const char *table)
{
	return sqlguard_schema_says(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?1",
				    table);
}

int sdb_has_table(sqlite3 *db, const char *table)
{
	/*
	 * Only a real table: a view, a virtual table or a table with generated
	 * columns runs the file's own SQL, which can be made to never end.
	 */
	return sqlguard_plain_table(db, table);
}

/* What table, not a plain table, is, in words. */
static const char *table_kind(sqlite3 *db, const char *table)
{
	const char *k = sqlguard_not_plain(db, table);
	return k ? k : "a table with generated columns";
}

int sdb_detect_tables(const struct source *src, const char *must, const char *const *any)
{
	sqlite3 *db;
	if (sdb_open(src, 1, &db) < 0)
		return 0;
	int r = 0;
	/* Views count here, so that the reader is chosen and its error names the view (sdb_table). */
	if (sdb_has_name(db, must))
		for (size_t i = 0; any[i] && !r; i++)
			r = sdb_has_name(db, any[i]);
	sqlite3_close(db);
	return r;
}

int sdb_has_column(sqlite3 *db, const char *table, const char *column)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	int r = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return r;
}

int sdb_require_columns(const struct source *src, sqlite3 *db, const char *table, const char *const *cols)
{
	for (size_t i = 0; cols[i]; i++)
		if (!sdb_has_column(db, table, cols[i])) {
			sdb_error(src, table, "no column '%s' (not a profiler export this reader knows)", cols[i]);
			return -1;
		}
	return 0;
}

int sdb_prepare(const struct source *src, sqlite3 *db, const char *table, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK) {
		char why[256];
		sdb_error(src, table, "cannot query: %s", sdb_why(src, db, why, sizeof(why)));
		*st = NULL;
		return -1;
	}
	return 0;
}

int sdb_int(const struct source *src, const char *table, sqlite3_stmt *st, int col, int optional, int64_t *v)
{
	int t = sqlite3_column_type(st, col);
	if (t == SQLITE_INTEGER) {
		*v = sqlite3_column_int64(st, col);
		return 0;
	}
	if (t == SQLITE_NULL && optional) {
		*v = -1;
		return 0;
	}
	static const char *const types[] = {"?", "integer", "real", "text", "blob", "null"};
	sdb_error(src, table, "expected an integer in column '%s', got %s '%.40s'", sqlite3_column_name(st, col),
		  types[t >= 1 && t <= 5 ? t : 0], t == SQLITE_TEXT ? (const char *)sqlite3_column_text(st, col) : "");
	return -1;
}

const char *cupti_copy_kind(int64_t kind)
{
	/* CUpti_ActivityMemcpyKind, stable since CUDA 5. */
	static const char *const kinds[] = {NULL, "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
	return kind >= 0 && kind < (int64_t)(sizeof(kinds) / sizeof(kinds[0])) ? kinds[kind] : NULL;
}

const char *cupti_memory_kind(int64_t kind)
{
	/* CUpti_ActivityMemoryKind, named as libkineto's memoryKindString() does. */
	static const char *const kinds[] = {NULL, "Pageable", "Pinned", "Device", "Array", "Managed", "Device Static",
					    "Managed Static"};
	return kind >= 0 && kind < (int64_t)(sizeof(kinds) / sizeof(kinds[0])) ? kinds[kind] : NULL;
}

void cupti_memcpy_name(struct buf *out, const char *copy_kind, int64_t src_kind, int64_t dst_kind)
{
	const char *s = cupti_memory_kind(src_kind), *d = cupti_memory_kind(dst_kind);
	buf_printf(out, "Memcpy %s", copy_kind ? copy_kind : "Unknown");
	if (s && d)
		buf_printf(out, " (%s -> %s)", s, d);
}

void cupti_memset_name(struct buf *out, int64_t mem_kind)
{
	const char *k = cupti_memory_kind(mem_kind);
	if (k)
		buf_printf(out, "Memset (%s)", k);
	else
		buf_printf(out, "Memset");
}

int sdb_table(struct sdb_reader *r, const char *table, const char *const *cols)
{
	if (!sdb_has_table(r->db, table)) {
		if (!sdb_has_name(r->db, table))
			return 0;
		sdb_error(r->src, table, "is %s; only plain tables are read (a view or a generated column runs"
			  " the file's own SQL)", table_kind(r->db, table));
		return -1;
	}
	return sdb_require_columns(r->src, r->db, table, cols) < 0 ? -1 : 1;
}

int sdb_each_row(struct sdb_reader *r, const char *table, const char *sql, sdb_row_fn *row, void *arg)
{
	sqlite3_stmt *st;
	if (sdb_prepare(r->src, r->db, table, sql, &st) < 0)
		return -1;
	int ret = -1, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r->counts->events++;
		if (row(r, table, st, arg) < 0)
			goto out;
	}
	if (rc != SQLITE_DONE) {
		char why[256];
		sdb_error(r->src, table, "%s", sdb_why(r->src, r->db, why, sizeof(why)));
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

int sdb_check_budget(struct sdb_reader *r)
{
	int over = sqlguard_over_budget(r->db);
	if (!over)
		return 0;
	sdb_error(r->src, NULL, "stopped after %llu million SQLite steps, far more than a %zu-byte profiler export"
		  " needs (a crafted database?)", (unsigned long long)(sqlguard_budget_steps(r->src->len) / 1000000),
		  r->src->len);
	return -1;
}

int sdb_reader_open(struct sdb_reader *r, const char *strings, const char *const *cols)
{
	if (sdb_open(r->src, 0, &r->db) < 0)
		return -1;
	if (sdb_table(r, strings, cols) < 0) {
		sqlite3_close(r->db);
		r->db = NULL;
		return -1;
	}
	return 0;
}

int sdb_reader_close(struct sdb_reader *r, int ret)
{
	if (ret == 0)
		ret = sdb_check_budget(r);
	buf_release(&r->text);
	sqlite3_close(r->db);
	r->db = NULL;
	return ret;
}

const char *sdb_text(struct sdb_reader *r, sqlite3_stmt *st, int col)
{
	const char *p = (const char *)sqlite3_column_text(st, col);
	if (!p)
		return NULL;
	size_t n = (size_t)sqlite3_column_bytes(st, col);
	if (!memchr(p, 0, n))
		return p;
	r->text.len = 0;
	for (size_t i = 0; i < n; i++)
		buf_add(&r->text, p[i] ? p + i : "\xE2\x90\x80", p[i] ? 1 : 3);
	return r->text.data;
}

int sdb_query_int(sqlite3 *db, const char *sql, int64_t *v)
{
	sqlite3_stmt *st;
	int ret = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
		*v = sqlite3_column_int64(st, 0);
		ret = 0;
	}
	sqlite3_finalize(st);
	return ret;
}

void sdb_skip_row(struct sdb_reader *r, const char *table, int64_t rowid, const char *what)
{
	r->counts->skipped++;
	if (r->warned++ < 5) {
		char where[512];
		snprintf(where, sizeof(where), "%s: table '%s', %s %" PRId64, r->src->path, table, r->id_name, rowid);
		diag_warning(where, "skipped row: %s", what);
	}
}

void sdb_skipped_total(struct sdb_reader *r)
{
	if (r->counts->skipped > 5)
		diag_warning(r->src->path, "skipped %" PRId64 " malformed rows in all", r->counts->skipped);
}

int sdb_activity_ints(struct sdb_reader *r, const char *table, sqlite3_stmt *st, int n, int64_t *v)
{
	for (int i = 0; i < n; i++)
		if (sdb_int(r->src, table, st, i, i >= 3, &v[i]) < 0)
			return -1;
	if (v[1] < v[0] || v[0] < 0) {
		sdb_skip_row(r, table, v[2], v[1] < v[0] ? "'end' before 'start'" : "negative 'start'");
		return 0;
	}
	return 1;
}

struct gpu_activity sdb_row_activity(enum activity_kind kind, const char *name, const int64_t *v)
{
	struct gpu_activity a = {
		.kind = kind,
		.name = name,
		.start_ns = v[0],
		.dur_ns = v[1] - v[0],
		.device = v[3] >= 0 && v[3] <= INT32_MAX ? (int)v[3] : -1,
		.stream = v[4],
		.correlation = v[5],
		.bytes = -1,
	};
	return a;
}

int sdb_activity(struct sdb_reader *r, const struct gpu_activity *a)
{
	if (a->kind == ACT_KERNEL)
		r->counts->kernels++;
	else if (a->kind == ACT_MEMCPY)
		r->counts->memcpys++;
	else
		r->counts->memsets++;
	return r->sink->activity && r->sink->activity(r->sink->ctx, a) ? -1 : 0;
}

int sdb_annotation(struct sdb_reader *r, const struct annotation *an)
{
	r->counts->annotations++;
	if (!strncmp(an->name, "ProfilerStep#", 13))
		r->counts->steps++;
	return r->sink->annotation && r->sink->annotation(r->sink->ctx, an) ? -1 : 0;
}

int sdb_send_info(struct sdb_reader *r, const char *format, const char *table, const char *const *cols, const char *sql,
		  int64_t bw_scale, int64_t epoch_ns)
{
	struct device_info *devs = NULL;
	size_t n = 0, cap = 0;
	int ret = -1;
	sqlite3_stmt *st = NULL;
	int have = sdb_table(r, table, cols);
	if (have < 0)
		return -1;
	if (have) {
		if (sdb_prepare(r->src, r->db, table, sql, &st) < 0)
			return -1;
		int rc;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t v[7];
			for (int i = 0; i < 7; i++)
				if (i != 1 && sdb_int(r->src, table, st, i, i > 0, &v[i]) < 0)
					goto out;
			devs = xgrow(devs, &cap, n + 1, sizeof(*devs));
			const char *name = sdb_text(r, st, 1);
			devs[n] = (struct device_info){
				.id = v[0] >= 0 && v[0] <= INT32_MAX ? (int)v[0] : (int)n,
				.name = xstrdup(name ? name : ""),
				.total_mem = v[2],
				.sm_count = v[3] >= 0 && v[3] <= INT32_MAX ? (int)v[3] : -1,
				.cc_major = v[4] >= 0 && v[4] < 100 ? (int)v[4] : -1,
				.cc_minor = v[5] >= 0 && v[5] < 100 ? (int)v[5] : -1,
				.mem_bandwidth = v[6] > 0 && v[6] <= INT64_MAX / bw_scale ? v[6] * bw_scale : 0,
			};
			n++;
		}
		if (rc != SQLITE_DONE) {
			/* Not silently fewer devices: a crafted file may stop here (the step budget). */
			char why[256];
			sdb_error(r->src, table, "%s", sdb_why(r->src, r->db, why, sizeof(why)));
			goto out;
		}
	}
	struct trace_info info = {
		.format = format,
		.rank = -1,
		.world_size = -1,
		.epoch_offset_ns = epoch_ns,
		.ndevices = n,
		.devices = devs,
	};
	ret = r->sink->info && r->sink->info(r->sink->ctx, &info) ? -1 : 0;
out:
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++)
		free((char *)devs[i].name);
	free(devs);
	return ret;
}
