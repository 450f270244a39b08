/*
 * draw_grouped.c: the kind CHART_GROUPED_BAR (chart_kind_grouped_bar), bars
 * side by side in each category's slot, one per series.
 */
#include "chart/chart_draw.h"

#include <math.h>
#include <stdlib.h>

#include "util/xalloc.h"

/* In each category's slot, one bar per series side by side. */
static void plot_grouped(cairo_t *cr, const struct chart *c, const struct text *t, const struct columns *p)
{
	size_t nc = c->ncat, ns = c->nseries;
	const struct box *b = &p->b;
	const struct axis *a = &p->a;
	double slot = p->slot, y_zero = p->y_zero;
	double group_w = slot * 0.8, bar_w = fmin(group_w / (double)ns, 40);
	group_w = bar_w * (double)ns;
	for (size_t i = 0; i < nc; i++) {
		double x = b->x0 + ((double)i + 0.5) * slot - group_w / 2;
		for (size_t s = 0; s < ns; s++, x += bar_w) {
			double v = finite_or_0(c->values[i * ns + s]);
			if (v == 0 || (a->log && v < 0))
				continue;
			double y_b = axis_y(a, b, v);
			fill_rect(cr, x, fmin(y_zero, y_b), bar_w, fabs(y_zero - y_b), look.series_colour[s]);
			cairo_rectangle(cr, x, fmin(y_zero, y_b), bar_w, fabs(y_zero - y_b));
			cairo_set_source_rgb(cr, 1, 1, 1);
			cairo_set_line_width(cr, 0.3);
			cairo_stroke(cr);
			char *vt = value_text(v);
			add_tip(x, fmin(y_zero, y_b), bar_w, fabs(y_zero - y_b),
				xasprintf("%s, %s: %s", t->cats[i], t->series[s], vt));
			free(vt);
		}
	}
}

/* No spreads: a slot holds several bars. The value axis may be logarithmic (chart_style's log_scale). */
static void draw_grouped(cairo_t *cr, const struct chart *c, const struct text *t, double w, double h)
{
	static const struct columns_kind grouped = {.log_ok = 1, .plot = plot_grouped};
	draw_columns(cr, c, t, w, h, &grouped);
}

static const struct chart_drawing drawing = {draw_grouped};
const struct chart_kind chart_kind_grouped_bar = {.name = "grouped bar", .drawing = &drawing};
