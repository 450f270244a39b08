/*
 * cache.c: the build cache's SQL (store.h; study/cache.c decides what is
 * unchanged and says why a previous store is not reused).
 *
 * The old store is ATTACHed to the new one as "prev", so copying a trace is
 * a few INSERT ... SELECT statements inside SQLite, far faster than
 * inflating and parsing the JSON again. Which tables to copy is read from
 * the schema (every table with a trace_id column), so a table a new reader
 * adds is carried over without a change here.
 */
#include "store/store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

struct store_prev {
	struct store *s;
	sqlite3_stmt *lookup;   /* prev trace by path: id, size, sha256, mtime_ns, file_id */
	sqlite3_stmt *copy_row; /* main.traces row from prev.traces */
	sqlite3_stmt *fix_rank; /* a rank taken from the file's position follows its new position */
	sqlite3_stmt *warnings; /* prev.trace_warnings of a trace */
	size_t ncopy;
	sqlite3_stmt **copy;    /* one INSERT ... SELECT per table with a trace_id column */
};

int store_set_meta(struct store *s, const char *key, const char *value, const char *what)
{
	sqlite3_stmt *st;
	if (store_sql_prepare(s, what, "INSERT OR REPLACE INTO meta VALUES(?1, ?2)", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	int rc = store_sql_step_done(s, st, what);
	sqlite3_finalize(st);
	return rc;
}

const char *store_prev_check(struct store *s, const char *build_id)
{
	char *prev_id = store_probe_text(s, "SELECT value FROM prev.meta WHERE key = 'build_id'");
	int same = prev_id && !strcmp(prev_id, build_id);
	free(prev_id);
	if (!same)
		return "it was written by another perfstudy build";
	/* Every table and view of the new store must be in the old one, defined alike. */
	char *n = store_probe_text(s, "SELECT count(*) FROM main.sqlite_master m WHERE NOT EXISTS"
				      " (SELECT 1 FROM prev.sqlite_master p WHERE p.type = m.type AND"
				      "  p.name = m.name AND p.sql IS m.sql)");
	same = n && !strcmp(n, "0");
	free(n);
	return same ? NULL : "its schema differs";
}

/* Appends name as an SQL identifier, in double quotes. */
static void add_ident(struct buf *b, const char *name)
{
	buf_addc(b, '"');
	for (const char *p = name; *p; p++) {
		if (*p == '"')
			buf_addc(b, '"');
		buf_addc(b, *p);
	}
	buf_addc(b, '"');
}

/*
 * Prepares the copy of one table's rows of a trace (?2 in prev) to the new
 * trace (?1): the same columns, trace_id replaced. Sets *has to whether
 * the table has a trace_id column at all.
 */
static int prepare_copy(struct store *s, const char *table, int *has, sqlite3_stmt **out)
{
	struct buf cols, sel, sql;
	buf_init(&cols);
	buf_init(&sel);
	buf_init(&sql);
	*has = 0;
	*out = NULL;
	int rc = -1;
	sqlite3_stmt *info;
	buf_adds(&sql, "SELECT name FROM pragma_table_info(?1, 'main')");
	if (store_sql_prepare(s, "list columns", sql.data, &info) < 0)
		goto out;
	sqlite3_bind_text(info, 1, table, -1, SQLITE_STATIC);
	int more;
	while ((more = store_sql_step(s, info, "list columns")) > 0) {
		const char *col = (const char *)sqlite3_column_text(info, 0);
		if (cols.len) {
			buf_addc(&cols, ',');
			buf_addc(&sel, ',');
		}
		add_ident(&cols, col);
		if (!strcmp(col, "trace_id")) {
			*has = 1;
			buf_adds(&sel, "?1");
		} else {
			add_ident(&sel, col);
		}
	}
	sqlite3_finalize(info);
	if (more < 0)
		goto out;
	rc = 0;
	if (*has) {
		/*
		 * A WITHOUT ROWID table (memory_events, keyed by trace and chunk)
		 * has no rowid to order by: its rows of a trace come out in key
		 * order, the order they were stored in.
		 */
		int keyed = 0;
		sqlite3_stmt *kind;
		if (store_sql_prepare(s, "list columns", "SELECT sql LIKE '%WITHOUT ROWID' FROM main.sqlite_master"
				      " WHERE type = 'table' AND name = ?1", &kind) < 0) {
			rc = -1;
			goto out;
		}
		sqlite3_bind_text(kind, 1, table, -1, SQLITE_STATIC);
		if (sqlite3_step(kind) == SQLITE_ROW)
			keyed = sqlite3_column_int(kind, 0);
		sqlite3_finalize(kind);
		buf_reset(&sql);
		buf_adds(&sql, "INSERT INTO main.");
		add_ident(&sql, table);
		buf_printf(&sql, "(%s) SELECT %s FROM prev.", cols.data, sel.data);
		add_ident(&sql, table);
		buf_adds(&sql, keyed ? " WHERE trace_id = ?2" : " WHERE trace_id = ?2 ORDER BY rowid");
		rc = store_sql_prepare(s, "prepare the copy of a trace's rows", sql.data, out);
	}
out:
	buf_release(&cols);
	buf_release(&sel);
	buf_release(&sql);
	return rc;
}

/* The UPDATE that gives a new traces row everything the old one recorded. */
static int prepare_row_copy(struct store *s, sqlite3_stmt **out)
{
	struct buf cols, sql;
	buf_init(&cols);
	buf_init(&sql);
	sqlite3_stmt *info;
	int rc = -1;
	if (store_sql_prepare(s, "list columns", "SELECT name FROM pragma_table_info('traces', 'main')", &info) < 0)
		goto out;
	int more;
	while ((more = store_sql_step(s, info, "list columns")) > 0) {
		const char *col = (const char *)sqlite3_column_text(info, 0);
		if (!strcmp(col, "id") || !strcmp(col, "run_id") || !strcmp(col, "path") ||
		    !strcmp(col, "file_index"))
			continue;
		if (cols.len)
			buf_addc(&cols, ',');
		add_ident(&cols, col);
	}
	sqlite3_finalize(info);
	if (more < 0)
		goto out;
	buf_printf(&sql, "UPDATE main.traces SET (%s) = (SELECT %s FROM prev.traces WHERE id = ?2) WHERE id = ?1",
		   cols.data, cols.data);
	rc = store_sql_prepare(s, "prepare the copy of a traces row", sql.data, out);
out:
	buf_release(&cols);
	buf_release(&sql);
	return rc;
}

void store_prev_close(struct store_prev *p)
{
	if (!p)
		return;
	sqlite3_finalize(p->lookup);
	sqlite3_finalize(p->copy_row);
	sqlite3_finalize(p->fix_rank);
	sqlite3_finalize(p->warnings);
	for (size_t i = 0; i < p->ncopy; i++)
		sqlite3_finalize(p->copy[i]);
	free(p->copy);
	store_detach(p->s, "prev");
	free(p);
}

int store_prev_open(struct store *s, struct store_prev **out)
{
	struct store_prev *p = xcalloc(1, sizeof(*p));
	p->s = s;
	*out = NULL;
	/* Interned names keep their ids, so copied rows need no translation. */
	if (store_exec(s, "INSERT INTO main.names SELECT * FROM prev.names", "copy names") < 0 ||
	    store_reload_names(s) < 0 ||
	    store_sql_prepare(s, "look up a previous trace",
			      "SELECT t.id, t.size, t.sha256, f.mtime_ns, f.file_id FROM prev.traces t"
			      " LEFT JOIN prev.trace_files f ON f.trace_id = t.id"
			      " WHERE t.path = ?1 AND t.sha256 IS NOT NULL AND t.part_of IS NULL"
			      /* A file split by device (store_split_devices) is read again: its rows are in several traces. */
			      " AND NOT EXISTS (SELECT 1 FROM prev.traces p WHERE p.part_of = t.id) ORDER BY t.id LIMIT 1",
			      &p->lookup) < 0 ||
	    prepare_row_copy(s, &p->copy_row) < 0 ||
	    store_sql_prepare(s, "prepare the copy of a trace",
			      "UPDATE main.traces SET rank = file_index WHERE id = ?1 AND NOT rank_from_trace",
			      &p->fix_rank) < 0 ||
	    store_sql_prepare(s, "look up previous warnings",
			      "SELECT message FROM prev.trace_warnings WHERE trace_id = ?1 ORDER BY rowid", &p->warnings) < 0)
		goto fail;
	sqlite3_stmt *tables;
	if (store_sql_prepare(s, "list tables", "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT IN"
			      " ('traces', 'trace_files', 'trace_warnings') ORDER BY name", &tables) < 0)
		goto fail;
	size_t cap = 0;
	int more;
	while ((more = store_sql_step(s, tables, "list tables")) > 0) {
		int has;
		sqlite3_stmt *copy;
		if (prepare_copy(s, (const char *)sqlite3_column_text(tables, 0), &has, &copy) < 0) {
			sqlite3_finalize(tables);
			goto fail;
		}
		if (!has)
			continue;
		p->copy = xgrow(p->copy, &cap, p->ncopy + 1, sizeof(*p->copy));
		p->copy[p->ncopy++] = copy;
	}
	sqlite3_finalize(tables);
	if (more < 0)
		goto fail;
	*out = p;
	return 0;
fail:
	store_prev_close(p);
	return -1;
}

int store_prev_lookup(struct store_prev *p, const char *path, struct store_prev_trace *t)
{
	sqlite3_stmt *q = p->lookup;
	*t = (struct store_prev_trace){.size = -1, .mtime_ns = -1};
	sqlite3_bind_text(q, 1, path, -1, SQLITE_TRANSIENT);
	int found = sqlite3_step(q) == SQLITE_ROW;
	if (found) {
		t->id = sqlite3_column_int64(q, 0);
		t->size = sqlite3_column_int64(q, 1);
		snprintf(t->sha256, sizeof(t->sha256), "%s", (const char *)sqlite3_column_text(q, 2));
		if (sqlite3_column_type(q, 3) != SQLITE_NULL)
			t->mtime_ns = sqlite3_column_int64(q, 3);
		if (sqlite3_column_type(q, 4) != SQLITE_NULL)
			snprintf(t->file_id, sizeof(t->file_id), "%s", (const char *)sqlite3_column_text(q, 4));
	}
	sqlite3_reset(q);
	return found;
}

int store_prev_copy_trace(struct store_prev *p, int64_t id, int64_t old_id)
{
	struct store *s = p->s;
	sqlite3_bind_int64(p->copy_row, 1, id);
	sqlite3_bind_int64(p->copy_row, 2, old_id);
	if (store_sql_step_done(s, p->copy_row, "copy trace") < 0)
		return -1;
	sqlite3_bind_int64(p->fix_rank, 1, id);
	if (store_sql_step_done(s, p->fix_rank, "copy trace") < 0)
		return -1;
	for (size_t i = 0; i < p->ncopy; i++) {
		sqlite3_bind_int64(p->copy[i], 1, id);
		sqlite3_bind_int64(p->copy[i], 2, old_id);
		if (store_sql_step_done(s, p->copy[i], "copy trace rows") < 0)
			return -1;
	}
	return 0;
}

void store_prev_warnings(struct store_prev *p, int64_t old_id, void (*fn)(void *ctx, const char *message), void *ctx)
{
	sqlite3_bind_int64(p->warnings, 1, old_id);
	while (sqlite3_step(p->warnings) == SQLITE_ROW)
		fn(ctx, (const char *)sqlite3_column_text(p->warnings, 0));
	sqlite3_reset(p->warnings);
}

int store_record_trace_file(struct store *s, int64_t trace_id, int64_t mtime_ns, const char *file_id)
{
	sqlite3_stmt *ins;
	if (store_sql_prepare(s, "record trace", "INSERT OR REPLACE INTO trace_files VALUES(?1, ?2, ?3)", &ins) < 0)
		return -1;
	sqlite3_bind_int64(ins, 1, trace_id);
	sqlite3_bind_int64(ins, 2, mtime_ns);
	sqlite3_bind_text(ins, 3, file_id, -1, SQLITE_TRANSIENT);
	int rc = store_sql_step_done(s, ins, "record trace");
	sqlite3_finalize(ins);
	return rc;
}

int store_record_trace_warnings(struct store *s, int64_t trace_id, size_t from)
{
	sqlite3_stmt *ins;
	int rc = 0;
	if (from >= diag_warning_count())
		return 0;
	if (store_sql_prepare(s, "record warning", "INSERT INTO trace_warnings VALUES(?1, ?2)", &ins) < 0)
		return -1;
	for (size_t i = from; rc == 0 && i < diag_warning_count(); i++) {
		sqlite3_bind_int64(ins, 1, trace_id);
		sqlite3_bind_text(ins, 2, diag_warning_text(i), -1, SQLITE_STATIC);
		rc = store_sql_step_done(s, ins, "record warning");
	}
	sqlite3_finalize(ins);
	return rc;
}

int store_add_site_file(struct store *s, const char *path, int64_t size)
{
	if (store_sql_prepare_kept(s, "record the site's files", "INSERT OR REPLACE INTO site_files VALUES(?1, ?2)",
				   &s->ins_site) < 0)
		return -1;
	sqlite3_bind_text(s->ins_site, 1, path, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s->ins_site, 2, size);
	return store_sql_step_done(s, s->ins_site, "record the site's files");
}

int store_site_files(struct store *s, int (*fn)(void *ctx, const char *path, int64_t size), void *ctx)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT path, size FROM site_files", -1, &st, NULL) != SQLITE_OK)
		return -1;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (fn(ctx, (const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1)))
			break;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}
