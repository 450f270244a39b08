/*
 * ranks.c: ranks side by side (ranks.csv); scaling across runs is in
 * scaling.c.
 *
 * ranks.csv, per run, step N and rank: the ProfilerStep#N host duration;
 * idle = the step range minus the union of the rank's GPU activities;
 * comm = the union of its communication kernels inside the step (the time
 * the rank spends in, or waiting inside, collectives); slowest = 1 on the
 * rank with the longest step. A note warns where the slowest rank's step
 * is more than 10% longer than the fastest's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/intervals.h"
#include "analyze/lib/rankdata.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "analyze/ranks/ranks_tables.h"

/* A row of ranks.csv by its step; also (index into the sorted rows, first row) of a step's group. */
struct step_row {
	int64_t step;
	size_t row;
};

static int cmp_step_row(const void *pa, const void *pb)
{
	const struct step_row *a = pa, *b = pb;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

static int cmp_first_row(const void *pa, const void *pb)
{
	const struct step_row *a = pa, *b = pb;
	return a->row < b->row ? -1 : a->row > b->row;
}

/* What ranks_rank writes to, from the analysis. */
struct ranks_walk {
	struct table *t;
	struct ivset *all, *comm;
};

/* for_each_rank's visitor: one rank's rows of ranks.csv (slowest is marked after). Returns 0. */
static int ranks_rank(const struct rank_key *k, const struct rank_data *d, void *arg)
{
	struct ranks_walk *w = arg;
	ivset_clear(w->all);
	ivset_clear(w->comm);
	for (size_t i = 0; i < d->nacts; i++) {
		ivset_add(w->all, d->acts[i].start, d->acts[i].end);
		if (d->acts[i].kind == ACT_KERNEL && d->acts[i].cls == RK_COMM)
			ivset_add(w->comm, d->acts[i].start, d->acts[i].end);
	}
	ivset_normalize(w->all);
	ivset_normalize(w->comm);
	struct ivsum all, comm; /* O(log n) a step, however the steps overlap */
	ivsum_init(&all, w->all);
	ivsum_init(&comm, w->comm);
	for (size_t i = 0; i < d->nsteps; i++) {
		const struct rk_range *st = &d->steps[i];
		int64_t dur = st->end - st->start;
		int64_t busy = ivsum_within(&all, st->start, st->end);
		int64_t cm = ivsum_within(&comm, st->start, st->end);
		size_t row = table_add_row(w->t);
		table_set_text(w->t, row, 0, k->run);
		table_set_int(w->t, row, 1, st->key);
		table_set_int(w->t, row, 2, k->rank);
		table_set_ns(w->t, row, 3, dur);
		table_set_ns(w->t, row, 4, dur - busy);
		table_set_ns(w->t, row, 5, cm);
	}
	ivsum_release(&all);
	ivsum_release(&comm);
	return 0;
}

static int analysis_ranks(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct table *t = table_new("ranks", "Ranks side by side, per step",
				    TABLE_SCHEMA(RANKS_COLUMNS));
	struct ivset all, comm;
	ivset_init(&all);
	ivset_init(&comm);
	int ret = -1;
	struct ranks_walk w = {t, &all, &comm};
	if (for_each_rank(ctx->store, ctx->experiment, ranks_rank, &w) < 0)
		goto out;
	/*
	 * Mark the slowest rank of each step, run by run (a run's rows come
	 * together): the rows sorted by step, each step's rows then in table
	 * order, the steps taken in the order they first appear. Each row was
	 * compared with every row of its run (200,000 steps: quadratic).
	 */
	for (size_t a = 0; a < t->nrows;) {
		size_t b = a;
		while (b < t->nrows && !strcmp(table_cell(t, b, RANKS_RUN)->v.text, table_cell(t, a, RANKS_RUN)->v.text))
			b++;
		size_t n = b - a, ng = 0;
		struct step_row *sr = xcalloc(n ? n : 1, sizeof(*sr));
		for (size_t x = a; x < b; x++)
			sr[x - a] = (struct step_row){table_cell(t, x, RANKS_STEP)->v.i, x};
		qsort(sr, n, sizeof(*sr), cmp_step_row);
		struct step_row *groups = xcalloc(n ? n : 1, sizeof(*groups)); /* (first index into sr, first row) */
		for (size_t i = 0; i < n; i++)
			if (i == 0 || sr[i].step != sr[i - 1].step)
				groups[ng++] = (struct step_row){(int64_t)i, sr[i].row};
		if (ng) /* qsort's array may not be NULL, even when empty */
			qsort(groups, ng, sizeof(*groups), cmp_first_row);
		for (size_t g = 0; g < ng; g++) {
			size_t i0 = (size_t)groups[g].step, i1 = i0;
			int64_t step = sr[i0].step, maxd = -1, mind = INT64_MAX;
			size_t slow = sr[i0].row;
			int nranks = 0;
			for (; i1 < n && sr[i1].step == step; i1++) {
				int64_t dd = table_cell(t, sr[i1].row, RANKS_STEP_US)->v.i;
				nranks++;
				if (dd > maxd)
					maxd = dd, slow = sr[i1].row;
				if (dd < mind)
					mind = dd;
			}
			for (size_t i = i0; i < i1; i++)
				table_set_int(t, sr[i].row, 6, sr[i].row == slow);
			if (nranks > 1 && (double)maxd > 1.1 * (double)mind)
				result_add_note(out, "ranks.csv: warning: in run %s, step %lld, rank %lld's step is %.1f%% "
						"longer than the fastest rank's", table_cell(t, slow, RANKS_RUN)->v.text,
						(long long)step, (long long)table_cell(t, slow, RANKS_RANK)->v.i,
						100.0 * ((double)maxd / (double)mind - 1));
		}
		free(groups);
		free(sr);
		a = b;
	}
	result_add_table(out, t);
	t = NULL;
	result_add_method(out, "ranks.csv",
			  "Per run, ProfilerStep#N and rank: step_us, the host step duration; idle_us, the step range "
			  "minus the union of the rank's GPU activities; comm_us, the union of its communication "
			  "kernels inside the step (time spent in or waiting inside collectives); slowest, 1 on the "
			  "rank with the longest step. The report warns where the slowest rank's step is more than "
			  "10% longer than the fastest rank's.");
	ret = 0;
out:
	ivset_release(&all);
	ivset_release(&comm);
	table_free(t);
	return ret;
}

const struct analysis_def analysis_def_ranks = {
	.name = "ranks",
	.run = analysis_ranks,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("ranks"),
};
