/*
 * crossexp.h: comparisons across the experiments of one build (the
 * manifest's 'comparisons'), after every experiment has been analysed.
 *
 * A comparison names runs of its own manifest ("run") and of the build's
 * other experiments ("experiment/run") and a metric "table.column"; each
 * run's value comes from that table of the run's own experiment, the ratio
 * to the baseline run's value goes into comparisons.csv, and the values into
 * a grouped (or, with stack_by, stacked) bar figure by system and GPU count.
 * comparisons.csv's contract (util/table.h) is at the end.
 */
#ifndef PERFSTUDY_CROSSEXP_H
#define PERFSTUDY_CROSSEXP_H

#include <stddef.h>

#include "analyze/analysis.h"

/* One experiment of the build. */
struct crossexp_exp {
	const char *id;
	const struct manifest *manifest;   /* NULL for a build from directories */
	const char *const *runs;           /* its run ids */
	size_t nruns;
	const struct analysis_result *res; /* its analysis; NULL before it is analysed */
};

/*
 * Checks every comparison's references to other experiments against the
 * build: a run an experiment of the build does not have is an error
 * (file:line:col), an experiment not in the build a warning (the
 * comparison leaves it out). Returns 0, or -1 after reporting errors.
 */
int crossexp_check(const struct crossexp_exp *e, size_t n);

/*
 * Appends experiment self's comparisons to out: the table comparisons.csv,
 * a figure comparison_<id> each, their Methods and notes. Every e[i].res
 * must be set. Returns 0, or -1 after diag (a metric column the table does
 * not have, or one that is not a number).
 */
int crossexp_add(const struct crossexp_exp *e, size_t n, size_t self, struct analysis_result *out);

/* comparisons.csv's columns, in order (crossexp.c). */
#define COMPARISONS_COLUMNS(X)                         \
	X(CMPS_COMPARISON, "comparison", text)         \
	X(CMPS_SYSTEM, "system", text)                 \
	X(CMPS_EXPERIMENT, "experiment", text)         \
	X(CMPS_RUN, "run", text)                       \
	X(CMPS_GPUS, "gpus", int)                      \
	X(CMPS_KEY, "key", text)                       \
	X(CMPS_VALUE, "value", real)                   \
	X(CMPS_BASELINE, "baseline", text)             \
	X(CMPS_BASELINE_VALUE, "baseline_value", real) \
	X(CMPS_RATIO, "ratio", real)                   \
	X(CMPS_CHANGE_PCT, "change_pct", real)         \
	X(CMPS_LOG_MS, "log_ms", real)                 \
	X(CMPS_LOG_RATIO, "log_ratio", real)
enum comparisons_col { COMPARISONS_COLUMNS(TABLE_COL_ENUM) CMPS_NCOLS };

#endif
