/*
 * draw_stacked.c: the kind CHART_STACKED_BAR (chart_kind_stacked_bar), one
 * bar per category with a segment per series, positive segments stacked up
 * from 0 and negative ones down.
 */
#include "chart/chart_draw.h"

#include <math.h>
#include <stdlib.h>

#include "util/xalloc.h"

/* The stacks, then each category's spread over its bar. */
static void plot_stacked(cairo_t *cr, const struct chart *c, const struct text *t, const struct columns *p)
{
	size_t nc = c->ncat, ns = c->nseries;
	double bar_w = fmin(p->slot * 0.7, 60), y_zero = p->y_zero, scale = p->scale;
	for (size_t i = 0; i < nc; i++) {
		double cx = p->b.x0 + ((double)i + 0.5) * p->slot;
		double up = 0, down = 0;
		for (size_t s = 0; s < ns; s++) {
			double v = finite_or_0(c->values[i * ns + s]);
			if (v == 0)
				continue;
			double base = v > 0 ? up : down;
			double y_a = y_zero - base * scale, y_b = y_zero - (base + v) * scale;
			if (v > 0)
				up += v;
			else
				down += v;
			fill_rect(cr, cx - bar_w / 2, fmin(y_a, y_b), bar_w, fabs(y_a - y_b),
				  look.series_colour[s]);
			/* A hairline between segments keeps neighbours apart in greyscale. */
			cairo_rectangle(cr, cx - bar_w / 2, fmin(y_a, y_b), bar_w, fabs(y_a - y_b));
			cairo_set_source_rgb(cr, 1, 1, 1);
			cairo_set_line_width(cr, 0.3);
			cairo_stroke(cr);
			char *vt = value_text(v);
			add_tip(cx - bar_w / 2, fmin(y_a, y_b), bar_w, fabs(y_a - y_b),
				xasprintf("%s, %s: %s", t->cats[i], t->series[s], vt));
			free(vt);
		}
	}
	draw_spreads_up(cr, c, &p->b, p->slot, scale, y_zero, fmin(bar_w / 4, 4));
}

static void draw_stacked(cairo_t *cr, const struct chart *c, const struct text *t, double w, double h)
{
	static const struct columns_kind stacked = {.stack = 1, .spread = 1, .plot = plot_stacked};
	draw_columns(cr, c, t, w, h, &stacked);
}

static const struct chart_drawing drawing = {draw_stacked};
const struct chart_kind chart_kind_stacked_bar = {.name = "stacked bar", .drawing = &drawing};
