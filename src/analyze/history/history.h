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
 * step times. Beside it, each build keeps the parts of every run's
 * profiled step (parts.c), which follow from the inputs and are not part
 * of the state's digest. A build records a new state (build number + 1, with the time
 * of the build) only when it differs from the last one recorded, so a
 * rebuild that changes nothing writes the same bytes as the build before
 * it; the time of the build lives only in the store (history_builds), never
 * in a page or CSV. SOURCE_DATE_EPOCH, when set, is the time recorded.
 *
 * The carried history is staged in temporary tables (temp.h_*) while the
 * analyses run and written into the store's history_* tables at the end,
 * in one order whatever the build read, so the store's bytes do not depend
 * on whether the rows were carried or new. That SQL is the store's
 * (store/history.c: store_history_open carries the previous build's
 * history over, before the analyses); history.c decides what to keep.
 *
 * The contracts (util/table.h) of the family's tables are in this header:
 * changes.csv, series.csv and history.csv (history.c), compare.csv
 * (compare.c), compare_phases.csv (compare_phases.c), step_diff.csv
 * (step_diff.c).
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
/* Adds a row (change, run, item, old, new) to changes.csv's table t; old and new may be NULL. */
void history_change_row(struct table *t, const char *change, const char *run, const char *item, const char *old,
			const char *new);

int64_t history_build_time(void);

/*
 * After an experiment's analyses: records its state as build built_at when
 * it differs from the last one staged, and adds to res the table changes
 * (what changed since the build before), the table series and a trend
 * figure per series of the manifest m (may be NULL), with their Methods.
 * Returns 0, or -1 after diag.
 */
int history_record(struct store *s, const char *exp, const struct manifest *m, const struct classifier *cls,
		   struct analysis_result *res, int64_t built_at);

/*
 * Stages the parts of each run's profiled step (parts.c says how they
 * partition it) into temp.h_parts as build `build` of exp; cls names the
 * kernel groups, m's phases the regions (m may be NULL). Returns 0, or -1
 * after diag.
 */
int history_parts_stage(struct store *s, const char *exp, const struct manifest *m, const struct classifier *cls,
			int64_t build);

/*
 * Inside the build's transaction, after every experiment: writes the
 * staged history into history_builds, history_runs, history_inputs,
 * history_numbers, history_steps, and each experiment's thresholds into
 * history_thresholds. Returns 0, or -1 after diag.
 */
int history_write(struct store *s, const char *const *exps, const struct manifest *const *manifests, size_t nexp);

/* changes.csv's columns, in order (history.c; the report lists them at the top of the page). */
#define CHANGES_COLUMNS(X)                                \
	X(CHG_CHANGE, "change", text)                     \
	X(CHG_RUN, "run", text)                           \
	X(CHG_ITEM, "item", text)                         \
	X(CHG_OLD, "old", text)                           \
	X(CHG_NEW, "new", text)                           \
	X(CHG_DIFF_PCT, "diff_pct", real)                 \
	X(CHG_P_VALUE, "p_value", real)                   \
	X(CHG_VERDICT, "verdict", text)                   \
	X(CHG_THRESHOLD_CROSSED, "threshold_crossed", text)
enum changes_col { CHANGES_COLUMNS(TABLE_COL_ENUM) CHG_NCOLS };

/*
 * One build's state of one experiment (struct hstate, struct hstate_run)
 * is read back from a store's history tables by hstate_load
 * (store/hstate.c, store.h).
 */

/*
 * A run's step time in builds a and b judged by verdict.h (judge.c says on
 * which samples); *use_log: the training log's iterations, else the
 * profiled steps; *same: the very same samples. Returns 0, or -1 when a
 * side has none.
 */
struct judgement;
int history_step_judge(const struct hstate_run *a, const struct hstate_run *b, const struct history_limits *lim,
		       struct judgement *j, int *use_log, int *same);
/* The step time's minimum effect, a fraction: thresholds.step_time_pct, else 5 %. */
double history_min_effect(const struct history_limits *lim);
/*
 * A headline number's own test: gpu_busy_frac on its per-step samples
 * (parts.c), achieved_tflops_per_gpu, mfu and samples_per_s on the
 * reciprocals of the step samples. Returns 0, or -1 when it has none.
 */
int history_number_judge(const struct hstate_run *a, const struct hstate_run *b, const char *metric,
			 struct judgement *j);

/*
 * Where a run's change of step time went (history_explain.c): per kernel
 * group, kernel, region and rank, each member's part of the step in the
 * old and the new build (us per step; a rank's is its step / the ranks),
 * largest change first. The names point into the hstates given.
 */
enum { EXPLAIN_GROUP, EXPLAIN_KERNEL, EXPLAIN_REGION, EXPLAIN_RANK, EXPLAIN_DIMS };
struct contrib {
	const char *name;
	double old_us, new_us;
	int status;               /* 0 in both builds, 1 appeared, 2 vanished */
	double old_work, new_work; /* ranks: their compute and copies (us per step), NAN unknown */
};
struct explain {
	double old_step, new_step, old_idle, new_idle; /* us per step */
	size_t old_ranks, new_ranks;
	struct contrib *list[EXPLAIN_DIMS];
	size_t n[EXPLAIN_DIMS];
};
/* Fills e from the parts of a and b; -1 when either has none (a store written before them). */
int history_explain(const struct hstate_run *a, const struct hstate_run *b, struct explain *e);
void history_explain_release(struct explain *e);
/* The contributors on stdout, the largest few per list, escaped (diag_line). */
void history_explain_print(const char *exp, const char *run, const struct explain *e);
/* e as a JSON object, every contributor, appended to b. */
struct buf;
void history_explain_json(struct buf *b, const struct explain *e);
/* A JSON number (null when not finite), appended to b; strings: json_add_str (util/buf.h). */
void history_json_num(struct buf *b, double v);

/*
 * The rows of run a's inputs (old) against b's (new) appended to the
 * change table t: 're-read', 'inputs moved' (once for the run), 'input
 * added', 'input removed' (history_inputs.c says how they are matched).
 */
void history_input_rows(struct table *t, const struct hstate_run *a, const struct hstate_run *b);

/*
 * The changes from old to new as rows of a new table `changes` (added,
 * removed and re-read runs, numbers that moved, each with the Mann-Whitney
 * test of the run's step times and whether a threshold was crossed);
 * *crossed counts the rows that crossed a threshold.
 */
struct table *history_changes(const struct hstate *old, const struct hstate *cur, const struct history_limits *lim,
			      size_t *crossed);

/* compare.csv's columns, in order (compare.c). */
#define COMPARE_COLUMNS(X)            \
	X(CMP_RUN_A, "run_a", text)   \
	X(CMP_RUN_B, "run_b", text)   \
	X(CMP_LEVEL, "level", text)   \
	X(CMP_NAME, "name", text)     \
	X(CMP_GROUP, "group", text)   \
	X(CMP_A_US, "a_us", us)       \
	X(CMP_B_US, "b_us", us)       \
	X(CMP_DIFF_US, "diff_us", us) \
	X(CMP_RATIO, "ratio", real)
enum compare_col { COMPARE_COLUMNS(TABLE_COL_ENUM) CMP_NCOLS };

/* compare_phases.csv's columns, in order (compare_phases.c). */
#define COMPARE_PHASES_COLUMNS(X)              \
	X(CPHS_RUN_A, "run_a", text)           \
	X(CPHS_RUN_B, "run_b", text)           \
	X(CPHS_SOURCE, "source", text)         \
	X(CPHS_PHASE, "phase", text)           \
	X(CPHS_A_US, "a_us", us)               \
	X(CPHS_B_US, "b_us", us)               \
	X(CPHS_RATIO, "ratio", real)           \
	X(CPHS_CHANGE_PCT, "change_pct", real)
enum compare_phases_col { COMPARE_PHASES_COLUMNS(TABLE_COL_ENUM) CPHS_NCOLS };

/* step_diff.csv's columns, in order (step_diff.c). */
#define STEP_DIFF_COLUMNS(X)                                     \
	X(SD_RUN, "run", text)                                   \
	X(SD_BASELINE, "baseline", text)                         \
	X(SD_RANKS, "ranks", int)                                \
	X(SD_STEP_US, "step_us", us)                             \
	X(SD_BASELINE_STEP_US, "baseline_step_us", us)           \
	X(SD_EXTRA_US, "extra_us", us)                           \
	X(SD_BUSY_EXTRA_US, "busy_extra_us", us)                 \
	X(SD_EXPOSED_COMM_EXTRA_US, "exposed_comm_extra_us", us) \
	X(SD_EXPOSED_WAIT_EXTRA_US, "exposed_wait_extra_us", us) \
	X(SD_IDLE_EXTRA_US, "idle_extra_us", us)
enum step_diff_col { STEP_DIFF_COLUMNS(TABLE_COL_ENUM) SD_NCOLS };

/* series.csv's columns, in order (history.c). */
#define SERIES_COLUMNS(X)                                   \
	X(SER_SERIES, "series", text)                       \
	X(SER_ORDER, "order", int)                          \
	X(SER_RUN, "run", text)                             \
	X(SER_STEPS, "steps", int)                          \
	X(SER_MEDIAN_US, "median_us", us)                   \
	X(SER_CI_LOW_US, "ci_low_us", us)                   \
	X(SER_CI_HIGH_US, "ci_high_us", us)                 \
	X(SER_RATIO_TO_PREVIOUS, "ratio_to_previous", real) \
	X(SER_P_VALUE, "p_value", real)                     \
	X(SER_VERDICT, "verdict", text)
enum series_col { SERIES_COLUMNS(TABLE_COL_ENUM) SER_NCOLS };

/* history.csv's columns, in order (history.c). */
#define HISTORY_COLUMNS(X)                           \
	X(HIST_BUILD, "build", int)                  \
	X(HIST_RUN, "run", text)                     \
	X(HIST_SAMPLES, "samples", int)              \
	X(HIST_SOURCE, "source", text)               \
	X(HIST_MEDIAN_US, "median_us", us)           \
	X(HIST_CI_LOW_US, "ci_low_us", us)           \
	X(HIST_CI_HIGH_US, "ci_high_us", us)         \
	X(HIST_GPU_BUSY_FRAC, "gpu_busy_frac", real) \
	X(HIST_MFU, "mfu", real)
enum history_col { HISTORY_COLUMNS(TABLE_COL_ENUM) HIST_NCOLS };

#endif
