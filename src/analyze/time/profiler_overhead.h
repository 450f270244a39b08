/*
 * profiler_overhead.h: what profiler_overhead.c (profiler_overhead.csv) hands to
 * the analyses after it: the training log's unprofiled step, the profiler's
 * factor and the training's step-to-step noise, per run.
 */
#ifndef PERFSTUDY_PROFILER_OVERHEAD_H
#define PERFSTUDY_PROFILER_OVERHEAD_H

#include <stdint.h>

#include "analyze/analysis.h"

/*
 * From res's profiler_overhead.csv (the analysis runs early): run's median
 * unprofiled log iteration in ns, and its overhead; 0 where there is none.
 */
int64_t profiler_unprofiled_ns(const struct analysis_result *res, const char *run);
double profiler_overhead_of(const struct analysis_result *res, const char *run);
/* How many unprofiled iterations of the run's training log profiler_overhead.csv counts (0: none). */
int64_t profiler_unprofiled_count(const struct analysis_result *res, const char *run);
/*
 * The same median read from the store, without the analysis (`perfstudy
 * whatif`): *median_ns (0: no unprofiled iteration) and *count of run of
 * experiment exp. Returns 0, or -1 after diag.
 */
int profiler_unprofiled_median(struct store *s, const char *exp, const char *run, int64_t *median_ns,
			       int64_t *count);
/* The training's step-to-step noise (profiler_overhead.csv unprofiled_sigma_us) in ns; 0 when unknown. */
int64_t profiler_noise_ns(const struct analysis_result *res, const char *run);

#endif
