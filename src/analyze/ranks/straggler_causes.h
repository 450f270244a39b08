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
 * A mechanism code of straggler_causes.csv ("pageable_copy", "host_sync",
 * ...) in a few words ("pageable-memory copy"); NULL for a code it does
 * not make.
 */
const char *straggler_mechanism_words(const char *code);

#endif
