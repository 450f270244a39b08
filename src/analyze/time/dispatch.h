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
 * from them, made once per rank by dispatch_sets_load, the parts each step
 * takes its share of: Kc = K \ C, Mc = M \ (C ∪ K) and intra = O \ (C ∪
 * K ∪ M) (the GPU idles while the host is inside a top-level operator),
 * each with its running sums, so that a step costs O(log n) whatever it
 * holds (ProfilerStep ranges that each cover the trace made a per-step
 * clip quadratic); the rest is scratch.
 */
struct dispatch_sets {
	struct ivset C, K, M, O;
	struct ivset Kc, Mc, intra;
	struct ivset busy, tmp;
	struct ivsum sC, sKc, sMc, sintra;
};

void dispatch_sets_init(struct dispatch_sets *s);
void dispatch_sets_release(struct dispatch_sets *s);
/* C, K, M and O of rank d, and Kc, Mc, intra with their sums. */
void dispatch_sets_load(struct dispatch_sets *s, const struct rank_data *d);
/* The parts of the step [start, end) in ns into v (intra-op: its share of s->intra). */
void dispatch_step(const struct dispatch_sets *s, int64_t start, int64_t end, int64_t v[D_NPARTS]);
/*
 * The top-level operators of d (cpu_ops not contained in another cpu_op of
 * their thread), in d's order (start, longer first); a new array, caller frees.
 */
struct rk_range *dispatch_top_level(const struct rank_data *d, size_t *n);

#endif
