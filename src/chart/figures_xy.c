/*
 * figures_xy.c: x-y chart models from tables (see figures_xy.h). No cairo
 * here: the model says where the points are, draw_xy.c draws them.
 */
#include "chart/figures_xy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

const char *figure_si_unit(double max_abs, const char *unit, double *scale)
{
	static char out[32];
	static const struct {
		double f;
		const char *p;
	} pre[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
	const char *p = "";
	*scale = 1;
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (isfinite(max_abs) && max_abs >= pre[i].f) {
			p = pre[i].p;
			*scale = 1 / pre[i].f;
			break;
		}
	snprintf(out, sizeof(out), "%s%s", p, unit);
	return out;
}

static double cell_num(const struct cell *c, enum col_type type)
{
	if (c->null || type == COL_TEXT)
		return NAN;
	/* COL_US holds integer ns. */
	return type == COL_REAL || type == COL_FRAC ? c->v.f : (double)c->v.i;
}

struct row_x {
	size_t row;
	double x;
};

static int cmp_row_x(const void *a, const void *b)
{
	const struct row_x *p = a, *q = b;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return p->row < q->row ? -1 : p->row > q->row;
}

struct chart *figure_xy_by(const struct table *t, int xcol, const struct figure_xy_series *series, size_t nseries,
			   const char *name, const char *title, const char *y_label, enum chart_scale ysc)
{
	struct chart *c = chart_new(CHART_XY, name, title, y_label);
	chart_set_x_axis(c, "batch size", CHART_SCALE_LOG2);
	c->y_scale = ysc;
	c->from_zero = ysc == CHART_SCALE_LINEAR;
	/* Each line is a quantity over the runs (measured, estimated), not a category of time: greys. */
	c->entity_series = 1;
	struct row_x *rx = xcalloc(t->nrows + 1, sizeof(*rx));
	size_t n = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const struct cell *b = table_cell(t, r, (size_t)xcol);
		if (!b->null)
			rx[n++] = (struct row_x){r, (double)b->v.i};
	}
	/* Lines join the runs in order of batch size; a stable sort keeps the table's order among equals. */
	qsort(rx, n, sizeof(*rx), cmp_row_x);
	for (size_t s = 0; s < nseries; s++)
		chart_add_series(c, series[s].label);
	for (size_t k = 0; k < n; k++) {
		const struct cell *run = table_cell(t, rx[k].row, 0);
		size_t cat = chart_add_category(c, run->null ? "" : run->v.text);
		chart_set_x(c, cat, rx[k].x);
		for (size_t s = 0; s < nseries; s++) {
			double v = cell_num(table_cell(t, rx[k].row, (size_t)series[s].col),
					    t->cols[series[s].col].type);
			chart_set(c, cat, s, v * series[s].scale);
		}
	}
	free(rx);
	return c;
}

struct chart *figure_xy_scatter_fit(const struct table *t, int xcol, int ycol, double scale, const char *name,
				    const char *title, const char *x_label, const char *y_label, int have_fit,
				    double slope, double intercept, const char *note)
{
	struct chart *c = chart_new(CHART_XY, name, title, y_label);
	chart_set_x_axis(c, x_label, CHART_SCALE_LINEAR);
	c->markers_only = 1;
	c->label_points = 1;
	c->from_zero = 1;
	c->entity_series = 1; /* the points are runs: black, not a palette colour (chart_style) */
	size_t s = chart_add_series(c, "runs");
	for (size_t r = 0; r < t->nrows; r++) {
		double x = cell_num(table_cell(t, r, (size_t)xcol), t->cols[xcol].type);
		double y = cell_num(table_cell(t, r, (size_t)ycol), t->cols[ycol].type);
		if (isnan(x) && isnan(y))
			continue;
		const struct cell *run = table_cell(t, r, 0);
		size_t cat = chart_add_category(c, run->null ? "" : run->v.text);
		chart_set_x(c, cat, x * scale);
		chart_set(c, cat, s, y * scale);
	}
	/* Scaling both axes by the same factor keeps the slope and scales the intercept. */
	if (have_fit)
		chart_add_refline(c, "least squares", slope, intercept * scale, 0);
	chart_add_refline(c, "y = x", 1, 0, 1);
	if (note)
		chart_set_note(c, note);
	return c;
}
