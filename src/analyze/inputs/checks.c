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
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "util/diag.h"
#include "util/xalloc.h"

static const char *text(struct store_stmt *st, int col)
{
	const char *t = (const char *)store_column_text(st, col);
	return t ? t : "";
}

static int empty_traces(const struct analysis_ctx *ctx)
{
	struct store_stmt *st = store_query(ctx->store, "list empty traces",
					    "SELECT t.path, t.run FROM run_traces t"
					    " WHERE t.experiment = ?1 AND t.rank IS NOT NULL"
					    " AND NOT EXISTS (SELECT 1 FROM activities a WHERE a.trace_id = t.id)"
					    " AND NOT EXISTS (SELECT 1 FROM summaries m WHERE m.trace_id = t.id)"
					    " ORDER BY t.position, t.file_index", ctx->experiment);
	if (!st)
		return -1;
	int rc;
	while ((rc = store_next(st)) > 0) {
		/* The report's note comes from basic.c; this is the line on stderr. */
		diag_warning(text(st, 0), "no GPU activity (no kernel, memcpy or memset) in run '%s'", text(st, 1));
	}
	store_finalize(st);
	return rc;
}

static int missing_ranks(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct store_stmt *st = store_query(ctx->store, "list missing ranks",
					    "SELECT t.run, max(t.world_size), count(DISTINCT t.rank), min(t.path)"
					    " FROM run_traces t"
					    " WHERE t.experiment = ?1 AND t.rank IS NOT NULL"
					    " GROUP BY t.run_id"
					    " HAVING max(t.world_size) > count(DISTINCT t.rank)"
					    " ORDER BY t.position", ctx->experiment);
	if (!st)
		return -1;
	int rc;
	while ((rc = store_next(st)) > 0) {
		int world = store_column_int(st, 1), have = store_column_int(st, 2);
		diag_warning(text(st, 3), "run '%s': traces of %d of its %d ranks (world_size %d); "
			     "its totals cover only those", text(st, 0), have, world, world);
		result_add_note(out, "Run %s: traces of %d of its %d ranks (world_size %d) were given; "
				"per-run totals and comparisons cover only those ranks.", text(st, 0), have, world, world);
	}
	store_finalize(st);
	return rc;
}

/* A trace of clocks(): its range on the epoch clock when it has an offset, else on its own. */
struct span_row {
	int rank, epoch; /* epoch: the range is in Unix epoch time */
	int64_t file_index, start, end;
	char *path;
};

/*
 * The first pair (i, j), i < j in file order with file_index[i] <
 * file_index[j], of rows of one epoch kind whose ranges are disjoint:
 * *bi = n when there is none. In one pass from the end (the least end and
 * the greatest start of the rows of a later file) and one scan for j, not
 * over every pair: a run of 4096 ranks has 8 million.
 */
static void first_disjoint(const struct span_row *v, size_t n, int epoch, size_t *bi, size_t *bj)
{
	*bi = *bj = n;
	int64_t *min_end = xcalloc(n + 1, sizeof(*min_end)), *max_start = xcalloc(n + 1, sizeof(*max_start));
	int *any = xcalloc(n + 1, sizeof(*any));
	/* over v[k..n) of this kind */
	for (size_t k = n; k-- > 0;) {
		min_end[k] = min_end[k + 1];
		max_start[k] = max_start[k + 1];
		any[k] = any[k + 1];
		if (v[k].epoch != epoch)
			continue;
		if (!any[k] || v[k].end < min_end[k])
			min_end[k] = v[k].end;
		if (!any[k] || v[k].start > max_start[k])
			max_start[k] = v[k].start;
		any[k] = 1;
	}
	size_t later = 0; /* the first row of a file after v[i]'s */
	for (size_t i = 0; i < n && *bi == n; i++) {
		while (later < n && v[later].file_index <= v[i].file_index)
			later++;
		if (v[i].epoch != epoch || !any[later] ||
		    !(min_end[later] < v[i].start || max_start[later] > v[i].end))
			continue;
		for (size_t j = later; j < n; j++)
			if (v[j].epoch == epoch && (v[i].end < v[j].start || v[j].end < v[i].start)) {
				*bi = i;
				*bj = j;
				break;
			}
	}
	free(min_end);
	free(max_start);
	free(any);
}

static void clock_note(struct analysis_result *out, const char *run, const struct span_row *a, const struct span_row *b)
{
	diag_warning(a->path, "run '%s': the clocks of rank %d and rank %d ('%s') disagree: "
		     "their traces do not overlap in time; times are not comparable across these ranks",
		     run, a->rank, b->rank, b->path);
	result_add_note(out, "Run %s: the traces of rank %d and rank %d do not overlap in time, so their "
			"clocks disagree; times within each rank are right, comparisons of absolute times "
			"across these ranks are not meaningful.", run, a->rank, b->rank);
}

static int clocks(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct store_stmt *st;
	/*
	 * Pairs of traces (a before b in file order) of one run whose ranges
	 * are disjoint; epoch offsets are used only when both traces have one.
	 * One pair per run is enough to say it: the first in file order.
	 */
	st = store_query(ctx->store, "compare rank clocks",
			 "SELECT t.run_id, t.run, t.rank, t.path, t.file_index, t.epoch_offset_ns IS NOT NULL,"
			 " t.first_ns + coalesce(t.epoch_offset_ns, 0), t.last_ns + coalesce(t.epoch_offset_ns, 0)"
			 " FROM run_traces t"
			 " WHERE t.experiment = ?1 AND t.rank IS NOT NULL AND t.first_ns IS NOT NULL"
			 " AND t.last_ns IS NOT NULL"
			 " ORDER BY t.position, t.run_id, t.file_index, t.id", ctx->experiment);
	if (!st)
		return -1;
	struct span_row *v = NULL;
	size_t n = 0, cap = 0;
	int64_t run_id = 0;
	char *run = NULL;
	int rc;
	for (;;) {
		rc = store_next(st);
		if (n && (rc <= 0 || store_column_int64(st, 0) != run_id)) {
			size_t i0, j0, i1, j1;
			first_disjoint(v, n, 0, &i0, &j0);
			first_disjoint(v, n, 1, &i1, &j1);
			/* the pair first in file order of the two kinds */
			if (i1 < i0 || (i1 == i0 && j1 < j0)) {
				i0 = i1;
				j0 = j1;
			}
			if (i0 < n)
				clock_note(out, run, &v[i0], &v[j0]);
			for (size_t k = 0; k < n; k++)
				free(v[k].path);
			n = 0;
		}
		if (rc <= 0)
			break;
		if (!n) {
			run_id = store_column_int64(st, 0);
			free(run);
			run = xstrdup(text(st, 1));
		}
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n++] = (struct span_row){
			.rank = store_column_int(st, 2),
			.path = xstrdup(text(st, 3)),
			.file_index = store_column_int64(st, 4),
			.epoch = store_column_int(st, 5),
			.start = store_column_int64(st, 6),
			.end = store_column_int64(st, 7),
		};
	}
	store_finalize(st);
	free(v);
	free(run);
	return rc;
}

static int analysis_checks(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	if (empty_traces(ctx) < 0 || missing_ranks(ctx, out) < 0 || clocks(ctx, out) < 0)
		return -1;
	return 0;
}

const struct analysis_def analysis_def_checks = {
	.name = "checks",
	.run = analysis_checks,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_NONE,
};
