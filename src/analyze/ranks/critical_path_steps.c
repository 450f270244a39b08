/*
 * critical_path_steps.c: the critical path analysis's tables and figure,
 * walking the graph of critical_path.c (the method is described there):
 * per rank and step (critical_path.csv), per step across the run's ranks
 * (critical_path_steps.csv: the rank that waited least and the one that
 * waited most), the path across ranks through each collective to the rank
 * that arrived last (critical_path_across.csv), and figure critical_path.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "analyze/analysis.h"
#include "util/search.h"
#include "analyze/ranks/critical_path_int.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include "analyze/ranks/ranks_tables.h"

/* The categories' series, in enum cp_cat's order (ranks_tables.h names their columns). */
_Static_assert(CPATH_WAIT_US - CPATH_COMPUTE_US + 1 == NCAT && CPS_WAIT_US - CPS_COMPUTE_US + 1 == NCAT &&
		       CPA_WAIT_US - CPA_COMPUTE_US + 1 == NCAT,
	       "critical_path*.csv: a column per category");
static const char *const cat_series[NCAT] = {"compute", "communication transfer", "memory",
					     "host and launch", "GPU idle", "waiting for another rank"};

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
	int64_t key, end_ref, start_ref;
	int64_t cat[NCAT];
	int32_t next_op;
};

struct xs_seg {
	int valid;
	int64_t clip_ref; /* the start of the step the segment ends at, on the reference clock */
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

/*
 * Steps walked per instant: a step whose start lies inside CP_MAX_OVERLAP
 * or more steps walked before it is not walked. A walk runs back from the
 * step's end to its start through what the step holds, so with steps that
 * overlap (ProfilerStep ranges that each cover the trace: 20,000 of them
 * took 29.5 s in all) the walks cost the steps times the events; with at
 * most CP_MAX_OVERLAP walked steps over any instant they cost at most that
 * many passes over the rank's events. A profiler's steps follow each other
 * (at most touching, or overlapping by a rounding): never cut.
 */
#define CP_MAX_OVERLAP 8
#define CP_NOT_WALKED (-2) /* step_pt of a step not walked (-1: no host point) */

static int cmp_i64_min(const int64_t *heap, size_t a, size_t b)
{
	return heap[a] < heap[b];
}

/* Marks in skip[] (d->nsteps) the steps not walked; their count. */
static size_t overlapping_steps(const struct rank_data *d, unsigned char *skip)
{
	int64_t heap[CP_MAX_OVERLAP]; /* the ends of the walked steps still open, a min-heap */
	size_t nh = 0, nskip = 0;
	for (size_t si = 0; si < d->nsteps; si++) {
		const struct rk_range *st = &d->steps[si];
		while (nh && heap[0] <= st->start) { /* pop the earliest end */
			heap[0] = heap[--nh];
			for (size_t i = 0;;) {
				size_t l = 2 * i + 1, r = l + 1, m = i;
				if (l < nh && cmp_i64_min(heap, l, m))
					m = l;
				if (r < nh && cmp_i64_min(heap, r, m))
					m = r;
				if (m == i)
					break;
				int64_t x = heap[i];
				heap[i] = heap[m];
				heap[m] = x;
				i = m;
			}
		}
		skip[si] = nh >= CP_MAX_OVERLAP;
		if (skip[si]) {
			nskip++;
			continue;
		}
		size_t i = nh++;
		heap[i] = st->end;
		while (i && cmp_i64_min(heap, i, (i - 1) / 2)) {
			int64_t x = heap[i];
			heap[i] = heap[(i - 1) / 2];
			heap[(i - 1) / 2] = x;
			i = (i - 1) / 2;
		}
	}
	return nskip;
}

/* The segments of rank index ri (graph g): its steps' and those of the collectives it arrived last in. */
static void across_rank(struct cp_across *xa, struct cp_graph *g, const struct xr_run *xr, size_t ri,
			const int64_t *step_pt, struct cp_path *scratch)
{
	const struct rank_data *d = g->d;
	const struct xr_rank *r = &xr->ranks[ri];
	for (size_t si = 0; si < d->nsteps; si++) {
		const struct rk_range *st = &d->steps[si];
		if (step_pt[si] == CP_NOT_WALKED)
			continue;
		struct cp_path p = {.w = scratch->w};
		struct cp_jump jp = {xr, st->key, -1};
		if (step_pt[si] < 0)
			p.cat[CP_HOST] = st->end - st->start;
		else
			cp_walk(g, (size_t)step_pt[si], st->end, st->start, &p, &jp);
		xa->steps = xgrow(xa->steps, &xa->cap_steps, xa->nsteps + 1, sizeof(*xa->steps));
		struct xs_step *x = &xa->steps[xa->nsteps++];
		x->rank_i = ri;
		x->key = st->key;
		x->end_ref = st->end - r->offset;
		x->start_ref = st->start - r->offset;
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
		cp_walk_node(g, N_START, (size_t)a, d->steps[si].start, &p, &jp);
		struct xs_seg *sg = &xa->ops[k->op];
		sg->valid = 1;
		sg->clip_ref = d->steps[si].start - r->offset;
		memcpy(sg->cat, p.cat, sizeof(sg->cat));
		sg->next_op = jp.next_op;
	}
	free(by_key);
}

/* Where the path enters the last rank of op: that rank's kernel start on the reference clock. */
static int64_t hop_ref(const struct xr_run *xr, int32_t op)
{
	size_t ri;
	const struct xr_kern *k = cp_last_kern(xr, &xr->ops[op], &ri);
	return k ? k->start - xr->ranks[ri].offset : INT64_MIN;
}

/*
 * One segment of the path's geometry (critical_path_hops, read by
 * step_timeline's figure and not written): on rank, from from_ref to
 * to_ref on the reference clock; seg 0 ends at the step's end on
 * end_rank, each next one ends where the path jumped onto its rank (the
 * last rank's kernel start of the joined collective) and starts where it
 * jumps on, or at the rank's start of the step.
 */
static void hop_row(struct table *h, const char *run, int64_t step, size_t seg, int rank, int64_t from_ref,
		    int64_t to_ref)
{
	if (!h || from_ref == INT64_MIN || to_ref == INT64_MIN)
		return;
	size_t row = table_add_row(h);
	table_set_text(h, row, 0, run);
	table_set_int(h, row, 1, step);
	table_set_int(h, row, 2, (int64_t)seg);
	table_set_int(h, row, 3, rank);
	table_set_ns(h, row, 4, from_ref);
	table_set_ns(h, row, 5, to_ref);
}

/* The rows of critical_path_across.csv of one run, from its segments, and its path's geometry into h. */
static void across_rows(struct cp_across *xa, const struct xr_run *xr, struct table *t, struct table *h,
			struct buf *tmp)
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
		int64_t top = next >= 0 ? hop_ref(xr, next) : INT64_MIN;
		hop_row(h, xr->name, x->key, 0, xr->ranks[x->rank_i].rank, next >= 0 ? top : x->start_ref, x->end_ref);
		for (size_t hops = 0; next >= 0; hops++) {
			const struct xs_seg *sg = &xa->ops[next];
			size_t ri;
			if (!sg->valid || hops > xr->nops || !cp_last_kern(xr, &xr->ops[next], &ri)) {
				cut = 1; /* no segment where the path went on: the path ends there */
				break;
			}
			int64_t low = sg->next_op >= 0 ? hop_ref(xr, sg->next_op) : sg->clip_ref;
			hop_row(h, xr->name, x->key, hops + 1, xr->ranks[ri].rank, low, top);
			top = low;
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

static int cmp_int(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;
	return a < b ? -1 : a > b;
}

/* Sorts v[0..n) and keeps each value once at its front; returns how many. */
static size_t sorted_distinct(int *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_int);
	size_t m = 1;
	for (size_t i = 1; i < n; i++)
		if (v[i] != v[m - 1])
			v[m++] = v[i];
	return m;
}

static int analysis_critical_path(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct rank_key *keys;
	size_t nkeys;
	if (rank_keys(ctx->store, ctx->experiment, &keys, &nkeys) < 0)
		return -1;
	struct classifier *cls = classifier_preset("default");
	struct buf label;
	buf_init(&label);
	struct table *t = table_new("critical_path",
				    "Critical path of each step and rank: the step's time by what the path ran",
				    TABLE_SCHEMA(CRITICAL_PATH_COLUMNS));
	struct table *ts = table_new("critical_path_steps",
				     "Critical path per step: the rank that waited least (its own work set the step) "
				     "and the rank that waited most",
				     TABLE_SCHEMA(CRITICAL_PATH_STEPS_COLUMNS));
	struct table *tx = table_new("critical_path_across",
				     "Critical path of each step across ranks: through each collective to the rank that "
				     "arrived last",
				     TABLE_SCHEMA(CRITICAL_PATH_ACROSS_COLUMNS));
	/*
	 * The path's geometry, for step_timeline's figure, which takes the
	 * table out of the result: internal (table.h), no CSV.
	 */
	struct table *th = table_new("critical_path_hops", "Critical path across ranks: its segments",
				     TABLE_SCHEMA(CRITICAL_PATH_HOPS_COLUMNS));
	th->internal = 1;
	struct chart *c = chart_new(CHART_STACKED_BAR, "critical_path", "Critical path of the step by category",
				    "mean time per step (ms)");
	for (int k = 0; k < NCAT; k++)
		chart_add_series(c, cat_series[k]);
	struct step_acc *sa = NULL;
	size_t nsa = 0, cap_sa = 0;
	struct step_index six = {NULL, 0};
	struct cp_waits waits = {NULL, 0, NULL, NULL, 0, 0};
	int ret = -1, any = 0;
	int *ranks = xmalloc((nkeys ? nkeys : 1) * sizeof(*ranks));
	for (size_t k = 0; k < nkeys; k++)
		ranks[k] = keys[k].rank;
	waits.ranks = ranks;
	waits.nranks = sorted_distinct(ranks, nkeys);
	waits.by_rank = xcalloc(waits.nranks ? waits.nranks : 1, sizeof(*waits.by_rank));
	struct xr_run xr;
	memset(&xr, 0, sizeof(xr));
	struct cp_across xa;
	memset(&xa, 0, sizeof(xa));
	int64_t *step_pt = NULL;
	size_t cap_pt = 0;
	struct store_stmt *sync = NULL;
	if (cp_sync_calls_prepare(ctx->store, &sync) < 0)
		goto out;
	for (size_t k = 0; k < nkeys; k++) {
		if (k > 0 && strcmp(keys[k].run, keys[k - 1].run)) {
			add_run_steps(ts, keys[k - 1].run, sa, nsa);
			nsa = 0;
			step_index_clear(&six);
			if (xr.nops)
				across_rows(&xa, &xr, tx, th, &label);
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
		if (cp_graph_build(sync, &keys[k], &d, &g) < 0) {
			rank_data_release(&d);
			goto out;
		}
		int xri = crossrank_rank_index(&xr, keys[k].rank);
		if (xri >= 0)
			cp_graph_joins(&g, &xr, (size_t)xri);
		buf_reset(&label);
		buf_printf(&label, "%s r%d", keys[k].run, keys[k].rank);
		size_t cat = chart_add_category(c, label.data);
		size_t ncut = 0;
		unsigned char *skip = xmalloc(d.nsteps);
		size_t nskip = overlapping_steps(&d, skip);
		if (nskip)
			result_add_note(out, "critical_path.csv: run %s rank %d: %zu of its %zu ProfilerStep ranges start "
					"inside %d or more earlier ones (overlapping steps); their critical paths are not "
					"walked and they have no rows, which bounds the work to %d walks over any instant",
					keys[k].run, keys[k].rank, nskip, d.nsteps, CP_MAX_OVERLAP, CP_MAX_OVERLAP);
		step_pt = xgrow(step_pt, &cap_pt, d.nsteps, sizeof(*step_pt));
		for (size_t si = 0; si < d.nsteps; si++) {
			const struct rk_range *st = &d.steps[si];
			if (skip[si]) {
				step_pt[si] = CP_NOT_WALKED;
				continue;
			}
			struct cp_path p = {.w = &waits};
			for (size_t i = 0; i < waits.ntouched; i++) /* what the walks before left */
				waits.by_rank[waits.touched[i]] = 0;
			waits.ntouched = 0;
			int64_t tid = step_tid(&g, st);
			ssize_t pi = last_point(&g, tid, st->end);
			step_pt[si] = pi;
			if (pi < 0) /* no host event on its thread: host time, outside every operator */
				p.cat[CP_HOST] = p.host_outside = st->end - st->start;
			else
				cp_walk(&g, (size_t)pi, st->end, st->start, &p, NULL);
			ncut += p.cut;
			ssize_t wr = -1; /* a rank index (waits.ranks) */
			for (size_t i = 0; i < waits.ntouched; i++) { /* the most waited for; of equals the lowest rank */
				size_t r = waits.touched[i];
				int64_t v = waits.by_rank[r];
				if (v > 0 && (wr < 0 || v > waits.by_rank[wr] || (v == waits.by_rank[wr] && r < (size_t)wr)))
					wr = (ssize_t)r;
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
				chart_update(c, cat, (size_t)q,
					     chart_get(c, cat, (size_t)q) + (double)p.cat[q] / 1e6 / (double)d.nsteps);
			}
			if (wr >= 0)
				table_set_int(t, row, col, waits.ranks[wr]);
			col++;
			table_set_text(t, row, col++, cat_series[bound]);
			table_set_ns(t, row, col, p.host_outside);
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
				a->waited_for = wr >= 0 ? waits.ranks[wr] : -1;
			}
		}
		free(skip);
		if (ncut)
			result_add_note(out, "critical_path.csv: run %s rank %d: in %zu step(s) the walk met an event "
					"twice (zero-length events at one instant) and stopped there; the rest of the "
					"step is not attributed", keys[k].run, keys[k].rank, ncut);
		if (xri >= 0 && xr.nops) {
			struct cp_path scratch = {.w = &waits};
			across_rank(&xa, &g, &xr, (size_t)xri, step_pt, &scratch);
		}
		cp_graph_release(&g);
		rank_data_release(&d);
	}
	if (nkeys)
		add_run_steps(ts, keys[nkeys - 1].run, sa, nsa);
	if (xr.nops)
		across_rows(&xa, &xr, tx, th, &label);
	if (any) {
		result_add_table(out, t);
		result_add_table(out, ts);
		if (tx->nrows) {
			result_add_table(out, tx);
			tx = NULL;
		}
		if (th->nrows) {
			result_add_table(out, th);
			th = NULL;
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
			"wait_rank: the rank waited for longest). bound: the largest part. host_outside_ops_us: the part of "
			"host_us in which its thread was inside no host operator and no runtime call (a sleep, Python, "
			"I/O, a lock or the data loader: nothing recorded). Differences from HTA's "
			"critical path analysis: HTA weighs dependency edges zero, so its path is shorter than the "
			"step and is reported as shares of itself; it reads cuda_sync events (not stored here) for "
			"stream waits and synchronisation, adds a launch edge only when the stream's queue was "
			"empty, merges the backward thread into the forward one, and is single-rank.");
		result_add_method(
			out, "critical_path_across.csv",
			"Per multi-rank run and step, the critical path across ranks: it starts at the end of the step "
			"(ProfilerStep#N) of the rank whose step ended last on the reference clock (end_rank; ties: the "
			"lowest rank), runs back as in critical_path.csv, and at a matched collective (or a recv that "
			"started before its send, paired as in collective_waits.csv) joined at another rank "
			"(that rank arrived last: the sender) goes on from that rank's kernel start, on that rank's "
			"graph, back to "
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
	table_free(th);
	free(ranks);
	free(waits.by_rank);
	free(waits.touched);
	free(sa);
	free(six.slot);
	buf_release(&label);
	table_free(t);
	table_free(ts);
	chart_free(c);
	classifier_free(cls);
	rank_keys_free(keys, nkeys);
	return ret;
}

const struct analysis_def analysis_def_critical_path = {
	.name = "critical_path",
	.run = analysis_critical_path,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("critical_path", "critical_path_steps", "critical_path_across", "critical_path_hops"),
	.figures = ANALYSIS_NAMES("critical_path"),
};
