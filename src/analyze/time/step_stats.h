/*
 * step_stats.h: the step samples of a run and the verdict on two of them
 * (step_stats.c), and the contracts of step_stats.csv and step_compare.csv
 * (util/table.h), which the report and other analyses read back.
 */
#ifndef PERFSTUDY_STEPSTATS_H
#define PERFSTUDY_STEPSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "analyze/lib/stats.h"
#include "util/table.h"

/*
 * Every ProfilerStep#N host range's duration of every rank of run `run` of
 * experiment exp, in rank and step order (*v allocated, caller frees), and
 * the number of ranks with steps. Returns 0, or -1 after diag.
 */
int step_samples(struct store *s, const char *exp, const char *run, int64_t **v, size_t *n, int64_t *ranks);

/*
 * "change" when the test's p is below STATS_ALPHA, "too few steps" when no
 * samples of n and m values could reach it (2 / C(n + m, n) >= STATS_ALPHA),
 * else "within noise".
 */
const char *step_verdict(const struct mw_test *t, size_t n, size_t m);

/* step_stats.csv's columns, in order. */
#define STEP_STATS_COLUMNS(X)              \
	X(SS_RUN, "run", text)             \
	X(SS_RANKS, "ranks", int)          \
	X(SS_STEPS, "steps", int)          \
	X(SS_MEDIAN_US, "median_us", us)   \
	X(SS_CI_LOW_US, "ci_low_us", us)   \
	X(SS_CI_HIGH_US, "ci_high_us", us) \
	X(SS_CI_LEVEL, "ci_level", frac)   \
	X(SS_MIN_US, "min_us", us)         \
	X(SS_MAX_US, "max_us", us)         \
	X(SS_MEAN_US, "mean_us", us)       \
	X(SS_GPU_PERIODS, "gpu_periods", int) \
	X(SS_GPU_PERIOD_MEDIAN_US, "gpu_period_median_us", us)
enum step_stats_col { STEP_STATS_COLUMNS(TABLE_COL_ENUM) SS_NCOLS };

/*
 * A run whose step (step_stats.csv median_us, its ProfilerStep#N host
 * ranges) is under this share of its GPU-side period (gpu_period_median_us)
 * ran an asynchronous loop: its host ranges are the time to enqueue a step,
 * the period is the step (Key numbers, step_compare.csv).
 */
#define STEP_ASYNC_SHARE 0.8

/* step_compare.csv's columns, in order (step_stats.c). */
#define STEP_COMPARE_COLUMNS(X)               \
	X(STC_RUN_A, "run_a", text)           \
	X(STC_RUN_B, "run_b", text)           \
	X(STC_STEPS_A, "steps_a", int)        \
	X(STC_STEPS_B, "steps_b", int)        \
	X(STC_MEDIAN_A_US, "median_a_us", us) \
	X(STC_MEDIAN_B_US, "median_b_us", us) \
	X(STC_RATIO, "ratio", real)           \
	X(STC_U, "u", real)                   \
	X(STC_P_VALUE, "p_value", real)       \
	X(STC_P_METHOD, "p_method", text)     \
	X(STC_VERDICT, "verdict", text)       \
	X(STC_COMPARED, "compared", text)
enum step_compare_col { STEP_COMPARE_COLUMNS(TABLE_COL_ENUM) STC_NCOLS };

#endif
