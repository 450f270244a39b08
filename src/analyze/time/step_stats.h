/* step_stats.h: the step samples of a run and the verdict on two of them (step_stats.c). */
#ifndef PERFSTUDY_STEPSTATS_H
#define PERFSTUDY_STEPSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "analyze/lib/stats.h"

/*
 * Every ProfilerStep#N host range's duration of every rank of run `run` of
 * experiment exp, in rank and step order (*v allocated, caller frees), and
 * the number of ranks with steps. Returns 0, or -1 after diag.
 */
int step_samples(struct store *s, const char *exp, const char *run, int64_t **v, size_t *n, int64_t *ranks);

/* "change" when the test's p is below STATS_ALPHA, else "within noise". */
const char *step_verdict(const struct mw_test *t);

#endif
