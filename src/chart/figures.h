/*
 * figures.h: the study's figures as chart models, built from analysis tables.
 *
 * This is where a table becomes a chart: which column is a bar, which is a
 * segment, what the axis says. It never draws; chart_write() does. Every
 * function returns a new chart the caller frees with chart_free().
 */
#ifndef PERFSTUDY_FIGURES_H
#define PERFSTUDY_FIGURES_H

#include "util/table.h"
#include "chart/chart.h"

/*
 * The columns a figure reads of its table, by the enums of the table's
 * contract in its maker's header (analyze/time/time_tables.h's GRP_* and
 * KRN_*, analyze/models/models.h's PUB_*): the caller, in analyze/, names
 * them, since chart/ comes after analyze/ and includes none of it.
 */
struct group_cols {
	int run, rank, group, fraction;
};
struct kernel_cols {
	int run, rank, name, total_us, group;
};
struct published_cols {
	int run, quantity, published, perfstudy;
};

/*
 * Stacked bars of groups.csv: one bar per (run, rank) in table order, one
 * segment per group in the order given (so a group keeps its colour across
 * figures), height = fraction of the rank's GPU time.
 */
struct chart *figure_group_fractions(const struct table *groups, const struct group_cols *k,
				     const char *const *group_order, size_t ngroups);

/*
 * Horizontal bars: the top_n kernels of one run and rank by total time (ms),
 * each bar keyed by its kernel's group (its colour) with the full kernel
 * name as its tooltip. rows[nrows]: the rows of kernels to look at, in
 * table order (the run and rank's, found by the caller, so that a figure
 * per rank reads its own rows, not the table); NULL: every row.
 */
struct chart *figure_top_kernels(const struct table *kernels, const struct kernel_cols *k, const char *run,
				 int64_t rank, int top_n, const char *name, const size_t *rows, size_t nrows);

/*
 * Grouped bars of published.csv for one quantity ("params", "flops_tflop",
 * "activation_gb"): one slot per run that has it, in table order, the
 * study's published number and perfstudy's estimate side by side (the two
 * are sources, not categories of time: drawn in greys), times scale. NULL
 * when no row has the quantity.
 */
struct chart *figure_published(const struct table *published, const struct published_cols *k, const char *quantity,
			       double scale, const char *name, const char *title, const char *value_label);

/* A short label for a kernel name (see figures.c); the caller frees it. */
char *kernel_label(const char *name);

#endif
