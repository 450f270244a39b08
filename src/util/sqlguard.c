/* sqlguard.c: see sqlguard.h. */
#include "util/sqlguard.h"

#include <stdlib.h>

#include "util/xalloc.h"

#define PROGRESS_EVERY 10000

/* One connection's step budget (the progress handler's context). */
struct budget {
	uint64_t steps, max_steps;
};

/* Once over budget, every later statement of the connection stops too. */
static int on_progress(void *arg)
{
	struct budget *b = arg;
	if (b->steps <= b->max_steps)
		b->steps += PROGRESS_EVERY;
	return b->steps > b->max_steps;
}

/*
 * The budget lives as long as the connection: it is the user data of the
 * SQL function perfstudy_over_budget(), freed by SQLite when the
 * connection closes.
 */
static void over_budget_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	(void)argv;
	const struct budget *b = sqlite3_user_data(ctx);
	sqlite3_result_int(ctx, b->steps > b->max_steps);
}

uint64_t sqlguard_budget_steps(uint64_t bytes)
{
	return SQLGUARD_STEPS_MIN + SQLGUARD_STEPS_PER_BYTE * bytes;
}

int sqlguard_apply(sqlite3 *db, uint64_t bytes)
{
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, SQLGUARD_MAX_LENGTH);
	sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 100);
	sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 8);
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 0);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
	struct budget *b = xcalloc(1, sizeof(*b));
	b->max_steps = sqlguard_budget_steps(bytes);
	if (sqlite3_create_function_v2(db, "perfstudy_over_budget", 0, SQLITE_UTF8, b, over_budget_fn, NULL, NULL,
				       free) != SQLITE_OK)
		return -1; /* SQLite called free(b) */
	sqlite3_progress_handler(db, PROGRESS_EVERY, on_progress, b);
	return 0;
}

int sqlguard_over_budget(sqlite3 *db)
{
	sqlite3_stmt *st;
	int over = 1;
	if (sqlite3_prepare_v2(db, "SELECT perfstudy_over_budget()", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			over = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	return over;
}

int sqlguard_schema_says(sqlite3 *db, const char *sql, const char *name)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int r = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return r;
}

int sqlguard_plain_table(sqlite3 *db, const char *table)
{
	return sqlguard_schema_says(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1"
					" AND sql NOT LIKE 'CREATE VIRTUAL%'", table) &&
	       !sqlguard_schema_says(db, "SELECT count(*) FROM pragma_table_xinfo(?1) WHERE hidden IN (2, 3)", table);
}

const char *sqlguard_not_plain(sqlite3 *db, const char *table)
{
	if (sqlguard_schema_says(db, "SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = ?1", table))
		return "a view";
	if (sqlguard_schema_says(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1"
				     " AND sql LIKE 'CREATE VIRTUAL%'", table))
		return "a virtual table";
	if (sqlguard_schema_says(db, "SELECT count(*) FROM pragma_table_xinfo(?1) WHERE hidden IN (2, 3)", table))
		return "a table with generated columns";
	return NULL;
}
