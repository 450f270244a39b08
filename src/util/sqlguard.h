/*
 * sqlguard.h: bounding a SQLite database perfstudy did not write (a
 * profiler's export read by ingest/sqlitedb.c, another directory's store
 * read by `perfstudy diff`), so that a crafted file can make a query fail
 * but never run forever or fill memory.
 *
 * A file's own SQL is the danger: a view over a recursive CTE never ends,
 * one building a 900 MB string fills memory and the temp directory, a
 * generated column runs any function per row. So callers read only plain
 * tables (sqlguard_plain_table, sqlguard_not_plain), and sqlguard_apply
 * switches views and triggers off as a second line, limits strings and
 * rows to SQLGUARD_MAX_LENGTH, and installs a progress handler that stops
 * the connection once it ran more than its budget of virtual-machine steps:
 * SQLGUARD_STEPS_MIN plus SQLGUARD_STEPS_PER_BYTE per byte of the file. A
 * real export takes under one step per byte (a 36 MB nsys export of a
 * million kernels and 100,000 ranges: 22 million steps) and a store's
 * history a few steps per row, so the budget is 64 times that and more;
 * 100 million steps take SQLite about a second.
 */
#ifndef PERFSTUDY_SQLGUARD_H
#define PERFSTUDY_SQLGUARD_H

#include <stdint.h>

#include <sqlite3.h>

#define SQLGUARD_MAX_LENGTH (16 << 20)
#define SQLGUARD_STEPS_MIN 100000000ull
#define SQLGUARD_STEPS_PER_BYTE 64ull

/* The step budget of a file of bytes bytes. */
uint64_t sqlguard_budget_steps(uint64_t bytes);

/*
 * Limits, no views or triggers, untrusted schema, defensive mode, and the
 * step budget of a file of bytes bytes on a fresh connection. Once over
 * budget, every later statement of the connection stops too (SQLITE_INTERRUPT).
 * The budget lives as long as the connection (SQLite frees it on
 * sqlite3_close). Returns 0, or -1 when SQLite could not set it up.
 */
int sqlguard_apply(sqlite3 *db, uint64_t bytes);

/* 1 when db's connection ran past its budget (or cannot say), else 0. */
int sqlguard_over_budget(sqlite3 *db);

/* 1 when sql (?1 bound to name) gives a row whose first column is nonzero. */
int sqlguard_schema_says(sqlite3 *db, const char *sql, const char *name);

/* 1 when table is a plain table: not a view, not virtual, no generated columns. */
int sqlguard_plain_table(sqlite3 *db, const char *table);

/* NULL when table is a plain table or absent; else what it is, in words ("a view", ...). Static strings. */
const char *sqlguard_not_plain(sqlite3 *db, const char *table);

#endif
