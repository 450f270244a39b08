/*
 * findings_clock.c: the clock check of the waiting finding (findings.c,
 * issue 57 item 9), from clock_offsets.csv (crossrank.c).
 *
 * A wait of rank a for rank b in one collective is b's arrival minus a's,
 * each moved onto the reference clock by its rank's offset. An offset
 * wrong by d moves every arrival of that rank by d, so each wait between
 * a and b is off by at most the sum of the two offsets' errors. The
 * residual of a rank (clock_offsets.csv residual_us: the 90th percentile of
 * |its collective's end - the reference rank's - its offset|; the
 * reference rank's is 0) measures that error: collectives end together on
 * every rank, so what the offset leaves is the clock's. Definition: a
 * waiting rank's wait per step is trusted to within
 *     bound_us = k x (residual_a + residual_b)
 * where k is the number of matched collectives per step in which it waited
 * for the straggler b; it is trusted when bound_us is less than its wait
 * per step (collective_waits.csv wait_us summed, divided by its steps),
 * else not (the clocks alone could make it). Said only where a rank of the
 * finding has a residual above XR_RESIDUAL_WARN_NS (the warning's bound):
 * below it the clocks are within the method's precision.
 */
#include "analyze/findings/findings_clock.h"

#include <math.h>
#include <string.h>

#include "analyze/findings/cells.h"
#include "analyze/findings/findings_replay.h"
#include "analyze/ranks/crossrank.h"
#include "analyze/ranks/ranks_tables.h"
#include "util/buf.h"

/* The rank's residual (us) and reference rank from clock_offsets.csv; NAN where it has no row. */
static double residual_of(const struct table *co, const char *run, int rank, int *ref)
{
	int crun = col(co, CO_RUN), crank = col(co, CO_RANK), cres = col(co, CO_RESIDUAL_US), cref = col(co, CO_REFERENCE_RANK);
	for (size_t r = 0; co && crun >= 0 && crank >= 0 && cres >= 0 && r < co->nrows; r++) {
		const char *rr = text(co, r, crun);
		if (!rr || strcmp(rr, run) || num(co, r, crank) != rank)
			continue;
		double ref_rank = cref >= 0 ? num(co, r, cref) : NAN;
		if (ref && !isnan(ref_rank))
			*ref = (int)ref_rank;
		return num(co, r, cres);
	}
	return NAN;
}

int findings_clock_words(struct buf *s, const struct analysis_result *res, const char *run, int straggler,
			 const struct clock_wait *w, size_t n)
{
	const struct table *co = result_table(res, "clock_offsets");
	const double warn_us = XR_RESIDUAL_WARN_NS / 1000.0;
	int ref = -1;
	double es = residual_of(co, run, straggler, &ref);
	if (isnan(es))
		return 0;
	/* the ranks of the finding whose clocks crossrank warns of */
	struct buf who;
	buf_init(&who);
	size_t nwarned = 0;
	if (es > warn_us) {
		buf_printf(&who, "rank %d (%.1f us)", straggler, es);
		nwarned++;
	}
	for (size_t i = 0; i < n; i++) {
		double e = residual_of(co, run, w[i].rank, NULL);
		if (!isnan(e) && e > warn_us) {
			buf_printf(&who, "%srank %d (%.1f us)", nwarned ? ", " : "", w[i].rank, e);
			nwarned++;
		}
	}
	if (!nwarned) {
		buf_release(&who);
		return 0;
	}
	buf_printf(s, "; the clock%s of %s leave%s the ends of %s collectives that far from rank %d's after %s "
		   "offset%s (clock_offsets.csv residual_us, 90th percentile; more than %d us: the clock warning), "
		   "and a wait between two ranks is known only to within their two residuals per collective: ",
		   nwarned == 1 ? "" : "s", who.data, nwarned == 1 ? "s" : "", nwarned == 1 ? "its" : "their", ref,
		   nwarned == 1 ? "its" : "their", nwarned == 1 ? "" : "s", XR_RESIDUAL_WARN_NS / 1000);
	buf_release(&who);
	/* each named waiter's bound; the largest of the trusted ones, and the ones not trusted */
	double most = -1;
	int most_rank = -1;
	size_t untrusted = 0;
	struct buf no;
	buf_init(&no);
	for (size_t i = 0; i < n; i++) {
		double e = residual_of(co, run, w[i].rank, NULL);
		double bound = w[i].collectives * ((isnan(e) ? 0 : e) + es);
		if (bound < w[i].wait_us) {
			if (bound > most) {
				most = bound;
				most_rank = (int)i;
			}
			continue;
		}
		buf_printf(&no, "%srank %d's wait of ", untrusted ? ", " : "", w[i].rank);
		findings_time_words(&no, w[i].wait_us);
		buf_adds(&no, " per step (uncertain by up to ");
		findings_time_words(&no, bound);
		buf_adds(&no, ")");
		untrusted++;
	}
	if (untrusted)
		buf_printf(s, "%s %s not trusted: the clocks alone could make %s", no.data, untrusted == 1 ? "is" : "are",
			   untrusted == 1 ? "it" : "them");
	if (most_rank >= 0) {
		const struct clock_wait *m = &w[most_rank];
		double e = residual_of(co, run, m->rank, NULL);
		buf_adds(s, untrusted ? "; the others' waits are trusted to within " : "these waits are trusted to within ");
		findings_time_words(s, most);
		buf_printf(s, " per step (rank %d: %.1f collectives per step x %.1f us), less than each wait", m->rank,
			   m->collectives, (isnan(e) ? 0 : e) + es);
	}
	buf_release(&no);
	return 1;
}
