/*
 * basic_groups.c: the basic analysis's kernel groups (basic.c runs it):
 *
 *   groups:  per run, rank and group, time_us = the summed duration of the
 *            rank's GPU activities (kernels, memcpy, memset) in that group
 *            over the whole trace file; fraction = time / the sum over all
 *            groups of that run and rank (empty when the sum is 0). Every
 *            group of the classification appears, with 0 where it has none.
 *   group_totals: per run and group, groups summed over the run's ranks.
 *
 * with their figures, group_fractions (a bar per run and rank) and
 * group_fractions_run (a bar per run). Classification is done here in C
 * once per distinct (kind, name) pair, not once per event, into the
 * store's activity_groups (which kernel_stats reads, basic_kernels.c);
 * groups is also kept in the store as group_times, for users' queries.
 */
#include <stdlib.h>
#include <string.h>

#include "chart/figures.h"
#include "analyze/lib/actsum.h"
#include "analyze/analysis.h"
#include "analyze/time/basic_int.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "analyze/time/time_tables.h"

static enum activity_kind kind_of(const char *k)
{
	return !strcmp(k, "kernel") ? ACT_KERNEL : !strcmp(k, "memcpy") ? ACT_MEMCPY : ACT_MEMSET;
}

/* activity_groups: one row per distinct (kind, name) of the experiment. */
int basic_classify_all(struct store *s, const char *exp, const struct classifier *c)
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

int basic_build_groups(struct store *s, const char *exp, const struct classifier *c, struct table **out)
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
		store_bind_text(ins, 2, table_cell(t, r, GRP_RUN)->v.text);
		store_bind_int64(ins, 3, table_cell(t, r, GRP_RANK)->v.i);
		store_bind_text(ins, 4, table_cell(t, r, GRP_GROUP)->v.text);
		store_bind_int64(ins, 5, table_cell(t, r, GRP_TIME_US)->v.i);
		if (table_cell(t, r, GRP_FRACTION)->null)
			store_bind_null(ins, 6);
		else
			store_bind_double(ins, 6, table_cell(t, r, GRP_FRACTION)->v.f);
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
 * group_totals: per run and group, the groups.csv times summed over the
 * run's ranks (its devices), and fraction = that sum / the sum over all
 * groups of the run: paper 000's group shares per GPU count (Figs. 4, 7).
 * With its figure, one stacked bar per run.
 */
static struct table *group_totals(const struct table *groups, const struct table *runs,
				  const char *const *order, size_t ng, struct chart **fig)
{
	struct table *t = table_new("group_totals", "GPU time by kernel group per run, summed over its ranks",
				    TABLE_SCHEMA(GROUP_TOTALS_COLUMNS));
	struct chart *c = chart_new(CHART_STACKED_BAR, "group_fractions_run", "GPU time by kernel group per run",
				    "share of the run's GPU time");
	for (size_t g = 0; g < ng; g++)
		chart_add_series(c, order[g]);
	int64_t *ns = xcalloc(ng ? ng : 1, sizeof(*ns));
	int cg = RUNS_GPUS;
	/* groups.csv lists each rank's ng groups in classification order, a run's ranks together. */
	for (size_t r = 0; r + ng <= groups->nrows && ng;) {
		const char *run = table_cell(groups, r, GRP_RUN)->v.text;
		int64_t total = 0;
		memset(ns, 0, ng * sizeof(*ns));
		for (; r + ng <= groups->nrows && !strcmp(table_cell(groups, r, GRP_RUN)->v.text, run); r += ng)
			for (size_t g = 0; g < ng; g++) {
				ns[g] += table_cell(groups, r + g, GRP_TIME_US)->v.i;
				total += table_cell(groups, r + g, GRP_TIME_US)->v.i;
			}
		size_t cat = chart_add_category(c, run);
		for (size_t g = 0; g < ng; g++) {
			size_t row = table_add_row(t);
			table_set_text(t, row, 0, run);
			for (size_t k = 0; k < runs->nrows; k++)
				if (!strcmp(table_cell(runs, k, RUNS_RUN)->v.text, run) && !table_cell(runs, k, (size_t)cg)->null)
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


void basic_add_group_totals(const struct classifier *cls, const struct table *groups, struct analysis_result *out)
{
	const char *const *order;
	size_t ng = classifier_groups(cls, &order);
	static const struct group_cols gcols = {GRP_RUN, GRP_RANK, GRP_GROUP, GRP_FRACTION};
	result_add_figure(out, figure_group_fractions(groups, &gcols, order, ng),
			  "Share of each rank's GPU time (kernels, memcpy, memset) spent in each kernel group; "
			  "bars are run and rank, fractions of the rank's summed activity time.");
	struct chart *by_run;
	struct table *totals = group_totals(groups, out->runs, order, ng, &by_run);
	/* With one rank per run, its bars are group_fractions' own: left out. */
	if (ng && totals->nrows < groups->nrows)
		result_add_figure(out, by_run,
				  "Share of each run's GPU time (kernels, memcpy, memset; summed over its ranks, one "
				  "per device) spent in each kernel group.");
	else
		chart_free(by_run);
	result_add_table(out, totals);
}

void basic_method_group_totals(struct analysis_result *out)
{
	result_add_method(out, "group_totals.csv",
			  "Per run and group, the groups.csv times of all of the run's ranks (devices) summed; "
			  "fraction = that sum / the sum over all groups of the run (empty when it is 0).");
}

void basic_method_groups(struct analysis_result *out)
{
	result_add_method(out, "groups.csv",
			  "For each run and rank, the summed duration of that rank's GPU activities (kernels, "
			  "memcpy and memset) in each group, over the whole trace file; overlapping activities "
			  "are each counted in full. The fraction is that sum divided by the sum over all groups "
			  "of the same run and rank. A rank with no GPU activities but a profiler's GPU summary "
			  "(nvprof --print-gpu-summary) uses the summary's total time per name instead.");
}
