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
static struct store *open_store(const char *dir)
{
	char *path = xasprintf("%s/perfstudy.db", dir);
	struct stat st;
	struct store *s = NULL;
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		diag_error(dir, "no perfstudy.db here: not a perfstudy output directory");
		goto fail;
	}
	if (store_open_read(path, 0, &s) < 0 || store_guard(s, (uint64_t)st.st_size) < 0)
		goto fail;
	int rc = store_readable(s);
	if (rc > 0) {
		diag_error(path, "not a SQLite database (a perfstudy store is one: a build writes it as "
				 "DIR/perfstudy.db)");
		goto fail;
	}
	if (rc < 0) {
		diag_error(path, "damaged SQLite database: %s", store_errmsg(s));
		goto fail;
	}
	for (size_t i = 0; history_tables[i]; i++) {
		const char *kind = store_not_plain(s, history_tables[i]);
		if (kind) {
			diag_error(path, "table '%s': is %s, not a plain table; refused (a perfstudy store has only "
					 "plain tables, and a view runs the file's own SQL)", history_tables[i], kind);
			goto fail;
		}
	}
	if (!store_has_table(s, "history_builds")) {
		if (store_has_table(s, "gpu_activities"))
			diag_error(path, "no build history (table 'history_builds'): written by a perfstudy before "
					 "'diff' existed; build it again with this perfstudy");
		else
			diag_error(path, "a SQLite database but not a perfstudy store (no table 'history_builds' "
					 "or 'gpu_activities')");
		goto fail;
	}
	free(path);
	return s;
fail:
	store_close(s);
	free(path);
	return NULL;
}

/* The latest build of exp in s, 0 when it has none. */
static int64_t latest(struct store *s, const char *exp)
{
	sqlite3_stmt *q;
	int64_t b = 0;
	if (store_prepare(s, "diff: the latest build", "SELECT max(build) FROM history_builds WHERE experiment = ?1",
			  &q) < 0)
		return 0;
	store_bind_text(q, 1, exp, -1, SQLITE_STATIC);
	if (store_step_rc(q) == SQLITE_ROW)
		b = store_column_int64(q, 0);
	store_finalize(q);
	return b;
}

static void limits(struct store *s, const char *exp, struct history_limits *lim)
{
	sqlite3_stmt *q;
	memset(lim, 0, sizeof(*lim));
	if (store_prepare(s, "diff: thresholds", "SELECT metric, value FROM history_thresholds WHERE experiment = ?1",
			  &q) < 0)
		return;
	store_bind_text(q, 1, exp, -1, SQLITE_STATIC);
	while (store_step_rc(q) == SQLITE_ROW) {
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
			diag_line(stdout, "%s", line.data);
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
		diag_line(stdout, "%s", line.data);
	}
	buf_release(&line);
	buf_release(&cell);
}

int history_diff(const char *old_dir, const char *new_dir, int quiet, size_t *crossed)
{
	struct store *odb = open_store(old_dir), *ndb = odb ? open_store(new_dir) : NULL;
	if (!odb || !ndb) {
		store_close(odb);
		return -1;
	}
	size_t nchanges = 0;
	int ret = 0;
	*crossed = 0;
	/* Every experiment either side records, by id. */
	sqlite3_stmt *q;
	if (store_prepare(ndb, "diff: list experiments",
			"SELECT DISTINCT experiment FROM history_builds ORDER BY experiment", &q) < 0)
		ret = -1;
	while (q && store_step_rc(q) == SQLITE_ROW) {
		const char *exp = (const char *)store_column_text(q, 0);
		struct hstate a = {0}, b;
		int64_t ob = latest(odb, exp);
		if ((ob && hstate_load(odb, "history_", exp, ob, &a) < 0) ||
		    hstate_load(ndb, "history_", exp, latest(ndb, exp), &b) < 0) {
			hstate_release(&a);
			ret = -1;
			break;
		}
		if (!ob && !quiet)
			diag_line(stdout, "%s: experiment added", exp);
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
	if (ret == 0 && store_prepare(odb, "diff: list experiments",
				      "SELECT DISTINCT experiment FROM history_builds ORDER BY experiment", &q) == 0) {
		while (store_step_rc(q) == SQLITE_ROW)
			if (!latest(ndb, (const char *)store_column_text(q, 0)) && !quiet) {
				diag_line(stdout, "%s: experiment removed", (const char *)store_column_text(q, 0));
				nchanges++;
			}
		store_finalize(q);
	}
	if (ret == 0 && !quiet)
		printf("perfstudy diff: %zu change%s, %zu regression%s\n", nchanges, nchanges == 1 ? "" : "s",
		       *crossed, *crossed == 1 ? "" : "s");
	store_close(odb);
	store_close(ndb);
	return ret;
}
