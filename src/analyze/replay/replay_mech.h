/*
 * replay_mech.h: the mechanisms the replay prices (replay_mech.c): their
 * ids and words, and how replay.c finds each one's instances in a rank's
 * model to replay the step without them.
 */
#ifndef PERFSTUDY_REPLAY_MECH_H
#define PERFSTUDY_REPLAY_MECH_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/lib/rankdata.h"
#include "analyze/replay/replay.h"

enum mech_id {
	M_HOST_GAP, M_SYNC, M_BLOCKING_COPY, M_PAGEABLE, M_IMPLICIT, M_GPU_MEDIAN, M_HOST_MEDIAN, M_EXTRA, M_NCCL_PATH,
	M_PIPE_BALANCE, NMECH
};

/* Mechanism id's entry of the table (id < NMECH). */
const struct rp_mechanism *rp_mechanism_at(int id);

/* A rank's host time over the window: the gaps between its calls (unrecorded stretches too) and their own costs. */
double rp_host_work(const struct rp_model *m);
/* The innermost host annotation (not ProfilerStep) around t, or the one that ended last before it; caller frees. */
char *rp_where_at(struct store *s, const struct rank_data *d, int64_t t);

/* A mechanism's instances in a model: the calls whose gap or wait goes, the operations dropped. */
struct rp_fix {
	unsigned char *no_gap, *no_wait, *drop_op;
	size_t instances;
	int64_t where_t; /* the time of the largest instance */
	int64_t largest;
	int64_t removed; /* host_gap: the summed gap_fixed of its instances */
};

/* Marks the instances of mechanism id in m into f. */
void rp_pick(const struct rp_model *m, int id, struct rp_fix *f);

#define RP_SAVING_MIN 0.01 /* a saving under this share of the step is not stated */

/*
 * The paired savings of base over alt (per step, ns; steps < 0 left out),
 * against a step of mean: their mean, smallest, largest, the mean step
 * replayed without the cause, the noise (twice the standard error of the
 * per-step savings, at least RP_SAVING_MIN of the step) and whether the
 * saving is stated (above the noise; with fewer than 3 steps, where no
 * spread can be told, every step's saving above it). Returns the steps
 * counted (0: none, nothing set).
 */
struct rp_savings {
	double saving, smin, smax, without, noise;
	int stated;
};
size_t rp_savings_of(const int64_t *base, const int64_t *alt, size_t nsteps, double mean, struct rp_savings *v);

#endif
