/*
 * findings_int.h: what findings.c shares with the rules in other files of
 * findings/ that add their statements through it (findings_wait.c: waiting,
 * cause, straggler-windows and comm-skew; findings_scaling.c: scaling;
 * findings_host.c: host-bound and gpu-idle; findings_roofline.c: op-roofline): the findings being gathered,
 * the statement appender, the per-rank pooled ratios and views.
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
/* What the tables say of one rank of a run, each pooled over its whole steps (NAN where no table says). */
struct rank_view {
	int rank;
	double comm; /* ranks.csv comm_us / step_us */
	double idle; /* gpu_idle.csv idle_share (else ranks.csv idle_us / step_us) */
	double host; /* critical_path.csv host_us / step_us */
	double host_outside; /* critical_path.csv host_outside_ops_us / step_us: of host, outside every operator */
	double gap_us;  /* replay_fixes.csv host_gap gap_us_per_step (0: none); NAN: not replayed */
	double step_us; /* critical_path.csv step_us, the mean */
	double host_wait; /* gpu_idle.csv host_wait_share: of the GPU's idle time, the share waiting for the host */
};

/* One view per rank of run from ranks.csv, critical_path.csv and gpu_idle.csv (findings.c); *out freed by the caller. */
size_t findings_rank_views(const struct analysis_result *res, const char *run, struct rank_view **out);

/*
 * scaling (findings_scaling.c): run's speedup and efficiency against its
 * baseline, from scaling.csv sc (runs: runs.csv, for the baseline a row
 * does not name).
 */
void findings_rule_scaling(struct findings *f, const struct analysis_result *res, const struct table *runs,
			   const struct table *sc, const char *run);
/*
 * comm-skew (findings_wait.c): without matched collectives, the ranks that
 * spend more of their step inside collectives wait for the rank with the
 * least; returns the index in v of the rank waited for, or -1.
 */
long findings_rule_comm_skew(struct findings *f, const char *run, const struct rank_view *v, size_t n);
/*
 * host-bound and gpu-idle (findings_host.c): whether a rank's GPU waits for
 * its host; the statement of one such rank (straggler: the others wait for
 * it; returns 1 when stated), of many in one run (nbound of its n ranks),
 * and of a one-rank run whose GPU is idle without being host-bound.
 */
int findings_is_host_bound(const struct rank_view *v);
int findings_rule_host_bound(struct findings *f, const char *run, const struct rank_view *v, int straggler);
void findings_rule_host_bound_many(struct findings *f, const char *run, const struct rank_view *v, size_t n,
				   size_t nbound);
void findings_rule_gpu_idle(struct findings *f, const struct analysis_result *res, const char *run);

/*
 * waiting, cause and straggler-windows (findings_wait.c): the rank the
 * others waited for longest in run, its cause and windows; returns that
 * rank, -1 when none is stated, -2 when the run has no matched collectives.
 */
int findings_rule_waiting(struct findings *f, const struct analysis_result *res, const char *run);

/*
 * op-roofline (findings_roofline.c): the operators of run that lose the
 * most time against their roofline (op_roofline_top.csv), with no saving.
 */
void findings_rule_roofline(struct findings *f, const struct analysis_result *res, const char *run);

#endif
