/*
 * pipeline_ranks.c: a pipeline-parallel run's ranks loaded for
 * pipeline_stages.c (pipeline_ranks.h).
 */
#include "analyze/pipeline/pipeline_ranks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/lib/intervals.h"
#include "analyze/lib/stats.h"
#include "analyze/ranks/collectives.h"
#include "analyze/ranks/ranks_tables.h"
#include "util/search.h"
#include "util/xalloc.h"

static int cmp_op(const void *pa, const void *pb)
{
	const struct pp_op *a = pa, *b = pb;
	return (a->issue > b->issue) - (a->issue < b->issue);
}

static int cmp_kern(const void *pa, const void *pb)
{
	const struct pp_kern *a = pa, *b = pb;
	return (a->launch > b->launch) - (a->launch < b->launch);
}

static int cmp_step_key(const void *pa, const void *pb)
{
	const struct rk_range *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

/*
 * The rank's clock offset (ns) from clock_offsets.csv, where crossrank
 * trusts it (residual_us at most PP_RESIDUAL_NS, crossrank's own bound),
 * else 0: crossrank matches a communicator's kernels by Seq or order, and
 * the sends and recvs of a pipeline, which are no collectives, can pair
 * with each other there and give a wrong offset with a large residual.
 */
#define PP_RESIDUAL_NS 100000
int64_t pp_offset_of(const struct table *co, const struct rank_rows *cor, const char *run, int rank)
{
	const struct rank_row_at *f;
	if (!rank_rows_find(cor, run, rank, &f)) /* its first row decides */
		return 0;
	const struct cell *res = table_cell(co, f->row, CO_RESIDUAL_US);
	if (res->null || res->v.i > PP_RESIDUAL_NS)
		return 0;
	const struct cell *o = table_cell(co, f->row, CO_OFFSET_US);
	return o->null ? 0 : o->v.i;
}

/*
 * The rank's sends and recvs with a recorded peer (issue and kernel end
 * filled by load_rank); *st is the query, prepared on the first call and
 * reset after each (the caller finalizes it).
 */
int pp_load_ops(struct store *s, struct store_stmt **st, struct pp_rank *r)
{
	if (!*st && store_prepare(s, "pipeline_stages: point-to-point ops",
				  "SELECT x.start_ns, x.correlation, x.collective, x.in_nelems, x.dtype, x.seq, x.peer"
				  " FROM traces rt JOIN collectives x ON x.trace_id = rt.id"
				  " WHERE rt.run_id = ?1 AND rt.rank = ?2 AND x.peer IS NOT NULL"
				  " AND x.collective IN ('send', 'recv', 'sendrecv') ORDER BY x.start_ns", st) < 0)
		return -1;
	rank_bind(*st, r->key);
	size_t cap = 0;
	int more;
	while ((more = store_next(*st)) > 0) {
		r->ops = xgrow(r->ops, &cap, r->nops + 1, sizeof(*r->ops));
		struct pp_op *o = &r->ops[r->nops++];
		memset(o, 0, sizeof(*o));
		o->start = o->issue = o->end = store_column_int64(*st, 0);
		o->corr = store_column_type(*st, 1) == STORE_NULL ? -1 : store_column_int64(*st, 1);
		const char *coll = (const char *)store_column_text(*st, 2);
		o->recv_too = !strcmp(coll, "sendrecv");
		o->send = o->recv_too || !strcmp(coll, "send");
		int64_t nel = store_column_type(*st, 3) == STORE_NULL ? 0 : store_column_int64(*st, 3);
		o->bytes = nel * collective_dtype_size((const char *)store_column_text(*st, 4));
		o->has_seq = store_column_type(*st, 5) != STORE_NULL;
		o->seq = o->has_seq ? store_column_int64(*st, 5) : -1;
		o->peer = store_column_int64(*st, 6);
	}
	store_reset(*st);
	if (more < 0)
		return -1;
	r->peers = xmalloc((r->nops ? r->nops : 1) * sizeof(*r->peers));
	for (size_t i = 0; i < r->nops; i++)
		if (r->ops[i].send)
			r->peers[r->npeers++] = r->ops[i].peer;
	qsort(r->peers, r->npeers, sizeof(*r->peers), stats_cmp_i64);
	size_t k = 0;
	for (size_t i = 0; i < r->npeers; i++)
		if (!k || r->peers[i] != r->peers[k - 1])
			r->peers[k++] = r->peers[i];
	r->npeers = k;
	return 0;
}

/*
 * The rest of a pipeline rank from its rank_data: each op's kernel end
 * and issue time, the compute kernels, steps and Optimizer.step starts.
 */
int pp_load_rank(struct store *s, const struct classifier *cls, const int64_t *opt_ids, size_t nopt_ids,
		     struct pp_rank *r)
{
	struct rank_data d;
	if (rank_data_load(s, r->key, cls, &d) < 0)
		return -1;
	struct launch_index *idx = rank_launch_index(&d);
	for (size_t i = 0; i < r->nops; i++) {
		struct pp_op *o = &r->ops[i];
		int64_t corr = o->corr;
		for (size_t a = rank_act_at(&d, o->start); a < d.nacts && d.acts[a].start == o->start; a++)
			if (d.acts[a].kind == ACT_KERNEL && d.acts[a].corr == corr) {
				o->end = d.acts[a].end;
				break;
			}
		const struct rk_range *l = corr >= 0 ? rank_launch_of(&d, idx, corr) : NULL;
		if (l)
			o->issue = l->start;
	}
	if (r->nops)
		qsort(r->ops, r->nops, sizeof(*r->ops), cmp_op);
	size_t cap = 0;
	for (size_t a = 0; a < d.nacts; a++) {
		const struct rk_act *x = &d.acts[a];
		if (x->kind != ACT_KERNEL || x->cls == RK_COMM)
			continue;
		const struct rk_range *l = x->corr >= 0 ? rank_launch_of(&d, idx, x->corr) : NULL;
		r->kerns = xgrow(r->kerns, &cap, r->nkerns + 1, sizeof(*r->kerns));
		r->kerns[r->nkerns++] = (struct pp_kern){l ? l->start : x->start, x->start, x->end};
	}
	if (r->nkerns)
		qsort(r->kerns, r->nkerns, sizeof(*r->kerns), cmp_kern);
	r->steps = xmalloc((d.nsteps ? d.nsteps : 1) * sizeof(*r->steps));
	if (d.nsteps)
		memcpy(r->steps, d.steps, d.nsteps * sizeof(*r->steps));
	r->nsteps = d.nsteps;
	qsort(r->steps, r->nsteps, sizeof(*r->steps), cmp_step_key);
	cap = 0;
	for (size_t a = 0; a < d.nannots; a++)
		if (nopt_ids && bsearch(&d.annots[a].key, opt_ids, nopt_ids, sizeof(*opt_ids), stats_cmp_i64)) {
			r->opt = xgrow(r->opt, &cap, r->nopt + 1, sizeof(*r->opt));
			r->opt[r->nopt++] = d.annots[a].start; /* annots are sorted by start */
		}
	rank_launch_index_release(&d, idx);
	rank_data_release(&d);
	return 0;
}

/* Frees what load_rank loaded (a pipeline's ranks are loaded one pipeline at a time). */
void pp_rank_unload(struct pp_rank *r)
{
	free(r->kerns);
	free(r->steps);
	free(r->opt);
	r->kerns = NULL;
	r->steps = NULL;
	r->opt = NULL;
	r->nkerns = r->nsteps = r->nopt = 0;
}

void pp_rank_release(struct pp_rank *r)
{
	pp_rank_unload(r);
	free(r->ops);
	free(r->peers);
}

/* lower_bound's predicates: the op's issue, the kernel's launch, before the key (int64_t). */
static int op_before(const void *e, const void *key)
{
	return ((const struct pp_op *)e)->issue < *(const int64_t *)key;
}

static int kern_before(const void *e, const void *key)
{
	return ((const struct pp_kern *)e)->launch < *(const int64_t *)key;
}

/* The first op of r issued at t or later (ops sorted by issue); r->nops when none. */
size_t pp_op_at(const struct pp_rank *r, int64_t t)
{
	return lower_bound(r->ops, r->nops, sizeof(*r->ops), &t, op_before);
}

/* The first kernel of r launched at t or later (sorted by launch); r->nkerns when none. */
size_t pp_kern_at(const struct pp_rank *r, int64_t t)
{
	return lower_bound(r->kerns, r->nkerns, sizeof(*r->kerns), &t, kern_before);
}

/* Whether a sends to rank b. */
int pp_sends_to(const struct pp_rank *a, int64_t b)
{
	return a->npeers && bsearch(&b, a->peers, a->npeers, sizeof(*a->peers), stats_cmp_i64) != NULL;
}

/* The index of rank among v[n] (in rank order, as rank_keys gives a run's ranks), or n. */
size_t pp_index_of(const struct pp_rank *v, size_t n, int64_t rank)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].key->rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].key->rank == rank ? lo : n;
}

/* Whether the first op of r in its first step with any is a send (-1: it has none). */
int pp_starts_with_send(const struct pp_rank *r)
{
	for (size_t s = 0; s < r->nsteps; s++) { /* in step order */
		size_t i = pp_op_at(r, r->steps[s].start);
		if (i < r->nops && r->ops[i].issue < r->steps[s].end)
			return r->ops[i].send;
	}
	return r->nops ? r->ops[0].send : -1;
}
