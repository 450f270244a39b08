/*
 * draw_grouped.c: CHART_GROUPED_BAR's bars, side by side in each
 * category's slot.
 */
#include "chart/chart_draw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/xalloc.h"

/* CHART_GROUPED_BAR: in each category's slot, one bar per series side by side. */
void draw_grouped_bars(cairo_t *cr, const struct chart *c, const struct text *t, const struct box *b,
			      const struct axis *a, double slot, double y_zero)
{
	size_t nc = c->ncat, ns = c->nseries;
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
