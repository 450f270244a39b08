/*
 * findings_clock.h: what a clock warning changes for the waiting finding
 * (findings_clock.c). crossrank.c warns where a rank's clock offset leaves
 * the ends of its collectives more than XR_RESIDUAL_WARN_NS from the
 * reference rank's (clock_offsets.csv residual_us); a waiting finding about
 * such a rank (the straggler, or a rank it names as waiting) then says how
 * far its waits are trusted, or that they are not.
 */
#ifndef PERFSTUDY_FINDINGS_CLOCK_H
#define PERFSTUDY_FINDINGS_CLOCK_H

#include <stddef.h>

#include "analyze/analysis.h"

struct buf;

/* One rank named as waiting for the straggler: its wait and the collectives it waited in, per step. */
struct clock_wait {
	int rank;
	double wait_us;     /* its wait for the straggler in all (wait_us), per step */
	double collectives; /* matched collectives per step in which it waited for the straggler */
};

/*
 * Appends to s, where the straggler or a rank of w[0..n) has a clock
 * residual above the warning's bound, "; " and what that changes: the
 * waits trusted to within a bound, or the waits it cannot tell from the
 * clocks'. Returns 1 when it appended, 0 when no rank of the finding has
 * such a residual (nothing appended).
 */
int findings_clock_words(struct buf *s, const struct analysis_result *res, const char *run, int straggler,
			 const struct clock_wait *w, size_t n);

#endif
