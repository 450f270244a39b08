/*
 * table_rows.c: the query idiom of the analyses (store.h): a statement on
 * one experiment, and its rows appended to a table by the table's column
 * types, so that an analysis that only lists what the store holds writes
 * its SQL and its schema, not the loop.
 */
#include "store/store.h"

#include "util/table.h"

struct store_stmt *store_query(struct store *s, const char *what, const char *sql, const char *exp)
{
	struct store_stmt *st;
	if (store_prepare(s, what, sql, &st) < 0)
		return NULL;
	if (exp)
		store_bind_text(st, 1, exp);
	return st;
}

int store_rows_to_table(struct store_stmt *st, struct table *t)
{
	int rc;
	while ((rc = store_next(st)) > 0) {
		size_t row = table_add_row(t);
		for (size_t c = 0; c < t->ncols; c++) {
			if (store_column_type(st, (int)c) == STORE_NULL)
				continue;
			switch (t->cols[c].type) {
			case COL_TEXT:
				table_set_text(t, row, c, (const char *)store_column_text(st, (int)c));
				break;
			case COL_INT:
				table_set_int(t, row, c, store_column_int64(st, (int)c));
				break;
			case COL_US:
				table_set_ns(t, row, c, store_column_int64(st, (int)c));
				break;
			case COL_FRAC:
			case COL_REAL:
				table_set_real(t, row, c, store_column_double(st, (int)c));
				break;
			}
		}
	}
	store_finalize(st);
	return rc;
}
