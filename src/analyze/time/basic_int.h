/*
 * basic_int.h: what the basic analysis's files share. basic.c runs the
 * analysis (the order of its tables, figures, notes and Methods); the
 * makers are basic_runs.c (runs, rank_devices, steps, the notes on trace
 * files), basic_groups.c (the classification, groups, group_totals and
 * their figures), basic_kernels.c (kernel_stats, kernels, top_kernels) and
 * basic_strategy.c (runs.csv's strategy). Each maker returns 0 and sets
 * *out, or -1 after diag; each basic_method_* adds its tables' Methods
 * text.
 */
#ifndef PERFSTUDY_BASIC_INT_H
#define PERFSTUDY_BASIC_INT_H

#include "analyze/analysis.h"
#include "store/store.h"
#include "util/table.h"

/*
 * A row of t for each row of st (prepared and bound), filled by fill; st
 * is finalized. On success *out = t; on failure t is freed. st NULL (its
 * prepare failed and said why) is a failure. Returns 0, or -1 after diag
 * (basic.c).
 */
int basic_table_rows(struct store_stmt *st, struct table *t,
		     void (*fill)(struct table *t, size_t row, struct store_stmt *st), struct table **out);
/* The rows of st in t by its column types (store_rows_to_table), st NULL as above: *out = t, or t freed; 0, or -1 after diag. */
int basic_typed_rows(struct store_stmt *st, struct table *t, struct table **out);

/* "NAME (ID)" as nvprof prints a device, the id alone without a name; NULL when the rank's device is unknown. */
#define DEVICE_LABEL(t) "coalesce((SELECT d.name || ' (' || d.device || ')' FROM devices d WHERE d.trace_id = " t ".id" \
	" AND d.device = " t ".device AND d.name IS NOT NULL ORDER BY d.rowid LIMIT 1), CAST(" t ".device AS TEXT))"

/* basic_runs.c */
int basic_build_runs(struct store *s, const char *exp, struct table **out);
int basic_build_rank_devices(struct store *s, const char *exp, struct table **out);
int basic_build_steps(struct store *s, const char *exp, struct table **out);
/* Notes on the trace files without a GPU timeline, and on each file whose activities are on several devices. */
int basic_add_source_notes(struct store *s, const char *exp, struct analysis_result *out);
int basic_add_device_notes(struct store *s, const char *exp, struct analysis_result *out);
/*
 * Fills runs' model and batch where the manifest gives none from the run's
 * training logs (the parameter count of "params N world W strategy S",
 * "global batch size" over the run's GPUs), and model_source and
 * batch_source for every run with one. Returns 0, or -1 after diag.
 */
int basic_runs_from_logs(struct store *s, const char *exp, struct table *runs);
void basic_method_runs(struct analysis_result *out); /* runs.csv, then ranks and devices */
void basic_method_steps(struct analysis_result *out);

/* basic_groups.c */
/* activity_groups: one row per distinct (kind, name) of the experiment, classified by c. */
int basic_classify_all(struct store *s, const char *exp, const struct classifier *c);
/* groups.csv, also written into the store's group_times; after basic_classify_all. */
int basic_build_groups(struct store *s, const char *exp, const struct classifier *c, struct table **out);
/*
 * The figures of groups (group_fractions, and group_fractions_run where a
 * run has several ranks) and group_totals.csv, from groups and out->runs.
 */
void basic_add_group_totals(const struct classifier *cls, const struct table *groups, struct analysis_result *out);
void basic_method_group_totals(struct analysis_result *out);
void basic_method_groups(struct analysis_result *out);

/* basic_kernels.c */
/* kernels.csv, from the store's kernel_stats, which it writes first; after basic_classify_all. */
int basic_build_kernels(struct store *s, const char *exp, struct table **out);
/* top_kernels.csv: the first top_n of each run; after basic_build_kernels. */
int basic_build_top_kernels(struct store *s, const char *exp, int top_n, struct table **out);
void basic_method_top_kernels(struct analysis_result *out);
void basic_method_kernels(struct analysis_result *out);

/* basic_strategy.c */
/*
 * Fills runs' strategy where the manifest gives none, from the run's traces'
 * annotations or its training logs, and strategy_source for every run with
 * one; notes where they disagree. Returns 0, or -1 after diag.
 */
int basic_strategies(struct store *s, const char *exp, struct table *runs, struct analysis_result *out);

#endif
