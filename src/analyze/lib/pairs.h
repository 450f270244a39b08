/*
 * pairs.h: the pairs of runs an experiment compares (pairs.c): compare.c's
 * per-kernel differences and step_stats.c's test between compared runs.
 */
#ifndef PERFSTUDY_PAIRS_H
#define PERFSTUDY_PAIRS_H

#include <stddef.h>

#include "manifest/manifest.h"

/*
 * The pairs of runs to compare, as indexes into runs[] and
 * models[] ("" for none), nr runs in manifest order; *pairs is allocated
 * (caller frees). Returns how many.
 */
size_t compare_pairs(const struct manifest *m, const char *const *runs, const char *const *models, size_t nr,
		     size_t (**pairs)[2]);

#endif
