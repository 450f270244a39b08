/*
 * findings_int.h: what findings.c shares with the rules in other files of
 * findings/ that add their statements through it (findings_wait.c: waiting,
 * cause and straggler-windows): the findings being gathered, the statement
 * appender and the per-rank pooled ratios.
 */
#ifndef PERFSTUDY_FINDINGS_INT_H
#define PERFSTUDY_FINDINGS_INT_H

#include <stddef.h>

#include "analyze/analysis.h"
#include "analyze/findings/cells.h"
#include "analyze/findings/findings_order.h"
#include "analyze/findings/findings_replay.h"
#include "util/buf.h"

struct findings {
	struct table *t;
	struct pending *p;
	size_t np, capp;
	double saving; /* the saving of the next add(), us per step; NAN none (add resets it) */
	struct buf s;
	struct buf rule; /* the rule text being formatted (rulef) */
	double overhead; /* the current run's profiler overhead (profiler_overhead.csv); 0: unknown */
	struct replay_price rp; /* the replay's price of the straggler; rp.what NULL: the collectives' price */
};

/* Per rank of one run, sum(num(a)) / sum(num(b)) over the rows of that run and rank (b < 0: their mean). */
struct rank_mean {
	int rank;
	double a, b;
	size_t n; /* rows */
};

static const struct rank_keys ranks_keys = {RANKS_RUN, RANKS_RANK, RANKS_STEP}, gi_keys = {GI_RUN, GI_RANK, -1},
	cpath_keys = {CPATH_RUN, CPATH_RANK, CPATH_STEP}, temporal_keys = {TEMPORAL_RUN, TEMPORAL_RANK, -1};

/* A rule text with its thresholds printed in; valid until the next call. */
const char *findings_rulef(struct findings *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds f->s as a statement of run (and rank, -1: the run) with its value, evidence table and rule. */
void findings_add(struct findings *f, const char *run, int rank, double value, const char *evidence,
		  const char *rule);
struct partial;
/*
 * Per rank, pooled over whole steps of t's rows of run: sum of column a over
 * sum of column b (b < 0: their count); *out one entry per rank; returns how many.
 */
size_t findings_rank_means(const struct table *t, const struct rank_keys *k, const char *run, int a, int b,
			   const struct partial *p, struct rank_mean **out);
int findings_cmp_rank_mean(const void *pa, const void *pb);
/* The entry of rank in m, sorted by rank (findings_cmp_rank_mean), or NULL. */
const struct rank_mean *findings_rank_mean_find(const struct rank_mean *m, size_t n, int rank);
/* m sorted by rank: the ratio of its sums for rank, or NAN. */
double findings_ratio_of(const struct rank_mean *m, size_t n, int rank);
/*
 * waiting, cause and straggler-windows (findings_wait.c): the rank the
 * others waited for longest in run, its cause and windows; returns that
 * rank, -1 when none is stated, -2 when the run has no matched collectives.
 */
int findings_rule_waiting(struct findings *f, const struct analysis_result *res, const char *run);

#endif
