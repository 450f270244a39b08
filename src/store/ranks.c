/*
 * ranks.c: a run's ranks as the store holds them once its traces are in
 * (store.h), for the checks study/read.c reports: two files of one rank,
 * files split by device, files that record no rank; and an experiment's
 * runs with their ranks, for the merged traces (report/trace_export.c).
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

int store_ranked_runs(struct store *s, const char *exp, struct store_ranked_run **out, size_t *n)
{
	sqlite3_stmt *st;
	size_t cap = 0, rcap = 0;
	*out = NULL;
	*n = 0;
	if (store_sql_prepare(s, "list a run's ranks",
			      "SELECT t.run, t.run_id, t.rank, t.position FROM run_traces t WHERE t.experiment = ?1"
			      " AND t.rank IS NOT NULL GROUP BY t.run_id, t.rank ORDER BY t.position, t.rank",
			      &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, exp, -1, SQLITE_STATIC);
	int rc;
	while ((rc = store_sql_step(s, st, "list a run's ranks")) > 0) {
		int64_t id = sqlite3_column_int64(st, 1);
		struct store_ranked_run *r = *n ? &(*out)[*n - 1] : NULL;
		if (!r || r->run_id != id) {
			*out = xgrow(*out, &cap, *n + 1, sizeof(**out));
			r = &(*out)[(*n)++];
			*r = (struct store_ranked_run){xstrdup((const char *)sqlite3_column_text(st, 0)), id,
							       sqlite3_column_int(st, 3), NULL, 0};
			rcap = 0;
		}
		r->ranks = xgrow(r->ranks, &rcap, r->nranks + 1, sizeof(*r->ranks));
		r->ranks[r->nranks++] = sqlite3_column_int(st, 2);
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		store_ranked_runs_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

void store_ranked_runs_free(struct store_ranked_run *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].run);
		free(r[i].ranks);
	}
	free(r);
}
