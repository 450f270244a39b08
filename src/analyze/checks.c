/*
 * checks.c: what the inputs of an experiment say about each other, checked
 * before anyone trusts a number computed from them. Adds no table; each
 * finding is a warning on stderr (and in Provenance) and a note in the
 * report, so that a number is never silently wrong:
 *
 * - a trace with no GPU activity (no kernel, memcpy or memset; an nvprof
 *   summary's rows count as activity): the run's GPU tables have nothing
 *   from it (the warning only; basic.c writes the note);
 * - missing ranks: a run whose traces record a world size larger than the
 *   number of distinct ranks given; per-run totals cover only the ranks that
 *   are there;
 * - ranks whose clocks disagree: two traces of one run whose time ranges
 *   (each shifted to Unix epoch time when both record their offset) do not
 *   overlap at all, although the ranks of one run ran at the same time.
 *   Times within each rank stay right; cross-rank comparisons of absolute
 *   times are not meaningful.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/analysis.h"
#include "util/diag.h"

static const char *text(sqlite3_stmt *st, int col)
{
	const char *t = (const char *)sqlite3_column_text(st, col);
	return t ? t : "";
}

static int empty_traces(const struct analysis_ctx *ctx)
{
	sqlite3_stmt *st;
	if (store_prepare(ctx->store, "list empty traces",
		 "SELECT t.path, r.run FROM traces t JOIN runs r ON r.id = t.run_id"
		 " WHERE r.experiment = ?1 AND t.rank IS NOT NULL"
		 " AND NOT EXISTS (SELECT 1 FROM activities a WHERE a.trace_id = t.id)"
		 " AND NOT EXISTS (SELECT 1 FROM summaries m WHERE m.trace_id = t.id)"
		 " ORDER BY r.position, t.file_index", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, ctx->experiment, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		/* The report's note comes from basic.c; this is the line on stderr. */
		diag_warning(text(st, 0), "no GPU activity (no kernel, memcpy or memset) in run '%s'", text(st, 1));
	}
	sqlite3_finalize(st);
	return 0;
}

static int missing_ranks(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	sqlite3_stmt *st;
	if (store_prepare(ctx->store, "list missing ranks",
		 "SELECT r.run, max(t.world_size), count(DISTINCT t.rank), min(t.path) FROM runs r"
		 " JOIN traces t ON t.run_id = r.id WHERE r.experiment = ?1 AND t.rank IS NOT NULL"
		 " GROUP BY r.id HAVING max(t.world_size) > count(DISTINCT t.rank) ORDER BY r.position", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, ctx->experiment, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int world = sqlite3_column_int(st, 1), have = sqlite3_column_int(st, 2);
		diag_warning(text(st, 3), "run '%s': traces of %d of its %d ranks (world_size %d); "
			     "its totals cover only those", text(st, 0), have, world, world);
		result_add_note(out, "Run %s: traces of %d of its %d ranks (world_size %d) were given; "
				"per-run totals and comparisons cover only those ranks.", text(st, 0), have, world, world);
	}
	sqlite3_finalize(st);
	return 0;
}

static int clocks(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	sqlite3_stmt *st;
	/*
	 * Pairs of traces (a before b in file order) of one run whose ranges
	 * are disjoint; epoch offsets are used only when both traces have one.
	 * One pair per run is enough to say it.
	 */
	if (store_prepare(ctx->store, "compare rank clocks",
		 "SELECT run, ra, rb, pa, pb FROM (SELECT r.run AS run, r.position AS pos, a.rank AS ra, b.rank AS rb,"
		 "  a.path AS pa, b.path AS pb,"
		 "  row_number() OVER (PARTITION BY r.id ORDER BY a.file_index, b.file_index) AS k"
		 " FROM runs r JOIN traces a ON a.run_id = r.id JOIN traces b ON b.run_id = r.id"
		 " AND a.file_index < b.file_index"
		 " WHERE r.experiment = ?1 AND a.rank IS NOT NULL AND b.rank IS NOT NULL"
		 " AND a.first_ns IS NOT NULL AND b.first_ns IS NOT NULL"
		 " AND (a.epoch_offset_ns IS NULL) = (b.epoch_offset_ns IS NULL)"
		 " AND (a.last_ns + coalesce(a.epoch_offset_ns, 0) < b.first_ns + coalesce(b.epoch_offset_ns, 0)"
		 "  OR b.last_ns + coalesce(b.epoch_offset_ns, 0) < a.first_ns + coalesce(a.epoch_offset_ns, 0)))"
		 " WHERE k = 1 ORDER BY pos", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, ctx->experiment, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		diag_warning(text(st, 3), "run '%s': the clocks of rank %d and rank %d ('%s') disagree: "
			     "their traces do not overlap in time; times are not comparable across these ranks",
			     text(st, 0), sqlite3_column_int(st, 1), sqlite3_column_int(st, 2), text(st, 4));
		result_add_note(out, "Run %s: the traces of rank %d and rank %d do not overlap in time, so their "
				"clocks disagree; times within each rank are right, comparisons of absolute times "
				"across these ranks are not meaningful.", text(st, 0), sqlite3_column_int(st, 1),
				sqlite3_column_int(st, 2));
	}
	sqlite3_finalize(st);
	return 0;
}

int analysis_checks(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	if (empty_traces(ctx) < 0 || missing_ranks(ctx, out) < 0 || clocks(ctx, out) < 0)
		return -1;
	return 0;
}
