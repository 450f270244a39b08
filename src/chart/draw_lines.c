/*
 * draw_lines.c: the kind CHART_LINE (chart_kind_line), one line per series
 * over evenly spaced categories, with markers, an optional dashed
 * reference series and each category's spread.
 */
#include "chart/chart_draw.h"

#include <math.h>
#include <stdlib.h>

#include "util/xalloc.h"

/*
 * CHART_LINE: each series a line through its finite values at the
 * category centres, with markers; the reference series (ref = 1 + index)
 * dashed grey under the others and labelled at its last point.
 */
static void plot_lines(cairo_t *cr, const struct chart *c, const struct text *t, const struct box *b,
		       double slot, double scale, double y_zero, size_t ref)
{
	size_t nc = c->ncat, ns = c->nseries;
	for (size_t pass = 0; pass < 2; pass++)
		for (size_t s = 0; s < ns; s++) {
			int is_ref = s + 1 == ref;
			if (is_ref != !pass)
				continue;
			cairo_save(cr);
			if (is_ref) {
				set_ref_line(cr, 1);
			} else {
				set_colour(cr, look.series_colour[s]);
				cairo_set_line_width(cr, 1.2);
			}
			int open = 0;
			double lx = 0, ly = 0;
			for (size_t i = 0; i < nc; i++) {
				double v = c->values[i * ns + s];
				if (!isfinite(v)) {
					open = 0;
					continue;
				}
				double x = b->x0 + ((double)i + 0.5) * slot, y = y_zero - v * scale;
				line_point(cr, &open, x, y);
				lx = x;
				ly = y;
			}
			cairo_stroke(cr);
			cairo_set_dash(cr, NULL, 0, 0);
			for (size_t i = 0; i < nc && !is_ref; i++) {
				double v = c->values[i * ns + s];
				if (!isfinite(v))
					continue;
				double x = b->x0 + ((double)i + 0.5) * slot, y = y_zero - v * scale;
				marker(cr, x, y, s);
				char *vt = value_text(v);
				add_tip(x - 3, y - 3, 6, 6, xasprintf("%s, %s: %s", t->cats[i], t->series[s], vt));
				free(vt);
			}
			if (is_ref && (lx != 0 || ly != 0)) {
				set_font(cr, TICK_PT, 0);
				set_grey(cr, 0.35);
				show_text(cr, t->series[s], lx - GAP, ly - GAP, 1, 1);
			}
			cairo_restore(cr);
		}
}

/* Each category's spread first, then the lines and their points over it. */
static void plot_lines_spreads(cairo_t *cr, const struct chart *c, const struct text *t, const struct columns *p)
{
	draw_spreads_up(cr, c, &p->b, p->slot, p->scale, p->y_zero, 4);
	plot_lines(cr, c, t, &p->b, p->slot, p->scale, p->y_zero, p->ref);
}

static void draw_lines(cairo_t *cr, const struct chart *c, const struct text *t, double w, double h)
{
	static const struct columns_kind lines = {.spread = 1, .plot = plot_lines_spreads};
	draw_columns(cr, c, t, w, h, &lines);
}

/* Lines: a reference series, every series keyed by its line and marker (draw_columns.c), no grey. */
static const struct chart_drawing drawing = {draw_lines};
const struct chart_kind chart_kind_line = {.name = "line", .lines = 1, .drawing = &drawing};
