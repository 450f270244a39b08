/*
 * sqlitedb.c: opening a profiler's SQLite export from memory, and the
 * checks every SQLite reader needs (tables, columns, integer cells), each
 * failure named by file and table.
 */
#include "ingest/sqlitedb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
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

int sdb_has_table(sqlite3 *db, const char *table)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?1", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	int r = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
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
		sdb_error(src, table, "cannot query: %s", sqlite3_errmsg(db));
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
