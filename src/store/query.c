/*
 * query.c: the store's query API (store.h): statements prepared, stepped
 * and run on the store's database, every failure reported through diag
 * naming the database file and what the statement was for, so that no
 * caller can fail without a message.
 */
#include "store/store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "util/diag.h"
#include "util/sqlguard.h"
#include "util/timing.h"
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

/*
 * The store's own statements (store_int.h): SQLite's, prepared and stepped
 * with the same messages as the query API's.
 */
int store_sql_prepare(struct store *s, const char *what, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return store_fail(s, what);
	}
	return 0;
}

int store_sql_step(struct store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return store_fail(s, what);
}

int store_sql_prepare_kept(struct store *s, const char *what, const char *sql, sqlite3_stmt **slot)
{
	return *slot ? 0 : store_sql_prepare(s, what, sql, slot);
}

int store_sql_step_done(struct store *s, sqlite3_stmt *st, const char *what)
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
int store_sql_step_rebind(struct store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, what);
	return 0;
}

/* A statement of the query API: SQLite's, with its store and purpose for the messages. */
struct store_stmt {
	sqlite3_stmt *st;
	struct store *s;
	const char *what;
};

static struct store_stmt *stmt_new(struct store *s, const char *what, sqlite3_stmt *raw)
{
	struct store_stmt *st = xmalloc(sizeof(*st));
	st->st = raw;
	st->s = s;
	st->what = what;
	return st;
}

int store_prepare(struct store *s, const char *what, const char *sql, struct store_stmt **st)
{
	sqlite3_stmt *raw;
	*st = NULL;
	if (store_sql_prepare(s, what, sql, &raw) < 0)
		return -1;
	*st = stmt_new(s, what, raw);
	return 0;
}

int store_prepare_quiet(struct store *s, const char *sql, struct store_stmt **st)
{
	sqlite3_stmt *raw;
	*st = NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, &raw, NULL) != SQLITE_OK)
		return -1;
	*st = stmt_new(s, "query", raw);
	return 0;
}

int store_step_rc(struct store_stmt *st)
{
	int rc = sqlite3_step(st->st);
	return rc == SQLITE_ROW ? STORE_ROW : rc == SQLITE_DONE ? STORE_DONE : STORE_ERROR;
}

int store_step(struct store *s, struct store_stmt *st, const char *what)
{
	int rc = store_step_rc(st);
	return rc == STORE_ERROR ? store_fail(s, what) : rc;
}

int store_next(struct store_stmt *st)
{
	int rc = store_step(st->s, st, st->what);
	if (rc == STORE_ROW)
		work_add(WORK_ROWS, 1);
	return rc;
}

/* PERFSTUDY_COUNTS: called every WORK_VM_EVERY VM steps of the connection, on the thread stepping it. */
static int count_vm_steps(void *arg)
{
	(void)arg;
	work_add(WORK_VM_STEPS, WORK_VM_EVERY);
	return 0;
}

void store_count_work(sqlite3 *db)
{
	if (counting_enabled())
		sqlite3_progress_handler(db, WORK_VM_EVERY, count_vm_steps, NULL);
}

int store_step_done(struct store *s, struct store_stmt *st, const char *what)
{
	return store_sql_step_done(s, st->st, what);
}

int store_exec_stmt(struct store_stmt *st)
{
	return store_sql_step_done(st->s, st->st, st->what);
}

/* The types are SQLite's own, so that a column's type passes through unchanged. */
_Static_assert(STORE_INTEGER == SQLITE_INTEGER && STORE_FLOAT == SQLITE_FLOAT && STORE_TEXT == SQLITE_TEXT &&
		       STORE_BLOB == SQLITE_BLOB && STORE_NULL == SQLITE_NULL,
	       "store_type is SQLite's");

void store_bind_text(struct store_stmt *st, int i, const char *v)
{
	sqlite3_bind_text(st->st, i, v, -1, SQLITE_STATIC);
}

void store_bind_text_copy(struct store_stmt *st, int i, const char *v)
{
	sqlite3_bind_text(st->st, i, v, -1, SQLITE_TRANSIENT);
}

void store_bind_int64(struct store_stmt *st, int i, int64_t v)
{
	sqlite3_bind_int64(st->st, i, v);
}

void store_bind_int(struct store_stmt *st, int i, int v)
{
	sqlite3_bind_int(st->st, i, v);
}

void store_bind_double(struct store_stmt *st, int i, double v)
{
	sqlite3_bind_double(st->st, i, v);
}

void store_bind_null(struct store_stmt *st, int i)
{
	sqlite3_bind_null(st->st, i);
}

void store_bind_blob(struct store_stmt *st, int i, const void *v, uint64_t n)
{
	sqlite3_bind_blob64(st->st, i, v, n, SQLITE_STATIC);
}

int store_column_type(struct store_stmt *st, int i)
{
	return sqlite3_column_type(st->st, i);
}

int64_t store_column_int64(struct store_stmt *st, int i)
{
	return sqlite3_column_int64(st->st, i);
}

int store_column_int(struct store_stmt *st, int i)
{
	return sqlite3_column_int(st->st, i);
}

double store_column_double(struct store_stmt *st, int i)
{
	return sqlite3_column_double(st->st, i);
}

const unsigned char *store_column_text(struct store_stmt *st, int i)
{
	return sqlite3_column_text(st->st, i);
}

const void *store_column_blob(struct store_stmt *st, int i)
{
	return sqlite3_column_blob(st->st, i);
}

int store_column_bytes(struct store_stmt *st, int i)
{
	return sqlite3_column_bytes(st->st, i);
}

void store_reset(struct store_stmt *st)
{
	sqlite3_reset(st->st);
}

void store_clear_bindings(struct store_stmt *st)
{
	sqlite3_clear_bindings(st->st);
}

int store_vm_steps(struct store_stmt *st)
{
	return sqlite3_stmt_status(st->st, SQLITE_STMTSTATUS_VM_STEP, 0);
}

void store_finalize(struct store_stmt *st)
{
	if (!st)
		return;
	sqlite3_finalize(st->st);
	free(st);
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
