/*
 * basic.c: the first analysis: runs, groups, kernels, steps. This file
 * runs it, in the order of its output (its tables, figures, notes and
 * Methods, which the page shows in the order they are added); the
 * definitions are in the files that make them (basic_int.h):
 *
 *   basic_runs.c:     runs (its model and batch from the training logs
 *                     where the manifest gives none), rank_devices, steps,
 *                     and the notes on trace files without a GPU timeline
 *                     or with several devices;
 *   basic_strategy.c: runs.csv's strategy and strategy_source;
 *   basic_groups.c:   the classification (store: activity_groups), groups
 *                     (store: group_times), group_totals and their figures;
 *   basic_kernels.c:  kernels (store: kernel_stats) and top_kernels.
 *
 * Aggregation is done by SQLite over the store with integer nanoseconds, so
 * sums are exact; classification is done in C once per distinct (kind,
 * name) pair, not once per event. The aggregates are also written into the
 * store (activity_groups, group_times, kernel_stats) for users' queries and
 * for later analyses.
 */
#include "analyze/analysis.h"
#include "analyze/time/basic_int.h"
#include "store/store.h"
#include "util/table.h"

/*
 * A row of t for each row of st (prepared and bound), filled by fill; st
 * is finalized. On success *out = t; on failure t is freed. st NULL (its
 * prepare failed and said why) is a failure. Returns 0, or -1 after diag.
 */
int basic_table_rows(struct store_stmt *st, struct table *t,
		     void (*fill)(struct table *t, size_t row, struct store_stmt *st), struct table **out)
{
	if (!st) {
		table_free(t);
		return -1;
	}
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
int basic_typed_rows(struct store_stmt *st, struct table *t, struct table **out)
{
	if (!st || store_rows_to_table(st, t) < 0) {
		table_free(t);
		return -1;
	}
	*out = t;
	return 0;
}

static int analysis_basic(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct store *s = ctx->store;
	const char *exp = ctx->experiment;
	struct table *groups = NULL, *kernels = NULL, *steps = NULL;
	if (basic_classify_all(s, exp, ctx->cls) < 0 || basic_build_groups(s, exp, ctx->cls, &groups) < 0)
		return -1;
	result_add_table(out, groups);
	if (basic_build_kernels(s, exp, &kernels) < 0)
		return -1;
	result_add_table(out, kernels);
	if (basic_build_steps(s, exp, &steps) < 0)
		return -1;
	result_add_table(out, steps);
	if (basic_build_runs(s, exp, &out->runs) < 0 || basic_strategies(s, exp, out->runs, out) < 0 ||
	    basic_runs_from_logs(s, exp, out->runs) < 0 ||
	    basic_add_source_notes(s, exp, out) < 0 ||
	    basic_add_device_notes(s, exp, out) < 0)
		return -1;
	struct table *devices = NULL, *top = NULL;
	if (basic_build_rank_devices(s, exp, &devices) < 0)
		return -1;
	result_add_table(out, devices);
	if (basic_build_top_kernels(s, exp, ctx->top_n, &top) < 0)
		return -1;
	result_add_table(out, top);
	/* the figures of groups, then group_totals (it reads runs) */
	basic_add_group_totals(ctx->cls, groups, out);

	basic_method_runs(out);
	basic_method_group_totals(out);
	basic_method_top_kernels(out);
	basic_method_groups(out);
	basic_method_kernels(out);
	basic_method_steps(out);
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
