/*
 * dispatch_ops.c: compute-kernel time per kernel type and intra-op
 * dispatch per host operator (dispatch_ops.csv, figure dispatch_ops), paper
 * 002's Table 6 ("Time distribution for individual compute kernel and
 * intra-op", Cheng et al. 2024).
 *
 * Per run, summed over its ranks and their ProfilerStep#N ranges W (the
 * profiled steps dispatch.csv splits), two parts:
 *
 * kernel: every compute kernel (outside the communication and memory
 *   groups of the `default` classification, as in dispatch.csv) counts its
 *   duration inside W, |k ∩ W|, summed per kernel type; kernels running at
 *   once on several streams each count their own time (002's "individual
 *   compute kernel" time, not a union). The type, from the kernel's name:
 *   CatArrayBatchedCopy when the name contains it (torch.cat's copy kernel,
 *   002's second row; the default classification puts it, an at::native
 *   kernel, in elementwise), else the default classification's group:
 *   matrix-mul -> GEMM, attention, elementwise, other. share = time / the
 *   run's compute-kernel time.
 *
 * intra-op: dispatch.csv's intra-op set of each step, idle ∩ O (the GPU of
 *   the rank runs nothing while the host is inside a top-level operator),
 *   cut into pieces by the operator the host is in: an instant goes to the
 *   top-level operator containing it that started last (ties: the one that
 *   ends first, then the higher thread id); several threads (the autograd
 *   thread beside the Python one) can each be inside one. Top-level and
 *   not the innermost operator, for three reasons: O is made of top-level
 *   operators, so every instant of idle ∩ O has exactly one owner and the
 *   rows sum to dispatch.csv's intra_op_us exactly; the store keeps only
 *   the top-level operators (store/sink.c), the innermost are not there to be
 *   named; and 002's rows are what Python calls directly (module hooks,
 *   autograd Functions' PreBackwardFunction and PostBackwardFunction,
 *   reshape, permute), the top-level operators, where the innermost would
 *   name their callees (aten::view, aten::copy_, aten::empty_strided).
 *   share = time / the run's intra-op total. The first top_n operators by
 *   time (ties by name) get a row each, the rest one row "other".
 *
 * Rows of a part are sorted by time, largest first (ties by name; "other"
 * last). A rank without cpu_op events (Nsight Systems, nvprof) adds nothing
 * to the intra-op part, with a note; a rank without steps adds nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/time/time_tables.h"
#include "analyze/time/dispatch.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/search.h"
#include "util/xalloc.h"

/* Kernel types in 002's order (Table 6), then "other". */
enum { KT_GEMM, KT_CAT, KT_ELEMENTWISE, KT_ATTENTION, KT_OTHER, NKT };
static const char *const kt_names[NKT] = {"GEMM", "CatArrayBatchedCopy", "elementwise", "attention", "other"};

static int kernel_type(const struct classifier *cls, const char *name)
{
	if (strstr(name, "CatArrayBatchedCopy"))
		return KT_CAT;
	const char *g = classify(cls, ACT_KERNEL, name);
	if (!strcmp(g, "matrix-mul"))
		return KT_GEMM;
	if (!strcmp(g, "elementwise"))
		return KT_ELEMENTWISE;
	if (!strcmp(g, "attention"))
		return KT_ATTENTION;
	return KT_OTHER;
}

/* ns per name id, appended piece by piece, then merged (named_merge). */
struct named {
	int64_t name_id, ns;
	char *name; /* set by named_merge */
};

struct named_list {
	struct named *v;
	size_t n, cap;
	size_t merge_at; /* named_add merges the list when it reaches this */
};

static int cmp_id(const void *pa, const void *pb)
{
	const struct named *a = pa, *b = pb;
	return a->name_id < b->name_id ? -1 : a->name_id > b->name_id;
}

/* Sorted by name id, one entry per id. */
static void named_compact(struct named_list *l)
{
	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(*l->v), cmp_id);
	size_t m = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (m && l->v[m - 1].name_id == l->v[i].name_id)
			l->v[m - 1].ns += l->v[i].ns;
		else
			l->v[m++] = l->v[i];
	}
	l->n = m;
}

/*
 * Appends a piece. The list is merged whenever it has doubled since the
 * last merge, so it holds about twice the distinct names, not one entry per
 * piece of every rank (25 MiB at 1024 ranks; issue 32's memory bound).
 */
static void named_add(struct named_list *l, int64_t name_id, int64_t ns)
{
	if (ns <= 0)
		return;
	if (l->n && l->v[l->n - 1].name_id == name_id) {
		l->v[l->n - 1].ns += ns;
		return;
	}
	if (l->n >= l->merge_at && l->n >= 4096) {
		named_compact(l);
		l->merge_at = 2 * l->n;
	}
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = (struct named){name_id, ns, NULL};
}

/* Largest time first, ties by name. */
static int by_time(int64_t a_ns, const char *a_name, int64_t b_ns, const char *b_name)
{
	if (a_ns != b_ns)
		return a_ns > b_ns ? -1 : 1;
	return strcmp(a_name, b_name);
}

static int cmp_time(const void *pa, const void *pb)
{
	const struct named *a = pa, *b = pb;
	return by_time(a->ns, a->name, b->ns, b->name);
}

/* A kernel type's time in a run. */
struct ktime {
	const char *name;
	int64_t ns;
};

static int cmp_ktime(const void *pa, const void *pb)
{
	const struct ktime *a = pa, *b = pb;
	return by_time(a->ns, a->name, b->ns, b->name);
}

/* One entry per name id, with its name. */
static void named_merge(struct store *s, struct named_list *l)
{
	named_compact(l);
	for (size_t i = 0; i < l->n; i++) {
		l->v[i].name = rank_name(s, l->v[i].name_id);
		if (!l->v[i].name)
			l->v[i].name = xstrdup("?");
	}
}

static void named_clear(struct named_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	l->n = 0;
}

/*
 * The top-level operators cut into disjoint segments, each owned by the
 * operator that started last among those covering it (key: name id).
 */
static int owns_before(const struct rk_range *a, const struct rk_range *b)
{
	if (a->start != b->start)
		return a->start > b->start;
	if (a->end != b->end)
		return a->end < b->end;
	return a->tid > b->tid;
}

struct edge {
	int64_t t;
	int is_start;
	size_t op;
};

static int cmp_edge(const void *pa, const void *pb)
{
	const struct edge *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->is_start != b->is_start)
		return a->is_start - b->is_start; /* ends first: ranges are half-open */
	return a->op < b->op ? -1 : a->op > b->op;
}

static struct rk_range *owner_segments(const struct rk_range *top, size_t ntop, size_t *nseg)
{
	struct edge *e = xcalloc(2 * ntop + 1, sizeof(*e));
	for (size_t i = 0; i < ntop; i++) {
		e[2 * i] = (struct edge){top[i].start, 1, i};
		e[2 * i + 1] = (struct edge){top[i].end, 0, i};
	}
	qsort(e, 2 * ntop, sizeof(*e), cmp_edge);
	size_t *open = NULL, nopen = 0, opencap = 0, n = 0, cap = 0;
	struct rk_range *seg = NULL;
	for (size_t i = 0; i < 2 * ntop; i++) {
		if (nopen && i > 0 && e[i].t > e[i - 1].t) {
			size_t w = open[0];
			for (size_t j = 1; j < nopen; j++)
				if (owns_before(&top[open[j]], &top[w]))
					w = open[j];
			seg = xgrow(seg, &cap, n + 1, sizeof(*seg));
			seg[n++] = (struct rk_range){e[i - 1].t, e[i].t, top[w].tid, top[w].key};
		}
		if (e[i].is_start) {
			open = xgrow(open, &opencap, nopen + 1, sizeof(*open));
			open[nopen++] = e[i].op;
		} else {
			for (size_t j = 0; j < nopen; j++)
				if (open[j] == e[i].op) {
					open[j] = open[--nopen];
					break;
				}
		}
	}
	free(open);
	free(e);
	*nseg = n;
	return seg;
}

/*
 * How many of a rank's steps cover each instant, as its integral: the
 * breakpoints t[0 .. n) (the steps' starts and ends, sorted), the steps
 * covering [t[k], t[k+1]) in c[k], and F[k] the integral of that count up
 * to t[k] (modulo 2^64, exact in differences). A piece of time inside
 * several steps counts once per step, as each step's own split would count
 * it; steps that do not overlap count each instant once at most.
 */
struct cover {
	int64_t *t;
	uint64_t *F, *c;
	size_t n;
};

struct cover_edge {
	int64_t t;
	int delta;
};

static int cmp_cover_edge(const void *pa, const void *pb)
{
	const struct cover_edge *a = pa, *b = pb;
	return a->t < b->t ? -1 : a->t > b->t;
}

static void cover_init(struct cover *cv, const struct rank_data *d)
{
	struct cover_edge *e = xmalloc((2 * d->nsteps + 1) * sizeof(*e));
	size_t ne = 0;
	for (size_t i = 0; i < d->nsteps; i++)
		if (d->steps[i].end > d->steps[i].start) {
			e[ne++] = (struct cover_edge){d->steps[i].start, 1};
			e[ne++] = (struct cover_edge){d->steps[i].end, -1};
		}
	if (ne > 1)
		qsort(e, ne, sizeof(*e), cmp_cover_edge);
	cv->t = xmalloc((ne + 1) * sizeof(*cv->t));
	cv->F = xmalloc((ne + 1) * sizeof(*cv->F));
	cv->c = xmalloc((ne + 1) * sizeof(*cv->c));
	cv->n = 0;
	uint64_t depth = 0;
	for (size_t i = 0; i < ne;) {
		size_t k = cv->n++;
		cv->t[k] = e[i].t;
		cv->F[k] = k ? cv->F[k - 1] + cv->c[k - 1] * ((uint64_t)cv->t[k] - (uint64_t)cv->t[k - 1]) : 0;
		for (; i < ne && e[i].t == cv->t[k]; i++)
			depth += (uint64_t)(int64_t)e[i].delta;
		cv->c[k] = depth;
	}
	free(e);
}

static void cover_release(struct cover *cv)
{
	free(cv->t);
	free(cv->F);
	free(cv->c);
}

static int int64_t_before_or_at(const void *elem, const void *key)
{
	return *(const int64_t *)elem <= *(const int64_t *)key;
}

/* The integral of the step count up to x. */
static uint64_t cover_at(const struct cover *cv, int64_t x)
{
	size_t k = lower_bound(cv->t, cv->n, sizeof(*cv->t), &x, int64_t_before_or_at); /* first t > x */
	if (!k)
		return 0;
	k--;
	return cv->F[k] + cv->c[k] * ((uint64_t)x - (uint64_t)cv->t[k]);
}


/*
 * Adds each piece of intra (a normal set, the rank's idle ∩ O) to its
 * segment's owner, weighted by the steps covering it (struct cover): the
 * sum over the steps of each step's intra-op pieces, one pass over the
 * pieces and segments however the steps overlap.
 */
static void attribute(const struct ivset *intra, const struct cover *cv, const struct rk_range *seg, size_t nseg,
		      struct named_list *ops)
{
	size_t from = 0;
	for (size_t i = 0; i < intra->n; i++) {
		int64_t lo = intra->v[i].start, hi = intra->v[i].end;
		while (from < nseg && seg[from].end <= lo)
			from++;
		for (size_t j = from; j < nseg && seg[j].start < hi; j++) {
			int64_t s = seg[j].start > lo ? seg[j].start : lo, e = seg[j].end < hi ? seg[j].end : hi;
			named_add(ops, seg[j].key, (int64_t)(cover_at(cv, e) - cover_at(cv, s)));
		}
	}
}

/* One rank's kernel pieces (name id, ns inside its steps) and intra-op pieces (operator name id, ns). */
static void rank_pieces(const struct rank_data *d, struct dispatch_sets *sets, struct named_list *kern,
			struct named_list *ops)
{
	struct ivset steps;
	ivset_init(&steps);
	for (size_t si = 0; si < d->nsteps; si++)
		ivset_add(&steps, d->steps[si].start, d->steps[si].end);
	ivset_normalize(&steps);
	struct ivsum in_steps;
	ivsum_init(&in_steps, &steps);
	for (size_t i = 0; i < d->nacts; i++) {
		const struct rk_act *a = &d->acts[i];
		if (a->kind == ACT_KERNEL && a->cls == RK_COMPUTE)
			named_add(kern, a->name_id, ivsum_within(&in_steps, a->start, a->end));
	}
	ivsum_release(&in_steps);
	ivset_release(&steps);
	size_t ntop, nseg;
	struct rk_range *top = dispatch_top_level(d, &ntop);
	struct rk_range *seg = owner_segments(top, ntop, &nseg);
	dispatch_sets_load(sets, d);
	struct cover cv;
	cover_init(&cv, d);
	attribute(&sets->intra, &cv, seg, nseg, ops);
	cover_release(&cv);
	free(seg);
	free(top);
}

static void add_row(struct table *t, const char *run, const char *part, const char *name, int64_t ns, int64_t total)
{
	size_t row = table_add_row(t);
	table_set_text(t, row, 0, run);
	table_set_text(t, row, 1, part);
	table_set_text(t, row, 2, name);
	table_set_ns(t, row, 3, ns);
	if (total > 0)
		table_set_real(t, row, 4, (double)ns / (double)total);
}

/* The run's rows: kernel types, then operators; the chart's category of the run gets the kernel shares. */
static void run_rows(struct table *t, struct chart *c, const char *run, const struct classifier *cls,
		     const struct named_list *kern, struct named_list *ops, int has_ops, int top_n)
{
	struct ktime kt[NKT];
	int64_t ktotal = 0;
	for (int i = 0; i < NKT; i++)
		kt[i] = (struct ktime){kt_names[i], 0};
	for (size_t i = 0; i < kern->n; i++) {
		kt[kernel_type(cls, kern->v[i].name)].ns += kern->v[i].ns;
		ktotal += kern->v[i].ns;
	}
	if (ktotal > 0) {
		size_t cat = chart_add_category(c, run);
		for (int i = 0; i < NKT; i++)
			chart_set(c, cat, (size_t)i, (double)kt[i].ns / (double)ktotal);
		qsort(kt, NKT, sizeof(kt[0]), cmp_ktime);
		for (int i = 0; i < NKT; i++)
			add_row(t, run, "kernel", kt[i].name, kt[i].ns, ktotal);
	}
	if (!has_ops)
		return;
	int64_t itotal = 0, rest = 0;
	for (size_t i = 0; i < ops->n; i++)
		itotal += ops->v[i].ns;
	if (ops->n > 1)
		qsort(ops->v, ops->n, sizeof(*ops->v), cmp_time);
	for (size_t i = 0; i < ops->n; i++) {
		if (i < (size_t)top_n)
			add_row(t, run, "intra-op", ops->v[i].name, ops->v[i].ns, itotal);
		else
			rest += ops->v[i].ns;
	}
	if (ops->n > (size_t)top_n)
		add_row(t, run, "intra-op", "other", rest, itotal);
}

static int analysis_dispatch_ops(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct rank_key *keys;
	size_t nkeys;
	if (rank_keys(ctx->store, ctx->experiment, &keys, &nkeys) < 0)
		return -1;
	struct classifier *cls = classifier_preset("default");
	struct table *t = table_new("dispatch_ops",
				    "Compute-kernel time per kernel type and intra-op dispatch per host operator",
				    TABLE_SCHEMA(DISPATCH_OPS_COLUMNS));
	struct chart *c = chart_new(CHART_STACKED_BAR, "dispatch_ops", "Compute-kernel time per kernel type",
				    "share of compute-kernel time");
	for (int i = 0; i < NKT; i++)
		chart_add_series(c, kt_names[i]);
	struct dispatch_sets sets;
	dispatch_sets_init(&sets);
	struct named_list kern = {0}, ops = {0};
	int top_n = ctx->top_n > 0 ? ctx->top_n : 10, ret = -1;
	for (size_t k = 0, first = 0; k < nkeys; k++) {
		struct rank_data d;
		if (rank_data_load(ctx->store, &keys[k], cls, &d) < 0)
			goto out;
		if (d.nsteps && !d.ncpu_ops)
			result_add_note(out, "dispatch_ops.csv: run %s rank %d records no host operators (cpu_op events), "
					"so it adds nothing to the intra-op part", keys[k].run, keys[k].rank);
		if (d.nsteps)
			rank_pieces(&d, &sets, &kern, &ops);
		rank_data_release(&d);
		if (k + 1 < nkeys && !strcmp(keys[k + 1].run, keys[first].run))
			continue;
		/* The run's last rank: its rows. */
		int has_ops = ops.n > 0;
		named_merge(ctx->store, &kern);
		named_merge(ctx->store, &ops);
		run_rows(t, c, keys[first].run, cls, &kern, &ops, has_ops, top_n);
		named_clear(&kern);
		named_clear(&ops);
		first = k + 1;
	}
	result_add_table(out, t);
	t = NULL;
	result_add_figure(out, c,
			  "Share of each run's compute-kernel time (summed over ranks and profiled steps) per kernel "
			  "type as paper 002's Table 6 groups them: GEMM, CatArrayBatchedCopy (torch.cat), elementwise, "
			  "attention, other.");
	c = NULL;
	result_add_method(
	    out, "dispatch_ops.csv",
	    "Paper 002's Table 6, per run, summed over its ranks and ProfilerStep#N ranges W (the steps of "
	    "dispatch.csv). part kernel: each compute kernel (outside the communication and memory groups of the "
	    "default classification) counts its time inside W, concurrent kernels each their own; its type is "
	    "CatArrayBatchedCopy when the name contains that word, else from the default classification: "
	    "matrix-mul as GEMM, attention, elementwise, other; share = time_us / the run's compute-kernel time. "
	    "part intra-op: dispatch.csv's intra-op time (GPU idle while the host is inside a top-level operator) "
	    "split by operator: each instant goes to the top-level operator (a cpu_op not contained in another "
	    "cpu_op of its thread) that contains it and started last (ties: the one ending first, then the higher "
	    "thread id), so the rows of a run sum exactly to its intra_op_us in dispatch.csv; share = time_us / "
	    "that sum. Top-level rather than innermost operators: they are the operators that make up "
	    "dispatch.csv's intra-op set, the store keeps only them, and 002's rows (module hooks, "
	    "Pre/PostBackwardFunction, reshape, permute) are operators Python calls directly, where the "
	    "innermost would name their callees (aten::view, aten::copy_). Rows sorted by time; the top_n "
	    "operators of a run (figures.top_n, 10 by default) each get a row, the rest one row other.");
	ret = 0;
out:
	named_clear(&kern);
	named_clear(&ops);
	free(kern.v);
	free(ops.v);
	dispatch_sets_release(&sets);
	table_free(t);
	chart_free(c);
	classifier_free(cls);
	rank_keys_free(keys, nkeys);
	return ret;
}

const struct analysis_def analysis_def_dispatch_ops = {
	.name = "dispatch_ops",
	.run = analysis_dispatch_ops,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("dispatch_ops"),
	.figures = ANALYSIS_NAMES("dispatch_ops"),
};
