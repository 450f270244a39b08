/*
 * history_explain.c: where a run's change of step time went, for `perfstudy
 * diff` (cli/diff.c): the contributors per kernel group, kernel, region
 * and rank, from the parts each build keeps (parts.c says how they
 * partition the step), and the JSON writers of diff's --json and
 * --benchmark-json.
 *
 * The change explained is that of the parts' step: the mean over the
 * run's ranks of their mean ProfilerStep#N time, new build minus old. It
 * differs from the change of the median the verdict judges (the slowest
 * rank's step, or the training log's iterations) and both are printed.
 * Per list, contributor = the part's new value - its old (0 on a side
 * that lacks it: a kernel that appears or vanishes), and with the idle
 * part's change the contributors add up to the change exactly (the
 * printed ones to within their rounding to the us); a rank contributes
 * its step / the ranks of its build (its share), so the ranks add up to
 * it alone; its line says its own step's change first, and labels the
 * share.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/history/history.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/buf.h"
#include "util/xalloc.h"

static const char *const dim_kind[EXPLAIN_DIMS] = {"group", "kernel", "region", "rank"};
static const char *const dim_word[EXPLAIN_DIMS] = {"kernel group", "kernel", "region", "rank"};
static const char *const dim_json[EXPLAIN_DIMS] = {"kernel_groups", "kernels", "regions", "ranks"};

/* The value of kind '' of r's parts (step, idle), or NAN. */
static double part_of(const struct hstate_run *r, const char *kind)
{
	for (size_t i = 0; i < r->nparts; i++)
		if (!strcmp(r->part_kinds[i], kind))
			return r->part_values[i];
	return NAN;
}

static size_t count_kind(const struct hstate_run *r, const char *kind)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nparts; i++)
		n += !strcmp(r->part_kinds[i], kind);
	return n;
}

/* Largest |change| first, then by name, so the order is the same on every machine. */
static int cmp_contrib(const void *pa, const void *pb)
{
	const struct contrib *a = pa, *b = pb;
	double da = fabs(a->new_us - a->old_us), db = fabs(b->new_us - b->old_us);
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* One row of a list's kind on either side, for gather's sort. */
struct prow {
	const char *name;
	double value;
	int side;
	size_t at; /* the row's place in its side's parts */
};

/* By name, then as gather met them: side 0's rows in order, then side 1's. */
static int cmp_prow(const void *pa, const void *pb)
{
	const struct prow *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);
	if (c)
		return c;
	if (a->side != b->side)
		return a->side - b->side;
	return a->at < b->at ? -1 : a->at > b->at;
}

/* Where each group of equal names was met first (the list's order before its sort). */
struct pfirst {
	size_t contrib, side, at;
};

static int cmp_pfirst(const void *pa, const void *pb)
{
	const struct pfirst *a = pa, *b = pb;
	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

static void add_rows(struct prow **v, size_t *n, size_t *cap, const struct hstate_run *r, const char *kind, int side,
		     double div)
{
	for (size_t i = 0; i < r->nparts; i++)
		if (!strcmp(r->part_kinds[i], kind)) {
			*v = xgrow(*v, cap, *n + 1, sizeof(**v));
			(*v)[(*n)++] = (struct prow){r->part_names[i], r->part_values[i] / div, side, i};
		}
}

/*
 * The list of dimension d: a's rows (old, each divided by adiv) and b's
 * (new, by bdiv) of its kind, one contributor per name, in the order the
 * names first appear (a's rows, then b's), each value the sum of its rows
 * in that order; status 1 or 2 for a name of one row on the new or the
 * old side, else 0. Sorted by name and merged, so that a store of 80,000
 * kernel parts costs n log n, not a search of the list per row (23 s).
 */
static void gather(struct explain *e, int d, const struct hstate_run *a, double adiv, const struct hstate_run *b,
		   double bdiv)
{
	struct prow *v = NULL;
	size_t n = 0, cap = 0;
	add_rows(&v, &n, &cap, a, dim_kind[d], 0, adiv);
	add_rows(&v, &n, &cap, b, dim_kind[d], 1, bdiv);
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_prow);
	struct contrib *c = xmalloc(n * sizeof(*c));
	struct pfirst *first = xmalloc(n * sizeof(*first));
	size_t nc = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		struct contrib x = {v[i].name, 0, 0, v[i].side ? 1 : 2, NAN, NAN};
		for (; j < n && !strcmp(v[j].name, v[i].name); j++)
			*(v[j].side ? &x.new_us : &x.old_us) += v[j].value;
		if (j - i > 1)
			x.status = 0;
		first[nc] = (struct pfirst){nc, (size_t)v[i].side, v[i].at};
		c[nc++] = x;
		i = j;
	}
	qsort(first, nc, sizeof(*first), cmp_pfirst);
	e->list[d] = xmalloc(nc * sizeof(*e->list[d]));
	for (size_t k = 0; k < nc; k++)
		e->list[d][k] = c[first[k].contrib];
	e->n[d] = nc;
	free(first);
	free(c);
	free(v);
}

static int cmp_contrib_name(const void *pa, const void *pb)
{
	const struct contrib *const *a = pa, *const *b = pb;
	return strcmp((*a)->name, (*b)->name);
}

/* Each rank's compute and copies (rank_work) on side 0 or 1: the last row of a rank's name. */
static void gather_work(struct explain *e, const struct hstate_run *r, int side)
{
	size_t n = e->n[EXPLAIN_RANK];
	if (!n)
		return;
	struct contrib **by = xmalloc(n * sizeof(*by));
	for (size_t k = 0; k < n; k++)
		by[k] = &e->list[EXPLAIN_RANK][k];
	qsort(by, n, sizeof(*by), cmp_contrib_name);
	for (size_t i = 0; i < r->nparts; i++) {
		if (strcmp(r->part_kinds[i], "rank_work"))
			continue;
		struct contrib key = {.name = r->part_names[i]}, *kp = &key;
		struct contrib **hit = bsearch(&kp, by, n, sizeof(*by), cmp_contrib_name);
		if (hit) /* the list's names are unique: one contributor at most */
			*(side ? &(*hit)->new_work : &(*hit)->old_work) = r->part_values[i];
	}
	free(by);
}

int history_explain(const struct hstate_run *a, const struct hstate_run *b, struct explain *e)
{
	memset(e, 0, sizeof(*e));
	e->old_step = part_of(a, "step");
	e->new_step = part_of(b, "step");
	e->old_idle = part_of(a, "idle");
	e->new_idle = part_of(b, "idle");
	e->old_ranks = count_kind(a, "rank");
	e->new_ranks = count_kind(b, "rank");
	if (isnan(e->old_step) || isnan(e->new_step) || isnan(e->old_idle) || isnan(e->new_idle) || !e->old_ranks ||
	    !e->new_ranks)
		return -1;
	for (int d = 0; d < EXPLAIN_DIMS; d++) {
		gather(e, d, a, d == EXPLAIN_RANK ? (double)e->old_ranks : 1, b, d == EXPLAIN_RANK ? (double)e->new_ranks : 1);
		if (d == EXPLAIN_RANK) {
			gather_work(e, a, 0);
			gather_work(e, b, 1);
		}
		if (e->n[d] > 1)
			if (e->n[d] > 1) /* qsort's array may be NULL when empty: not even a 0-length call */
				qsort(e->list[d], e->n[d], sizeof(*e->list[d]), cmp_contrib);
	}
	return 0;
}

void history_explain_release(struct explain *e)
{
	for (int d = 0; d < EXPLAIN_DIMS; d++)
		free(e->list[d]);
	memset(e, 0, sizeof(*e));
}

/* Kernels and ranks have many members: the largest shown, the rest one line. */
#define EXPLAIN_TOP 5

/*
 * A rank's line: its own step's change first (what an engineer reads a
 * rank's number as), its compute and copies', then its share of the
 * run's change, which the list adds up with: "rank 1: its step +3.674 ms
 * (59.215 -> 62.889 ms), its compute and copies +11.728 ms; its share of
 * the change +0.918 ms (its step / 4 ranks)".
 */
static void rank_line(const struct explain *e, const struct contrib *c)
{
	struct buf b;
	buf_init(&b);
	double os = c->old_us * (double)e->old_ranks / 1000, ns = c->new_us * (double)e->new_ranks / 1000;
	if (c->status == 1)
		buf_printf(&b, "its step %.3f ms (a rank new in this build)", ns);
	else if (c->status == 2)
		buf_printf(&b, "its step %.3f ms (a rank gone from this build)", os);
	else
		buf_printf(&b, "its step %+.3f ms (%.3f -> %.3f ms)", ns - os, os, ns);
	if (!isnan(c->old_work) && !isnan(c->new_work))
		buf_printf(&b, ", its compute and copies %+.3f ms", (c->new_work - c->old_work) / 1000);
	buf_printf(&b, "; its share of the change %+.3f ms (its step / ", (c->new_us - c->old_us) / 1000);
	if (e->old_ranks == e->new_ranks)
		buf_printf(&b, "%zu ranks)", e->new_ranks);
	else
		buf_printf(&b, "%zu -> %zu ranks)", e->old_ranks, e->new_ranks);
	diag_line(stdout, "  rank %s: %s", c->name, b.data);
	buf_release(&b);
}

void history_explain_print(const char *exp, const char *run, const struct explain *e)
{
	double change = e->new_step - e->old_step;
	diag_line(stdout, "%s: %s: where the step's %+.3f ms went (profiled steps, mean over %zu -> %zu ranks: "
		  "%.3f -> %.3f ms); each list adds up to it, the ranks by their shares:", exp, run, change / 1000, e->old_ranks, e->new_ranks,
		  e->old_step / 1000, e->new_step / 1000);
	static const char *const status[3] = {"", ", appeared", ", vanished"};
	for (int d = 0; d < EXPLAIN_DIMS; d++) {
		/* the largest changes; members that did not change add nothing and are left out */
		double shown = 0;
		size_t k, rest = 0;
		for (k = 0; k < e->n[d] && k < EXPLAIN_TOP; k++) {
			const struct contrib *c = &e->list[d][k];
			double dc = c->new_us - c->old_us;
			if (dc == 0)
				break;
			shown += dc;
			if (d == EXPLAIN_RANK)
				rank_line(e, c);
			else
				diag_line(stdout, "  %s %s: %+.3f ms (%.3f -> %.3f%s)", dim_word[d], c->name, dc / 1000,
					  c->old_us / 1000, c->new_us / 1000, status[c->status]);
		}
		for (size_t i = k; i < e->n[d]; i++)
			rest += e->list[d][i].new_us != e->list[d][i].old_us;
		double idle = d == EXPLAIN_RANK ? 0 : e->new_idle - e->old_idle;
		if (rest)
			diag_line(stdout, "  %zu other %s%s: %s%+.3f ms", rest, dim_word[d], rest == 1 ? "" : "s",
				  d != EXPLAIN_RANK ? "" : rest == 1 ? "its share " : "their shares ",
				  (change - idle - shown) / 1000);
		if (d != EXPLAIN_RANK)
			diag_line(stdout, "  idle (nothing on the GPU, beside the %ss): %+.3f ms (%.3f -> %.3f)",
				  dim_word[d], idle / 1000, e->old_idle / 1000, e->new_idle / 1000);
	}
}

/* ---- JSON ---- */

void history_json_num(struct buf *b, double v)
{
	if (isfinite(v))
		buf_printf(b, "%.9g", v); /* 9 digits: 0.1 us of a 100 s step */
	else
		buf_adds(b, "null");
}

void history_explain_json(struct buf *b, const struct explain *e)
{
	buf_adds(b, "{\"definition\": ");
	json_add_str(b, "the mean over the run's ranks of their mean ProfilerStep#N time, in parts that partition it: "
		    "each GPU activity's time in the steps not covered by an activity before it (compute kernels, "
		    "then copies and memsets, then communication; within a class the earliest started), and idle; "
		    "ms per step; a rank adds its step / the ranks (its share: change_ms; its own step: step_change_ms)");
	buf_adds(b, ", \"old_step_ms\": ");
	history_json_num(b, e->old_step / 1000);
	buf_adds(b, ", \"new_step_ms\": ");
	history_json_num(b, e->new_step / 1000);
	buf_adds(b, ", \"change_ms\": ");
	history_json_num(b, (e->new_step - e->old_step) / 1000);
	buf_printf(b, ", \"old_ranks\": %zu, \"new_ranks\": %zu, \"idle\": {\"old_ms\": ", e->old_ranks, e->new_ranks);
	history_json_num(b, e->old_idle / 1000);
	buf_adds(b, ", \"new_ms\": ");
	history_json_num(b, e->new_idle / 1000);
	buf_adds(b, ", \"change_ms\": ");
	history_json_num(b, (e->new_idle - e->old_idle) / 1000);
	buf_adds(b, "}");
	static const char *const status[3] = {"both", "appeared", "vanished"};
	for (int d = 0; d < EXPLAIN_DIMS; d++) {
		buf_printf(b, ", \"%s\": [", dim_json[d]);
		for (size_t k = 0; k < e->n[d]; k++) {
			const struct contrib *c = &e->list[d][k];
			buf_adds(b, k ? ", {\"name\": " : "{\"name\": ");
			json_add_str(b, c->name);
			buf_adds(b, ", \"old_ms\": ");
			history_json_num(b, c->old_us / 1000);
			buf_adds(b, ", \"new_ms\": ");
			history_json_num(b, c->new_us / 1000);
			buf_adds(b, ", \"change_ms\": ");
			history_json_num(b, (c->new_us - c->old_us) / 1000);
			if (d == EXPLAIN_RANK) {
				/* the rank's own step (null on a side without it) and its change */
				double os = c->status == 1 ? NAN : c->old_us * (double)e->old_ranks / 1000;
				double ns = c->status == 2 ? NAN : c->new_us * (double)e->new_ranks / 1000;
				buf_adds(b, ", \"old_step_ms\": ");
				history_json_num(b, os);
				buf_adds(b, ", \"new_step_ms\": ");
				history_json_num(b, ns);
				buf_adds(b, ", \"step_change_ms\": ");
				history_json_num(b, ns - os);
				buf_adds(b, ", \"old_work_ms\": ");
				history_json_num(b, c->old_work / 1000);
				buf_adds(b, ", \"new_work_ms\": ");
				history_json_num(b, c->new_work / 1000);
			}
			buf_printf(b, ", \"status\": \"%s\"}", status[c->status]);
		}
		buf_adds(b, "]");
	}
	buf_adds(b, "}");
}
