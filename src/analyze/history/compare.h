/*
 * compare.h: the pairs of runs compare.c compares, for step_stats.c's test
 * between compared runs.
 */
#ifndef PERFSTUDY_COMPARE_H
#define PERFSTUDY_COMPARE_H

#include <stddef.h>

#include "manifest/manifest.h"

/*
 * compare.c: the pairs of runs to compare, as indexes into runs[] and
 * models[] ("" for none), nr runs in manifest order; *pairs is allocated
 * (caller frees). Returns how many.
 */
size_t compare_pairs(const struct manifest *m, const char *const *runs, const char *const *models, size_t nr,
		     size_t (**pairs)[2]);

#endif
