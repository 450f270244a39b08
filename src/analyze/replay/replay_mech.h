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
	NMECH
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
};

/* Marks the instances of mechanism id in m into f. */
void rp_pick(const struct rp_model *m, int id, struct rp_fix *f);

#endif
