/*
 * ranks.c: a run's ranks as the store holds them once its traces are in
 * (store.h), for the checks study/read.c reports: two files of one rank,
 * files split by device, files that record no rank.
 */
#include "store/store_int.h"

#include <stdlib.h>

#include "util/xalloc.h"

int store_duplicate_rank(struct store *s, int64_t run_id, int *rank, char **first, char **second)
{
	sqlite3_stmt *st;
	*first = *second = NULL;
	if (store_sql_prepare(s, "check ranks",
			      "SELECT a.rank, a.path, b.path FROM traces a JOIN traces b ON a.run_id = b.run_id"
			      " AND a.rank = b.rank AND a.id < b.id WHERE a.run_id = ?1 LIMIT 1", &st) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	int ret = store_sql_step(s, st, "check ranks");
	if (ret > 0) {
		*rank = sqlite3_column_int(st, 0);
		*first = xstrdup((const char *)sqlite3_column_text(st, 1));
		*second = xstrdup((const char *)sqlite3_column_text(st, 2));
	}
	sqlite3_finalize(st);
	return ret;
}

int store_each_split_file(struct store *s, int64_t run_id, void (*fn)(void *ctx, const struct store_split_file *f),
			  void *ctx)
{
	sqlite3_stmt *st;
	if (store_sql_prepare(s, "list split files",
			      "SELECT t.path, count(*), (SELECT group_concat(device, ', ') FROM (SELECT device FROM traces"
			      "  WHERE id = t.id OR part_of = t.id ORDER BY device)),"
			      " (SELECT count(DISTINCT rank) FROM traces x WHERE x.run_id = ?1)"
			      " FROM traces t JOIN traces p ON p.id = t.id OR p.part_of = t.id"
			      " WHERE t.run_id = ?1 AND t.part_of IS NULL GROUP BY t.id HAVING count(*) > 1 ORDER BY t.file_index",
			      &st) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	int rc;
	while ((rc = store_sql_step(s, st, "list split files")) > 0) {
		struct store_split_file f = {
			.path = (const char *)sqlite3_column_text(st, 0),
			.devices = sqlite3_column_int(st, 1),
			.device_list = (const char *)sqlite3_column_text(st, 2),
			.ranks = sqlite3_column_int(st, 3),
		};
		fn(ctx, &f);
	}
	sqlite3_finalize(st);
	return rc;
}

int store_each_unranked_trace(struct store *s, int64_t run_id,
			      void (*fn)(void *ctx, const char *path, int rank, const char *format), void *ctx)
{
	sqlite3_stmt *st;
	if (store_sql_prepare(s, "list unranked traces", "SELECT path, rank, coalesce(format, '') FROM traces"
			      " WHERE run_id = ?1 AND rank_from_trace = 0 AND part_of IS NULL"
			      " AND id NOT IN (SELECT part_of FROM traces WHERE part_of IS NOT NULL) ORDER BY file_index",
			      &st) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	int rc;
	while ((rc = store_sql_step(s, st, "list unranked traces")) > 0)
		fn(ctx, (const char *)sqlite3_column_text(st, 0), sqlite3_column_int(st, 1),
		   (const char *)sqlite3_column_text(st, 2));
	sqlite3_finalize(st);
	return rc;
}
