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

/* The least share of a step's compute kernels' time a stage's layers' forwards cover (replay_layers.c). */
#define RP_LAYER_SHARE 0.03
/* The most kernels of a layer's forward looked for (the search is the step's kernels x this). */
#define RP_LAYER_MAX_BLOCK 1024
/* A layer's compute per step over its forward's: the backward costs twice the forward. */
#define RP_LAYER_FWD_BWD 3.0
/* A pipeline stage's layers as its trace shows them (replay_layers.c). */
struct rp_layers {
	int found;
	int64_t layers, block;   /* L, and the kernels of a layer's forward */
	double per_layer, fixed; /* ns per step: a layer's compute, the stage's compute outside its layers */
	const char *why;         /* not found: why (a static string) */
};
/* The layers of the stage model m is the rank of (micro: its micro-batches; compute: its compute, ns per step). */
int rp_layers_of(const struct rp_model *m, int64_t micro, double compute, struct rp_layers *out);
/*
 * The contiguous split of the stages' layers (L[s] each, ns stages) into
 * split[s] >= 1 each that minimises the slowest stage, a[s] + split[s] x
 * c[s]; returns that stage's compute (NAN: fewer layers than stages).
 */
double rp_layer_split(size_t ns, const int64_t *L, const double *c, const double *a, int64_t *split);
/* "move 1 layer from stage 1 to stage 0: 4+4 -> 5+3" (a new string) */
char *rp_layer_move_words(size_t ns, const int64_t *L, const int64_t *split);

#endif
