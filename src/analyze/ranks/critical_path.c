/*
 * critical_path.c: the graph of one rank's events and the walk of its
 * critical path back from an instant (critical_path_int.h); the tables and
 * figure of the analysis are critical_path_steps.c's.
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
 * the graph is built with a few sorts per rank (host points, activities
 * by end and by stream): linear in the events after
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
 * waiting for that rank (cp_graph_joins); the path does not jump onto the
 * rank waited for, whose own row says what it did meanwhile.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "analyze/ranks/critical_path_int.h"
#include "util/search.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

/*
 * A stream waits for another only if its activity started this long after
 * it could have (previous activity on its stream ended, launch returned):
 * back-to-back kernels leave gaps of a few microseconds, in which another
 * stream's activity ending is a coincidence, not a cause.
 */
#define XS_MIN_GAP_NS 20000


enum pt_type { PT_CALL_END, PT_OP_END, PT_OP_START, PT_CALL_START };


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

/* Activity indices by stream, then index (start order): each stream's activities in a row. */
static int cmp_by_stream(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
	int64_t sa = sort_acts->acts[a].stream, sb = sort_acts->acts[b].stream;
	if (sa != sb)
		return sa < sb ? -1 : 1;
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
int cp_sync_calls_prepare(struct store *s, struct store_stmt **st)
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
static int mark_sync_calls(struct store_stmt *st, const struct rank_key *k, const struct rank_data *d,
			   unsigned char *is_sync)
{
	rank_bind(st, k);
	int rc;
	while ((rc = store_next(st)) > 0) {
		int64_t start = store_column_int64(st, 0);
		int64_t tid = store_column_type(st, 1) == STORE_NULL ? -1 : store_column_int64(st, 1);
		/* launches are sorted by start: the first of this start, then those after it */
		size_t l = rk_search(d->launches, d->nlaunches, start, 0);
		for (; l < d->nlaunches && d->launches[l].start == start; l++)
			if (d->launches[l].tid == tid)
				is_sync[l] = 1;
	}
	store_reset(st);
	return rc;
}

void cp_graph_release(struct cp_graph *g)
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
int cp_graph_build(struct store_stmt *sync, const struct rank_key *k, const struct rank_data *d, struct cp_graph *g)
{
	memset(g, 0, sizeof(*g));
	g->d = d;
	g->rank = k->rank;
	g->npts = 2 * (d->ncpu_ops + d->nlaunches);
	g->pts = xmalloc((g->npts ? g->npts : 1) * sizeof(*g->pts));
	size_t n = 0;
	for (size_t i = 0; i < d->ncpu_ops; i++) {
		g->pts[n++] = (struct cp_point){d->cpu_ops[i].start, d->cpu_ops[i].tid, (int32_t)i, PT_OP_START, 0};
		g->pts[n++] = (struct cp_point){d->cpu_ops[i].end, d->cpu_ops[i].tid, (int32_t)i, PT_OP_END, 0};
	}
	for (size_t i = 0; i < d->nlaunches; i++) {
		g->pts[n++] = (struct cp_point){d->launches[i].start, d->launches[i].tid, (int32_t)i, PT_CALL_START, 0};
		g->pts[n++] = (struct cp_point){d->launches[i].end, d->launches[i].tid, (int32_t)i, PT_CALL_END, 0};
	}
	if (g->npts) /* qsort's array may not be NULL, even when empty */
		qsort(g->pts, g->npts, sizeof(*g->pts), cmp_point);
	/* per thread, how many operators and calls are open after each point: none, outside every one */
	for (size_t i = 0, depth = 0; i < g->npts; i++) {
		if (i && g->pts[i].tid != g->pts[i - 1].tid)
			depth = 0;
		if (g->pts[i].type == PT_OP_START || g->pts[i].type == PT_CALL_START)
			depth++;
		else if (depth)
			depth--;
		g->pts[i].outside = depth == 0;
	}

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

	/*
	 * Stream order: the previous activity of each stream in order of start
	 * (index), from the activities sorted by (stream, index). A linear search
	 * of the streams seen so far per activity was quadratic: 200,000 streams
	 * took 11.6 s.
	 */
	g->stream_prev = xmalloc(na * sizeof(int32_t));
	int32_t *by_stream = xmalloc(na * sizeof(int32_t));
	for (size_t i = 0; i < d->nacts; i++)
		by_stream[i] = (int32_t)i;
	sort_acts = d;
	if (d->nacts)
		qsort(by_stream, d->nacts, sizeof(int32_t), cmp_by_stream);
	sort_acts = NULL;
	for (size_t i = 0; i < d->nacts; i++) {
		int32_t a = by_stream[i], prev = i > 0 ? by_stream[i - 1] : -1;
		g->stream_prev[a] = prev >= 0 && d->acts[prev].stream == d->acts[a].stream ? prev : -1;
	}
	free(by_stream);

	/* Launch of each activity (correlation), and the sync edge of a call that waited for its own copy. */
	g->launch_of = xmalloc(na * sizeof(int32_t));
	struct launch_index *lidx = rank_launch_index(d);
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
	rank_launch_index_release(d, lidx);

	/* Synchronising calls wait for the activity that ended last inside them. */
	unsigned char *is_sync = xcalloc(nl, 1);
	if (mark_sync_calls(sync, k, d, is_sync) < 0) {
		free(is_sync);
		cp_graph_release(g);
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
void cp_graph_joins(struct cp_graph *g, const struct xr_run *run, size_t ri)
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

/* lower_bound's predicate: the rank number (int) is below the key's. */
static int rank_below(const void *elem, const void *key)
{
	return *(const int *)elem < *(const int *)key;
}

/* Adds the part of [from, to] after clip to the path; returns 1 when from <= clip (the walk is done). */
static int add_seg(struct cp_path *p, enum cp_cat c, int64_t from, int64_t to, int64_t clip, int wait_rank)
{
	int64_t lo = from > clip ? from : clip;
	if (to > lo) {
		p->cat[c] += to - lo;
		struct cp_waits *w = p->w;
		size_t ri = c == CP_WAIT && wait_rank >= 0
				    ? lower_bound(w->ranks, w->nranks, sizeof(*w->ranks), &wait_rank, rank_below)
				    : w->nranks;
		if (ri < w->nranks && w->ranks[ri] == wait_rank) {
			if (!w->by_rank[ri]) {
				w->touched = xgrow(w->touched, &w->cap, w->ntouched + 1, sizeof(*w->touched));
				w->touched[w->ntouched++] = ri;
			}
			w->by_rank[ri] += to - lo;
		}
	}
	return from <= clip;
}

/* A host segment, its time also counted as outside every operator and call where outside is set. */
static int add_host(struct cp_path *p, int64_t from, int64_t to, int64_t clip, int outside)
{
	int64_t lo = from > clip ? from : clip;
	if (outside && to > lo)
		p->host_outside += to - lo;
	return add_seg(p, CP_HOST, from, to, clip, -1);
}

/* The kernel of op on its last rank: (rank index, kernel), or NULL. */
const struct xr_kern *cp_last_kern(const struct xr_run *xr, const struct xr_op *op, size_t *ri)
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
	const struct xr_kern *k = cp_last_kern(jp->xr, &jp->xr->ops[j->op], &ri);
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
				if (add_host(p, g->pts[i - 1].t, pt->t, clip, g->pts[i - 1].outside))
					return;
				i--;
			} else {
				/* the thread's first recorded event: the thread ran before it, unrecorded */
				add_host(p, clip, pt->t, clip, 1);
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
void cp_walk_node(struct cp_graph *g, enum node_kind kind, size_t i, int64_t clip, struct cp_path *p,
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
void cp_walk(struct cp_graph *g, size_t pi, int64_t end, int64_t clip, struct cp_path *p, struct cp_jump *jp)
{
	if (jp)
		jp->next_op = -1;
	if (add_host(p, g->pts[pi].t, end, clip, g->pts[pi].outside))
		return;
	cp_walk_node(g, N_PT, pi, clip, p, jp);
}
