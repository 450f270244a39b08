/*
 * pipeline_ranks.h: one rank of a pipeline-parallel run as
 * pipeline_stages.c reads it (pipeline_ranks.c): its sends and receives
 * with their peers, its compute kernels, its steps and optimizer steps,
 * loaded from the store, and the searches over them.
 */
#ifndef PERFSTUDY_PIPELINE_RANKS_H
#define PERFSTUDY_PIPELINE_RANKS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/analysis.h"
#include "analyze/lib/rankdata.h"

/* One send or recv of a rank. */
struct pp_op {
	int64_t issue, start, end; /* issue: the launch's host start (else the kernel's); own clock */
	int64_t peer, seq, bytes, corr; /* seq -1 where has_seq is 0; corr -1: none */
	int send, has_seq;
	int recv_too; /* a coalesced batch that sends and receives ("sendrecv"): send is 1 too */
};

/* A compute kernel: its launch's host start and its GPU interval, own clock. */
struct pp_kern {
	int64_t launch, start, end;
};

struct pp_rank {
	const struct rank_key *key;
	int64_t offset; /* ns: own time - offset is the aligned time */
	struct pp_op *ops;
	size_t nops;
	struct pp_kern *kerns; /* sorted by launch */
	size_t nkerns;
	struct rk_range *steps;
	size_t nsteps;
	int64_t *opt; /* Optimizer.step annotation starts, sorted */
	size_t nopt;
	int64_t *peers; /* the distinct ranks it sends to, sorted */
	size_t npeers;
	int pipe; /* -1: not in a pipeline */
	size_t nbr[2], nnbr; /* indexes of the ranks it exchanges sends with both ways */
};

/*
 * The rank's clock offset (clock_offsets.csv offset_us) in ns; 0 where
 * none is trusted. cor: co's rows by run and rank (rank_rows_init).
 */
int64_t pp_offset_of(const struct table *co, const struct rank_rows *cor, const char *run, int rank);
/*
 * The rank's sends and recvs with a recorded peer (issue and kernel end
 * filled by load_rank). *st: the query, prepared on the first call (NULL
 * before it) and kept for the next rank; the caller finalizes it.
 */
int pp_load_ops(struct store *s, struct store_stmt **st, struct pp_rank *r);
/*
 * The rest of a pipeline rank from its rank_data: each op's kernel end
 * and issue time, the compute kernels, steps and Optimizer.step starts.
 */
int pp_load_rank(struct store *s, const struct classifier *cls, const int64_t *opt_ids, size_t nopt_ids,
		 struct pp_rank *r);
/* Frees what load_rank loaded (a pipeline's ranks are loaded one pipeline at a time). */
void pp_rank_unload(struct pp_rank *r);
void pp_rank_release(struct pp_rank *r);
/* The first op of r issued at t or later (ops sorted by issue); r->nops when none. */
size_t pp_op_at(const struct pp_rank *r, int64_t t);
/* The first kernel of r launched at t or later (sorted by launch); r->nkerns when none. */
size_t pp_kern_at(const struct pp_rank *r, int64_t t);
/* Whether a sends to rank b. */
int pp_sends_to(const struct pp_rank *a, int64_t b);
/* The index of rank among v[n] (in rank order, as rank_keys gives a run's ranks), or n. */
size_t pp_index_of(const struct pp_rank *v, size_t n, int64_t rank);
/* Whether the first op of r in its first step with any is a send (-1: it has none). */
int pp_starts_with_send(const struct pp_rank *r);

#endif
