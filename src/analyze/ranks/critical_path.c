/*
 * critical_path.c: the critical path of each training step, per rank
 * (critical_path.csv, critical_path_steps.csv, figure critical_path).
 *
 * A graph per rank and ProfilerStep#N window. Nodes are instants:
 *   host points   the start and end of every host operator (cpu_op, the
 *                 outermost ones the store keeps) and CUDA runtime call,
 *                 in order of time on their thread;
 *   GPU nodes     the start and end of every kernel, memcpy and memset,
 *                 and, for a collective matched across ranks, its join:
 *                 the instant the last rank arrived (crossrank.h).
 * Edges, each pointing forward in time, weighted by the time between its
 * nodes:
 *   thread order  consecutive host points of a thread (host: an operator,
 *                 a runtime call, or the gap between operators);
 *   launch        runtime call start -> the start of the activity it
 *                 launched (correlation id; host/launch);
 *   stream order  an activity's end -> the start of the next activity on
 *                 its stream (GPU idle between them);
 *   stream wait   an activity's end -> the start of an activity on another
 *                 stream of the rank, inferred (the store has no cuda_sync
 *                 events): when an activity starts more than XS_MIN_GAP_NS
 *                 after both its stream's previous activity ended and its
 *                 launch call returned, it waited for something, taken to
 *                 be the activity of another stream that ended last before
 *                 it started (DDP's optimizer waiting for the all-reduce);
 *   sync          a GPU activity's end -> the end of the runtime call that
 *                 waited for it: a call whose own copy (correlation) ended
 *                 inside the call (a synchronous cudaMemcpy), and for
 *                 cuda{Device,Stream,Event}Synchronize the activity that
 *                 ended last inside the call;
 *   duration      an activity's start -> end (compute, memory or
 *                 communication by the default classification); a matched
 *                 collective is split at its join: start -> join is waiting
 *                 for the rank that arrived last, join -> end the transfer.
 * The critical path of the step is the path of binding dependencies back
 * from the step's end: of a node's incoming edges, the one whose source
 * happened last (the dependency the node actually waited for; ties go to
 * the GPU), until the step's start. Since an edge's weight is the time
 * between its nodes, every path between two nodes is as long as the time
 * between them, so this path is a longest path of the step and its
 * segments add up to the step's time exactly; each segment is attributed
 * to the category of its edge. The walk visits each node at most once, and
 * the graph is built with one sort per rank: linear in the events after
 * the sort, one rank at a time in memory.
 *
 * Where it differs from HTA's critical path (hta/analyzers/
 * critical_path_analysis.py): HTA gives dependency edges (consecutive
 * top-level operators, synchronisation) zero weight and finds the longest
 * path by weight with networkx, so its path is shorter than the step and
 * reports percentages of itself; here every edge carries its time and the
 * path covers the step. HTA reads cuda_sync events for stream waits and
 * synchronisation and adds a launch edge only when the stream's queue was
 * empty; here stream waits are inferred and the later of launch and
 * previous activity binds. HTA merges the backward thread into the forward
 * thread; here threads are separate chains joined only through the GPU.
 * HTA is single-rank; here collectives carry the wait for the last rank:
 * the path stays on its rank, the time before the last arrival counted as
 * waiting for that rank (graph_joins); the path does not jump onto the
 * rank waited for, whose own row says what it did meanwhile.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "chart/chart.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "analyze/analysis.h"
#include "analyze/ranks/crossrank.h"
#include "analyze/lib/rankdata.h"
#include "analyze/lib/search.h"

/*
 * A stream waits for another only if its activity started this long after
 * it could have (previous activity on its stream ended, launch returned):
 * back-to-back kernels leave gaps of a few microseconds, in which another
 * stream's activity ending is a coincidence, not a cause.
 */
#define XS_MIN_GAP_NS 20000

enum cp_cat { CP_COMPUTE, CP_COMM, CP_MEMORY, CP_HOST, CP_IDLE, CP_WAIT, NCAT };
static const char *const cat_cols[NCAT] = {"compute_us", "communication_us", "memory_us",
					   "host_us",    "idle_us",          "wait_us"};
static const char *const cat_series[NCAT] = {"compute", "communication transfer", "memory",
					     "host and launch", "GPU idle", "waiting for another rank"};

enum pt_type { PT_CALL_END, PT_OP_END, PT_OP_START, PT_CALL_START };

/* A host point: the start or end of an operator or runtime call on its thread. */
struct cp_point {
	int64_t t, tid;
	int32_t idx; /* index into cpu_ops or launches */
	unsigned char type;
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
 * The wait of a step's path by the rank waited for (by_rank, nranks), with
 * the ranks it touched, so that clearing it and finding its largest are in
 * proportion to them: a pass over every rank for every step of every rank
 * was quadratic in ranks.
 */
struct cp_waits {
	int64_t *by_rank;
	int nranks;
	int *touched;
	size_t ntouched, cap;
};

struct cp_path {
	int64_t cat[NCAT];
	struct cp_waits *w;
	int cut;               /* the walk met a node twice (a cycle of zero-length events) */
};

static int cmp_point(const void *pa, const void *pb)
{
	const struct cp_point *a = pa, *b = pb;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static const struct rank_data *sort_acts;

static int cmp_by_end(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
	int64_t ea = sort_acts->acts[a].end, eb = sort_acts->acts[b].end;
	if (ea != eb)
		return ea < eb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The runtime calls that block until the GPU work they wait for is done, by name. */
static const char *const sync_calls[] = {
	"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
	"cuCtxSynchronize",      "cuStreamSynchronize",   "cuEventSynchronize",
	"hipDeviceSynchronize",  "hipStreamSynchronize",  "hipEventSynchronize", /* ROCm's HIP runtime */
};

/* The key of end_pos's search: the activities by_end points into, and the time. */
struct end_key {
	const struct rk_act *acts;
	int64_t hi;
};

/* lower_bound's predicate: the activity at a by_end index (int32_t) ends at or before the key's time. */
static int ends_by(const void *elem, const void *key)
{
	const struct end_key *k = key;
	return k->acts[*(const int32_t *)elem].end <= k->hi;
}

/* The position in by_end of the last activity ending at or before hi, or -1. */
static ssize_t end_pos(const struct cp_graph *g, int64_t hi)
{
	struct end_key key = {g->d->acts, hi};
	return (ssize_t)lower_bound(g->by_end, g->d->nacts, sizeof(*g->by_end), &key, ends_by) - 1;
}

/* The latest activity end in [lo, hi], or -1. */
static int32_t last_end_in(const struct cp_graph *g, int64_t lo, int64_t hi)
{
	ssize_t pos = end_pos(g, hi);
	if (pos < 0)
		return -1;
	int32_t a = g->by_end[pos];
	return g->d->acts[a].end >= lo ? a : -1;
}

/*
 * The statement of mark_sync_calls, prepared once for every rank: the
 * rank's launches scanned once, the few names looked up once (not a scan
 * per name). 0, or -1 after diag.
 */
static int sync_calls_prepare(struct store *s, sqlite3_stmt **st)
{
	struct buf sql;
	buf_init(&sql);
	buf_adds(&sql, "SELECT x.start_ns, x.tid FROM traces rt JOIN launches x ON x.trace_id = rt.id"
		       " WHERE rt.run_id = ?1 AND rt.rank = ?2 AND x.name_id IN (SELECT id FROM names WHERE name IN (");
	for (size_t i = 0; i < sizeof(sync_calls) / sizeof(sync_calls[0]); i++)
		buf_printf(&sql, "%s'%s'", i ? ", " : "", sync_calls[i]);
	buf_adds(&sql, "))");
	int ret = store_prepare(s, "find synchronising calls", sql.data, st);
	buf_release(&sql);
	return ret;
}

/* The launches (indices) of this rank that are synchronising calls, marked in is_sync; st left reset. */
static int mark_sync_calls(struct store *s, sqlite3_stmt *st, const struct rank_key *k, const struct rank_data *d,
			   unsigned char *is_sync)
{
	store_bind_int64(st, 1, k->run_db_id);
	store_bind_int(st, 2, k->rank);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t start = store_column_int64(st, 0);
		int64_t tid = store_column_type(st, 1) == SQLITE_NULL ? -1 : store_column_int64(st, 1);
		/* launches are sorted by start: the first of this start, then those after it */
		size_t l = rk_search(d->launches, d->nlaunches, start, 0);
		for (; l < d->nlaunches && d->launches[l].start == start; l++)
			if (d->launches[l].tid == tid)
				is_sync[l] = 1;
	}
	store_reset(st);
	if (rc != SQLITE_DONE) {
		diag_syserror("perfstudy.db", "sqlite: %s", sqlite3_errmsg(store_db(s)));
		return -1;
	}
	return 0;
}

static void graph_release(struct cp_graph *g)
{
	free(g->pts);
	free(g->launch_start_pt);
	free(g->sync_act);
	free(g->stream_prev);
	free(g->launch_of);
	free(g->by_end);
	free(g->joins);
	free(g->visited);
	free(g->trail);
	memset(g, 0, sizeof(*g));
}

/* Builds the edges of one rank's graph over d (which g borrows). Returns 0 or -1 after diag. */
static int graph_build(struct store *s, sqlite3_stmt *sync, const struct rank_key *k, const struct rank_data *d,
		       struct cp_graph *g)
{
	memset(g, 0, sizeof(*g));
	g->d = d;
	g->rank = k->rank;
	g->npts = 2 * (d->ncpu_ops + d->nlaunches);
	g->pts = xmalloc((g->npts ? g->npts : 1) * sizeof(*g->pts));
	size_t n = 0;
	for (size_t i = 0; i < d->ncpu_ops; i++) {
		g->pts[n++] = (struct cp_point){d->cpu_ops[i].start, d->cpu_ops[i].tid, (int32_t)i, PT_OP_START};
		g->pts[n++] = (struct cp_point){d->cpu_ops[i].end, d->cpu_ops[i].tid, (int32_t)i, PT_OP_END};
	}
	for (size_t i = 0; i < d->nlaunches; i++) {
		g->pts[n++] = (struct cp_point){d->launches[i].start, d->launches[i].tid, (int32_t)i, PT_CALL_START};
		g->pts[n++] = (struct cp_point){d->launches[i].end, d->launches[i].tid, (int32_t)i, PT_CALL_END};
	}
	if (g->npts) /* qsort's array may not be NULL, even when empty */
		qsort(g->pts, g->npts, sizeof(*g->pts), cmp_point);

	size_t nl = d->nlaunches ? d->nlaunches : 1, na = d->nacts ? d->nacts : 1;
	g->launch_start_pt = xmalloc(nl * sizeof(int32_t));
	g->sync_act = xmalloc(nl * sizeof(int32_t));
	for (size_t i = 0; i < d->nlaunches; i++)
		g->sync_act[i] = -1;
	for (size_t i = 0; i < g->npts; i++)
		if (g->pts[i].type == PT_CALL_START)
			g->launch_start_pt[g->pts[i].idx] = (int32_t)i;

	g->by_end = xmalloc(na * sizeof(int32_t));
	for (size_t i = 0; i < d->nacts; i++)
		g->by_end[i] = (int32_t)i;
	sort_acts = d;
	if (d->nacts) /* qsort's array may not be NULL, even when empty */
		qsort(g->by_end, d->nacts, sizeof(int32_t), cmp_by_end);
	sort_acts = NULL;

	/* Stream order: the previous activity of each stream, walking in order of start. */
	g->stream_prev = xmalloc(na * sizeof(int32_t));
	int64_t *streams = NULL;
	int32_t *last = NULL;
	size_t nstreams = 0, cap_s = 0, cap_l = 0;
	for (size_t i = 0; i < d->nacts; i++) {
		size_t j = 0;
		while (j < nstreams && streams[j] != d->acts[i].stream)
			j++;
		if (j == nstreams) {
			streams = xgrow(streams, &cap_s, nstreams + 1, sizeof(*streams));
			last = xgrow(last, &cap_l, nstreams + 1, sizeof(*last));
			streams[j] = d->acts[i].stream;
			last[j] = -1;
			nstreams++;
		}
		g->stream_prev[i] = last[j];
		last[j] = (int32_t)i;
	}
	free(streams);
	free(last);

	/* Launch of each activity (correlation), and the sync edge of a call that waited for its own copy. */
	g->launch_of = xmalloc(na * sizeof(int32_t));
	int64_t *lidx = rank_launch_index(d);
	for (size_t i = 0; i < d->nacts; i++) {
		const struct rk_range *l = rank_launch_of(d, lidx, d->acts[i].corr);
		g->launch_of[i] = l ? (int32_t)(l - d->launches) : -1;
		if (!l)
			continue;
		size_t li = (size_t)(l - d->launches);
		int64_t e = d->acts[i].end;
		if (e >= l->start && e <= l->end &&
		    (g->sync_act[li] < 0 || e > d->acts[g->sync_act[li]].end))
			g->sync_act[li] = (int32_t)i;
	}
	free(lidx);

	/* Synchronising calls wait for the activity that ended last inside them. */
	unsigned char *is_sync = xcalloc(nl, 1);
	if (mark_sync_calls(s, sync, k, d, is_sync) < 0) {
		free(is_sync);
		graph_release(g);
		return -1;
	}
	for (size_t i = 0; i < d->nlaunches; i++) {
		if (!is_sync[i])
			continue;
		int32_t a = last_end_in(g, d->launches[i].start, d->launches[i].end);
		if (a >= 0 && (g->sync_act[i] < 0 || d->acts[a].end > d->acts[g->sync_act[i]].end))
			g->sync_act[i] = a;
	}
	free(is_sync);

	g->joins = xmalloc(na * sizeof(*g->joins));
	for (size_t i = 0; i < d->nacts; i++)
		g->joins[i] = (struct cp_join){0, -1, -1};
	g->visited = xcalloc(g->npts + 2 * d->nacts + 1, 1);
	return 0;
}

/*
 * The joins of rank index ri's matched collectives (run: its run, matched
 * by crossrank.c): the last rank's arrival, moved onto this rank's clock
 * (reference time + this rank's offset). A kernel that ended before the
 * last arrival did not wait for it (crossrank_times) and gets no join.
 */
static void graph_joins(struct cp_graph *g, const struct xr_run *run, size_t ri)
{
	const struct xr_rank *r = &run->ranks[ri];
	for (size_t i = 0; i < g->d->nacts; i++) {
		const struct rk_act *a = &g->d->acts[i];
		if (a->kind != ACT_KERNEL || a->cls != RK_COMM)
			continue;
		const struct xr_kern *k = crossrank_kern_at(run, ri, a->start);
		if (!k || k->op < 0)
			continue;
		int64_t wait, transfer;
		if (!crossrank_times(run, r, k, &wait, &transfer))
			continue;
		g->joins[i] = (struct cp_join){run->ops[k->op].last_arrival + r->offset, run->ops[k->op].last_rank, k->op};
	}
}

/* Node ids for the walk's guard: host points, then activity starts, then activity ends. */
enum node_kind { N_PT, N_START, N_END };

static size_t node_id(const struct cp_graph *g, enum node_kind kind, size_t i)
{
	return kind == N_PT ? i : kind == N_START ? g->npts + i : g->npts + g->d->nacts + i;
}

static enum cp_cat act_cat(const struct rk_act *a)
{
	if (a->kind != ACT_KERNEL || a->cls == RK_MEMORY)
		return CP_MEMORY;
	return a->cls == RK_COMM ? CP_COMM : CP_COMPUTE;
}

/* Adds the part of [from, to] after clip to the path; returns 1 when from <= clip (the walk is done). */
static int add_seg(struct cp_path *p, enum cp_cat c, int64_t from, int64_t to, int64_t clip, int wait_rank)
{
	int64_t lo = from > clip ? from : clip;
	if (to > lo) {
		p->cat[c] += to - lo;
		if (c == CP_WAIT && wait_rank >= 0 && wait_rank < p->w->nranks) {
			if (!p->w->by_rank[wait_rank]) {
				p->w->touched = xgrow(p->w->touched, &p->w->cap, p->w->ntouched + 1, sizeof(int));
				p->w->touched[p->w->ntouched++] = wait_rank;
			}
			p->w->by_rank[wait_rank] += to - lo;
		}
	}
	return from <= clip;
}

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

/* The kernel of op on its last rank: (rank index, kernel), or NULL. */
static const struct xr_kern *last_kern(const struct xr_run *xr, const struct xr_op *op, size_t *ri)
{
	for (size_t m = op->first; m < op->first + op->n; m++) {
		const struct xr_member *mb = &xr->members[m];
		if (xr->ranks[mb->rank_i].rank == op->last_rank) {
			*ri = mb->rank_i;
			return &xr->ranks[mb->rank_i].kerns[mb->kern_i];
		}
	}
	return NULL;
}

static int jump_here(const struct cp_jump *jp, const struct cp_join *j)
{
	if (!jp || j->op < 0)
		return 0;
	size_t ri;
	const struct xr_kern *k = last_kern(jp->xr, &jp->xr->ops[j->op], &ri);
	return k && k->step == jp->step;
}

/*
 * The walk back from node (kind, i) to clip (the step's start): every time
 * between clip and the node is added to exactly one category of p. With
 * jp, it stops at a collective joined at another rank (see cp_jump).
 */
static void walk_from(struct cp_graph *g, enum node_kind kind, size_t i, int64_t clip, struct cp_path *p,
		      struct cp_jump *jp)
{
	const struct rank_data *d = g->d;
	if (jp)
		jp->next_op = -1;
	for (;;) {
		size_t id = node_id(g, kind, i);
		if (g->visited[id]) {
			p->cut = 1;
			return;
		}
		g->visited[id] = 1;
		g->trail = xgrow(g->trail, &g->cap_trail, g->ntrail + 1, sizeof(*g->trail));
		g->trail[g->ntrail++] = id;
		if (kind == N_PT) {
			const struct cp_point *pt = &g->pts[i];
			int have_prev = i > 0 && g->pts[i - 1].tid == pt->tid;
			int32_t s = pt->type == PT_CALL_END ? g->sync_act[pt->idx] : -1;
			if (s >= 0 && d->acts[s].end <= pt->t && (!have_prev || d->acts[s].end >= g->pts[i - 1].t)) {
				/* the call returned after the GPU work it waited for */
				if (add_seg(p, CP_HOST, d->acts[s].end, pt->t, clip, -1))
					return;
				kind = N_END;
				i = (size_t)s;
			} else if (have_prev) {
				if (add_seg(p, CP_HOST, g->pts[i - 1].t, pt->t, clip, -1))
					return;
				i--;
			} else {
				/* the thread's first recorded event: the thread ran before it, unrecorded */
				add_seg(p, CP_HOST, clip, pt->t, clip, -1);
				return;
			}
		} else if (kind == N_END) {
			const struct rk_act *a = &d->acts[i];
			const struct cp_join *j = &g->joins[i];
			if (j->last_rank >= 0 && j->join >= a->start && j->join <= a->end) {
				if (add_seg(p, CP_COMM, j->join, a->end, clip, -1))
					return;
				if (j->last_rank != g->rank && jump_here(jp, j)) {
					jp->next_op = j->op; /* the path goes on at the last rank's kernel start */
					return;
				}
				if (add_seg(p, j->last_rank == g->rank ? CP_COMM : CP_WAIT, a->start, j->join, clip,
					    j->last_rank))
					return;
			} else if (add_seg(p, act_cat(a), a->start, a->end, clip, -1)) {
				return;
			}
			kind = N_START;
		} else {
			const struct rk_act *a = &d->acts[i];
			int32_t sp = g->stream_prev[i], l = g->launch_of[i];
			int64_t t_sp = sp >= 0 && d->acts[sp].end <= a->start ? d->acts[sp].end : INT64_MIN;
			int64_t t_l = l >= 0 && d->launches[l].start <= a->start ? d->launches[l].start : INT64_MIN;
			/* could have started at: its stream free and its launch call returned */
			int64_t ready = t_sp;
			if (l >= 0 && d->launches[l].end > ready)
				ready = d->launches[l].end;
			int32_t xs = -1;
			if (ready != INT64_MIN && a->start - ready > XS_MIN_GAP_NS) {
				/*
				 * The activity of another stream, started before this one, that ended
				 * last in (ready, start]; a few of its own stream's may end there too.
				 */
				ssize_t pos = end_pos(g, a->start);
				for (int tries = 0; pos >= 0 && tries < 64; pos--, tries++) {
					const struct rk_act *o = &d->acts[g->by_end[pos]];
					if (o->end <= ready)
						break;
					if (o->stream != a->stream && o->start < a->start) {
						xs = g->by_end[pos];
						break;
					}
				}
			}
			if (xs >= 0 && d->acts[xs].end >= t_sp && d->acts[xs].end >= t_l) {
				if (add_seg(p, CP_IDLE, d->acts[xs].end, a->start, clip, -1))
					return;
				kind = N_END;
				i = (size_t)xs;
			} else if (t_sp != INT64_MIN && t_sp >= t_l) {
				if (add_seg(p, CP_IDLE, t_sp, a->start, clip, -1))
					return;
				kind = N_END;
				i = (size_t)sp;
			} else if (t_l != INT64_MIN) {
				if (add_seg(p, CP_HOST, t_l, a->start, clip, -1))
					return;
				kind = N_PT;
				i = (size_t)g->launch_start_pt[l];
			} else {
				add_seg(p, CP_IDLE, clip, a->start, clip, -1);
				return;
			}
		}
	}
}

/* walk_from, then the visited marks cleared: the cost is the path's, not the graph's, for each step. */
static void walk_node(struct cp_graph *g, enum node_kind kind, size_t i, int64_t clip, struct cp_path *p,
		      struct cp_jump *jp)
{
	walk_from(g, kind, i, clip, p, jp);
	for (size_t k = 0; k < g->ntrail; k++)
		g->visited[g->trail[k]] = 0;
	g->ntrail = 0;
}

/*
 * The walk back from the step's end: host time from end to pi, the last
 * point of the step's thread at or before it (inside an operator or
 * between them), then from pi.
 */
static void walk(struct cp_graph *g, size_t pi, int64_t end, int64_t clip, struct cp_path *p, struct cp_jump *jp)
{
	if (jp)
		jp->next_op = -1;
	if (add_seg(p, CP_HOST, g->pts[pi].t, end, clip, -1))
		return;
	walk_node(g, N_PT, pi, clip, p, jp);
}

/*
 * The path across ranks (critical_path_across.csv). Each rank's graph is
 * walked with cp_jump, one rank at a time, into segments: per step, from
 * the step's end; per collective the rank arrived last in, from its
 * kernel's start (where paths from the other ranks come in). A segment
 * ends at the step's start or where the path leaves for another rank
 * (next_op). After the run's last rank, the path of step N starts at the
 * rank whose step N ended last (reference clock) and follows the segments
 * from rank to rank: each segment once, so linear in the run's events.
 */
struct xs_step {
	size_t rank_i;
	int64_t key, end_ref;
	int64_t cat[NCAT];
	int32_t next_op;
};

struct xs_seg {
	int valid;
	int64_t cat[NCAT];
	int32_t next_op;
};

struct cp_across {
	size_t nsteps, cap_steps;
	struct xs_step *steps;
	struct xs_seg *ops;    /* per operation of the run */
	int64_t *on_rank;      /* per rank index: scratch for one step's path */
};

static void across_reset(struct cp_across *xa, const struct xr_run *xr)
{
	free(xa->ops);
	free(xa->on_rank);
	xa->nsteps = 0;
	xa->ops = xcalloc(xr->nops ? xr->nops : 1, sizeof(*xa->ops));
	xa->on_rank = xcalloc(xr->nranks ? xr->nranks : 1, sizeof(*xa->on_rank));
}

static void across_release(struct cp_across *xa)
{
	free(xa->steps);
	free(xa->ops);
	free(xa->on_rank);
	memset(xa, 0, sizeof(*xa));
}

static int cmp_xs_step(const void *pa, const void *pb)
{
	const struct xs_step *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->end_ref != b->end_ref)
		return a->end_ref > b->end_ref ? -1 : 1; /* the step that ended last first */
	return a->rank_i < b->rank_i ? -1 : a->rank_i > b->rank_i;
}

/* A step's key and its index among the rank's steps. */
struct key_at {
	int64_t key;
	size_t at;
};

/* lower_bound's predicate: a key_at whose key is below the int64_t key. */
static int key_before(const void *elem, const void *key)
{
	return ((const struct key_at *)elem)->key < *(const int64_t *)key;
}

static int cmp_key_at(const void *pa, const void *pb)
{
	const struct key_at *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

/* The segments of rank index ri (graph g): its steps' and those of the collectives it arrived last in. */
static void across_rank(struct cp_across *xa, struct cp_graph *g, const struct xr_run *xr, size_t ri,
			const int64_t *step_pt, struct cp_path *scratch)
{
	const struct rank_data *d = g->d;
	const struct xr_rank *r = &xr->ranks[ri];
	for (size_t si = 0; si < d->nsteps; si++) {
		const struct rk_range *st = &d->steps[si];
		struct cp_path p = {.w = scratch->w};
		struct cp_jump jp = {xr, st->key, -1};
		if (step_pt[si] < 0)
			p.cat[CP_HOST] = st->end - st->start;
		else
			walk(g, (size_t)step_pt[si], st->end, st->start, &p, &jp);
		xa->steps = xgrow(xa->steps, &xa->cap_steps, xa->nsteps + 1, sizeof(*xa->steps));
		struct xs_step *x = &xa->steps[xa->nsteps++];
		x->rank_i = ri;
		x->key = st->key;
		x->end_ref = st->end - r->offset;
		memcpy(x->cat, p.cat, sizeof(x->cat));
		x->next_op = jp.next_op;
	}
	/* The first step of each key, by binary search: a linear search per kernel was quadratic in steps. */
	struct key_at *by_key = xcalloc(d->nsteps ? d->nsteps : 1, sizeof(*by_key));
	for (size_t si = 0; si < d->nsteps; si++)
		by_key[si] = (struct key_at){d->steps[si].key, si};
	qsort(by_key, d->nsteps, sizeof(*by_key), cmp_key_at);
	for (size_t i = 0; i < r->nkerns; i++) {
		const struct xr_kern *k = &r->kerns[i];
		if (k->op < 0 || xr->ops[k->op].last_rank != r->rank || k->step < 0)
			continue;
		ssize_t a = crossrank_act_index(d, k->start, k->corr);
		size_t lo = lower_bound(by_key, d->nsteps, sizeof(*by_key), &k->step, key_before);
		size_t si = lo < d->nsteps && by_key[lo].key == k->step ? by_key[lo].at : d->nsteps;
		if (a < 0 || si == d->nsteps)
			continue;
		struct cp_path p = {.w = scratch->w};
		struct cp_jump jp = {xr, k->step, -1};
		walk_node(g, N_START, (size_t)a, d->steps[si].start, &p, &jp);
		struct xs_seg *sg = &xa->ops[k->op];
		sg->valid = 1;
		memcpy(sg->cat, p.cat, sizeof(sg->cat));
		sg->next_op = jp.next_op;
	}
	free(by_key);
}

/* The rows of critical_path_across.csv of one run, from its segments. */
static void across_rows(struct cp_across *xa, const struct xr_run *xr, struct table *t, struct buf *tmp)
{
	if (xa->nsteps > 1)
		qsort(xa->steps, xa->nsteps, sizeof(*xa->steps), cmp_xs_step);
	for (size_t i = 0; i < xa->nsteps; i++) {
		if (i > 0 && xa->steps[i].key == xa->steps[i - 1].key)
			continue; /* the first of a step ended last: the path starts there */
		const struct xs_step *x = &xa->steps[i];
		int64_t cat[NCAT], sum = 0;
		memset(xa->on_rank, 0, xr->nranks * sizeof(*xa->on_rank));
		memcpy(cat, x->cat, sizeof(cat));
		for (int q = 0; q < NCAT; q++)
			sum += x->cat[q];
		xa->on_rank[x->rank_i] += sum;
		int32_t next = x->next_op;
		int cut = 0;
		for (size_t hops = 0; next >= 0; hops++) {
			const struct xs_seg *sg = &xa->ops[next];
			size_t ri;
			if (!sg->valid || hops > xr->nops || !last_kern(xr, &xr->ops[next], &ri)) {
				cut = 1; /* no segment where the path went on: the path ends there */
				break;
			}
			sum = 0;
			for (int q = 0; q < NCAT; q++) {
				cat[q] += sg->cat[q];
				sum += sg->cat[q];
			}
			xa->on_rank[ri] += sum;
			next = sg->next_op;
		}
		size_t row = table_add_row(t), c = 0, most = 0, nr = 0;
		int64_t total = 0;
		buf_reset(tmp);
		for (size_t ri = 0; ri < xr->nranks; ri++) {
			if (!xa->on_rank[ri])
				continue;
			nr++;
			if (xa->on_rank[ri] > xa->on_rank[most] || !xa->on_rank[most])
				most = ri;
			total += xa->on_rank[ri];
			buf_printf(tmp, "%sr%d ", tmp->len ? "; " : "", xr->ranks[ri].rank);
			format_ns_as_us(xa->on_rank[ri], tmp);
		}
		table_set_text(t, row, c++, xr->name);
		table_set_int(t, row, c++, x->key);
		table_set_int(t, row, c++, xr->ranks[x->rank_i].rank);
		table_set_ns(t, row, c++, total);
		for (int q = 0; q < NCAT; q++)
			table_set_ns(t, row, c++, cat[q]);
		table_set_int(t, row, c++, (int64_t)nr);
		table_set_text(t, row, c++, tmp->data ? tmp->data : "");
		if (nr) {
			table_set_int(t, row, c, xr->ranks[most].rank);
			table_set_ns(t, row, c + 1, xa->on_rank[most]);
		}
		c += 2;
		table_set_int(t, row, c, cut);
	}
	xa->nsteps = 0;
}

/* The thread of the step: the ProfilerStep annotation's, else the thread with the last point before end. */
static int64_t step_tid(const struct cp_graph *g, const struct rk_range *st)
{
	const struct rank_data *d = g->d;
	/* from the first annotation starting at the step's start (sorted by start) */
	for (size_t i = rk_search(d->annots, d->nannots, st->start, 0); i < d->nannots; i++) {
		if (d->annots[i].start > st->start)
			break;
		if (d->annots[i].start == st->start && d->annots[i].end == st->end && d->annots[i].tid >= 0)
			return d->annots[i].tid;
	}
	int64_t best_t = INT64_MIN, tid = -1;
	for (size_t i = 0; i < g->npts; i++)
		if (g->pts[i].t <= st->end && g->pts[i].t > best_t) {
			best_t = g->pts[i].t;
			tid = g->pts[i].tid;
		}
	return tid;
}

/* lower_bound's predicate: the point is at or before the key point in (thread, time) order. */
static int point_by(const void *elem, const void *key)
{
	const struct cp_point *p = elem, *k = key;
	return p->tid < k->tid || (p->tid == k->tid && p->t <= k->t);
}

/* The last point of thread tid at or before t, or -1. */
static ssize_t last_point(const struct cp_graph *g, int64_t tid, int64_t t)
{
	struct cp_point key = {.tid = tid, .t = t};
	size_t l = lower_bound(g->pts, g->npts, sizeof(*g->pts), &key, point_by); /* first point after (tid, t) */
	return l > 0 && g->pts[l - 1].tid == tid ? (ssize_t)l - 1 : -1;
}

/* Per (run, step): the ranks' rows, for the steps summary. */
struct step_acc {
	int64_t step;
	size_t ranks;
	int64_t longest;
	int crit_rank, max_wait_rank, waited_for;
	int64_t crit_wait, max_wait;
	int64_t crit_cat[NCAT];
};

/*
 * Step key -> 1 + its index in a run's step_acc array, open addressing with
 * linear probing, at most half full. Each rank's step was looked up by a
 * linear search of the run's steps: 200,000 steps took 35 s.
 */
struct step_index {
	size_t *slot, cap;
};

static size_t *step_slot(const struct step_index *ix, const struct step_acc *sa, int64_t key)
{
	size_t j = (size_t)((uint64_t)key * 0x9E3779B97F4A7C15ull >> 20) & (ix->cap - 1);
	while (ix->slot[j] && sa[ix->slot[j] - 1].step != key)
		j = (j + 1) & (ix->cap - 1);
	return &ix->slot[j];
}

/* The index of key in sa[0..*n), appended (zeroed but for step and crit_wait) when new. */
static size_t step_find(struct step_index *ix, struct step_acc **sa, size_t *n, size_t *cap, int64_t key)
{
	if (2 * (*n + 1) > ix->cap) {
		ix->cap = ix->cap ? 2 * ix->cap : 64;
		free(ix->slot);
		ix->slot = xcalloc(ix->cap, sizeof(*ix->slot));
		for (size_t i = 0; i < *n; i++)
			*step_slot(ix, *sa, (*sa)[i].step) = i + 1;
	}
	size_t *slot = step_slot(ix, *sa, key);
	if (*slot)
		return *slot - 1;
	*sa = xgrow(*sa, cap, *n + 1, sizeof(**sa));
	memset(&(*sa)[*n], 0, sizeof(**sa));
	(*sa)[*n].step = key;
	(*sa)[*n].crit_wait = INT64_MAX;
	*slot = ++*n;
	return *n - 1;
}

static void step_index_clear(struct step_index *ix)
{
	if (ix->slot)
		memset(ix->slot, 0, ix->cap * sizeof(*ix->slot));
}

static void add_run_steps(struct table *ts, const char *run, struct step_acc *sa, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t row = table_add_row(ts);
		size_t c = 0;
		table_set_text(ts, row, c++, run);
		table_set_int(ts, row, c++, sa[i].step);
		table_set_int(ts, row, c++, (int64_t)sa[i].ranks);
		table_set_ns(ts, row, c++, sa[i].longest);
		table_set_int(ts, row, c++, sa[i].crit_rank);
		for (int k = 0; k < NCAT; k++)
			table_set_ns(ts, row, c++, sa[i].crit_cat[k]);
		if (sa[i].max_wait > 0) {
			table_set_int(ts, row, c, sa[i].max_wait_rank);
			table_set_ns(ts, row, c + 1, sa[i].max_wait);
			table_set_int(ts, row, c + 2, sa[i].waited_for);
		}
	}
}

/* A table whose columns are head, a column per category, then tail (cols: scratch). */
static struct table *cat_table(struct buf *cols, const char *name, const char *title, const char *head,
			       const char *tail)
{
	buf_reset(cols);
	buf_adds(cols, head);
	for (int k = 0; k < NCAT; k++)
		buf_printf(cols, ",%s:us", cat_cols[k]);
	buf_adds(cols, tail);
	return table_new(name, title, cols->data);
}

int analysis_critical_path(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct rank_key *keys;
	size_t nkeys;
	if (rank_keys(ctx->store, ctx->experiment, &keys, &nkeys) < 0)
		return -1;
	struct classifier *cls = classifier_preset("default");
	struct buf cols, label;
	buf_init(&cols);
	buf_init(&label);
	struct table *t = cat_table(&cols, "critical_path",
				    "Critical path of each step and rank: the step's time by what the path ran",
				    "run:text,rank:int,step:int,step_us:us", ",wait_rank:int,bound:text");
	struct table *ts = cat_table(&cols, "critical_path_steps",
				     "Critical path per step: the rank that waited least (its own work set the step) "
				     "and the rank that waited most",
				     "run:text,step:int,ranks:int,step_us:us,critical_rank:int",
				     ",max_wait_rank:int,max_wait_us:us,waited_for_rank:int");
	struct table *tx = cat_table(&cols, "critical_path_across",
				     "Critical path of each step across ranks: through each collective to the rank that "
				     "arrived last",
				     "run:text,step:int,end_rank:int,path_us:us",
				     ",ranks_on_path:int,path_by_rank:text,most_rank:int,most_rank_us:us,cut:int");
	struct chart *c = chart_new(CHART_STACKED_BAR, "critical_path", "Critical path of the step by category",
				    "mean time per step (ms)");
	for (int k = 0; k < NCAT; k++)
		chart_add_series(c, cat_series[k]);
	struct step_acc *sa = NULL;
	size_t nsa = 0, cap_sa = 0;
	struct step_index six = {NULL, 0};
	struct cp_waits waits = {NULL, 0, NULL, 0, 0};
	int ret = -1, maxrank = 0, any = 0;
	for (size_t k = 0; k < nkeys; k++)
		if (keys[k].rank > maxrank)
			maxrank = keys[k].rank;
	waits.by_rank = xcalloc((size_t)maxrank + 1, sizeof(*waits.by_rank));
	waits.nranks = maxrank + 1;
	struct xr_run xr;
	memset(&xr, 0, sizeof(xr));
	struct cp_across xa;
	memset(&xa, 0, sizeof(xa));
	int64_t *step_pt = NULL;
	size_t cap_pt = 0;
	sqlite3_stmt *sync = NULL;
	if (sync_calls_prepare(ctx->store, &sync) < 0)
		goto out;
	for (size_t k = 0; k < nkeys; k++) {
		if (k > 0 && strcmp(keys[k].run, keys[k - 1].run)) {
			add_run_steps(ts, keys[k - 1].run, sa, nsa);
			nsa = 0;
			step_index_clear(&six);
			if (xr.nops)
				across_rows(&xa, &xr, tx, &label);
		}
		if (k == 0 || strcmp(keys[k].run, keys[k - 1].run)) {
			/* a new run: its collectives matched across its ranks (crossrank.c, warnings given there) */
			size_t e = k + 1;
			while (e < nkeys && !strcmp(keys[e].run, keys[k].run))
				e++;
			crossrank_release(&xr);
			if (e - k >= 2 && crossrank_match(ctx->store, &keys[k], e - k, cls, NULL, &xr) < 0)
				goto out;
			if (xr.nops)
				across_reset(&xa, &xr);
		}
		struct rank_data d;
		if (rank_data_load(ctx->store, &keys[k], cls, &d) < 0)
			goto out;
		if (!d.nsteps) {
			rank_data_release(&d);
			continue;
		}
		struct cp_graph g;
		if (graph_build(ctx->store, sync, &keys[k], &d, &g) < 0) {
			rank_data_release(&d);
			goto out;
		}
		int xri = crossrank_rank_index(&xr, keys[k].rank);
		if (xri >= 0)
			graph_joins(&g, &xr, (size_t)xri);
		buf_reset(&label);
		buf_printf(&label, "%s r%d", keys[k].run, keys[k].rank);
		size_t cat = chart_add_category(c, label.data);
		size_t ncut = 0;
		for (size_t si = 0; si < d.nsteps; si++) {
			const struct rk_range *st = &d.steps[si];
			struct cp_path p = {.w = &waits};
			for (size_t i = 0; i < waits.ntouched; i++) /* what the walks before left */
				waits.by_rank[waits.touched[i]] = 0;
			waits.ntouched = 0;
			int64_t tid = step_tid(&g, st);
			ssize_t pi = last_point(&g, tid, st->end);
			step_pt = xgrow(step_pt, &cap_pt, si + 1, sizeof(*step_pt));
			step_pt[si] = pi;
			if (pi < 0)
				p.cat[CP_HOST] = st->end - st->start; /* no host event on its thread: host time */
			else
				walk(&g, (size_t)pi, st->end, st->start, &p, NULL);
			ncut += p.cut;
			int wr = -1;
			for (size_t i = 0; i < waits.ntouched; i++) { /* the most waited for; of equals the lowest rank */
				int r = waits.touched[i];
				int64_t v = waits.by_rank[r];
				if (v > 0 && (wr < 0 || v > waits.by_rank[wr] || (v == waits.by_rank[wr] && r < wr)))
					wr = r;
			}
			int bound = 0;
			for (int q = 1; q < NCAT; q++)
				if (p.cat[q] > p.cat[bound])
					bound = q;
			size_t row = table_add_row(t), col = 0;
			table_set_text(t, row, col++, keys[k].run);
			table_set_int(t, row, col++, keys[k].rank);
			table_set_int(t, row, col++, st->key);
			table_set_ns(t, row, col++, st->end - st->start);
			for (int q = 0; q < NCAT; q++) {
				table_set_ns(t, row, col++, p.cat[q]);
				chart_set(c, cat, (size_t)q,
					  chart_get(c, cat, (size_t)q) + (double)p.cat[q] / 1e6 / (double)d.nsteps);
			}
			if (wr >= 0)
				table_set_int(t, row, col, wr);
			col++;
			table_set_text(t, row, col, cat_series[bound]);
			any = 1;

			/* the run's steps: the rank that waited least, and the one that waited most */
			size_t at = step_find(&six, &sa, &nsa, &cap_sa, st->key); /* sa may move */
			struct step_acc *a = &sa[at];
			a->ranks++;
			if (st->end - st->start > a->longest)
				a->longest = st->end - st->start;
			if (p.cat[CP_WAIT] < a->crit_wait) {
				a->crit_wait = p.cat[CP_WAIT];
				a->crit_rank = keys[k].rank;
				memcpy(a->crit_cat, p.cat, sizeof(a->crit_cat));
			}
			if (p.cat[CP_WAIT] > a->max_wait) {
				a->max_wait = p.cat[CP_WAIT];
				a->max_wait_rank = keys[k].rank;
				a->waited_for = wr;
			}
		}
		if (ncut)
			result_add_note(out, "critical_path.csv: run %s rank %d: in %zu step(s) the walk met an event "
					"twice (zero-length events at one instant) and stopped there; the rest of the "
					"step is not attributed", keys[k].run, keys[k].rank, ncut);
		if (xri >= 0 && xr.nops) {
			struct cp_path scratch = {.w = &waits};
			across_rank(&xa, &g, &xr, (size_t)xri, step_pt, &scratch);
		}
		graph_release(&g);
		rank_data_release(&d);
	}
	if (nkeys)
		add_run_steps(ts, keys[nkeys - 1].run, sa, nsa);
	if (xr.nops)
		across_rows(&xa, &xr, tx, &label);
	if (any) {
		result_add_table(out, t);
		result_add_table(out, ts);
		if (tx->nrows) {
			result_add_table(out, tx);
			tx = NULL;
		}
		result_add_figure(out, c,
				  "Critical path of the step per run and rank, mean per step: what the path of binding "
				  "dependencies back from the step's end ran (GPU compute, communication transfer, "
				  "memory, host operators and launches, GPU idle between activities) and how long "
				  "it waited inside collectives for another rank.");
		t = NULL;
		ts = NULL;
		c = NULL;
		result_add_method(
			out, "critical_path.csv",
			"Per rank and ProfilerStep#N host range, a graph whose nodes are the starts and ends of host "
			"operators (cpu_op), CUDA runtime calls and GPU activities, and whose edges point forward in "
			"time with the time between their nodes as weight: consecutive events of a host thread; a "
			"launch call's start to its kernel's start (correlation id); an activity's end to the next "
			"start on its stream; an inferred stream wait (an activity that started more than 20 us after "
			"its stream was free and its launch call had returned depends on the activity of another "
			"stream that ended last before it started); a GPU activity's end to the end of the runtime "
			"call that waited for it (a copy ending inside its own call; the activity ending last inside "
			"a cudaDeviceSynchronize, cudaStreamSynchronize or cudaEventSynchronize); and each activity's "
			"start to its end; a collective matched across ranks (collective_waits.csv) is split at the last "
			"rank's arrival, moved onto this rank's clock with clock_offsets.csv: its start to the arrival is "
			"waiting for that rank, the rest communication (a kernel that ended before the last arrival, a "
			"Broadcast's root, counts whole as communication); the path does not continue on the rank waited "
			"for, whose own row shows what it did. "
			"The critical path runs back from the step's end, at each node through the incoming edge "
			"whose source happened last (the dependency it waited for; ties go to the GPU), to the step's "
			"start; as every edge weighs the time between its nodes, it is a longest path of the step and "
			"its parts sum to step_us. Parts: compute_us, communication_us and memory_us (activities by "
			"the default classification; for a matched collective only the transfer after the last "
			"arrival), host_us (host operators, runtime calls, gaps between them, and launch latency "
			"from a call's start to its kernel's start), idle_us (the GPU idle between an activity and "
			"the next one it waited for), wait_us (inside collectives, before the last rank arrived; "
			"wait_rank: the rank waited for longest). bound: the largest part. Differences from HTA's "
			"critical path analysis: HTA weighs dependency edges zero, so its path is shorter than the "
			"step and is reported as shares of itself; it reads cuda_sync events (not stored here) for "
			"stream waits and synchronisation, adds a launch edge only when the stream's queue was "
			"empty, merges the backward thread into the forward one, and is single-rank.");
		result_add_method(
			out, "critical_path_across.csv",
			"Per multi-rank run and step, the critical path across ranks: it starts at the end of the step "
			"(ProfilerStep#N) of the rank whose step ended last on the reference clock (end_rank; ties: the "
			"lowest rank), runs back as in critical_path.csv, and at a collective joined at another rank "
			"(that rank arrived last) goes on from that rank's kernel start, on that rank's graph, back to "
			"its own start of step N. Where the last rank's kernel belongs to another step the path does "
			"not jump and the time before the last arrival is wait_us, as in critical_path.csv. path_us "
			"is the path's length (the parts sum to it); path_by_rank: the time it spent on each rank; "
			"most_rank: the rank it spent the most on; cut 1: the path stopped where it should have "
			"jumped (no walk of the last rank there). Each rank's graph is walked once per step and once "
			"per collective it arrived last in, the segments then followed from rank to rank.");
		result_add_method(
			out, "critical_path_steps.csv",
			"Per run and step: ranks, the longest step_us of its ranks, critical_rank (the rank whose "
			"critical path waited least for other ranks; its own work set the step) with its parts as in "
			"critical_path.csv, and max_wait_rank, the rank that waited longest (max_wait_us) and the rank "
			"it waited for (waited_for_rank).");
	}
	ret = 0;
out:
	store_finalize(sync);
	crossrank_release(&xr);
	across_release(&xa);
	free(step_pt);
	table_free(tx);
	free(waits.by_rank);
	free(waits.touched);
	free(sa);
	free(six.slot);
	buf_release(&cols);
	buf_release(&label);
	table_free(t);
	table_free(ts);
	chart_free(c);
	classifier_free(cls);
	rank_keys_free(keys, nkeys);
	return ret;
}
