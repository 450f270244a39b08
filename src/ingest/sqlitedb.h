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
 * A crafted database cannot make reading it run or grow without end: only
 * plain tables are read, strings and rows are limited, and each connection
 * has a budget of SQLite steps in proportion to the file (sqlitedb.c).
 *
 * Helpers here report through diag with the file and table named; the
 * readers (nsys.c, nvvp.c, rocpd.c) give the tables their meaning. They walk
 * a table the same way (sdb_table, then sdb_each_row with a function per
 * row) and hand rows on through the sdb_activity/sdb_annotation/
 * sdb_send_info helpers, so what is counted and warned about is the same.
 */
#ifndef PERFSTUDY_SQLITEDB_H
#define PERFSTUDY_SQLITEDB_H

#include <stdint.h>

#include <sqlite3.h>

#include "util/buf.h"
#include "ingest/ingest.h"
#include "ingest/source.h"

/* "SQLite format 3\0" at the start of head. */
int sdb_magic(const char *head, size_t n);
/* Opens src's bytes read-only; 0 or -1 (after diag unless quiet). Close with sqlite3_close(). */
int sdb_open(const struct source *src, int quiet, sqlite3 **db);
/*
 * 1 when db has a plain table called table: not a view, not a virtual
 * table, no generated columns (those run the file's own SQL, which can be
 * made never to end). sdb_table() says when a name is one of those.
 */
int sdb_has_table(sqlite3 *db, const char *table);
/*
 * For a reader's detect_source: 1 when src opens as a SQLite database
 * with table must and at least one table of the NULL-terminated any; else
 * 0, without a message.
 */
int sdb_detect_tables(const struct source *src, const char *must, const char *const *any);
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

/* What a SQLite reader carries through one file. */
struct sdb_reader {
	const struct source *src;
	sqlite3 *db;
	const struct ingest_sink *sink;
	struct ingest_counts *counts;
	const char *id_name; /* the row id as warnings name it: "rowid" (nsys), "_id_" (nvvp) */
	int64_t warned;      /* rows skipped so far; the first five are warned about */
	struct buf text;     /* sdb_text's copy (zeroed with the struct; the reader releases it) */
};

/*
 * Column col of the current row as text (NULL for NULL), valid until the
 * next sdb_text or step. A NUL inside the value is given as U+2400: names
 * are C strings from here on, and a NUL would cut "gemm\0_fp16" to "gemm".
 */
const char *sdb_text(struct sdb_reader *r, sqlite3_stmt *st, int col);

/*
 * 1 when table exists and has every column of the NULL-terminated cols; 0
 * when it is absent (no such events); -1 after diag naming the first
 * missing column, or saying that table is a view or the like.
 */
int sdb_table(struct sdb_reader *r, const char *table, const char *const *cols);
/* Handles one row of table; 0 to go on, -1 to stop (after diag, or the sink refused). */
typedef int sdb_row_fn(struct sdb_reader *r, const char *table, sqlite3_stmt *st, void *arg);
/*
 * Runs sql over table, counting each row as an event and handing it to
 * row with arg. Returns 0, or -1 when the query cannot be prepared or a
 * step fails (after diag naming the table) or row returned -1.
 */
int sdb_each_row(struct sdb_reader *r, const char *table, const char *sql, sdb_row_fn *row, void *arg);
/*
 * Opens r->src into r->db (sdb_open) and checks its string table, the one
 * every table joins (sdb_table: a plain table with cols, never a view,
 * which could run without end; an absent one is left to the queries).
 * Returns 0, or -1 after diag with nothing left open.
 */
int sdb_reader_open(struct sdb_reader *r, const char *strings, const char *const *cols);
/*
 * The end of a reader's read, ret being its result so far: when 0, the
 * budget of SQLite steps is checked (sdb_check_budget); then r's text is
 * released and r->db closed. Returns ret, or -1 when over the budget.
 */
int sdb_reader_close(struct sdb_reader *r, int ret);
/*
 * 0 while the connection stayed within its budget of SQLite steps (see
 * sqlitedb.c: in proportion to the file's size); else -1 after diag. For a
 * reader's end: sdb_query_int's failures are quiet, and one stopped by the
 * budget must not pass for an absent value.
 */
int sdb_check_budget(struct sdb_reader *r);
/*
 * The first integer column of sql's first row into *v; 0, or -1 (no
 * message) when the query fails, has no row or the value is no integer.
 */
int sdb_query_int(sqlite3 *db, const char *sql, int64_t *v);
/* Counts a skipped row; the first five get a warning "FILE: table 'T', rowid N: skipped row: WHAT". */
void sdb_skip_row(struct sdb_reader *r, const char *table, int64_t rowid, const char *what);
/* When more than the five warned about were skipped, one warning with the total, once the file is read. */
void sdb_skipped_total(struct sdb_reader *r);
/*
 * The first n (6 or more) integer columns of an activity row into v:
 * start, end, row id, then device, stream, correlation and the rest, which
 * may be NULL (-1). Returns 1 for a row to use; 0 when it was skipped
 * ('end' before 'start', a negative 'start'); -1 after diag when a column
 * is not an integer (all n are read before the times are checked).
 */
int sdb_activity_ints(struct sdb_reader *r, const char *table, sqlite3_stmt *st, int n, int64_t *v);
/*
 * The activity of kind named name over the row v of sdb_activity_ints:
 * its times, device (-1 when not an int), stream and correlation; bytes
 * -1 and the rest zero, for the caller to fill.
 */
struct gpu_activity sdb_row_activity(enum activity_kind kind, const char *name, const int64_t *v);
/* Counts a kernel, copy or set and hands it to the sink; -1 when the sink refuses. */
int sdb_activity(struct sdb_reader *r, const struct gpu_activity *a);
/* Counts an annotation (and a step, for ProfilerStep#N) and hands it to the sink; -1 when the sink refuses. */
int sdb_annotation(struct sdb_reader *r, const struct annotation *an);
/*
 * Reads the devices of table, when it exists with cols, through sql
 * (columns id, name, total memory, SMs, compute capability major and
 * minor, memory bandwidth times bw_scale to bytes/s; all but id may be
 * NULL) and hands them with epoch_ns to the sink's info callback as a
 * trace of format. Returns 0, or -1 after diag or when the sink refuses.
 */
int sdb_send_info(struct sdb_reader *r, const char *format, const char *table, const char *const *cols, const char *sql,
		  int64_t bw_scale, int64_t epoch_ns);

#endif
