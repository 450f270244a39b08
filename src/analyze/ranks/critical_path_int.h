/*
 * critical_path_int.h: what the critical path's two files share: the graph
 * of one rank's events and its walk (critical_path.c), used per step, per
 * rank and across ranks by the analysis (critical_path_steps.c). A graph
 * borrows its rank_data; cp_graph_release frees what the graph allocated.
 */
#ifndef PERFSTUDY_CRITICAL_PATH_INT_H
#define PERFSTUDY_CRITICAL_PATH_INT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/lib/rankdata.h"
#include "analyze/ranks/crossrank.h"

enum cp_cat { CP_COMPUTE, CP_COMM, CP_MEMORY, CP_HOST, CP_IDLE, CP_WAIT, NCAT };

/* A host point: the start or end of an operator or runtime call on its thread. */
struct cp_point {
	int64_t t, tid;
	int32_t idx; /* index into cpu_ops or launches */
	unsigned char type;
	unsigned char outside; /* after it the thread is inside no operator and no runtime call */
};

/* A collective's join on this rank's clock: the last rank's arrival. */
struct cp_join {
	int64_t join;
	int last_rank;
	int32_t op; /* the operation in the run's matching (crossrank.h) */
};

/* One rank's graph: the rank's events (rank_data) and the edges built over them. */
struct cp_graph {
	const struct rank_data *d;
	int rank;
	size_t npts;
	struct cp_point *pts;      /* by thread, then time */
	int32_t *launch_start_pt;  /* per launch: its start point */
	int32_t *sync_act;         /* per launch: the activity its end waited for, -1 none */
	int32_t *stream_prev;      /* per activity: the previous one on its stream, -1 none */
	int32_t *launch_of;        /* per activity: its launch, -1 none */
	int32_t *by_end;           /* activity indices sorted by end */
	struct cp_join *joins;     /* per activity; last_rank -1: not a matched collective */
	unsigned char *visited;    /* per node, for the walk's guard; cleared after each walk */
	size_t *trail, ntrail, cap_trail; /* the nodes the walk visited, to clear them */
};

/*
 * The wait of a step's path by the rank waited for, with the ranks it
 * touched, so that clearing it and finding its largest are in proportion
 * to them: a pass over every rank for every step of every rank was
 * quadratic in ranks. Ranks are indexed by their position in ranks[], the
 * experiment's rank numbers sorted and distinct, never by number: an
 * array by number made one trace of rank 2147483000 allocate 17 GB.
 */
struct cp_waits {
	const int *ranks;  /* sorted, distinct; nranks of them */
	size_t nranks;
	int64_t *by_rank;  /* per rank index */
	size_t *touched;   /* rank indices */
	size_t ntouched, cap;
};

struct cp_path {
	int64_t cat[NCAT];
	int64_t host_outside; /* of cat[CP_HOST], the host time outside every operator and runtime call */
	struct cp_waits *w;
	int cut;               /* the walk met a node twice (a cycle of zero-length events) */
};

/* Node ids for the walk's guard: host points, then activity starts, then activity ends. */
enum node_kind { N_PT, N_START, N_END };

/*
 * A walk that may leave its rank (the path across ranks): at a collective
 * whose last rank q is another one, it stops there, when q's kernel of the
 * operation is in the same step (xr_kern.step == step), and says where the
 * path goes on: next_op, q's kernel start (the last arrival). Elsewhere the
 * collective's time before the last arrival is waiting, as in a rank's walk.
 */
struct cp_jump {
	const struct xr_run *xr;
	int64_t step;
	int32_t next_op; /* out: -1, the walk reached the step's start */
};

/*
 * The statement of cp_graph_build's synchronising calls, prepared once for
 * every rank: the rank's launches scanned once, the few names looked up
 * once (not a scan per name). 0, or -1 after diag.
 */
int cp_sync_calls_prepare(struct store *s, struct store_stmt **st);
/* Builds the edges of one rank's graph over d (which g borrows). Returns 0 or -1 after diag. */
int cp_graph_build(struct store_stmt *sync, const struct rank_key *k, const struct rank_data *d, struct cp_graph *g);
/* The joins of rank index ri's matched collectives (see critical_path.c). */
void cp_graph_joins(struct cp_graph *g, const struct xr_run *run, size_t ri);
void cp_graph_release(struct cp_graph *g);
/*
 * The walk back from the step's end: host time from end to pi, the last
 * point of the step's thread at or before it, then from pi; every time
 * between clip and end goes to one category of p. With jp, it stops at a
 * collective joined at another rank (see cp_jump).
 */
void cp_walk(struct cp_graph *g, size_t pi, int64_t end, int64_t clip, struct cp_path *p, struct cp_jump *jp);
/* The walk back from node (kind, i) to clip, as cp_walk past its first host segment. */
void cp_walk_node(struct cp_graph *g, enum node_kind kind, size_t i, int64_t clip, struct cp_path *p,
		  struct cp_jump *jp);
/* The kernel of op on its last rank: (rank index, kernel), or NULL. */
const struct xr_kern *cp_last_kern(const struct xr_run *xr, const struct xr_op *op, size_t *ri);

#endif
