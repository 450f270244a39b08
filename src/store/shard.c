/*
 * shard.c: a shard database's rows (store.h; study/shard.c decides what
 * they mean, and checks them): its meta, its traces, their batches of sink
 * calls. The shard is a struct store of store_create_shard or
 * store_open_read; the statements run once per batch or per trace are
 * prepared on first use and kept in it (store_close finalizes them).
 */
#include "store/store_int.h"

#include <stdlib.h>

#include "util/xalloc.h"

int store_shard_begin(struct store *db)
{
	return store_exec(db, "BEGIN", "shard: begin");
}

int store_shard_put_meta(struct store *db, const char *key, const char *value)
{
	sqlite3_stmt *st;
	if (store_sql_prepare(db, "shard: insert meta", "INSERT INTO shard_meta VALUES(?1, ?2)", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	int rc = store_sql_step_done(db, st, "shard: insert meta");
	sqlite3_finalize(st);
	return rc;
}

int store_shard_put_batch(struct store *db, int64_t position, int64_t seq, const void *data, size_t len)
{
	if (store_sql_prepare_kept(db, "shard: insert batch", "INSERT INTO shard_batches VALUES(?1, ?2, ?3)",
				   &db->shard_ins_batch) < 0)
		return -1;
	sqlite3_stmt *st = db->shard_ins_batch;
	sqlite3_bind_int64(st, 1, position);
	sqlite3_bind_int64(st, 2, seq);
	sqlite3_bind_blob64(st, 3, data, len, SQLITE_STATIC);
	return store_sql_step_done(db, st, "shard: insert batch");
}

int store_shard_put_trace(struct store *db, int64_t position, const char *path, int known, int64_t size,
			  int64_t mtime_ns)
{
	if (store_sql_prepare_kept(db, "shard: insert trace", "INSERT INTO shard_traces VALUES(?1, ?2, ?3, ?4)",
				   &db->shard_ins_trace) < 0)
		return -1;
	sqlite3_stmt *st = db->shard_ins_trace;
	sqlite3_bind_int64(st, 1, position);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	if (known) {
		sqlite3_bind_int64(st, 3, size);
		sqlite3_bind_int64(st, 4, mtime_ns);
	} else {
		sqlite3_bind_null(st, 3);
		sqlite3_bind_null(st, 4);
	}
	return store_sql_step_done(db, st, "shard: insert trace");
}

int store_shard_index(struct store *db)
{
	/* The index comes after the load: appending rows is then all the inserts do. */
	return store_exec(db, "CREATE INDEX shard_batches_at ON shard_batches(position, seq); COMMIT",
			  "shard: index batches");
}

char *store_shard_meta(struct store *db, const char *key)
{
	sqlite3_stmt *st;
	char *v = NULL;
	if (sqlite3_prepare_v2(db->db, "SELECT value FROM shard_meta WHERE key = ?1", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

int store_shard_prepare_read(struct store *db)
{
	if (store_sql_prepare_kept(db, "shard: read a trace",
				   "SELECT path, size, mtime_ns FROM shard_traces WHERE position = ?1", &db->shard_trace) < 0)
		return -1;
	return store_sql_prepare_kept(db, "shard: read batches",
				      "SELECT data FROM shard_batches WHERE position = ?1 ORDER BY seq", &db->shard_batches);
}

int store_shard_trace(struct store *db, int64_t position, struct store_shard_trace *t)
{
	sqlite3_stmt *st = db->shard_trace;
	*t = (struct store_shard_trace){0};
	sqlite3_bind_int64(st, 1, position);
	int found = sqlite3_step(st) == SQLITE_ROW;
	if (found) {
		if (sqlite3_column_type(st, 0) == SQLITE_TEXT)
			t->path = xstrdup((const char *)sqlite3_column_text(st, 0));
		t->known = sqlite3_column_type(st, 1) != SQLITE_NULL;
		t->size = sqlite3_column_int64(st, 1);
		t->mtime_ns = sqlite3_column_int64(st, 2);
	}
	sqlite3_reset(st);
	return found;
}

int store_shard_batches(struct store *db, int64_t position, int (*fn)(void *ctx, const char *data, size_t len),
			void *ctx)
{
	sqlite3_stmt *st = db->shard_batches;
	sqlite3_bind_int64(st, 1, position);
	int rc, ret = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (fn(ctx, sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0)) < 0) {
			ret = -1;
			break;
		}
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_fail(db, "shard: read batches");
	sqlite3_reset(st);
	return ret;
}
