/*
 * basic.c: the first analyses: runs, groups, kernels, steps.
 *
 *   groups:  per run, rank and group, time_us = the summed duration of the
 *            rank's GPU activities (kernels, memcpy, memset) in that group
 *            over the whole trace file; fraction = time / the sum over all
 *            groups of that run and rank (empty when the sum is 0). Every
 *            group of the classification appears, with 0 where it has none.
 *   kernels: per run, rank and kernel name: calls, total, mean (total/calls
 *            rounded to the nearest ns, halves up), min and max duration.
 *            Sorted by run, rank, total descending, then name.
 *   steps:   per run, rank and ProfilerStep#N host range: its duration.
 *   runs:    one row per run: what the manifest says and what was read.
 *   rank_devices: per run and rank, the device its activities are on and
 *            the file they come from (a file driving several devices is
 *            one rank per device: store_split_devices).
 *   group_totals: per run and group, groups summed over the run's ranks.
 *   top_kernels: per run, the top_n (rank, kernel name) pairs by total GPU
 *            time over all its ranks, each with its device, as paper 000's
 *            "top 10 longest running interfaces" tables.
 *
 * Aggregation is done by SQLite over the store with integer nanoseconds, so
 * sums are exact; classification is done here in C once per distinct
 * (kind, name) pair, not once per event. The aggregates are also written
 * into the store (activity_groups, group_times, kernel_stats) for users'
 * queries and for later analyses.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "chart/figures.h"
#include "analyze/lib/actsum.h"
#include "analyze/analysis.h"
#include "analyze/time/basic_strategy.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/xalloc.h"
#include "analyze/time/time_tables.h"

/*
 * A row of t for each row of st (prepared and bound), filled by fill; st
 * is finalized. On success *out = t; on failure t is freed. Returns 0, or
 * -1 after diag.
 */
static int table_rows(struct store_stmt *st, struct table *t,
		      void (*fill)(struct table *t, size_t row, struct store_stmt *st), struct table **out)
{
	int rc;
	while ((rc = store_next(st)) > 0)
		fill(t, table_add_row(t), st);
	store_finalize(st);
	if (rc < 0) {
		table_free(t);
		return -1;
	}
	*out = t;
	return 0;
}

/* The rows of st in t by its column types (store_rows_to_table): *out = t, or t freed; 0, or -1 after diag. */
static int typed_rows(struct store_stmt *st, struct table *t, struct table **out)
{
	if (store_rows_to_table(st, t) < 0) {
		table_free(t);
		return -1;
	}
	*out = t;
	return 0;
}

static enum activity_kind kind_of(const char *k)
{
	return !strcmp(k, "kernel") ? ACT_KERNEL : !strcmp(k, "memcpy") ? ACT_MEMCPY : ACT_MEMSET;
}

/* activity_groups: one row per distinct (kind, name) of the experiment. */
static int classify_all(struct store *s, const char *exp, const struct classifier *c)
{
	struct store_stmt *sel, *ins;
	if (store_prepare(s, "classify all",
			  "SELECT DISTINCT a.kind, a.name_id, n.name"
			  " FROM (SELECT trace_id, kind, name_id FROM activities"
			  " UNION SELECT trace_id, kind, name_id FROM summaries) a"
			  " JOIN run_traces t ON t.id = a.trace_id"
			  " JOIN names n ON n.id = a.name_id WHERE t.experiment = ?1", &sel) < 0)
		return -1;
	if (store_prepare(s, "classify all", "INSERT INTO activity_groups VALUES(?1, ?2, ?3, ?4)", &ins) < 0) {
		store_finalize(sel);
		return -1;
	}
	store_bind_text(sel, 1, exp);
	int rc;
	while ((rc = store_next(sel)) > 0) {
		const char *kind = (const char *)store_column_text(sel, 0);
		const char *name = (const char *)store_column_text(sel, 2);
		const char *g = classify(c, kind_of(kind), name);
		store_bind_text(ins, 1, exp);
		store_bind_text_copy(ins, 2, kind);
		store_bind_int64(ins, 3, store_column_int64(sel, 1));
		store_bind_text(ins, 4, g);
		if (store_exec_stmt(ins) < 0) {
			rc = -1;
			break;
		}
	}
	store_finalize(ins);
	store_finalize(sel);
	return rc;
}

static int build_groups(struct store *s, const char *exp, const struct classifier *c, struct table **out)
{
	const char *const *groups;
	size_t ng = classifier_groups(c, &groups);
	struct table *t = table_new("groups", "GPU time by kernel group, per run and rank",
				    TABLE_SCHEMA(GROUPS_COLUMNS));
	/* Every (run, rank) with its per-group sums; groups absent from a rank are 0. */
	struct store_stmt *ranks, *rank_traces;
	if (store_prepare(s, "build groups", "SELECT t.run, t.rank, t.run_id FROM run_traces t"
			  " WHERE t.experiment = ?1 AND t.rank IS NOT NULL GROUP BY t.run_id, t.rank"
			  " ORDER BY t.position, t.rank", &ranks) < 0)
		goto fail;
	/*
	 * A rank's traces: their activities are summed per (kind, name) in C
	 * (actsum.h) and each sum's group looked up once; a join of every row
	 * with activity_groups took 19 ms a rank of 33k activities (64 ranks:
	 * 1.2 s).
	 */
	if (store_prepare(s, "build groups", "SELECT id FROM traces WHERE run_id = ?1 AND rank = ?2 ORDER BY id", &rank_traces) < 0) {
		store_finalize(ranks);
		goto fail;
	}
	/* A rank with no GPU activities: its profiler's summary rows (nvprof --print-gpu-summary), if any. */
	struct store_stmt *sum_rows;
	if (store_prepare(s, "build groups",
			  "SELECT g.grp, sum(m.total_ns) FROM summaries m JOIN run_traces t ON t.id = m.trace_id"
			  " JOIN activity_groups g ON g.experiment = t.experiment AND g.kind = m.kind"
			  " AND g.name_id = m.name_id"
			  " WHERE t.experiment = ?1 AND t.run = ?2 AND t.rank = ?3 GROUP BY g.grp", &sum_rows) < 0) {
		store_finalize(ranks);
		store_finalize(rank_traces);
		goto fail;
	}
	store_bind_text(ranks, 1, exp);
	int64_t *ns = xcalloc(ng, sizeof(*ns));
	struct act_sums a;
	act_sums_init(&a);
	int rc, said = 0;
	while ((rc = store_next(ranks)) > 0) {
		const char *run = (const char *)store_column_text(ranks, 0);
		int64_t rank = store_column_int64(ranks, 1);
		memset(ns, 0, ng * sizeof(*ns));
		int64_t total = 0;
		int any = 0;
		store_bind_int64(rank_traces, 1, store_column_int64(ranks, 2));
		store_bind_int64(rank_traces, 2, rank);
		if (act_sums_add_traces(&a, s, rank_traces, 0) < 0) {
			said = 1;
			break;
		}
		act_sums_sort(&a); /* the groups' sums, added in one order whatever the traces */
		for (size_t k = 0; k < a.n && !said; k++) {
			const char *grp;
			int g = act_sums_group(&a, s, exp, a.keys[k], &grp);
			int64_t v = act_sums_get(&a, a.keys[k])->total_ns;
			if (g < 0) {
				said = 1;
			} else if (g && __builtin_add_overflow(total, v, &total)) {
				/* Durations are >= 0 (ingest skips negative ones): no group's sum exceeds total. */
				diag_syserror(store_path(s), "sqlite: basic: group time: integer overflow");
				said = 1;
			} else if (g) {
				for (size_t i = 0; i < ng; i++)
					if (!strcmp(groups[i], grp))
						ns[i] += v;
				any = 1;
			}
		}
		act_sums_clear(&a);
		if (said)
			break;
		if (!any) {
			store_bind_text(sum_rows, 1, exp);
			store_bind_text_copy(sum_rows, 2, run);
			store_bind_int64(sum_rows, 3, rank);
			int more;
			while ((more = store_next(sum_rows)) > 0) {
				const char *g = (const char *)store_column_text(sum_rows, 0);
				int64_t v = store_column_int64(sum_rows, 1);
				for (size_t i = 0; i < ng; i++)
					if (!strcmp(groups[i], g))
						ns[i] = v;
				total += v;
			}
			store_reset(sum_rows);
			if (more < 0) {
				said = 1;
				break;
			}
		}
		for (size_t i = 0; i < ng; i++) {
			size_t row = table_add_row(t);
			table_set_text(t, row, 0, run);
			table_set_int(t, row, 1, rank);
			table_set_text(t, row, 2, groups[i]);
			table_set_ns(t, row, 3, ns[i]);
			if (total > 0)
				table_set_real(t, row, 4, (double)ns[i] / (double)total);
		}
	}
	free(ns);
	act_sums_release(&a);
	store_finalize(rank_traces);
	store_finalize(sum_rows);
	store_finalize(ranks);
	if (said || rc < 0)
		goto fail;
	/* Keep the aggregate in the store for users' queries. */
	struct store_stmt *ins;
	if (store_prepare(s, "build groups", "INSERT INTO group_times VALUES(?1,?2,?3,?4,?5,?6)", &ins) < 0)
		goto fail;
	for (size_t r = 0; r < t->nrows; r++) {
		store_bind_text(ins, 1, exp);
		store_bind_text(ins, 2, table_cell(t, r, 0)->v.text);
		store_bind_int64(ins, 3, table_cell(t, r, 1)->v.i);
		store_bind_text(ins, 4, table_cell(t, r, 2)->v.text);
		store_bind_int64(ins, 5, table_cell(t, r, 3)->v.i);
		if (table_cell(t, r, 4)->null)
			store_bind_null(ins, 6);
		else
			store_bind_double(ins, 6, table_cell(t, r, 4)->v.f);
		if (store_exec_stmt(ins) < 0) {
			store_finalize(ins);
			goto fail;
		}
	}
	store_finalize(ins);
	*out = t;
	return 0;
fail:
	table_free(t);
	return -1;
}

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

static int build_kernels(struct store *s, const char *exp, struct table **out)
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
	if (!st)
		goto fail;
	return table_rows(st, t, kernels_row, out);
fail:
	table_free(t);
	return -1;
}

static int build_steps(struct store *s, const char *exp, struct table **out)
{
	struct table *t = table_new("steps", "Duration of each profiled training step (ProfilerStep#N, host side)",
				    "run:text,rank:int,step:int,step_us:us");
	struct store_stmt *st = store_query(s, "build steps",
					    "SELECT t.run, t.rank, s.step, s.dur_ns"
					    " FROM steps s JOIN run_traces t ON t.id = s.trace_id"
					    " WHERE t.experiment = ?1"
					    " ORDER BY t.position, t.rank, s.step, s.start_ns", exp);
	if (!st) {
		table_free(t);
		return -1;
	}
	return typed_rows(st, t, out);
}

/* A row of runs.csv: each column by its type, NULL left empty. */
static void runs_row(struct table *t, size_t row, struct store_stmt *st)
{
	for (int c = 0; c < 10; c++) {
		if (store_column_type(st, c) == STORE_NULL)
			continue;
		switch (t->cols[c].type) {
		case COL_TEXT:
			table_set_text(t, row, (size_t)c, (const char *)store_column_text(st, c));
			break;
		case COL_US: {
			/* mean of integer ns, rounded to the nearest ns */
			double v = store_column_double(st, c);
			table_set_ns(t, row, (size_t)c, (int64_t)(v + 0.5));
			break;
		}
		default:
			table_set_int(t, row, (size_t)c, store_column_int64(st, c));
		}
	}
}

static int build_runs(struct store *s, const char *exp, struct table **out)
{
	struct table *t = table_new("runs", "Runs",
				    TABLE_SCHEMA(RUNS_COLUMNS));
	struct store_stmt *st;
	/*
	 * gpus: the manifest's value, else the largest world_size a trace
	 * records, else the number of rank files. The layout's columns
	 * (data_parallel ... schedule_source) stay empty here: run_layout.c
	 * fills them after pipeline_stages.csv.
	 */
	st = store_query(s, "build runs",
			 "SELECT r.run, r.label, coalesce(r.gpus, max(t.world_size), count(DISTINCT t.rank)),"
			 " count(DISTINCT t.rank), r.model, r.batch, r.strategy,"
			 " (SELECT d.name FROM devices d JOIN traces t2 ON t2.id = d.trace_id WHERE t2.run_id = r.id"
			 "   ORDER BY t2.rank, d.device LIMIT 1),"
			 " (SELECT count(*) FROM activities a JOIN traces t3 ON t3.id = a.trace_id"
			 "   WHERE t3.run_id = r.id AND a.kind = 'kernel'),"
			 " (SELECT avg(s.dur_ns) FROM steps s JOIN traces t4 ON t4.id = s.trace_id"
			 " WHERE t4.run_id = r.id)"
			 " FROM runs r LEFT JOIN traces t ON t.run_id = r.id WHERE r.experiment = ?1"
			 " GROUP BY r.id ORDER BY r.position", exp);
	if (!st) {
		table_free(t);
		return -1;
	}
	return table_rows(st, t, runs_row, out);
}

/* "NAME (ID)" as nvprof prints a device, the id alone without a name; NULL when the rank's device is unknown. */
#define DEVICE_LABEL(t) "coalesce((SELECT d.name || ' (' || d.device || ')' FROM devices d WHERE d.trace_id = " t ".id" \
	" AND d.device = " t ".device AND d.name IS NOT NULL ORDER BY d.rowid LIMIT 1), CAST(" t ".device AS TEXT))"

/* rank_devices: which device, of which file, each rank is. */
static int build_rank_devices(struct store *s, const char *exp, struct table **out)
{
	struct table *t = table_new("rank_devices", "The device each rank's GPU activities are on",
				    "run:text,rank:int,device:int,device_name:text,file:text,devices_in_file:int");
	struct store_stmt *st = store_query(s, "build rank devices",
					    "SELECT t.run, t.rank, t.device, " DEVICE_LABEL("t") ","
					    /*
					     * the file's first row and its other devices' rows: counted once
					     * for all (a count with an OR per row read the table per row, 3 s
					     * at 4096 ranks)
					     */
					    " t.path, 1 + coalesce(k.c, 0)"
					    " FROM run_traces t"
					    " LEFT JOIN (SELECT part_of AS f, count(*) AS c FROM traces"
					    " WHERE part_of IS NOT NULL GROUP BY part_of) k"
					    " ON k.f = coalesce(t.part_of, t.id) WHERE t.experiment = ?1"
					    " AND t.rank IS NOT NULL"
					    " ORDER BY t.position, t.rank, t.id", exp);
	if (!st) {
		table_free(t);
		return -1;
	}
	return typed_rows(st, t, out);
}

/*
 * top_kernels: per run, its (rank, kernel) pairs of kernel_stats ranked by
 * total time (ties: rank, then name), the first top_n, with the rank's
 * device.
 */
static int build_top_kernels(struct store *s, const char *exp, int top_n, struct table **out)
{
	struct table *t = table_new("top_kernels", "The kernels with the largest total GPU time per run, over all "
				    "its devices (paper 000's top-10 tables)",
				    "run:text,place:int,rank:int,device:text,name:text,group:text,calls:int,total_us:us");
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
	return typed_rows(st, t, out);
}

/*
 * group_totals: per run and group, the groups.csv times summed over the
 * run's ranks (its devices), and fraction = that sum / the sum over all
 * groups of the run: paper 000's group shares per GPU count (Figs. 4, 7).
 * With its figure, one stacked bar per run.
 */
static struct table *build_group_totals(const struct table *groups, const struct table *runs,
					const char *const *order, size_t ng, struct chart **fig)
{
	struct table *t = table_new("group_totals", "GPU time by kernel group per run, summed over its ranks",
				    "run:text,gpus:int,group:text,time_us:us,fraction:frac");
	struct chart *c = chart_new(CHART_STACKED_BAR, "group_fractions_run", "GPU time by kernel group per run",
				    "share of the run's GPU time");
	for (size_t g = 0; g < ng; g++)
		chart_add_series(c, order[g]);
	int64_t *ns = xcalloc(ng ? ng : 1, sizeof(*ns));
	int cg = RUNS_GPUS;
	/* groups.csv lists each rank's ng groups in classification order, a run's ranks together. */
	for (size_t r = 0; r + ng <= groups->nrows && ng;) {
		const char *run = table_cell(groups, r, 0)->v.text;
		int64_t total = 0;
		memset(ns, 0, ng * sizeof(*ns));
		for (; r + ng <= groups->nrows && !strcmp(table_cell(groups, r, 0)->v.text, run); r += ng)
			for (size_t g = 0; g < ng; g++) {
				ns[g] += table_cell(groups, r + g, 3)->v.i;
				total += table_cell(groups, r + g, 3)->v.i;
			}
		size_t cat = chart_add_category(c, run);
		for (size_t g = 0; g < ng; g++) {
			size_t row = table_add_row(t);
			table_set_text(t, row, 0, run);
			for (size_t k = 0; k < runs->nrows; k++)
				if (!strcmp(table_cell(runs, k, 0)->v.text, run) && !table_cell(runs, k, (size_t)cg)->null)
					table_set_int(t, row, 1, table_cell(runs, k, (size_t)cg)->v.i);
			table_set_text(t, row, 2, order[g]);
			table_set_ns(t, row, 3, ns[g]);
			if (total > 0) {
				table_set_real(t, row, 4, (double)ns[g] / (double)total);
				chart_set(c, cat, g, (double)ns[g] / (double)total);
			}
		}
	}
	free(ns);
	*fig = c;
	return t;
}

/*
 * A note for each file whose activities are on several devices: which ranks
 * it became. One pass over the shares of every such file (the file's own
 * row and its part_of rows), in file order then device: an EXISTS over
 * part_of per trace, which no index serves, scanned `traces` once per
 * trace (10,000 one-kernel ranks: 11 s).
 */
static int add_device_notes(struct store *s, const char *exp, struct analysis_result *out)
{
	struct store_stmt *st = store_query(s, "add device notes",
					    "SELECT f.id, f.run, f.path, 'device ' || p.device || ' = rank ' || p.rank"
					    " FROM traces p JOIN run_traces f ON f.id = coalesce(p.part_of, p.id)"
					    " WHERE f.experiment = ?1 AND f.part_of IS NULL"
					    " AND f.id IN (SELECT part_of FROM traces WHERE part_of IS NOT NULL)"
					    " ORDER BY f.position, f.file_index, f.id, p.device, p.id", exp);
	if (!st)
		return -1;
	struct buf parts;
	buf_init(&parts);
	char *run = NULL, *path = NULL;
	int64_t file = -1;
	int rc;
	for (;;) {
		rc = store_next(st);
		int64_t id = rc > 0 ? store_column_int64(st, 0) : -1;
		if (file >= 0 && id != file) /* group_concat(x, '; ') of the file's shares, NULLs left out */
			result_add_note(out,
					"Run %s: %s holds GPU activities on several devices, one process driving them all; "
					"each device is a rank of its own here (%s). Host-side ranges are each device's; host "
					"operators and profiler summary rows stay with the first.",
					run, path, parts.len ? parts.data : "(null)");
		if (rc <= 0)
			break;
		if (id != file) {
			free(run);
			free(path);
			run = xstrdup((const char *)store_column_text(st, 1));
			path = xstrdup((const char *)store_column_text(st, 2));
			buf_reset(&parts);
			file = id;
		}
		if (store_column_type(st, 3) != STORE_NULL)
			buf_printf(&parts, "%s%s", parts.len ? "; " : "", (const char *)store_column_text(st, 3));
	}
	free(run);
	free(path);
	buf_release(&parts);
	store_finalize(st);
	return rc;
}

/*
 * Notes for trace files without a GPU timeline: a summary-only file
 * (nvprof --print-gpu-summary) feeds groups and kernels from its totals and
 * nothing else; a file with no GPU work at all (a CPU-only trace) feeds
 * nothing GPU-side.
 */
static int add_source_notes(struct store *s, const char *exp, struct analysis_result *out)
{
	struct store_stmt *st = store_query(s, "add source notes",
					    "SELECT t.run, t.rank, t.path, t.format,"
					    " (SELECT count(*) FROM summaries m WHERE m.trace_id = t.id)"
					    " FROM run_traces t WHERE t.experiment = ?1"
					    " AND t.rank IS NOT NULL AND t.id NOT IN (SELECT trace_id FROM activities)"
					    " ORDER BY t.position, t.rank, t.path", exp);
	if (!st)
		return -1;
	int rc;
	while ((rc = store_next(st)) > 0) {
		const char *run = (const char *)store_column_text(st, 0);
		int64_t rank = store_column_int64(st, 1);
		const char *path = (const char *)store_column_text(st, 2);
		const char *fmt = store_column_text(st, 3) ? (const char *)store_column_text(st, 3) : "?";
		if (store_column_int64(st, 4) > 0)
			result_add_note(out,
					"Run %s, rank %" PRId64 " (%s, %s) is a GPU summary without a timeline: groups and "
					"kernels come from its per-name totals; steps, mean step time and every analysis "
					"that needs individual GPU activities or their times (overlap, idle time, per-step "
					"breakdowns) cannot be computed for it.",
					run, rank, path, fmt);
		else
			result_add_note(out,
					"Run %s, rank %" PRId64 " (%s, %s) has no GPU activity (no kernel, memcpy or "
					"memset): a CPU-only trace or a profile of the host side; it adds nothing to the "
					"GPU tables and figures.",
					run, rank, path, fmt);
	}
	store_finalize(st);
	return rc;
}

static int analysis_basic(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct store *s = ctx->store;
	const char *exp = ctx->experiment;
	struct table *groups = NULL, *kernels = NULL, *steps = NULL;
	if (classify_all(s, exp, ctx->cls) < 0 || build_groups(s, exp, ctx->cls, &groups) < 0)
		return -1;
	result_add_table(out, groups);
	if (build_kernels(s, exp, &kernels) < 0)
		return -1;
	result_add_table(out, kernels);
	if (build_steps(s, exp, &steps) < 0)
		return -1;
	result_add_table(out, steps);
	if (build_runs(s, exp, &out->runs) < 0 || basic_strategies(s, exp, out->runs, out) < 0 ||
	    add_source_notes(s, exp, out) < 0 ||
	    add_device_notes(s, exp, out) < 0)
		return -1;
	struct table *devices = NULL, *top = NULL;
	if (build_rank_devices(s, exp, &devices) < 0)
		return -1;
	result_add_table(out, devices);
	if (build_top_kernels(s, exp, ctx->top_n, &top) < 0)
		return -1;
	result_add_table(out, top);

	const char *const *order;
	size_t ng = classifier_groups(ctx->cls, &order);
	static const struct group_cols gcols = {GRP_RUN, GRP_RANK, GRP_GROUP, GRP_FRACTION};
	result_add_figure(out, figure_group_fractions(groups, &gcols, order, ng),
			  "Share of each rank's GPU time (kernels, memcpy, memset) spent in each kernel group; "
			  "bars are run and rank, fractions of the rank's summed activity time.");
	struct chart *by_run;
	struct table *totals = build_group_totals(groups, out->runs, order, ng, &by_run);
	/* With one rank per run, its bars are group_fractions' own: left out. */
	if (ng && totals->nrows < groups->nrows)
		result_add_figure(out, by_run,
				  "Share of each run's GPU time (kernels, memcpy, memset; summed over its ranks, one "
				  "per device) spent in each kernel group.");
	else
		chart_free(by_run);
	result_add_table(out, totals);

	result_add_method(out, "runs.csv",
			  "One row per run. gpus: the manifest's value, else the largest world_size its traces "
			  "record, else its number of ranks. ranks: as in rank_devices.csv. kernels: kernel "
			  "launches read. mean_step_us: the mean duration of all ProfilerStep#N ranges of all its ranks. "
			  "data_parallel, tensor_parallel, pipeline_parallel: the run's layout, by the first rule that "
			  "applies (layout_source): 'manifest', its tensor_parallel and pipeline_parallel (1 where one "
			  "is not given) and data_parallel gpus / (tensor_parallel x pipeline_parallel); 'manifest "
			  "strategy', a strategy of ddp or a ZeRO stage: data_parallel gpus, the others 1; 'trace: "
			  "send/recv path', the pipelines pipeline_stages.csv finds in the ranks' point-to-point peers: "
			  "pipeline_parallel their stages, data_parallel their count, tensor_parallel gpus over both "
			  "where that divides exactly; 'trace: DistributedDataParallel.forward' (or "
			  "FullyShardedDataParallel.forward, or another annotation strategy_source names) or 'training "
			  "log (<file>): strategy S', the first clause of strategy_source of a strategy not the "
			  "manifest's that is ddp or a ZeRO stage (ahead of the send/recv path), or else the wrapper's "
			  "annotation in a rank's trace: data_parallel gpus, the others 1; 'one GPU': 1, 1, 1; else empty. schedule (GPipe, 1F1B) and microbatches: "
			  "the manifest's, else pipeline_stages.csv's, inferred from the sends and receives; "
			  "schedule_source says whose. strategy: the manifest's (strategy_source 'manifest'), else "
			  "inferred from the wrappers' host annotations in the run's traces, the first that applies "
			  "(strategy_source 'trace: ...' names the annotation): Optimizer.step#ZeroRedundancyOptimizer.step, "
			  "zero1; FSDP2's FSDP::pre_forward with more FSDP::all_gather ranges than FSDP::pre_forward ones "
			  "(the parameters gathered again in backward), zero3, else zero2; "
			  "FullyShardedDataParallel.forward, fsdp (FSDP's default full sharding, ZeRO-3); "
			  "DistributedDataParallel.forward, ddp; else the strategy S that the run's training logs name "
			  "in a line 'params N world W strategy S' (the bundled generator's last line; strategy_source "
			  "'training log (<file>): strategy S'), where those that name one all name the same; else "
			  "empty. Where the traces and a log both name one, the traces' is taken and strategy_source "
			  "adds '; training log (<file>): strategy S' where the log agrees (the same name or ZeRO stage: "
			  "fsdp and zero3 agree), '; the training log (<file>) says S' and a note where it does not. "
			  "Every analysis after this table (scaling, collective_busbw, time_to_train, the strategy "
			  "figures) and the page's Models fact take this strategy; the Models fact says where each "
			  "came from.");
	result_add_method(out, "ranks and devices (rank_devices.csv)",
			  "A rank is one device's GPU activities. A trace file whose activities are on one device "
			  "(one process per GPU: DDP, one Kineto file per rank) is one rank: the rank it records, "
			  "else its position among the run's files (a warning names each such file of a run of "
			  "several; a run of one file that records no rank, as a single-GPU Kineto trace without "
			  "distributedInfo, is rank 0 without one). A file whose activities are on several devices "
			  "(one process driving several GPUs, as nvprof recorded DataParallel training in paper 000) "
			  "is one rank per device: the run's ranks are then numbered 0, 1, ... in order of file, "
			  "then device id, and each keeps its device (rank_devices.csv). Each such rank has its "
			  "device's kernels, copies and memsets, the runtime calls that launched them (same "
			  "correlation id) and GPU ranges on its streams; the process's host ranges (ProfilerStep#N, "
			  "phases) are copied to each of its devices, its host operators and summary rows stay with "
			  "the first. Nothing is merged across devices. A run whose manifest gpus differs from the "
			  "ranks this gives is warned about at build time.");
	result_add_method(out, "group_totals.csv",
			  "Per run and group, the groups.csv times of all of the run's ranks (devices) summed; "
			  "fraction = that sum / the sum over all groups of the run (empty when it is 0).");
	result_add_method(out, "top_kernels.csv",
			  "Per run, the kernels.csv rows (one per rank and kernel name) with the largest total time "
			  "over all ranks of the run, the first N (the figures' top_n), ties broken by rank then "
			  "name; device is the rank's device as nvprof prints it, NAME (ID).");
	result_add_method(out, "groups.csv",
			  "For each run and rank, the summed duration of that rank's GPU activities (kernels, "
			  "memcpy and memset) in each group, over the whole trace file; overlapping activities "
			  "are each counted in full. The fraction is that sum divided by the sum over all groups "
			  "of the same run and rank. A rank with no GPU activities but a profiler's GPU summary "
			  "(nvprof --print-gpu-summary) uses the summary's total time per name instead.");
	result_add_method(out, "kernels.csv",
			  "One row per kernel name and rank: the number of calls, and the total, mean (total / "
			  "calls, rounded to the nearest ns), minimum and maximum duration. Sorted by total time. "
			  "For a rank read from a GPU summary: its calls, total, minimum and maximum per name.");
	result_add_method(out, "steps.csv",
			  "The duration of each ProfilerStep#N annotation range on the host (the profiler's "
			  "step marker), per rank.");
	return 0;
}

const struct analysis_def analysis_def_basic = {
	.name = "basic",
	.run = analysis_basic,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("runs", "rank_devices", "groups", "group_totals", "kernels", "top_kernels", "steps",
		"store.activity_groups", "store.group_times", "store.kernel_stats"),
	.figures = ANALYSIS_NAMES("group_fractions", "group_fractions_run"),
};
