/*
 * query.c: the store's query API (store.h): statements prepared, stepped
 * and run on the store's database, every failure reported through diag
 * naming the database file and what the statement was for, so that no
 * caller can fail without a message.
 */
#include "store/store_int.h"

#include <stdio.h>
#include <sys/stat.h>

#include "util/diag.h"
#include "util/sqlguard.h"
#include "util/xalloc.h"

const char *store_path(const struct store *s)
{
	return s->path;
}

const char *store_errmsg(struct store *s)
{
	return sqlite3_errmsg(s->db);
}

/* 1 when SQLite's result code rc is the system's failure (memory, I/O), not the database's content. */
static int system_error(int rc)
{
	rc &= 0xff;
	return rc == SQLITE_NOMEM || rc == SQLITE_IOERR || rc == SQLITE_FULL || rc == SQLITE_CANTOPEN;
}

int store_fail(struct store *s, const char *what)
{
	/* A string or row past SQLite's limit came from the input being stored, not from the store. */
	if (sqlite3_errcode(s->db) == SQLITE_TOOBIG && s->reading)
		diag_error(s->reading, "a string or row larger than SQLite's limit of %d bytes (%s); refused",
			   sqlite3_limit(s->db, SQLITE_LIMIT_LENGTH, -1), what);
	/* A file perfstudy did not write (store_guard) ran past its budget: the file, not the system, is at fault. */
	else if (sqlite3_errcode(s->db) == SQLITE_INTERRUPT && s->guarded)
		diag_error(s->path, "stopped (%s): reading it took far more SQLite steps than a perfstudy store needs"
				    " (100 million plus 64 per byte of the file; a crafted database?)", what);
	else if (sqlite3_errcode(s->db) == SQLITE_NOMEM && s->reading)
		diag_syserror(s->reading, "out of memory while storing it (sqlite: %s)", what);
	/* Any other failure of a file perfstudy did not write is the file's (bad input), but memory and I/O. */
	else if (s->guarded && !system_error(sqlite3_errcode(s->db)))
		diag_error(s->path, "sqlite: %s: %s", what, sqlite3_errmsg(s->db));
	else
		diag_syserror(s->path, "sqlite: %s: %s", what, sqlite3_errmsg(s->db));
	return -1;
}

int store_exec(struct store *s, const char *sql, const char *what)
{
	char *msg = NULL;
	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		diag_syserror(s->path, "sqlite: %s: %s", what, msg ? msg : "error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int store_prepare(struct store *s, const char *what, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return store_fail(s, what);
	}
	return 0;
}

int store_prepare_quiet(struct store *s, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return -1;
	}
	return 0;
}

int store_prepare_kept(struct store *s, const char *what, const char *sql, sqlite3_stmt **slot)
{
	return *slot ? 0 : store_prepare(s, what, sql, slot);
}

int store_step(struct store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return store_fail(s, what);
}

int store_step_done(struct store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, what);
	return 0;
}

/*
 * step_done without clearing the bindings, for the per-event inserts: they
 * bind every parameter of every row (NULLs included), and clearing them
 * each time costs as much as a bind.
 */
int store_step_rebind(struct store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, what);
	return 0;
}

int store_attach(struct store *s, const char *path, const char *alias)
{
	char *sql = sqlite3_mprintf("ATTACH DATABASE %Q AS \"%w\"", path, alias);
	int rc = sql ? sqlite3_exec(s->db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
	sqlite3_free(sql);
	return rc == SQLITE_OK ? 0 : -1;
}

void store_detach(struct store *s, const char *alias)
{
	char *sql = sqlite3_mprintf("DETACH DATABASE \"%w\"", alias);
	if (sql)
		sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	sqlite3_free(sql);
}

char *store_probe_text(struct store *s, const char *sql)
{
	sqlite3_stmt *st;
	char *v = NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

char *store_file_meta(const char *path, const char *key)
{
	sqlite3 *db = NULL;
	char *v = NULL;
	struct stat st;
	/* A file perfstudy may not have written: under the guard's bounds (util/sqlguard.h). */
	if (stat(path, &st) == 0 && sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlguard_apply(db, (uint64_t)st.st_size) == 0) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?1", -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
			if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
				v = xstrdup((const char *)sqlite3_column_text(st, 0));
			sqlite3_finalize(st);
		}
	}
	sqlite3_close(db);
	return v;
}
