/*
 * replay_model.c: the graph of one rank's profiled steps (replay.h says
 * what it holds and what it leaves out), built from the store.
 *
 * The inferences, each on measured times only:
 *   wait      a call that can wait (CALL_MAY_BLOCK) but for one that
 *             copies from pinned host memory to the device (which CUDA
 *             runs asynchronously: the call returns once it is queued,
 *             whatever the GPU is doing when it ends), of at least
 *             RP_WAIT_MIN_NS, whose own activity ended
 *             within RP_WAKE_MAX_NS of its end (a pageable copy) waited for
 *             it; else one that ended at most RP_WAKE_MAX_NS after a GPU
 *             activity that ended during it waited for the latest such
 *             activity; a cuda*Synchronize call, for the last activity
 *             that ended during it, however long before it returned;
 *   throttle  a call of at least RP_WAIT_MIN_NS that launches work and
 *             ended at an activity's end as above, while at least half the
 *             queue was pending, waited for a slot of the launch queue, not
 *             for that activity (any call that launches, a kernel launch
 *             too); the queue's depth is then the median
 *             number pending at those calls (else RP_QUEUE_DEFAULT);
 *   dep       an activity that started more than RP_DEP_GAP_NS after both
 *             its launch returned and its stream's previous activity ended
 *             waited for the activity of another stream that ended last
 *             before it started, if that was after both (an event wait:
 *             what is left between them is a constant, so the activity
 *             moves with the one it waited for).
 */
#include "analyze/replay/replay.h"
#include "analyze/lib/intervals.h"
#include "analyze/lib/stats.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define RP_WAIT_MIN_NS 20000    /* a call shorter than this did not wait for the GPU */
#define RP_WAKE_MAX_NS 50000    /* a waiting call returns within this of the activity's end */
#define RP_DEP_GAP_NS 5000      /* an activity's start this far past its own dependencies needs another */

#define RANK_ROWS(x) " FROM traces rt JOIN " x " x ON x.trace_id = rt.id WHERE rt.run_id = ?1 AND rt.rank = ?2"

struct raw_call {
	int64_t start, dur, tid, corr, trace, name_id;
	int sync, may_block;
};


struct raw_op {
	int64_t start, dur, stream, corr, trace, bytes, name_id, peer;
	int kind, comm, p2p;
};

/* What an activity is, from its kind and (for a copy) its name: "Memcpy HtoD (Pageable -> Device)". */
static int op_kind(const char *kind, const char *name)
{
	if (!strcmp(kind, "kernel"))
		return RP_OP_KERNEL;
	if (!strcmp(kind, "memset"))
		return RP_OP_SET;
	if (name && strstr(name, "HtoD"))
		return strstr(name, "Pageable") ? RP_OP_H2D_PAGEABLE : RP_OP_H2D;
	if (name && strstr(name, "DtoH"))
		return RP_OP_D2H;
	return RP_OP_OTHER_COPY;
}

/*
 * What a name says, looked up once per name id for one rank's load
 * (rank_name) rather than joined to every row and tested by SQL's instr
 * there, once a row: NAME_SEEN once looked up,
 * NAME_GONE when the id has no name (the join dropped such a row),
 * NAME_SYNC a synchronize, NAME_MAY_BLOCK a runtime call that can wait for
 * the GPU (CALL_MAY_BLOCK: synchronizes, copies (cudaMemcpyAsync blocks for
 * pageable memory and device-to-host into it), frees and allocations
 * (cudaFree synchronizes the device), and the synchronous memset; a kernel
 * launch waits only for the launch queue), NAME_COMM a kernel's nccl or
 * rccl; copy[id] a copy's op_kind.
 */
enum { NAME_SEEN = 1, NAME_GONE = 2, NAME_SYNC = 4, NAME_MAY_BLOCK = 8, NAME_COMM = 16 };
struct name_memo {
	unsigned char *f, *copy;
	size_t n;
};

static unsigned name_flags(struct store *s, struct name_memo *m, int64_t id, int *copy)
{
	if (id < 0 || id >= ((int64_t)1 << 26))
		return NAME_GONE; /* the store numbers its names from 1 */
	size_t i = (size_t)id;
	if (i >= m->n) {
		size_t n = m->n ? m->n : 256;
		while (n <= i)
			n *= 2;
		m->f = xrealloc(m->f, n);
		m->copy = xrealloc(m->copy, n);
		memset(m->f + m->n, 0, n - m->n);
		m->n = n;
	}
	if (!m->f[i]) {
		char *name = rank_name(s, id);
		unsigned f = NAME_SEEN;
		if (!name) {
			f |= NAME_GONE;
		} else {
			if (strstr(name, "Synchronize"))
				f |= NAME_SYNC | NAME_MAY_BLOCK;
			if (strstr(name, "Memcpy") || strstr(name, "Free") || strstr(name, "Malloc") ||
			    strstr(name, "HostAlloc") || strstr(name, "HostRegister") ||
			    (strstr(name, "Memset") && !strstr(name, "Async")))
				f |= NAME_MAY_BLOCK;
			if (strstr(name, "nccl") || strstr(name, "rccl"))
				f |= NAME_COMM;
			m->copy[i] = (unsigned char)op_kind("memcpy", name);
		}
		m->f[i] = (unsigned char)f;
		free(name);
	}
	*copy = m->copy[i];
	return m->f[i];
}

static int cmp_call(const void *a, const void *b)
{
	const struct raw_call *x = a, *y = b;
	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_op(const void *a, const void *b)
{
	const struct raw_op *x = a, *y = b;
	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->stream > y->stream) - (x->stream < y->stream);
}

/* (trace, correlation) of a launch, to find its activity by binary search. */
struct corr_key {
	int64_t trace, corr;
	int64_t index;
};

static int cmp_corr(const void *a, const void *b)
{
	const struct corr_key *x = a, *y = b;
	if (x->trace != y->trace)
		return (x->trace > y->trace) - (x->trace < y->trace);
	return (x->corr > y->corr) - (x->corr < y->corr);
}

/* A point-to-point kernel's peer (collectives.peer) by (trace, start, correlation), as collectives keys it. */
struct peer_key {
	int64_t trace, start, corr, peer;
	int p2p;
};

static int cmp_peer_key(const void *a, const void *b)
{
	const struct peer_key *x = a, *y = b;
	if (x->trace != y->trace)
		return (x->trace > y->trace) - (x->trace < y->trace);
	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->corr > y->corr) - (x->corr < y->corr);
}

/*
 * Sets p2p and peer of the rank's comm kernels that collectives gives a
 * peer (a send, a recv, a fused sendrecv: pipeline_ranks.c's source), the
 * others none. Returns 0, or -1 after diag.
 */
static int load_peers(struct store *s, const struct rank_key *k, struct raw_op *ops, size_t nops)
{
	struct store_stmt *st = rank_query_kept(s, "replay: read point-to-point peers",
					   "SELECT rt.id, x.start_ns, coalesce(x.correlation, -1), x.collective, x.peer"
					   " FROM traces rt JOIN collectives x ON x.trace_id = rt.id"
					   " WHERE rt.run_id = ?1 AND rt.rank = ?2 AND x.peer IS NOT NULL"
					   " AND x.collective IN ('send', 'recv', 'sendrecv')",
					   k);
	if (!st)
		return -1;
	struct peer_key *v = NULL;
	size_t nv = 0, cap = 0;
	int rc;
	while ((rc = store_next(st)) > 0) {
		v = xgrow(v, &cap, nv + 1, sizeof(*v));
		const char *coll = (const char *)store_column_text(st, 3);
		v[nv++] = (struct peer_key){store_column_int64(st, 0), store_column_int64(st, 1), store_column_int64(st, 2),
					    store_column_int64(st, 4),
					    !strcmp(coll, "send") ? RP_P2P_SEND : !strcmp(coll, "recv") ? RP_P2P_RECV : RP_P2P_SENDRECV};
	}
	store_reset(st);
	if (rc < 0) {
		free(v);
		return -1;
	}
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_peer_key);
	for (size_t i = 0; i < nops; i++) {
		ops[i].p2p = 0;
		ops[i].peer = -1;
		if (!ops[i].comm || !nv)
			continue;
		struct peer_key want = {ops[i].trace, ops[i].start, ops[i].corr, 0, 0};
		const struct peer_key *hit = bsearch(&want, v, nv, sizeof(*v), cmp_peer_key);
		if (hit) {
			ops[i].p2p = hit->p2p;
			ops[i].peer = (int32_t)hit->peer;
		}
	}
	free(v);
	return 0;
}

static int load_raw(struct store *s, const struct rank_key *k, struct raw_call **calls, size_t *ncalls,
		    struct raw_op **ops, size_t *nops, struct ival **cover, size_t *ncover, struct rp_step **steps,
		    size_t *nsteps)
{
	size_t cap;
	int rc;
	struct name_memo memo = {0};
	int copy;
	struct store_stmt *st = rank_query_kept(s, "replay: read launches",
				      "SELECT x.start_ns, x.dur_ns, coalesce(x.tid, 0), coalesce(x.correlation, -1), rt.id, "
				      "x.name_id" RANK_ROWS("launches"),
				      k);
	if (!st)
		return -1;
	for (cap = 0; (rc = store_next(st)) > 0;) {
		/* the rows are read to the end before a name is looked up: one statement at a time */
		*calls = xgrow(*calls, &cap, *ncalls + 1, sizeof(**calls));
		struct raw_call *c = &(*calls)[(*ncalls)++];
		c->start = store_column_int64(st, 0);
		c->dur = store_column_int64(st, 1);
		c->tid = store_column_int64(st, 2);
		c->corr = store_column_int64(st, 3);
		c->trace = store_column_int64(st, 4);
		c->name_id = store_column_int64(st, 5);
	}
	store_reset(st);
	if (rc < 0)
		return -1;
	size_t kept_calls = 0;
	for (size_t i = 0; i < *ncalls; i++) {
		struct raw_call *c = &(*calls)[i];
		unsigned f = name_flags(s, &memo, c->name_id, &copy);
		if (f & NAME_GONE)
			continue;
		c->sync = !!(f & NAME_SYNC);
		c->may_block = !!(f & NAME_MAY_BLOCK);
		(*calls)[kept_calls++] = *c;
	}
	*ncalls = kept_calls;
	st = rank_query_kept(s, "replay: read activities",
			"SELECT x.start_ns, x.dur_ns, coalesce(x.stream, -1), coalesce(x.correlation, -1), rt.id, "
			"coalesce(x.bytes, -1), x.name_id, x.kind" RANK_ROWS("activities"),
			k);
	if (!st) {
		free(memo.f);
		free(memo.copy);
		return -1;
	}
	for (cap = 0; (rc = store_next(st)) > 0;) {
		*ops = xgrow(*ops, &cap, *nops + 1, sizeof(**ops));
		struct raw_op *o = &(*ops)[(*nops)++];
		o->start = store_column_int64(st, 0);
		o->dur = store_column_int64(st, 1);
		o->stream = store_column_int64(st, 2);
		o->corr = store_column_int64(st, 3);
		o->trace = store_column_int64(st, 4);
		o->bytes = store_column_int64(st, 5);
		o->name_id = store_column_int64(st, 6);
		const char *kind = (const char *)store_column_text(st, 7);
		/* the kind's class now, the name's part once the rows are read: 1 kernel, 2 copy */
		o->kind = op_kind(kind, NULL);
		o->comm = !strcmp(kind, "kernel") ? 1 : !strcmp(kind, "memcpy") ? 2 : 0;
	}
	store_reset(st);
	if (rc < 0) {
		free(memo.f);
		free(memo.copy);
		return -1;
	}
	size_t kept_ops = 0;
	for (size_t i = 0; i < *nops; i++) {
		struct raw_op *o = &(*ops)[i];
		unsigned f = name_flags(s, &memo, o->name_id, &copy);
		if (f & NAME_GONE)
			continue;
		if (o->comm == 2)
			o->kind = copy;
		o->comm = o->comm == 1 && (f & NAME_COMM);
		(*ops)[kept_ops++] = *o;
	}
	*nops = kept_ops;
	free(memo.f);
	free(memo.copy);
	if (load_peers(s, k, *ops, *nops) < 0)
		return -1;
	st = rank_query_kept(s, "replay: read operators", "SELECT x.start_ns, x.dur_ns" RANK_ROWS("cpu_ops"), k);
	if (!st)
		return -1;
	for (cap = 0; (rc = store_next(st)) > 0;) {
		*cover = xgrow(*cover, &cap, *ncover + 1, sizeof(**cover));
		(*cover)[*ncover].start = store_column_int64(st, 0);
		(*cover)[*ncover].end = (*cover)[*ncover].start + store_column_int64(st, 1);
		(*ncover)++;
	}
	store_reset(st);
	if (rc < 0)
		return -1;
	st = rank_query_kept(s, "replay: read steps", "SELECT x.step, x.start_ns, x.dur_ns" RANK_ROWS("steps") " ORDER BY x.start_ns",
			k);
	if (!st)
		return -1;
	for (cap = 0; (rc = store_next(st)) > 0;) {
		*steps = xgrow(*steps, &cap, *nsteps + 1, sizeof(**steps));
		struct rp_step *p = &(*steps)[(*nsteps)++];
		p->number = store_column_int64(st, 0);
		p->start = store_column_int64(st, 1);
		p->end = p->start + store_column_int64(st, 2);
		p->first_op = -1;
	}
	store_reset(st);
	if (rc < 0)
		return -1;
	return 0;
}

/* The total length of the stretches of (a, b) outside every span of v that are RP_UNRECORDED_NS or longer. */
static int64_t unrecorded(const struct ival *v, size_t n, int64_t a, int64_t b)
{
	if (b - a < RP_UNRECORDED_NS)
		return 0;
	size_t lo = ival_first_ending_after(v, n, a);
	int64_t at = a, total = 0;
	for (size_t i = lo; i < n && v[i].start < b && at < b; i++) {
		if (v[i].start > at && v[i].start - at >= RP_UNRECORDED_NS)
			total += v[i].start - at;
		if (v[i].end > at)
			at = v[i].end;
	}
	if (at < b && b - at >= RP_UNRECORDED_NS)
		total += b - at;
	return total;
}

/* The index in ends (sorted) of the last value <= t, or -1. */
static int64_t last_at_most(const int64_t *ends, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ends[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int64_t)lo - 1;
}

struct by_end {
	int64_t end, op;
};

static int cmp_by_end(const void *a, const void *b)
{
	const struct by_end *x = a, *y = b;
	if (x->end != y->end)
		return (x->end > y->end) - (x->end < y->end);
	return (x->op > y->op) - (x->op < y->op);
}

/* The index in e (sorted by end) of the last entry ending at or before t, or -1. */
static int64_t last_end(const struct by_end *e, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (e[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int64_t)lo - 1;
}

/*
 * When a call's activity is ready to start: when the call returns, or,
 * for a call that waits (a pageable or blocking copy waits for its own
 * activity), once its own cost is spent.
 */
int64_t rp_call_ready(const struct rp_call *c)
{
	return c->start + (c->wait_op >= 0 ? c->cost : c->dur);
}

static int64_t median_of(int64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), stats_cmp_i64);
	return v[n / 2];
}

int rp_model_load(struct store *s, const struct rank_key *k, struct rp_model *m)
{
	struct raw_call *rc = NULL;
	struct raw_op *ro = NULL;
	struct ival *cover = NULL;
	size_t nrc = 0, nro = 0, ncover = 0;
	memset(m, 0, sizeof(*m));
	m->queue = RP_QUEUE_DEFAULT;
	m->rank = k->rank;
	if (load_raw(s, k, &rc, &nrc, &ro, &nro, &cover, &ncover, &m->steps, &m->nsteps) < 0) {
		free(rc);
		free(ro);
		free(cover);
		rp_model_release(m);
		return -1;
	}
	if (!m->nsteps || !nrc || !nro) {
		m->nsteps = 0;
		goto out;
	}
	ncover = ival_union(cover, ncover);
	int64_t w0 = m->steps[0].start, w1 = m->steps[m->nsteps - 1].end;

	/* Activities by (trace, correlation). */
	struct corr_key *ck = xmalloc(nro * sizeof(*ck));
	size_t nck = 0;
	qsort(ro, nro, sizeof(*ro), cmp_op);
	for (size_t i = 0; i < nro; i++)
		if (ro[i].corr >= 0)
			ck[nck++] = (struct corr_key){ro[i].trace, ro[i].corr, (int64_t)i};
	qsort(ck, nck, sizeof(*ck), cmp_corr);

	/* The launching threads: those with a call in the window that launched an activity. */
	qsort(rc, nrc, sizeof(*rc), cmp_call);
	int64_t *tids = xmalloc(nrc * sizeof(*tids)), *launched = xmalloc(nrc * sizeof(*launched));
	size_t ntids = 0;
	for (size_t i = 0; i < nrc; i++) {
		launched[i] = -1;
		if (rc[i].corr < 0)
			continue;
		struct corr_key key = {rc[i].trace, rc[i].corr, 0};
		struct corr_key *hit = bsearch(&key, ck, nck, sizeof(*ck), cmp_corr);
		if (hit) {
			launched[i] = hit->index;
			if (rc[i].start >= w0 && rc[i].start < w1)
				tids[ntids++] = rc[i].tid;
		}
	}
	qsort(tids, ntids, sizeof(*tids), stats_cmp_i64);
	size_t nu = 0;
	for (size_t i = 0; i < ntids; i++)
		if (!nu || tids[nu - 1] != tids[i])
			tids[nu++] = tids[i];
	ntids = nu;

	/* The calls of those threads in the window; op_call[op] = its launching call among them. */
	int64_t *op_call = xmalloc(nro * sizeof(*op_call));
	for (size_t i = 0; i < nro; i++)
		op_call[i] = -1;
	m->calls = xcalloc(nrc, sizeof(*m->calls));
	for (size_t i = 0; i < nrc; i++) {
		if (rc[i].start < w0 || rc[i].start >= w1 || !bsearch(&rc[i].tid, tids, ntids, sizeof(*tids), stats_cmp_i64))
			continue;
		struct rp_call *c = &m->calls[m->ncalls];
		c->start = rc[i].start;
		c->dur = rc[i].dur;
		c->tid = rc[i].tid;
		c->name_id = rc[i].name_id;
		c->wait_op = -1;
		c->op = launched[i];
		c->step = -1;
		c->sync = rc[i].sync;
		c->may_block = rc[i].may_block;
		if (c->op >= 0)
			op_call[c->op] = (int64_t)m->ncalls;
		m->ncalls++;
	}
	free(tids);
	free(launched);
	free(ck);
	if (!m->ncalls) {
		m->nsteps = 0;
		free(op_call);
		goto out;
	}
	m->origin = w0; /* the first step's host start: the host time before the first call is the first gap */

	/* The activities: those launched in the window, and those still running or queued as it starts. */
	int64_t last_end_launched = w1;
	for (size_t i = 0; i < nro; i++)
		if (op_call[i] >= 0 && ro[i].start + ro[i].dur > last_end_launched)
			last_end_launched = ro[i].start + ro[i].dur;
	int64_t *new_index = xmalloc(nro * sizeof(*new_index));
	m->ops = xcalloc(nro, sizeof(*m->ops));
	for (size_t i = 0; i < nro; i++) {
		new_index[i] = -1;
		if (op_call[i] < 0 && (ro[i].start + ro[i].dur <= m->origin || ro[i].start > last_end_launched))
			continue;
		struct rp_op *o = &m->ops[m->nops];
		o->start = ro[i].start;
		o->dur = ro[i].dur;
		o->call = op_call[i];
		o->prev = o->dep = -1;
		o->bytes = ro[i].bytes;
		o->name_id = ro[i].name_id;
		o->kind = (unsigned char)ro[i].kind;
		o->comm = (unsigned char)ro[i].comm;
		o->p2p = (unsigned char)ro[i].p2p;
		o->peer = (int32_t)ro[i].peer;
		new_index[i] = (int64_t)m->nops++;
	}
	for (size_t i = 0; i < m->ncalls; i++)
		if (m->calls[i].op >= 0)
			m->calls[i].op = new_index[m->calls[i].op];
	/* Stream order: the previous activity of the same stream, ops being in start order. */
	{
		int64_t *streams = xmalloc(m->nops * sizeof(*streams));
		size_t ns = 0;
		for (size_t i = 0; i < nro; i++)
			if (new_index[i] >= 0)
				streams[ns++] = ro[i].stream;
		qsort(streams, ns, sizeof(*streams), stats_cmp_i64);
		nu = 0;
		for (size_t i = 0; i < ns; i++)
			if (!nu || streams[nu - 1] != streams[i])
				streams[nu++] = streams[i];
		int64_t *last = xmalloc((nu ? nu : 1) * sizeof(*last));
		for (size_t i = 0; i < nu; i++)
			last[i] = -1;
		int64_t *stream_of = xmalloc(m->nops * sizeof(*stream_of));
		for (size_t i = 0; i < nro; i++) {
			if (new_index[i] < 0)
				continue;
			int64_t *hit = bsearch(&ro[i].stream, streams, nu, sizeof(*streams), stats_cmp_i64);
			size_t si = (size_t)(hit - streams);
			m->ops[new_index[i]].prev = last[si];
			last[si] = new_index[i];
			stream_of[new_index[i]] = (int64_t)si;
		}
		struct by_end *be = xmalloc(m->nops * sizeof(*be));
		for (size_t i = 0; i < m->nops; i++)
			be[i] = (struct by_end){m->ops[i].start + m->ops[i].dur, (int64_t)i};
		qsort(be, m->nops, sizeof(*be), cmp_by_end);
		/* Waits and the launch queue: pending(t) = launched by t (their calls ended) - ended by t. */
		int64_t *lends = xmalloc(m->nops * sizeof(*lends)), *ends = xmalloc(m->nops * sizeof(*ends));
		size_t nl = 0;
		for (size_t i = 0; i < m->nops; i++) {
			const struct rp_op *o = &m->ops[i];
			lends[nl] = o->call >= 0 ? m->calls[o->call].start + m->calls[o->call].dur : o->start;
			ends[nl++] = o->start + o->dur;
		}
		qsort(lends, nl, sizeof(*lends), stats_cmp_i64);
		qsort(ends, nl, sizeof(*ends), stats_cmp_i64);
		int64_t *pend = xmalloc(m->ncalls * sizeof(*pend)), *costs = xmalloc(m->ncalls * sizeof(*costs));
		size_t npend = 0, ncosts = 0;
		for (size_t i = 0; i < m->ncalls; i++) {
			struct rp_call *c = &m->calls[i];
			c->cost = c->dur;
			int64_t e = c->start + c->dur;
			if (c->dur < RP_WAIT_MIN_NS) {
				if (c->op >= 0)
					costs[ncosts++] = c->dur;
				continue;
			}
			/* a copy from pinned memory to the device: the call returns at once (CUDA's async copy) */
			if (c->op >= 0 && m->ops[c->op].kind == RP_OP_H2D)
				continue;
			if (c->op >= 0 && c->may_block) {
				/* a copy the call itself waits for (pageable): its end may follow the call's by a little */
				int64_t oe = m->ops[c->op].start + m->ops[c->op].dur;
				if (oe >= e - RP_WAKE_MAX_NS && oe <= e + RP_WAKE_MAX_NS) {
					c->wait_op = c->op;
					c->wake = e - oe;
					continue;
				}
			}
			/* a synchronize waited for the last activity that ended during it, however late it woke */
			int64_t wake_max = c->sync ? c->dur : RP_WAKE_MAX_NS;
			int64_t j = last_end(be, m->nops, e);
			if (j < 0 || be[j].end < e - wake_max || be[j].end <= c->start)
				continue;
			int64_t pending = (last_at_most(lends, nl, c->start) + 1) - (last_at_most(ends, nl, c->start) + 1);
			if (c->op >= 0 && !c->sync && pending >= RP_QUEUE_DEFAULT / 2) {
				c->throttled = 1;
				pend[npend++] = pending;
				continue;
			}
			if (!c->may_block)
				continue; /* a launch that took long: its own cost */
			c->wait_op = be[j].op;
			c->wake = e - be[j].end;
		}
		if (npend)
			m->queue = median_of(pend, npend);
		int64_t launch_cost = median_of(costs, ncosts);
		for (size_t i = 0; i < m->ncalls; i++) {
			struct rp_call *c = &m->calls[i];
			if (c->throttled)
				c->cost = launch_cost < c->dur ? launch_cost : c->dur;
			else if (c->wait_op >= 0)
				c->cost = launch_cost < c->dur ? launch_cost : c->dur;
		}
		free(pend);
		free(costs);
		free(lends);
		free(ends);
		/* Cross-stream waits, then what is left of each start past its dependencies. */
		for (size_t i = 0; i < m->nops; i++) {
			struct rp_op *o = &m->ops[i];
			int64_t ready = o->call >= 0 ? rp_call_ready(&m->calls[o->call]) : o->start;
			int64_t prev_end = o->prev >= 0 ? m->ops[o->prev].start + m->ops[o->prev].dur : INT64_MIN;
			int64_t own = ready > prev_end ? ready : prev_end;
			if (o->call >= 0 && o->start - own > RP_DEP_GAP_NS) {
				for (int64_t j = last_end(be, m->nops, o->start); j >= 0; j--) {
					if (be[j].end <= own)
						break;
					if (stream_of[be[j].op] != stream_of[i] && be[j].op != (int64_t)i) {
						o->dep = be[j].op;
						own = be[j].end;
						break;
					}
				}
			}
			o->extra = o->start - own;
		}

		free(streams);
		free(last);
		free(stream_of);
		free(be);
	}
	free(new_index);
	free(op_call);

	/* Host gaps, steps and each step's first activity. */
	size_t k2 = 0;
	for (size_t i = 0; i < m->ncalls; i++) {
		struct rp_call *c = &m->calls[i];
		int64_t prev_end = i ? m->calls[i - 1].start + m->calls[i - 1].dur : m->origin;
		c->gap = c->start - prev_end;
		c->gap_fixed = c->gap > 0 ? unrecorded(cover, ncover, prev_end, c->start) : 0;
		while (k2 < m->nsteps && c->start >= m->steps[k2].end)
			k2++;
		if (k2 < m->nsteps && c->start >= m->steps[k2].start) {
			c->step = (int)k2;
			if (m->steps[k2].first_op < 0 && c->op >= 0)
				m->steps[k2].first_op = c->op;
		}
	}
out:
	free(rc);
	free(ro);
	free(cover);
	return 0;
}

void rp_model_release(struct rp_model *m)
{
	free(m->calls);
	free(m->ops);
	free(m->steps);
	memset(m, 0, sizeof(*m));
}
