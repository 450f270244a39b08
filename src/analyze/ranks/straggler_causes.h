/*
 * straggler_causes.h: what straggler_causes.c hands to the findings and
 * the report.
 */
#ifndef PERFSTUDY_STRAGGLER_CAUSES_H
#define PERFSTUDY_STRAGGLER_CAUSES_H

#include "analyze/analysis.h"

/*
 * The side that made rank late (straggler_causes.c): *busy its GPU's extra
 * compute time and *idle its GPU's extra idle time per step against the
 * median of the run's other ranks (us; NAN where straggler_ranks.csv or
 * ranks.csv lack them). busy > idle: GPU-bound, else host-bound.
 */
void straggler_side(const struct analysis_result *res, const char *run, int rank, double *busy, double *idle);
/*
 * straggler_causes.csv's mechanism codes (its column mechanism), one each:
 * straggler_causes.c's table gives each its code ("pageable_copy",
 * "host_sync", ...) and its words.
 */
enum straggler_mech {
	SM_PAGEABLE_COPY, SM_COPY, SM_HOST_SYNC, SM_HOST_OUTSIDE_OPS, SM_UNEVEN_DATA, SM_SLOWER_GPU, SM_EXTRA_WORK,
	SM_MORE_CALLS, SM_DIFFERENT_KERNEL, SM_SLOWER_KERNELS, SM_SLOWER_HOST,
	NSMECH
};
/* The mechanism of a code of the column; NSMECH for NULL or a code it does not make. */
enum straggler_mech straggler_mechanism(const char *code);
/*
 * A mechanism code in a few words ("pageable-memory copy"); NULL for a
 * code it does not make.
 */
const char *straggler_mechanism_words(const char *code);

#endif
