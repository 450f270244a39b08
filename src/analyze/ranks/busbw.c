/*
 * busbw.c: AllReduce bus bandwidth against message size and GPU count
 * (allreduce_busbw.csv, figure allreduce_busbw), the curve paper 002
 * measures per system ("All reduce scales poorly with number of nodes for
 * Polaris while the DGX systems maintain high bandwidth").
 *
 * Over every AllReduce kernel of the experiment whose args record its size
 * (Kineto's In/Out msg nelems and dtype), grouped by the group size n and
 * the message size S = max(In, Out msg nelems) x the dtype's size:
 *   calls, time = the summed kernel durations (all ranks of all runs with
 *   that n; runs = those runs' ids, so that a number can be traced to its
 *   inputs), algbw = S x calls / time, busbw = algbw x 2(n-1)/n (NCCL's
 *   nccl-tests, doc/PERFORMANCE.md). A kernel's duration includes the time
 *   it waits for the slowest rank to join, so busbw is what the training
 *   got, at most what the links can do.
 * Beside it, the wait-free transfer (issue 28, point 5): over the kernels
 * matched across the ranks of their run (crossrank.c), matched_calls and
 * transfer = the summed time from the last rank's arrival to each kernel's
 * end; transfer_busbw = S x matched_calls / transfer x 2(n-1)/n, what the
 * links did once every rank was there.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/ranks/ranks_tables.h"
#include "analyze/ranks/collectives.h"
#include "analyze/ranks/crossrank.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

struct point {
	int64_t n, bytes, calls, time_ns;
	int64_t matched, transfer_ns; /* the kernels matched across ranks, and their summed transfer */
	char **runs; /* the ids of the runs whose kernels it sums, sorted, each once */
	size_t nruns, cap_runs;
};

/* Adds run to p's runs, keeping them sorted and each once. */
static void point_add_run(struct point *p, const char *run)
{
	size_t at = 0;
	while (at < p->nruns && strcmp(p->runs[at], run) < 0)
		at++;
	if (at < p->nruns && !strcmp(p->runs[at], run))
		return;
	p->runs = xgrow(p->runs, &p->cap_runs, p->nruns + 1, sizeof(*p->runs));
	memmove(&p->runs[at + 1], &p->runs[at], (p->nruns - at) * sizeof(*p->runs));
	p->runs[at] = xstrdup(run);
	p->nruns++;
}

static void points_free(struct point *p, size_t np)
{
	for (size_t i = 0; i < np; i++) {
		for (size_t k = 0; k < p[i].nruns; k++)
			free(p[i].runs[k]);
		free(p[i].runs);
	}
	free(p);
}

static int cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

static int cmp_size(const void *a, const void *b)
{
	const struct point *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

static struct chart *busbw_chart(const struct point *p, size_t np)
{
	struct chart *c = chart_new(CHART_XY, "allreduce_busbw", "AllReduce bus bandwidth against message size",
				    "bus bandwidth (GB/s)");
	chart_set_x_axis(c, "message size (bytes)", CHART_SCALE_LOG10);
	c->from_zero = 1;
	c->entity_series = 1; /* a line per GPU count: configurations of runs, in greys (chart_style) */
	char label[48];
	/* A point position per distinct size (p is sorted by size); a series per GPU count. */
	for (size_t i = 0; i < np; i++) {
		size_t s = 0;
		snprintf(label, sizeof(label), "%lld GPUs", (long long)p[i].n);
		while (s < c->nseries && strcmp(c->series[s], label))
			s++;
		if (s == c->nseries) {
			s = chart_add_series(c, label);
			for (size_t k = 0; k < c->ncat; k++)
				chart_set(c, k, s, NAN);
		}
		size_t cat = 0;
		while (cat < c->ncat && c->x_values[cat] != (double)p[i].bytes)
			cat++;
		if (cat == c->ncat) {
			snprintf(label, sizeof(label), "%lld B", (long long)p[i].bytes);
			cat = chart_add_category(c, label);
			chart_set_x(c, cat, (double)p[i].bytes);
			for (size_t k = 0; k < c->nseries; k++)
				chart_set(c, cat, k, NAN);
		}
		double n = (double)p[i].n;
		chart_set(c, cat, s, (double)p[i].bytes * (double)p[i].calls / (double)p[i].time_ns * 2 * (n - 1) / n);
		if (p[i].transfer_ns <= 0)
			continue;
		/* the wait-free transfer's line beside the kernel time's */
		snprintf(label, sizeof(label), "%lld GPUs, transfer only", (long long)p[i].n);
		size_t s2 = 0;
		while (s2 < c->nseries && strcmp(c->series[s2], label))
			s2++;
		if (s2 == c->nseries) {
			s2 = chart_add_series(c, label);
			for (size_t k = 0; k < c->ncat; k++)
				chart_set(c, k, s2, NAN);
		}
		chart_set(c, cat, s2, (double)p[i].bytes * (double)p[i].matched / (double)p[i].transfer_ns * 2 * (n - 1) / n);
	}
	return c;
}

/*
 * Adds to the points the wait-free transfer of the AllReduce kernels
 * matched across the ranks of their run (crossrank_match, silent: the
 * cross-rank analysis warns). Returns 0, or -1 after diag.
 */
static int add_transfers(const struct analysis_ctx *ctx, struct point *p, size_t np)
{
	struct rank_key *keys;
	size_t nkeys;
	if (rank_keys(ctx->store, ctx->experiment, &keys, &nkeys) < 0)
		return -1;
	struct classifier *cls = classifier_preset("default");
	int ret = 0;
	for (size_t k = 0; k < nkeys && !ret;) {
		size_t e = k + 1;
		while (e < nkeys && !strcmp(keys[e].run, keys[k].run))
			e++;
		if (e - k >= 2) {
			struct xr_run run;
			ret = crossrank_match(ctx->store, &keys[k], e - k, cls, NULL, &run);
			for (size_t o = 0; !ret && o < run.nops; o++) {
				const struct xr_op *op = &run.ops[o];
				if (strcmp(run.names[op->type], "AllReduce") || op->bytes <= 0)
					continue;
				size_t i = 0;
				while (i < np && (p[i].n != op->group_size || p[i].bytes != op->bytes))
					i++;
				if (i == np)
					continue;
				for (size_t m = op->first; m < op->first + op->n; m++) {
					const struct xr_rank *r = &run.ranks[run.members[m].rank_i];
					int64_t wait, transfer;
					crossrank_times(&run, r, &r->kerns[run.members[m].kern_i], &wait, &transfer);
					p[i].matched++;
					p[i].transfer_ns += transfer;
				}
			}
			crossrank_release(&run);
		}
		k = e;
	}
	classifier_free(cls);
	rank_keys_free(keys, nkeys);
	return ret;
}

static int analysis_busbw(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct store_stmt *st = store_query(ctx->store, "busbw: collectives with their kernels",
					    "SELECT coalesce(c.group_size, t.world_size),"
					    " max(c.in_nelems, c.out_nelems), c.dtype, c.collective, a.dur_ns, t.run"
					    " FROM collectives c JOIN run_traces t ON t.id = c.trace_id"
					    " JOIN activities a ON a.trace_id = c.trace_id AND a.start_ns = c.start_ns"
					    "  AND a.correlation IS c.correlation AND a.kind = 'kernel'"
					    " WHERE t.experiment = ?1", ctx->experiment);
	if (!st)
		return -1;
	struct point *p = NULL;
	size_t np = 0, cap = 0;
	struct buf type;
	buf_init(&type);
	int rc;
	while ((rc = store_next(st)) > 0) {
		buf_reset(&type);
		collective_canonical((const char *)store_column_text(st, 3), &type);
		int size = collective_dtype_size((const char *)store_column_text(st, 2));
		int64_t n = store_column_int64(st, 0), elems = store_column_int64(st, 1), dur = store_column_int64(st, 4);
		if (strcmp(type.data, "AllReduce") || size <= 0 || elems <= 0 || n < 2 || dur <= 0)
			continue;
		int64_t bytes = elems * size;
		size_t i = 0;
		while (i < np && (p[i].n != n || p[i].bytes != bytes))
			i++;
		if (i == np) {
			p = xgrow(p, &cap, np + 1, sizeof(*p));
			p[np++] = (struct point){n, bytes, 0, 0, 0, 0, NULL, 0, 0};
		}
		p[i].calls++;
		p[i].time_ns += dur;
		point_add_run(&p[i], (const char *)store_column_text(st, 5));
	}
	buf_release(&type);
	store_finalize(st);
	if (rc < 0) {
		points_free(p, np);
		return -1;
	}
	if (!np) {
		points_free(p, np);
		return 0;
	}
	if (add_transfers(ctx, p, np) < 0) {
		points_free(p, np);
		return -1;
	}
	qsort(p, np, sizeof(*p), cmp_point);
	struct table *t = table_new("allreduce_busbw", "AllReduce bus bandwidth by GPU count and message size",
				    TABLE_SCHEMA(ALLREDUCE_BUSBW_COLUMNS));
	struct buf runs;
	buf_init(&runs);
	for (size_t i = 0; i < np; i++) {
		size_t row = table_add_row(t);
		double algbw = (double)p[i].bytes * (double)p[i].calls / (double)p[i].time_ns, n = (double)p[i].n;
		table_set_int(t, row, 0, p[i].n);
		table_set_int(t, row, 1, p[i].bytes);
		table_set_int(t, row, 2, p[i].calls);
		table_set_ns(t, row, 3, p[i].time_ns);
		table_set_real(t, row, 4, algbw);
		table_set_real(t, row, 5, algbw * 2 * (n - 1) / n);
		buf_reset(&runs);
		for (size_t k = 0; k < p[i].nruns; k++)
			buf_printf(&runs, "%s%s", k ? " " : "", p[i].runs[k]);
		table_set_text(t, row, 6, runs.data);
		table_set_int(t, row, 7, p[i].matched);
		if (p[i].transfer_ns > 0) {
			table_set_ns(t, row, 8, p[i].transfer_ns);
			table_set_real(t, row, 9,
				       (double)p[i].bytes * (double)p[i].matched / (double)p[i].transfer_ns * 2 * (n - 1) / n);
		}
	}
	buf_release(&runs);
	result_add_table(out, t);
	/* The chart's point positions in order of size, so that each line runs left to right. */
	qsort(p, np, sizeof(*p), cmp_size);
	result_add_figure(out, busbw_chart(p, np),
			  "AllReduce bus bandwidth (algbw x 2(n-1)/n) against the message size, one line per GPU "
			  "count n, over all AllReduce kernels of the experiment that record their size; kernel time "
			  "includes waiting for the slowest rank. The lines 'transfer only' use the wait-free transfer "
			  "(from the last rank's arrival to the kernel's end) of the kernels matched across ranks.");
	points_free(p, np);
	result_add_method(out, "allreduce_busbw.csv",
		"Over every AllReduce kernel of the experiment whose args record its size (In/Out msg nelems and "
		"dtype), grouped by group size n (gpus) and message size S = max(In, Out msg nelems) x the dtype's "
		"size (message_bytes): calls, time_us = their summed kernel time over all ranks of all runs with "
		"n GPUs (runs: their ids, space-separated), "
		"algbw = S x calls / time (bytes per ns = GB/s), busbw = algbw x 2(n-1)/n (NCCL nccl-tests, "
		"doc/PERFORMANCE.md), the bandwidth paper 002 compares across systems and GPU counts. A kernel's "
		"time includes the wait for the slowest rank to join, so busbw is what training obtained, at "
		"most what the links allow. Beside it, without the wait: over the kernels matched across the ranks "
		"of their run (collective_waits.csv), matched_calls and transfer_us = their summed transfer_us (from "
		"the last rank's arrival to the kernel's end), transfer_busbw = S x matched_calls / transfer x "
		"2(n-1)/n: what the links did once every rank had arrived.");
	return 0;
}

const struct analysis_def analysis_def_busbw = {
	.name = "busbw",
	.run = analysis_busbw,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("allreduce_busbw"),
	.figures = ANALYSIS_NAMES("allreduce_busbw"),
};
