/*
 * rows.c: the rows of the event tables (activities, launches, annotations,
 * cpu_ops, model_ops, memory_ops), inserted ROWS_PER_INSERT at a time (see struct row_buf in
 * store_int.h); the sinks fill them through row_buf_add and cell_*.
 */
#include "store/store_int.h"

#include <string.h>

#include "util/buf.h"

/* Prepares the one-row and the ROWS_PER_INSERT-row inserts of table (ncols columns). */
int store_row_buf_open(struct store *s, struct row_buf *b, const char *table, int ncols, const char *what)
{
	b->ncols = ncols;
	b->what = what;
	b->n = 0;
	for (size_t k = 0; k < sizeof(b->bound) / sizeof(b->bound[0]); k++)
		b->bound[k].type = CELL_NULL; /* a statement's parameters start NULL */
	struct buf sql;
	buf_init(&sql);
	/* Table names are the schema's own, never an input's. */
	buf_printf(&sql, "INSERT INTO %s VALUES", table);
	for (int r = 0; r < ROWS_PER_INSERT; r++) {
		buf_adds(&sql, r ? ",(" : "(");
		for (int c = 0; c < ncols; c++)
			buf_adds(&sql, c ? ",?" : "?");
		buf_addc(&sql, ')');
		if (r == 0 && store_sql_prepare(s, "prepare", sql.data, &b->one) < 0) {
			buf_release(&sql);
			return -1;
		}
	}
	int rc = store_sql_prepare(s, "prepare", sql.data, &b->many);
	buf_release(&sql);
	return rc;
}

static void bind_cell(sqlite3_stmt *st, int i, const struct cell *c)
{
	if (c->type == CELL_INT)
		sqlite3_bind_int64(st, i, c->v);
	else if (c->type == CELL_TEXT)
		sqlite3_bind_text(st, i, c->text, -1, SQLITE_STATIC);
	else if (c->type == CELL_TEXT_PTR)
		sqlite3_bind_text(st, i, c->ptr, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/*
 * Whether parameter value c is bound already, as was: an integer or NULL
 * the same, or a short text the same (bound SQLITE_STATIC from the same
 * cell, which SQLite reads when the statement runs). A longer text is
 * bound again every time: it was only pointed to.
 */
static int same_cell(const struct cell *c, const struct cell *was)
{
	if (c->type != was->type)
		return 0;
	return c->type == CELL_NULL || (c->type == CELL_INT && c->v == was->v) ||
	       (c->type == CELL_TEXT && !strcmp(c->text, was->text));
}

/*
 * Inserts the pending rows: ROWS_PER_INSERT at once when that many, else
 * one by one. Of the many-row statement's parameters, only those that
 * change are bound (issue 55: binding was a tenth of the big trace's
 * store; its trace_id, NULLs and kinds repeat from batch to batch).
 */
int store_row_buf_flush(struct store *s, struct row_buf *b)
{
	int n = b->n;
	b->n = 0;
	if (n == ROWS_PER_INSERT) {
		for (int k = 0; k < n * b->ncols; k++) {
			if (same_cell(&b->cells[k], &b->bound[k]))
				continue;
			bind_cell(b->many, k + 1, &b->cells[k]);
			b->bound[k] = b->cells[k];
		}
		return store_sql_step_rebind(s, b->many, b->what);
	}
	for (int r = 0; r < n; r++) {
		for (int c = 0; c < b->ncols; c++)
			bind_cell(b->one, c + 1, &b->cells[r * b->ncols + c]);
		if (store_sql_step_rebind(s, b->one, b->what) < 0)
			return -1;
	}
	return 0;
}

void store_row_buf_close(struct row_buf *b)
{
	sqlite3_finalize(b->one);
	sqlite3_finalize(b->many);
}

/* Every event table's pending rows in. */
int store_rows_flush(struct store *s)
{
	struct row_buf *bufs[] = {&s->act, &s->launch, &s->annot, &s->cpu, &s->mops, &s->memops};
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		if (store_row_buf_flush(s, bufs[i]) < 0)
			return -1;
	return 0;
}

void store_rows_drop(struct store *s)
{
	s->act.n = s->launch.n = s->annot.n = s->cpu.n = s->mops.n = s->memops.n = 0;
}
