/*
 * findings_why.h: the why and the price of a straggler, for findings.c: what fixing
 * it would save per step (from the collectives' exposed waits) and the
 * mechanism straggler_causes.csv names, in words with the fix to try.
 */
#ifndef PERFSTUDY_WHY_H
#define PERFSTUDY_WHY_H
#include "analyze/analysis.h"
#include "util/buf.h"

/*
 * How much shorter run's profiled steps would be, in us per step, if rank
 * straggler arrived at its collectives with the others (see findings_why.c);
 * *noise the largest such saving of any other rank of the run (the ranks'
 * natural straggling). NAN (and *noise 0) without matched collectives.
 */
double why_saving(const struct analysis_result *res, const char *run, int straggler, double *noise);
/*
 * Appends to b the straggler's mechanism (straggler_causes.csv mechanism)
 * in words, with the numbers behind it and the fix an engineer would try;
 * nothing when the table has no row for it. Returns the mechanism word, or
 * NULL.
 */
const char *why_mechanism(struct buf *b, const struct analysis_result *res, const char *run, int straggler);
/* The straggler's mechanism word (straggler_causes.csv, its region rows), or NULL. */
const char *why_rank_mechanism(const struct analysis_result *res, const char *run, int straggler);
/*
 * Appends the saving in words: "about X ms per step (Y % of the training's
 * step; ...)", with the profiler factor overhead it was scaled by (0: none).
 */
void why_saving_words(struct buf *b, const struct analysis_result *res, const char *run, int straggler, double saving,
		      double overhead);
/* straggler_causes.csv's row of run, rank, where and region with an empty name (the region's), or -1. */
long why_region_row(const struct table *t, const char *run, int rank, const char *where, const char *region);
/*
 * A straggler_causes.csv region in words after a time: "in forward", or
 * "outside every phase" for the region "(outside phases)" (issue #57: the
 * key read as raw text, "in (outside phases)"). Returns buf.
 */
const char *why_region_words(const char *region, char *buf, size_t n);
/* Its first named row in that region (the largest excess; never the gap row), or -1. */
long why_top_name_row(const struct table *t, const char *run, int rank, const char *where, const char *region);
/* The rank's excess per step (us) summed over its region rows (no name) on one side, positive ones only. */
double why_side_excess(const struct table *t, const char *run, int rank, const char *where);
#endif
