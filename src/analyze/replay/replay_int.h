/*
 * replay_int.h: what replay.c shares with replay_run.c, the fixes priced
 * once per run (nccl_path, pipeline_balance): the analysis's state and a
 * row of replay_fixes.csv.
 */
#ifndef PERFSTUDY_REPLAY_INT_H
#define PERFSTUDY_REPLAY_INT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/analysis.h"
#include "analyze/replay/replay.h"

struct rp_ctx {
	const struct analysis_ctx *a;
	const struct rank_key *keys; /* the experiment's ranks */
	size_t nkeys;
	struct rp_ref *refs;         /* each run's reference (extra_gpu_work) */
	size_t nrefs;
	const struct analysis_result *res;
	struct analysis_result *out; /* the same, for notes */
	struct table *steps, *cal, *fixes;
	size_t ranks_replayed;
	double *flo;                 /* scratch: each rank's host factor at the bottom of its log's range */
	int64_t *buf, *base, *alt;
	size_t cap;
};

/* One row of replay_fixes.csv. */
struct fix_row {
	const struct rank_key *k; /* its rank; run_wide: its run only (rank empty) */
	int run_wide;
	const char *mechanism;
	double per_step, step, without, saving, smin, smax, noise;
	int stated, joint;
	double fast; /* the saving at the bottom of the host factor's range */
};

/* Appends f to replay_fixes.csv t, with its where. */
void rp_add_fix_row(struct table *t, const struct fix_row *f, const char *where);

/*
 * The run-wide fixes of a run whose ranks sj replays together (flo: each
 * rank's host factor at the bottom of its log's range), into x->fixes;
 * k: the run's first rank. nccl_path where the nccl-path rule holds;
 * pipeline_balance where a pipeline's stages compute unevenly.
 */
/* The mean replayed step of sj's ranks together, each at f[q] and op_scale scale[q] (NULL: none); NAN: none. */
double rp_joint_mean(struct rp_subject *sj, const double *f, double *const *scale, int64_t *steps);
void rp_add_nccl_path(struct rp_ctx *x, const struct rank_key *k, struct rp_subject *sj, const double *flo);
void rp_add_pipe_balance(struct rp_ctx *x, const struct rank_key *k, struct rp_subject *sj, const double *flo);

#endif
