/*
 * analyze/history/history_diff.c: `perfstudy diff`'s comparison (history.h): the
 * history tables of two output directories' stores, the latest build of
 * each experiment on either side, compared as the change table of a build
 * compares it with the one before: one statement per run on its step time
 * (verdict.h), a slower one a regression.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/history/history.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/sqlguard.h"
#include "util/xalloc.h"

/*
 * The tables diff reads. A store given to diff may come from anywhere (a
 * CI artifact): each must be a plain table, since a view, a virtual table
 * or a generated column runs the file's own SQL, which can be made never
 * to end (a recursive view hung diff), and the connection is bounded as
 * util/sqlguard.h says for profiler exports (limits, no views or triggers,
 * a budget of SQLite steps: 100 million plus 64 per byte of the file); a
 * real store's history takes a few steps per row.
 */
static const char *const history_tables[] = {"history_builds", "history_runs", "history_inputs", "history_numbers",
					      "history_steps", "history_thresholds", NULL};

/*
 * Opens DIR/perfstudy.db read-only with the limits above; NULL after diag
 * when it is missing, not a SQLite database, not a perfstudy store, or
 * has no history.
 */
static sqlite3 *open_store(const char *dir)
{
	char *path = xasprintf("%s/perfstudy.db", dir);
	struct stat st;
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		diag_error(dir, "no perfstudy.db here: not a perfstudy output directory");
		goto fail;
	}
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		diag_error(path, "cannot open: %s", sqlite3_errmsg(db));
		goto fail;
	}
	if (sqlguard_apply(db, (uint64_t)st.st_size) < 0) {
		diag_error(path, "sqlite: cannot set up the connection: %s", sqlite3_errmsg(db));
		goto fail;
	}
	/* SQLite opens lazily: the first read of the schema says whether the file is a database at all. */
	int rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &q, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q) == SQLITE_ROW ? SQLITE_OK : sqlite3_errcode(db);
	store_finalize(q);
	if (rc == SQLITE_NOTADB) {
		diag_error(path, "not a SQLite database (a perfstudy store is one: a build writes it as "
				 "DIR/perfstudy.db)");
		goto fail;
	}
	if (rc != SQLITE_OK) {
		diag_error(path, "damaged SQLite database: %s", sqlite3_errmsg(db));
		goto fail;
	}
	for (size_t i = 0; history_tables[i]; i++) {
		const char *kind = sqlguard_not_plain(db, history_tables[i]);
		if (kind) {
			diag_error(path, "table '%s': is %s, not a plain table; refused (a perfstudy store has only "
					 "plain tables, and a view runs the file's own SQL)", history_tables[i], kind);
			goto fail;
		}
	}
	if (!sqlguard_schema_says(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
				  "history_builds")) {
		if (sqlguard_schema_says(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
					 "gpu_activities"))
			diag_error(path, "no build history (table 'history_builds'): written by a perfstudy before "
					 "'diff' existed; build it again with this perfstudy");
		else
			diag_error(path, "a SQLite database but not a perfstudy store (no table 'history_builds' "
					 "or 'gpu_activities')");
		goto fail;
	}
	free(path);
	return db;
fail:
	sqlite3_close(db);
	free(path);
	return NULL;
}

/* The latest build of exp in db, 0 when it has none. */
static int64_t latest(sqlite3 *db, const char *exp)
{
	sqlite3_stmt *q;
	int64_t b = 0;
	if (sqlite3_prepare_v2(db, "SELECT max(build) FROM history_builds WHERE experiment = ?1", -1, &q, NULL) !=
	    SQLITE_OK)
		return 0;
	store_bind_text(q, 1, exp, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW)
		b = store_column_int64(q, 0);
	store_finalize(q);
	return b;
}

static void limits(sqlite3 *db, const char *exp, struct history_limits *lim)
{
	sqlite3_stmt *q;
	memset(lim, 0, sizeof(*lim));
	if (sqlite3_prepare_v2(db, "SELECT metric, value FROM history_thresholds WHERE experiment = ?1", -1, &q, NULL) !=
	    SQLITE_OK)
		return;
	store_bind_text(q, 1, exp, -1, SQLITE_STATIC);
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *m = (const char *)store_column_text(q, 0);
		if (m && !strcmp(m, "step_time_pct"))
			lim->step_time_pct = store_column_double(q, 1);
		else if (m && !strcmp(m, "mfu_pp"))
			lim->mfu_pp = store_column_double(q, 1);
	}
	store_finalize(q);
}

/* One line per row of the change table: "exp: run: change item old -> new (...)". */
static void print_changes(const char *exp, const struct table *t, int quiet)
{
	struct buf line, cell;
	buf_init(&line);
	buf_init(&cell);
	for (size_t r = 0; r < t->nrows; r++) {
		int crossed = !table_cell(t, r, 8)->null;
		if (quiet && !crossed)
			continue;
		buf_reset(&line);
		if (!strcmp(table_cell(t, r, 0)->v.text, "step time")) {
			/* one statement: "exp: run: step 53.75 -> 62.2 ms (+15.72 %, 22 vs 22 ..., p = ...): slower" */
			buf_printf(&line, "%s: %s: step %s -> %s ms (%+.2f %%, ", exp, table_cell(t, r, 1)->v.text,
				   table_cell(t, r, 3)->v.text, table_cell(t, r, 4)->v.text, table_cell(t, r, 5)->v.f);
			for (const char *p = table_cell(t, r, 2)->v.text; *p; p++)
				buf_addc(&line, *p == ';' ? ',' : *p);
			if (!table_cell(t, r, 6)->null)
				buf_printf(&line, ", p = %.3g", table_cell(t, r, 6)->v.f);
			buf_printf(&line, "): %s", table_cell(t, r, 7)->v.text);
			if (crossed)
				buf_printf(&line, ": REGRESSION (%s)", table_cell(t, r, 8)->v.text);
			printf("%s\n", line.data);
			continue;
		}
		buf_printf(&line, "%s: %s: %s", exp, table_cell(t, r, 1)->v.text, table_cell(t, r, 0)->v.text);
		for (size_t c = 2; c <= 4; c++) {
			const struct cell *x = table_cell(t, r, c);
			if (!x->null && x->v.text[0])
				buf_printf(&line, "%s%s", c == 4 && !table_cell(t, r, 3)->null ? " -> " : " ", x->v.text);
		}
		if (!table_cell(t, r, 5)->null || !table_cell(t, r, 7)->null) {
			buf_adds(&line, " (");
			if (!table_cell(t, r, 5)->null)
				buf_printf(&line, "%+.2f%%, ", table_cell(t, r, 5)->v.f);
			if (!table_cell(t, r, 6)->null)
				buf_printf(&line, "p = %.3g, ", table_cell(t, r, 6)->v.f);
			buf_printf(&line, "%s)", table_cell(t, r, 7)->v.text);
		}
		if (crossed)
			buf_printf(&line, ": REGRESSION (%s)", table_cell(t, r, 8)->v.text);
		printf("%s\n", line.data);
	}
	buf_release(&line);
	buf_release(&cell);
}

int history_diff(const char *old_dir, const char *new_dir, int quiet, size_t *crossed)
{
	sqlite3 *odb = open_store(old_dir), *ndb = odb ? open_store(new_dir) : NULL;
	if (!odb || !ndb) {
		sqlite3_close(odb);
		return -1;
	}
	char *opath = xasprintf("%s/perfstudy.db", old_dir), *npath = xasprintf("%s/perfstudy.db", new_dir);
	size_t nchanges = 0;
	int ret = 0;
	*crossed = 0;
	/* Every experiment either side records, by id. */
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(ndb, "SELECT DISTINCT experiment FROM history_builds ORDER BY experiment", -1, &q, NULL) !=
	    SQLITE_OK) {
		diag_error(npath, "sqlite: %s", sqlite3_errmsg(ndb));
		ret = -1;
		q = NULL;
	}
	while (q && sqlite3_step(q) == SQLITE_ROW) {
		const char *exp = (const char *)store_column_text(q, 0);
		struct hstate a = {0}, b;
		int64_t ob = latest(odb, exp);
		if ((ob && hstate_load(odb, "history_", exp, ob, opath, &a) < 0) ||
		    hstate_load(ndb, "history_", exp, latest(ndb, exp), npath, &b) < 0) {
			hstate_release(&a);
			ret = -1;
			break;
		}
		if (!ob && !quiet)
			printf("%s: experiment added\n", exp);
		struct history_limits lim;
		limits(ndb, exp, &lim);
		size_t n = 0;
		struct table *t = history_changes(&a, &b, &lim, &n);
		*crossed += n;
		nchanges += t->nrows;
		print_changes(exp, t, quiet);
		table_free(t);
		hstate_release(&a);
		hstate_release(&b);
	}
	store_finalize(q);
	if (ret == 0 && sqlite3_prepare_v2(odb, "SELECT DISTINCT experiment FROM history_builds ORDER BY experiment",
						-1, &q, NULL) == SQLITE_OK) {
		while (sqlite3_step(q) == SQLITE_ROW)
			if (!latest(ndb, (const char *)store_column_text(q, 0)) && !quiet) {
				printf("%s: experiment removed\n", (const char *)store_column_text(q, 0));
				nchanges++;
			}
		store_finalize(q);
	}
	if (ret == 0 && !quiet)
		printf("perfstudy diff: %zu change%s, %zu regression%s\n", nchanges, nchanges == 1 ? "" : "s",
		       *crossed, *crossed == 1 ? "" : "s");
	free(opath);
	free(npath);
	sqlite3_close(odb);
	sqlite3_close(ndb);
	return ret;
}
