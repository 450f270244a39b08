/*
 * crossrank.h: the NCCL collectives of a multi-rank run matched across its
 * ranks, and the ranks' clock offsets (crossrank.c), for the cross-rank
 * tables (crossrank_waits.c: collective_waits.csv, clock_offsets.csv,
 * stragglers.csv, straggler_ranks.csv) and for the critical path
 * (critical_path.c), which joins a matched collective's kernels at the last
 * rank's arrival.
 *
 * Times are integer ns. A kernel's start and end are on its rank's own
 * clock; an arrival is on the run's reference clock (the lowest rank's):
 * own time - the rank's offset.
 */
#ifndef PERFSTUDY_CROSSRANK_H
#define PERFSTUDY_CROSSRANK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "analyze/analysis.h"
#include "analyze/lib/rankdata.h"

/*
 * The residual above which the clock offset is not trusted: 100 us. On the
 * bundled study (one host, so one clock: the true offsets are 0) the ends
 * of the AllReduce kernels of BERT's ranks agree within 13-18 us (90th
 * percentile), GPT-2's within 22-96 us, and the estimated offsets are
 * within 90 us of 0: this method's precision on NVLink. Ranks whose clocks
 * drift apart during the trace, or kernels paired wrong, exceed it
 * (crossrank.c warns; the waiting finding says what it changes,
 * findings_clock.c).
 */
#define XR_RESIDUAL_WARN_NS 100000

/* One NCCL kernel of one rank, with the args its trace records. */
struct xr_kern {
	int64_t start, end, corr;      /* own clock; corr -1: none */
	int64_t in_nelems, out_nelems; /* 0: unknown */
	int64_t group_size, seq;       /* group_size 0: unknown; seq -1: no "Seq" arg */
	int64_t step;                  /* the ProfilerStep#N of its launch (else of its start); -1 none */
	int64_t index;                 /* its number on its communicator on this rank: 0, 1, ... (p2p ones apart) */
	int64_t peer;                  /* a send's or recv's peer, a global rank (collectives.peer); -1 unknown */
	int p2p;                       /* a send or recv (point to point): matched in pairs, see crossrank.c */
	int pg;                        /* its communicator: index into xr_run.pgs */
	int type;                      /* index into xr_run.names: the canonical collective name */
	int dtype;                     /* index into xr_run.names; -1 unknown */
	int32_t op;                    /* the matched operation, index into xr_run.ops; -1 unmatched */
};

/* One rank of the run. */
struct xr_rank {
	int rank;
	char *path;               /* its (first) trace file, for warnings */
	size_t nkerns;
	struct xr_kern *kerns;    /* sorted by start */
	int has_offset;           /* 0: no collective shared with the reference rank, offset taken as 0 */
	int64_t offset, residual; /* clock offset and the spread left after it (clock_offsets.csv) */
	size_t nmatched_ends;     /* collectives the offset was estimated from */
};

/* One collective matched across the ranks of its communicator, or a send paired with its recv. */
struct xr_op {
	int pg, type, dtype;
	int64_t id;                 /* the "Seq" arg, else the index on the communicator */
	int64_t bytes;              /* max(in, out) elements x the dtype's size; -1 unknown */
	int64_t group_size;
	size_t first, n;            /* its kernels: xr_run.members[first .. first + n) */
	int64_t first_arrival, second_last_arrival, last_arrival; /* reference clock */
	int last_rank;              /* the rank that arrived last (a rank number) */
	int p2p;                    /* a send and its recv (n = 2): no part of the clock offsets */
};

/* A kernel of an operation: which rank (index into xr_run.ranks) and which of its kernels. */
struct xr_member {
	uint32_t rank_i, kern_i;
};

struct xr_run {
	char *name;             /* the run's id */
	size_t nranks;
	struct xr_rank *ranks;  /* by rank */
	size_t npgs, nnames;
	char **pgs, **names;    /* communicators; collective and dtype names */
	size_t nops;
	struct xr_op *ops;      /* per communicator, in order of issue */
	struct xr_member *members;
};

/*
 * Matches the collectives of one run, keys[0 .. n) (the run's ranks, in
 * rank order, as rank_keys gives them), and estimates the clock offsets.
 * Every mismatch is a warning (diag_warning and a note in out); out NULL:
 * silent (a second matching of a run). Returns 0, or -1 after diag (a
 * failure of the store).
 */
int crossrank_match(struct store *s, const struct rank_key *keys, size_t n, const struct classifier *cls,
		    struct analysis_result *out, struct xr_run *run);
void crossrank_release(struct xr_run *run);
/*
 * The wait for the last rank and the transfer after it of kernel k (of rank
 * r, matched: k->op >= 0), ns. A kernel that ended before the last rank
 * arrived did not wait for it: wait 0, transfer its whole duration, and
 * the return is 0; else 1 (its kernel joins the others at the last arrival).
 * In crossrank_waits.c.
 */
int crossrank_times(const struct xr_run *run, const struct xr_rank *r, const struct xr_kern *k, int64_t *wait,
		     int64_t *transfer);
/* The index in d->acts of the kernel starting at start (with correlation corr, when both have one), or -1. */
ssize_t crossrank_act_index(const struct rank_data *d, int64_t start, int64_t corr);
/* The rank index of rank number rank in run (its ranks in rank order, as crossrank_match makes them), or -1. */
int crossrank_rank_index(const struct xr_run *run, int rank);
/* The kernel of rank index ri starting at start (own clock), or NULL. */
const struct xr_kern *crossrank_kern_at(const struct xr_run *run, size_t ri, int64_t start);

#endif
