/* kineto_coalesced.c: a coalesced point-to-point kernel's batch (see kineto_coalesced.h). */
#include "ingest/kineto/kineto_coalesced.h"

#include <stdlib.h>
#include <string.h>

#include "util/intmap.h"
#include "util/search.h"
#include "util/xalloc.h"

/* Where an op or annotation is: sorted by thread (or stream), then start, then External id. */
struct place {
	int64_t tid, ts, external_id; /* tid: the thread, or the stream of a GPU annotation */
};

struct p2p_op {
	struct place at; /* first: ops sort and search by it */
	int64_t peer, nelems;
	char *dtype, *process_group; /* NULL: none */
	int send;
};

struct annot {
	struct place at; /* first, as in p2p_op */
	int64_t end;
};

struct coalesced {
	struct p2p_op *ops;
	size_t nops, cap_ops;
	struct annot *host, *gpu;
	size_t nhost, cap_host, ngpu, cap_gpu;
	struct intmap claimed; /* External ids that kernels carry (value unused) */
	struct intmap host_ids; /* External id -> index into host, after sorting */
	int sorted;
	struct op_index *ix; /* over the sorted ops, made at the first coalesced_fill */
};

/*
 * What coalesced_fill asks of a batch's ops, ops[i .. j) of one thread,
 * answered without a walk over them: a walk per kernel made a trace whose
 * kernels share one batch quadratic (40,000 kernels, 11.6 s). The claims
 * are all known by then (fills come when the file ends), so each op is
 * either claimed or not once and for all. Over the unclaimed ops:
 *   next[i]      the first unclaimed at or after i (nops: none)
 *   peer_end[i]  for unclaimed i, the first unclaimed after it whose peer
 *                differs from its own (nops: none); likewise dtype_end,
 *                pg_end for the dtype and process group (same_text)
 *   cnt[d][i]    of ops[0 .. i), the unclaimed ones of direction d (0
 *                recv, 1 send); bad[d][i] those with nelems <= 0;
 *                sum[d][i] the nelems of the others, exact (128 bits)
 */
struct op_index {
	size_t *next, *peer_end, *dtype_end, *pg_end;
	size_t *cnt[2], *bad[2];
	unsigned __int128 *sum[2];
};

static void index_free(struct coalesced *c)
{
	struct op_index *x = c->ix;
	if (!x)
		return;
	free(x->next);
	free(x->peer_end);
	free(x->dtype_end);
	free(x->pg_end);
	for (int d = 0; d < 2; d++) {
		free(x->cnt[d]);
		free(x->bad[d]);
		free(x->sum[d]);
	}
	free(x);
	c->ix = NULL;
}

struct coalesced *coalesced_new(void)
{
	return xcalloc(1, sizeof(struct coalesced));
}

void coalesced_free(struct coalesced *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nops; i++) {
		free(c->ops[i].dtype);
		free(c->ops[i].process_group);
	}
	free(c->ops);
	free(c->host);
	free(c->gpu);
	intmap_free(&c->claimed);
	intmap_free(&c->host_ids);
	index_free(c);
	free(c);
}

void coalesced_op(struct coalesced *c, int64_t tid, int64_t ts, int64_t external_id, int send, int64_t peer,
		  int64_t nelems, const char *dtype, const char *process_group)
{
	c->ops = xgrow(c->ops, &c->cap_ops, c->nops + 1, sizeof(*c->ops));
	c->ops[c->nops++] = (struct p2p_op){{tid, ts, external_id}, peer, nelems, dtype ? xstrdup(dtype) : NULL,
					    process_group ? xstrdup(process_group) : NULL, send};
	c->sorted = 0;
	index_free(c);
}

void coalesced_claim(struct coalesced *c, int64_t external_id)
{
	if (intmap_get(&c->claimed, external_id) == SIZE_MAX)
		intmap_index(&c->claimed, external_id, 0);
	index_free(c);
}

void coalesced_annotation(struct coalesced *c, int on_gpu, int64_t tid, int64_t ts, int64_t dur,
			  int64_t external_id)
{
	struct annot a = {{tid, ts, external_id}, ts + dur};
	if (on_gpu) {
		c->gpu = xgrow(c->gpu, &c->cap_gpu, c->ngpu + 1, sizeof(*c->gpu));
		c->gpu[c->ngpu++] = a;
	} else {
		c->host = xgrow(c->host, &c->cap_host, c->nhost + 1, sizeof(*c->host));
		c->host[c->nhost++] = a;
	}
	c->sorted = 0;
}

int coalesced_candidate(const struct gpu_activity *a)
{
	return a->kind == ACT_KERNEL && !a->collective && a->name && !strncmp(a->name, "ncclDevKernel_SendRecv", 22);
}

/*
 * Compares the places that begin two ops or two annotations: a total order,
 * so that the result is the same in any file order.
 */
static int cmp_place(const void *pa, const void *pb)
{
	const struct place *a = pa, *b = pb;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (a->external_id > b->external_id) - (a->external_id < b->external_id);
}

/* lower_bound's predicate: the element's place is before (tid, ts) of key. */
static int place_before(const void *elem, const void *key)
{
	const struct place *e = elem, *k = key;
	return e->tid < k->tid || (e->tid == k->tid && e->ts < k->ts);
}

static void sort_all(struct coalesced *c)
{
	if (c->sorted)
		return;
	if (c->nops)
		qsort(c->ops, c->nops, sizeof(*c->ops), cmp_place);
	if (c->nhost)
		qsort(c->host, c->nhost, sizeof(*c->host), cmp_place);
	if (c->ngpu)
		qsort(c->gpu, c->ngpu, sizeof(*c->gpu), cmp_place);
	intmap_free(&c->host_ids);
	memset(&c->host_ids, 0, sizeof(c->host_ids));
	/* An External id given twice keeps its first annotation in this order. */
	for (size_t i = 0; i < c->nhost; i++)
		if (intmap_get(&c->host_ids, c->host[i].at.external_id) == SIZE_MAX)
			intmap_index(&c->host_ids, c->host[i].at.external_id, i);
	c->sorted = 1;
}

static int same_text(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* c->ix over the sorted ops and the claims (see struct op_index). */
static void index_ops(struct coalesced *c)
{
	size_t n = c->nops;
	struct op_index *x = xcalloc(1, sizeof(*x));
	x->next = xmalloc((n + 1) * sizeof(*x->next));
	x->peer_end = xmalloc((n + 1) * sizeof(*x->peer_end));
	x->dtype_end = xmalloc((n + 1) * sizeof(*x->dtype_end));
	x->pg_end = xmalloc((n + 1) * sizeof(*x->pg_end));
	for (int d = 0; d < 2; d++) {
		x->cnt[d] = xcalloc(n + 1, sizeof(*x->cnt[d]));
		x->bad[d] = xcalloc(n + 1, sizeof(*x->bad[d]));
		x->sum[d] = xcalloc(n + 1, sizeof(*x->sum[d]));
	}
	unsigned char *free_op = xmalloc(n ? n : 1);
	for (size_t i = 0; i < n; i++) {
		const struct p2p_op *o = &c->ops[i];
		free_op[i] = intmap_get(&c->claimed, o->at.external_id) == SIZE_MAX;
		for (int d = 0; d < 2; d++) {
			int mine = free_op[i] && o->send == d;
			x->cnt[d][i + 1] = x->cnt[d][i] + (size_t)mine;
			x->bad[d][i + 1] = x->bad[d][i] + (size_t)(mine && o->nelems <= 0);
			x->sum[d][i + 1] = x->sum[d][i] + (mine && o->nelems > 0 ? (unsigned __int128)o->nelems : 0);
		}
	}
	size_t after = n; /* the first unclaimed op after i */
	x->next[n] = x->peer_end[n] = x->dtype_end[n] = x->pg_end[n] = n;
	for (size_t i = n; i-- > 0;) {
		if (free_op[i]) {
			const struct p2p_op *o = &c->ops[i], *a = after < n ? &c->ops[after] : NULL;
			x->peer_end[i] = a && a->peer == o->peer ? x->peer_end[after] : after;
			x->dtype_end[i] = a && same_text(a->dtype, o->dtype) ? x->dtype_end[after] : after;
			x->pg_end[i] = a && same_text(a->process_group, o->process_group) ? x->pg_end[after] : after;
			after = i;
		} else {
			x->peer_end[i] = x->dtype_end[i] = x->pg_end[i] = n;
		}
		x->next[i] = after;
	}
	free(free_op);
	c->ix = x;
}

/* The first op in ops[lo .. n) not before (tid, ts]: past the last op of thread tid starting at or before ts. */
static int place_not_after(const void *elem, const void *key)
{
	const struct place *e = elem, *k = key;
	return e->tid < k->tid || (e->tid == k->tid && e->ts <= k->ts);
}

int coalesced_fill(struct coalesced *c, struct gpu_activity *a)
{
	if (!c->ngpu || !c->nhost || !c->nops)
		return 0;
	sort_all(c);
	/*
	 * The GPU annotation on the kernel's stream that starts last at or
	 * before the kernel (1 ns later still counts: the two may round their
	 * starts apart), and reaches its start.
	 */
	struct place key = {a->stream, a->start_ns + 2, 0};
	size_t g = lower_bound(c->gpu, c->ngpu, sizeof(*c->gpu), &key, place_before);
	if (g == 0 || c->gpu[g - 1].at.tid != a->stream || c->gpu[g - 1].end < a->start_ns)
		return 0;
	size_t h = intmap_get(&c->host_ids, c->gpu[g - 1].at.external_id);
	if (h == SIZE_MAX)
		return 0;
	const struct annot *ha = &c->host[h];
	/* The ops from the previous coalesced annotation's end on the thread to this one's start. */
	int64_t after = h > 0 && c->host[h - 1].at.tid == ha->at.tid ? c->host[h - 1].end : INT64_MIN;
	key = (struct place){ha->at.tid, after, 0};
	size_t i = lower_bound(c->ops, c->nops, sizeof(*c->ops), &key, place_before);
	key = (struct place){ha->at.tid, ha->at.ts, 0};
	size_t j = lower_bound(c->ops, c->nops, sizeof(*c->ops), &key, place_not_after);
	if (j < i)
		j = i; /* a window that closes before it opens (an annotation that ends after the next starts) */
	if (!c->ix)
		index_ops(c);
	const struct op_index *x = c->ix;
	/* ops[i .. j): the thread's ops from `after` to the annotation's start; the first unclaimed one */
	size_t f = x->next[i];
	const struct p2p_op *first = f < j ? &c->ops[f] : NULL;
	if (first && x->peer_end[f] < j)
		return 0; /* several peers */
	int64_t nel[2] = {0, 0}; /* received, sent */
	int known[2], dir[2];
	for (int d = 0; d < 2; d++) {
		dir[d] = x->cnt[d][j] > x->cnt[d][i];
		unsigned __int128 sum = x->sum[d][j] - x->sum[d][i];
		known[d] = x->bad[d][j] == x->bad[d][i] && sum <= (unsigned __int128)INT64_MAX;
		nel[d] = known[d] ? (int64_t)sum : 0;
	}
	int dtype_same = first && x->dtype_end[f] >= j, pg_same = first && x->pg_end[f] >= j;
	if (!first || first->peer < 0)
		return 0;
	a->has_peer = 1;
	a->peer = first->peer;
	if (dir[0] && dir[1]) {
		/* both ways: in counts what it sends, out what it receives */
		a->collective = "sendrecv";
		a->in_nelems = known[1] ? nel[1] : 0;
		a->out_nelems = known[0] ? nel[0] : 0;
	} else {
		a->collective = first->send ? "send" : "recv";
		a->in_nelems = a->out_nelems = known[first->send] ? nel[first->send] : 0;
	}
	a->dtype = dtype_same ? first->dtype : NULL;
	if (!a->process_group && pg_same)
		a->process_group = first->process_group;
	return 1;
}
