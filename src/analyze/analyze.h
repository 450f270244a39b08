/*
 * analyze.h: the analyses of one experiment, from the store to tables.
 *
 * analyze_experiment() classifies every activity of the experiment (writing
 * activity_groups), computes the aggregates (writing group_times and
 * kernel_stats into the store, so users can query them) and returns them as
 * tables for the report. Definitions, stated in the report's Methods too:
 *
 *   groups:  per run, rank and group, time_us = the summed duration of the
 *            rank's GPU activities (kernels, memcpy, memset) in that group
 *            over the whole trace file; fraction = time / the sum over all
 *            groups of that run and rank (empty when the sum is 0). Every
 *            group of the classification appears, with 0 where it has none.
 *   kernels: per run, rank and kernel name: calls, total, mean (total/calls
 *            rounded to the nearest ns, halves up), min and max duration.
 *            Sorted by run, rank, total descending, then name.
 *   steps:   per run, rank and ProfilerStep#N host range: its duration.
 *   runs:    one row per run: what the manifest says and what was read.
 *
 * Times are integer nanoseconds shown in microseconds. The caller owns the
 * tables (analysis_release).
 */
#ifndef PERFSTUDY_ANALYZE_H
#define PERFSTUDY_ANALYZE_H

#include "../store/store.h"
#include "classify.h"
#include "table.h"

struct analysis {
	struct table *runs;
	struct table *groups;
	struct table *kernels;
	struct table *steps;
};

/* Returns 0, or -1 after diag. */
int analyze_experiment(struct store *s, const char *experiment, const struct classifier *c,
		       struct analysis *out);
void analysis_release(struct analysis *a);

#endif
