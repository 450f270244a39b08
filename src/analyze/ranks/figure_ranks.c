/*
 * figure_ranks.c: figures with a bar per rank draw the ranks that matter
 * only, once a run has more ranks than a reader can tell apart.
 *
 * Seven figures put every rank of every run side by side, one category
 * "<run> r<rank>" each: step_breakdown, temporal_breakdown, group_fractions,
 * dispatch, memops, critical_path and rank_waits. At 1024 ranks that is
 * 1024 bars per figure, too thin to see, and 4 MB of SVG each (drawn two at
 * a time, their SVG and PDF documents held in memory: the largest part of a
 * many-rank build's peak, issue 32). rank_spread.csv already chooses the
 * ranks that get per-rank figures (drawn = 1: all ranks of a run of at most
 * 8, else the fastest, the median, the slowest and the outliers) and its
 * figure shows the distribution over every rank; this pass keeps, in each
 * such figure, the categories of those ranks for every run that has ranks
 * not drawn. Categories of runs not in rank_spread.csv (one rank, or no
 * steps), and categories that are not "<run> r<rank>" of a run there, stay.
 * The tables are not touched: each CSV keeps every rank. A figure that lost
 * bars says so in its caption.
 *
 * Runs after every analysis that draws such a figure and before findings
 * (which reads tables only); labels are still run ids here (the manifest's
 * run labels replace them when the figures are drawn). rank_spread trims
 * the figures made before it as soon as its table is there
 * (figure_ranks_trim), so that a run's per-rank figures do not hold every
 * rank while the analyses between run (16,384 ranks: 13 MB of them through
 * critical_path); this pass trims the later ones, critical_path's, and
 * says so in Methods once for both. A figure trimmed once has no rank left
 * to drop, so the second pass leaves it as it was.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include "analyze/ranks/figure_ranks.h"
#include "analyze/ranks/ranks_tables.h"

struct drawn_rank {
	const char *run;
	int64_t rank;
	int drawn;
};

static int cmp_drawn(const void *pa, const void *pb)
{
	const struct drawn_rank *a = pa, *b = pb;
	int c = strcmp(a->run, b->run);
	if (c)
		return c;
	return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The sentence a trimmed figure's caption ends with. */
#define TRIMMED_CAPTION                                                                                        \
	"Runs of more than 8 ranks show their fastest, median and slowest ranks and at most 8 of their outliers " \
	"(rank_spread.csv, whose figure shows every rank); "

size_t figure_ranks_trim(struct analysis_result *out)
{
	const struct table *rs = result_table(out, "rank_spread");
	int crun = rs ? RS_RUN : -1, crank = rs ? RS_RANK : -1,
	    cdrawn = rs ? RS_DRAWN : -1;
	if (crun < 0 || crank < 0 || cdrawn < 0 || !rs->nrows)
		return 0;
	/* (run, rank, drawn), sorted for the lookups below */
	struct drawn_rank *v = xcalloc(rs->nrows, sizeof(*v));
	size_t n = 0;
	for (size_t r = 0; r < rs->nrows; r++) {
		const struct cell *run = table_cell(rs, r, (size_t)crun), *rank = table_cell(rs, r, (size_t)crank),
				  *drawn = table_cell(rs, r, (size_t)cdrawn);
		if (run->null || rank->null)
			continue;
		v[n++] = (struct drawn_rank){run->v.text, rank->v.i, !drawn->null && drawn->v.i != 0};
	}
	qsort(v, n, sizeof(*v), cmp_drawn);
	/* A category is dropped when its rank is in the table and not drawn; a run with such a rank is one to trim. */
	int any = 0;
	for (size_t i = 0; i < n; i++)
		any |= !v[i].drawn;
	struct buf run;
	buf_init(&run);
	size_t figs = 0;
	for (size_t f = 0; any && f < out->nfigures; f++) {
		struct chart *c = out->figures[f].chart;
		if (c->kind == CHART_XY || c->ncat <= 8)
			continue;
		unsigned char *keep = xmalloc(c->ncat);
		size_t dropped = 0;
		for (size_t i = 0; i < c->ncat; i++) {
			struct drawn_rank key = {NULL, 0, 0};
			size_t run_len;
			long long rank;
			keep[i] = 1;
			if (!chart_rank_label(c->categories[i], &run_len, &rank))
				continue;
			buf_reset(&run);
			buf_add(&run, c->categories[i], run_len);
			key.run = run.data;
			key.rank = rank;
			const struct drawn_rank *d = bsearch(&key, v, n, sizeof(*v), cmp_drawn);
			if (d && !d->drawn) {
				keep[i] = 0;
				dropped++;
			}
		}
		if (dropped) {
			chart_keep_categories(c, keep);
			char *cap = xasprintf("%s%s" TRIMMED_CAPTION "%zu rank%s left out here are in the CSV.",
					      out->figures[f].caption, out->figures[f].caption[0] ? " " : "", dropped,
					      dropped == 1 ? "" : "s");
			free(out->figures[f].caption);
			out->figures[f].caption = cap;
			figs++;
		}
		free(keep);
	}
	buf_release(&run);
	free(v);
	return figs;
}

static int analysis_figure_ranks(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	(void)ctx;
	figure_ranks_trim(out);
	/* the figures trimmed here or by rank_spread before */
	size_t figs = 0;
	for (size_t f = 0; f < out->nfigures; f++)
		figs += strstr(out->figures[f].caption, TRIMMED_CAPTION) != NULL;
	if (figs)
		result_add_method(out, "figures with a bar per rank",
				  "In a run of more than 8 ranks, the figures that give each rank a bar (step time by "
				  "part, time by kind, kernel groups, dispatch, copies, critical path, where each rank's "
				  "step goes) draw the ranks rank_spread.csv marks drawn: the fastest, the median and the "
				  "slowest by median own time and at most 8 outliers beyond Tukey's fences. The "
				  "distribution over every rank is the rank_spread figure; every CSV keeps every rank.");
	return 0;
}

const struct analysis_def analysis_def_figure_ranks = {
	.name = "figure_ranks",
	.run = analysis_figure_ranks,
	.needs = ANALYSIS_TABLES("rank_spread"),
	.makes = ANALYSIS_NONE,
};
