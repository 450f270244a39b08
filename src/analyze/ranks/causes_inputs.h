/*
 * causes_inputs.h: a straggler's input shapes against the other ranks' and
 * the run's pinned copy rate, for straggler_causes.csv (causes_inputs.c
 * states the rules).
 */
#ifndef PERFSTUDY_CAUSES_INPUTS_H
#define PERFSTUDY_CAUSES_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/lib/rankdata.h"
#include "store/store.h"
#include "util/buf.h"

/* One operator name's first call with "Input Dims" on a rank: name id, dims id (names) and start. */
struct op_dims {
	int64_t name, dims, start;
};

/* Rank k's first call with dims per operator name, sorted by name, into *out (caller frees); their count, -1 on error. */
long causes_rank_op_dims(struct store *s, const struct rank_key *k, struct op_dims **out);

/*
 * The shapes text of the straggler s against the other ranks of the run
 * (od[r][0 .. nod[r]) per rank r of nr) into b: "[12,1024] vs [8,1024]
 * (1.50x)", left empty when none differ.
 */
void causes_rank_shapes(struct store *st, struct op_dims *const *od, const size_t *nod, size_t nr, size_t s,
			struct buf *b);

/* The GB/s of the run's pinned copies in the direction of pageable copy name; NAN when none. */
double causes_pinned_gbps(struct store *s, int64_t run_db_id, const char *name);

#endif
