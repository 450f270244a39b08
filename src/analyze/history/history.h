/*
 * history.h: a study over time. Every build keeps, in its store, the
 * headline numbers of every run, its step times and its inputs' SHA-256,
 * carried over from the previous build's store in the output directory;
 * each experiment's page says what changed since the build before and
 * draws the manifest's series as trends; `perfstudy diff` compares two
 * output directories.
 *
 * A build's state of an experiment is its runs, their inputs (path, size,
 * SHA-256), numbers (step_stats.csv, utilization.csv, temporal.csv) and
 * step times. A build records a new state (build number + 1, with the time
 * of the build) only when it differs from the last one recorded, so a
 * rebuild that changes nothing writes the same bytes as the build before
 * it; the time of the build lives only in the store (history_builds), never
 * in a page or CSV. SOURCE_DATE_EPOCH, when set, is the time recorded.
 *
 * The carried history is staged in temporary tables (temp.h_*) while the
 * analyses run and written into the store's history_* tables at the end,
 * in one order whatever the build read, so the store's bytes do not depend
 * on whether the rows were carried or new.
 */
#ifndef PERFSTUDY_HISTORY_H
#define PERFSTUDY_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/analysis.h"
#include "store/store.h"

/* The thresholds of a manifest's 'thresholds' (0: none). */
struct history_limits {
	double step_time_pct, mfu_pp;
};

/* Seconds since the epoch: SOURCE_DATE_EPOCH when it is a number, else now. */
int64_t history_build_time(void);

/*
 * Outside a transaction, before the analyses: stages the history of the
 * previous store prev_db (missing, unreadable or without history: an empty
 * one; unless quiet, stderr says why an existing store's is not carried).
 * Returns 0, or -1 after diag.
 */
int history_open(struct store *s, const char *prev_db, int quiet);

/*
 * After an experiment's analyses: records its state as build built_at when
 * it differs from the last one staged, and adds to res the table changes
 * (what changed since the build before), the table series and a trend
 * figure per series of the manifest m (may be NULL), with their Methods.
 * Returns 0, or -1 after diag.
 */
int history_record(struct store *s, const char *exp, const struct manifest *m, struct analysis_result *res,
		   int64_t built_at);

/*
 * Inside the build's transaction, after every experiment: writes the
 * staged history into history_builds, history_runs, history_inputs,
 * history_numbers, history_steps, and each experiment's thresholds into
 * history_thresholds. Returns 0, or -1 after diag.
 */
int history_write(struct store *s, const char *const *exps, const struct manifest *const *manifests, size_t nexp);

/* One build's state of one experiment, as the history tables hold it. */
struct hstate_run {
	char *run;
	size_t ninputs;
	char **paths, **sha256;
	int64_t *sizes;
	size_t nnumbers;
	char **metrics;
	double *values;
	size_t nsteps;
	int64_t *steps; /* one per profiled step, the slowest rank's */
	size_t nlog;
	int64_t *log;   /* the unprofiled iterations of its training log */
};

struct hstate {
	int64_t build, built_at;
	size_t nruns;
	struct hstate_run *runs; /* by run id */
};

/*
 * Loads build `build` of experiment exp from s's tables <prefix>builds,
 * <prefix>runs, ... (prefix "history_" in a store, "temp.h_" while
 * staging). Returns 0, or -1 after diag naming s's file.
 */
int hstate_load(struct store *s, const char *prefix, const char *exp, int64_t build, struct hstate *st);
void hstate_release(struct hstate *st);

/*
 * The changes from old to new as rows of a new table `changes` (added,
 * removed and re-read runs, numbers that moved, each with the Mann-Whitney
 * test of the run's step times and whether a threshold was crossed);
 * *crossed counts the rows that crossed a threshold.
 */
/*
 * perfstudy diff: compares the latest build of each experiment recorded in
 * OLD_DIR/perfstudy.db and NEW_DIR/perfstudy.db, printing one line per
 * change on stdout (with quiet, only threshold crossings) and a summary;
 * *crossed: the thresholds crossed. Returns 0, or -1 after diag (a store
 * missing, unreadable or without history).
 */
int history_diff(const char *old_dir, const char *new_dir, int quiet, size_t *crossed);

struct table *history_changes(const struct hstate *old, const struct hstate *cur, const struct history_limits *lim,
			      size_t *crossed);

#endif
