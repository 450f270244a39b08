/*
 * basic_kernels.c: the basic analysis's kernels (basic.c runs it):
 *
 *   kernels: per run, rank and kernel name: calls, total, mean (total/calls
 *            rounded to the nearest ns, halves up), min and max duration.
 *            Sorted by run, rank, total descending, then name.
 *   top_kernels: per run, the top_n (rank, kernel name) pairs by total GPU
 *            time over all its ranks, each with its device, as paper 000's
 *            "top 10 longest running interfaces" tables.
 *
 * Both are read from the store's kernel_stats, which this file writes
 * first (per run, rank and kernel name, with the name's group from
 * activity_groups, basic_groups.c) with integer nanoseconds, so sums are
 * exact; it stays in the store for users' queries and later analyses.
 */
#include <stdlib.h>

#include "analyze/lib/actsum.h"
#include "analyze/analysis.h"
#include "analyze/time/basic_int.h"
#include "util/xalloc.h"
#include "analyze/time/time_tables.h"

/*
 * One rank's kernel_stats rows (its kernels summed in a), in name id
 * order, each with its group; a emptied.
 */
static int flush_kernel_stats(struct store_stmt *ins, const char *exp, const char *run, int null_rank, int64_t rank,
			      struct act_sums *a)
{
	act_sums_sort(a);
	for (size_t i = 0; i < a->n; i++) {
		const struct act_sum *e = act_sums_get(a, a->keys[i]);
		store_bind_text(ins, 1, exp);
		store_bind_text(ins, 2, run);
		if (null_rank)
			store_bind_null(ins, 3);
		else
			store_bind_int64(ins, 3, rank);
		store_bind_int64(ins, 4, act_key_name(a->keys[i]));
		store_bind_int64(ins, 5, e->calls);
		store_bind_int64(ins, 6, e->total_ns);
		store_bind_int64(ins, 7, e->min_ns);
		store_bind_int64(ins, 8, e->max_ns);
		if (store_exec_stmt(ins) < 0)
			return -1;
	}
	act_sums_clear(a);
	return 0;
}

/*
 * kernel_stats: per run, rank and kernel name, calls = count, total_ns =
 * sum, min_ns and max_ns of the kernels' durations over the rank's traces,
 * with the name's group; rows in run id, rank (none first), name id order.
 * Summed in C (actsum.h) rather than by a GROUP BY that sorts every kernel
 * of the experiment (64 ranks of 100 MB: 1.5 s of basic's 3.1 s).
 */
static int insert_kernel_stats(struct store *s, const char *exp)
{
	struct store_stmt *tr = NULL, *ins = NULL;
	struct act_sums a;
	act_sums_init(&a);
	char *run = NULL;
	int ret = -1;
	if (store_prepare(s, "insert kernel stats", "SELECT r.id, r.run, t.rank, t.id FROM runs r CROSS JOIN traces t"
			  " WHERE t.run_id = r.id AND r.experiment = ?1 ORDER BY r.id, t.rank, t.id", &tr) < 0 ||
	    store_prepare(s, "insert kernel stats",
			  "INSERT INTO kernel_stats SELECT ?1, ?2, ?3, ?4, g.grp, ?5, ?6, ?7, ?8 FROM activity_groups g"
			  " WHERE g.experiment = ?1 AND g.kind = 'kernel' AND g.name_id = ?4", &ins) < 0)
		goto out;
	store_bind_text(tr, 1, exp);
	int64_t run_id = 0, rank = 0;
	int null_rank = 0, any = 0, rc;
	while ((rc = store_next(tr)) > 0) {
		int64_t rid = store_column_int64(tr, 0);
		int nr = store_column_type(tr, 2) == STORE_NULL;
		int64_t rk = nr ? 0 : store_column_int64(tr, 2);
		if (any && (rid != run_id || nr != null_rank || rk != rank) &&
		    flush_kernel_stats(ins, exp, run, null_rank, rank, &a) < 0)
			goto out;
		if (!any || rid != run_id) {
			free(run);
			run = xstrdup((const char *)store_column_text(tr, 1));
		}
		any = 1;
		run_id = rid;
		null_rank = nr;
		rank = rk;
		if (act_sums_add_trace(&a, s, store_column_int64(tr, 3), 1) < 0)
			goto out;
	}
	if (rc == 0 && (!any || flush_kernel_stats(ins, exp, run, null_rank, rank, &a) == 0))
		ret = 0;
out:
	free(run);
	act_sums_release(&a);
	store_finalize(tr);
	store_finalize(ins);
	return ret;
}

/* A row of kernels.csv from (run, rank, name, group, calls, total, min, max). */
static void kernels_row(struct table *t, size_t row, struct store_stmt *st)
{
	table_set_text(t, row, 0, (const char *)store_column_text(st, 0));
	table_set_int(t, row, 1, store_column_int64(st, 1));
	table_set_text(t, row, 2, (const char *)store_column_text(st, 2));
	table_set_text(t, row, 3, (const char *)store_column_text(st, 3));
	int64_t calls = store_column_int64(st, 4), total = store_column_int64(st, 5);
	table_set_int(t, row, 4, calls);
	table_set_ns(t, row, 5, total);
	/* Mean rounded to the nearest ns, halves up: floor((2*total + calls) / (2*calls)). */
	table_set_ns(t, row, 6, (2 * total + calls) / (2 * calls));
	table_set_ns(t, row, 7, store_column_int64(st, 6));
	table_set_ns(t, row, 8, store_column_int64(st, 7));
}

int basic_build_kernels(struct store *s, const char *exp, struct table **out)
{
	struct table *t = table_new("kernels", "Kernels per run and rank, by total GPU time",
				    TABLE_SCHEMA(KERNELS_COLUMNS));
	struct store_stmt *st;
	if (insert_kernel_stats(s, exp) < 0)
		goto fail;
	/* Ranks with no GPU activities: the totals of their profiler's summary rows. */
	st = store_query(s, "build kernels",
			 "INSERT INTO kernel_stats SELECT t.experiment, t.run, t.rank, m.name_id, g.grp, sum(m.calls),"
			 " sum(m.total_ns), min(m.min_ns), max(m.max_ns) FROM summaries m"
			 " JOIN run_traces t ON t.id = m.trace_id"
			 " JOIN activity_groups g ON g.experiment = t.experiment AND g.kind = m.kind"
			 " AND g.name_id = m.name_id"
			 " WHERE t.experiment = ?1 AND m.kind = 'kernel' AND (t.run_id, t.rank) NOT IN"
			 "  (SELECT t2.run_id, t2.rank FROM traces t2 WHERE t2.id IN (SELECT trace_id FROM activities))"
			 " GROUP BY t.run_id, t.rank, m.name_id", exp);
	if (!st)
		goto fail;
	if (store_exec_stmt(st) < 0) {
		store_finalize(st);
		goto fail;
	}
	store_finalize(st);
	st = store_query(s, "build kernels",
			 "SELECT k.run, k.rank, n.name, k.grp, k.calls, k.total_ns, k.min_ns, k.max_ns"
			 " FROM kernel_stats k JOIN names n ON n.id = k.name_id"
			 " JOIN runs r ON r.experiment = k.experiment AND r.run = k.run"
			 " WHERE k.experiment = ?1 ORDER BY r.position, k.rank, k.total_ns DESC, n.name", exp);
	return basic_table_rows(st, t, kernels_row, out);
fail:
	table_free(t);
	return -1;
}

/*
 * top_kernels: per run, its (rank, kernel) pairs of kernel_stats ranked by
 * total time (ties: rank, then name), the first top_n, with the rank's
 * device.
 */
int basic_build_top_kernels(struct store *s, const char *exp, int top_n, struct table **out)
{
	struct table *t = table_new("top_kernels", "The kernels with the largest total GPU time per run, over all "
				    "its devices (paper 000's top-10 tables)",
				    TABLE_SCHEMA(TOP_KERNELS_COLUMNS));
	struct store_stmt *st;
	/* The device of the top rows alone: looked up for every row, it cost a lookup per rank and kernel. */
	st = store_query(s, "build top kernels",
			 "SELECT x.run, x.place, x.rank, (SELECT " DEVICE_LABEL("t") " FROM traces t"
			 " WHERE t.run_id = x.run_id AND t.rank = x.rank ORDER BY t.id LIMIT 1),"
			 " x.name, x.grp, x.calls, x.total_ns FROM (SELECT k.run, k.rank, n.name, k.grp,"
			 " k.calls, k.total_ns, r.position, r.id AS run_id,"
			 " row_number() OVER (PARTITION BY r.id ORDER BY"
			 " k.total_ns DESC, k.rank, n.name) AS place"
			 " FROM kernel_stats k JOIN names n ON n.id = k.name_id"
			 " JOIN runs r ON r.experiment = k.experiment AND r.run = k.run"
			 " WHERE k.experiment = ?1 AND k.rank IS NOT NULL) x WHERE x.place <= ?2"
			 " ORDER BY x.position, x.place", exp);
	if (!st) {
		table_free(t);
		return -1;
	}
	store_bind_int(st, 2, top_n);
	return basic_typed_rows(st, t, out);
}

void basic_method_top_kernels(struct analysis_result *out)
{
	result_add_method(out, "top_kernels.csv",
			  "Per run, the kernels.csv rows (one per rank and kernel name) with the largest total time "
			  "over all ranks of the run, the first N (the figures' top_n), ties broken by rank then "
			  "name; device is the rank's device as nvprof prints it, NAME (ID).");
}

void basic_method_kernels(struct analysis_result *out)
{
	result_add_method(out, "kernels.csv",
			  "One row per kernel name and rank: the number of calls, and the total, mean (total / "
			  "calls, rounded to the nearest ns), minimum and maximum duration. Sorted by total time. "
			  "For a rank read from a GPU summary: its calls, total, minimum and maximum per name.");
}
