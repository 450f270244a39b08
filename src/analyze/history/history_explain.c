/*
 * history_explain.c: where a run's change of step time went, for `perfstudy
 * diff` (history_diff.c): the contributors per kernel group, kernel, region
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
 * its step / the ranks of its build, so the ranks add up to it alone.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/history/history.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/json.h"
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

/* Adds r's rows of kind to the list, on side 0 (old) or 1 (new), each divided by div. */
static void gather(struct explain *e, int d, const struct hstate_run *r, int side, double div)
{
	for (size_t i = 0; i < r->nparts; i++) {
		if (strcmp(r->part_kinds[i], dim_kind[d]))
			continue;
		size_t k = 0;
		while (k < e->n[d] && strcmp(e->list[d][k].name, r->part_names[i]))
			k++;
		if (k == e->n[d]) {
			e->list[d] = xrealloc(e->list[d], (e->n[d] + 1) * sizeof(*e->list[d]));
			e->list[d][e->n[d]++] = (struct contrib){r->part_names[i], 0, 0, side ? 1 : 2, NAN, NAN};
		} else {
			e->list[d][k].status = 0;
		}
		*(side ? &e->list[d][k].new_us : &e->list[d][k].old_us) += r->part_values[i] / div;
	}
}

/* Each rank's compute and copies (rank_work) on side 0 or 1. */
static void gather_work(struct explain *e, const struct hstate_run *r, int side)
{
	for (size_t i = 0; i < r->nparts; i++) {
		if (strcmp(r->part_kinds[i], "rank_work"))
			continue;
		for (size_t k = 0; k < e->n[EXPLAIN_RANK]; k++)
			if (!strcmp(e->list[EXPLAIN_RANK][k].name, r->part_names[i]))
				*(side ? &e->list[EXPLAIN_RANK][k].new_work : &e->list[EXPLAIN_RANK][k].old_work) =
					r->part_values[i];
	}
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
		/* kernel names are few per run; a run with thousands is bounded by parts.c's cap */
		gather(e, d, a, 0, d == EXPLAIN_RANK ? (double)e->old_ranks : 1);
		gather(e, d, b, 1, d == EXPLAIN_RANK ? (double)e->new_ranks : 1);
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

void history_explain_print(const char *exp, const char *run, const struct explain *e)
{
	double change = e->new_step - e->old_step;
	diag_line(stdout, "%s: %s: where the step's %+.3f ms went (profiled steps, mean over %zu -> %zu ranks: "
		  "%.3f -> %.3f ms); each list adds up to it:", exp, run, change / 1000, e->old_ranks, e->new_ranks,
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
			if (d == EXPLAIN_RANK && !isnan(c->old_work) && !isnan(c->new_work))
				diag_line(stdout, "  rank %s: %+.3f ms (its step %.3f -> %.3f ms, over the ranks; its compute "
					  "and copies %+.3f ms)", c->name, dc / 1000, c->old_us * (double)e->old_ranks / 1000,
					  c->new_us * (double)e->new_ranks / 1000, (c->new_work - c->old_work) / 1000);
			else if (d == EXPLAIN_RANK)
				diag_line(stdout, "  rank %s: %+.3f ms (its step %.3f -> %.3f ms, over the ranks)", c->name,
					  dc / 1000, c->old_us * (double)e->old_ranks / 1000,
					  c->new_us * (double)e->new_ranks / 1000);
			else
				diag_line(stdout, "  %s %s: %+.3f ms (%.3f -> %.3f%s)", dim_word[d], c->name, dc / 1000,
					  c->old_us / 1000, c->new_us / 1000, status[c->status]);
		}
		for (size_t i = k; i < e->n[d]; i++)
			rest += e->list[d][i].new_us != e->list[d][i].old_us;
		double idle = d == EXPLAIN_RANK ? 0 : e->new_idle - e->old_idle;
		if (rest)
			diag_line(stdout, "  %zu other %s%s: %+.3f ms", rest, dim_word[d], rest == 1 ? "" : "s",
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
		    "ms per step; a rank adds its step / the ranks");
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
