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
};

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
	free(c);
}

void coalesced_op(struct coalesced *c, int64_t tid, int64_t ts, int64_t external_id, int send, int64_t peer,
		  int64_t nelems, const char *dtype, const char *process_group)
{
	c->ops = xgrow(c->ops, &c->cap_ops, c->nops + 1, sizeof(*c->ops));
	c->ops[c->nops++] = (struct p2p_op){{tid, ts, external_id}, peer, nelems, dtype ? xstrdup(dtype) : NULL,
					    process_group ? xstrdup(process_group) : NULL, send};
	c->sorted = 0;
}

void coalesced_claim(struct coalesced *c, int64_t external_id)
{
	if (intmap_get(&c->claimed, external_id) == SIZE_MAX)
		intmap_index(&c->claimed, external_id, 0);
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
	const struct p2p_op *first = NULL;
	int64_t nel[2] = {0, 0}; /* received, sent */
	int known[2] = {1, 1}, dir[2] = {0, 0}, dtype_same = 1, pg_same = 1;
	for (; i < c->nops && c->ops[i].at.tid == ha->at.tid && c->ops[i].at.ts <= ha->at.ts; i++) {
		const struct p2p_op *o = &c->ops[i];
		if (intmap_get(&c->claimed, o->at.external_id) != SIZE_MAX)
			continue;
		if (!first)
			first = o;
		else if (o->peer != first->peer)
			return 0; /* several peers */
		dir[o->send] = 1;
		if (o->nelems > 0 && nel[o->send] <= INT64_MAX - o->nelems)
			nel[o->send] += o->nelems;
		else
			known[o->send] = 0;
		dtype_same &= same_text(o->dtype, first->dtype);
		pg_same &= same_text(o->process_group, first->process_group);
	}
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
