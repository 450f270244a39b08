/*
 * sqlitedb.h: profiler exports that are SQLite databases (Nsight Systems
 * `nsys export --type sqlite`, nvprof's .nvvp), opened from memory.
 *
 * The reader interface hands a source with the file's bytes already in
 * memory (inflated if it was gzip), so the database is opened from those
 * bytes with sqlite3_deserialize(..., SQLITE_DESERIALIZE_READONLY): the
 * user's file is never opened by SQLite, so it can be neither modified nor
 * locked, and a gzip-compressed export reads like any other.
 *
 * Helpers here report through diag with the file and table named; the
 * readers (nsys.c, nvvp.c) give the tables their meaning.
 */
#ifndef PERFSTUDY_SQLITEDB_H
#define PERFSTUDY_SQLITEDB_H

#include <stdint.h>

#include <sqlite3.h>

#include "util/buf.h"
#include "ingest/source.h"

/* "SQLite format 3\0" at the start of head. */
int sdb_magic(const char *head, size_t n);
/* Opens src's bytes read-only; 0 or -1 (after diag unless quiet). Close with sqlite3_close(). */
int sdb_open(const struct source *src, int quiet, sqlite3 **db);
int sdb_has_table(sqlite3 *db, const char *table);
int sdb_has_column(sqlite3 *db, const char *table, const char *column);
/* 0 when table has every column of the NULL-terminated list; else -1 after diag naming the first missing one. */
int sdb_require_columns(const struct source *src, sqlite3 *db, const char *table, const char *const *cols);
/* Prepares sql; -1 after diag naming the table. */
int sdb_prepare(const struct source *src, sqlite3 *db, const char *table, const char *sql, sqlite3_stmt **st);
/*
 * Column col of the current row as an integer: 0, or -1 when it is NULL or
 * not an integer (after diag naming table, row and column, unless
 * optional, in which case *v = -1 for NULL and no message).
 */
int sdb_int(const struct source *src, const char *table, sqlite3_stmt *st, int col, int optional, int64_t *v);
/* CUPTI's CUpti_ActivityMemcpyKind (1 "HtoD", 2 "DtoH", 8 "DtoD", 10 "PtoP", ...); NULL when out of range. */
const char *cupti_copy_kind(int64_t kind);
/* CUPTI's CUpti_ActivityMemoryKind as Kineto spells it ("Pageable", "Device", ...); NULL when unknown. */
const char *cupti_memory_kind(int64_t kind);
/*
 * The activity name Kineto gives a copy or a set, so that runs read from
 * different profilers share names: "Memcpy HtoD (Pageable -> Device)",
 * "Memset (Device)"; the parts not known are left out. Appends to out.
 */
void cupti_memcpy_name(struct buf *out, const char *copy_kind, int64_t src_kind, int64_t dst_kind);
void cupti_memset_name(struct buf *out, int64_t mem_kind);

/* One diag error "FILE: table 'T': MESSAGE". */
void sdb_error(const struct source *src, const char *table, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
