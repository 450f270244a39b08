/*
 * dispatch.h: the communication-first split of one step (dispatch.c),
 * shared by dispatch.csv and its per-operator and per-kernel-type detail
 * dispatch_ops.csv (dispatch_ops.c), so that both take the same sets.
 */
#ifndef PERFSTUDY_DISPATCH_H
#define PERFSTUDY_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/lib/intervals.h"
#include "analyze/lib/rankdata.h"

enum { D_COMM, D_COMPUTE, D_MEMORY, D_INTRA, D_INTER, D_NPARTS };

/*
 * One rank's sets: C, K, M, O (see dispatch.c) for the whole rank, and
 * after dispatch_step() the step's intra-op set (idle ∩ O) in `intra`;
 * the rest is scratch.
 */
struct dispatch_sets {
	struct ivset C, K, M, O;
	struct ivset intra;
	struct ivset win, w_c, w_k, w_m, busy, tmp, idle, o_win;
};

void dispatch_sets_init(struct dispatch_sets *s);
void dispatch_sets_release(struct dispatch_sets *s);
/* C, K, M and O of rank d. */
void dispatch_sets_load(struct dispatch_sets *s, const struct rank_data *d);
/* The parts of the step [start, end) in ns into v; s->intra is its idle ∩ O. */
void dispatch_step(struct dispatch_sets *s, int64_t start, int64_t end, int64_t v[D_NPARTS]);
/*
 * The top-level operators of d (cpu_ops not contained in another cpu_op of
 * their thread), in d's order (start, longer first); a new array, caller frees.
 */
struct rk_range *dispatch_top_level(const struct rank_data *d, size_t *n);

#endif
