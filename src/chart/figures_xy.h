/*
 * figures_xy.h: x-y figures (CHART_XY) built from analysis tables, for
 * sweeps over a numeric parameter such as the batch size, and for a
 * scatter of an estimate against a measurement with its fitted line.
 *
 * Like figures.h it only builds chart models; chart_write() draws them.
 * Every function returns a new chart the caller frees with chart_free().
 */
#ifndef PERFSTUDY_FIGURES_XY_H
#define PERFSTUDY_FIGURES_XY_H

#include "util/table.h"
#include "chart/chart.h"

/*
 * Picks a decimal prefix for values up to max_abs of unit ("FLOP", "B"):
 * returns e.g. "GFLOP" or "MB" (static storage) and sets *scale to the
 * factor that turns a value into that unit (1e-9 for G).
 */
const char *figure_si_unit(double max_abs, const char *unit, double *scale);

/* One line of an x-y figure over a table: column col of each row, times scale. */
struct figure_xy_series {
	const char *label;
	int col;
	double scale;
};

/*
 * Lines over the batch size: one point per row of t whose column xcol (an
 * int column, the batch) is given, rows in order of x (stable), labelled by
 * column 0 (the run). The x axis is log 2 ("batch size"); ysc is the y
 * scale. A cell that is empty gives no point (NaN: the figure says so).
 */
struct chart *figure_xy_by(const struct table *t, int xcol, const struct figure_xy_series *series, size_t nseries,
			   const char *name, const char *title, const char *y_label, enum chart_scale ysc);

/*
 * The scatter of column ycol (measured) on column xcol (estimated) of t,
 * both times scale, with the least-squares line y = slope x + intercept
 * (raw units; scaled here) when have_fit, and y = x; each point labelled by
 * column 0. note is printed under the key (NULL: none).
 */
struct chart *figure_xy_scatter_fit(const struct table *t, int xcol, int ycol, double scale, const char *name,
				    const char *title, const char *x_label, const char *y_label, int have_fit,
				    double slope, double intercept, const char *note);

#endif
