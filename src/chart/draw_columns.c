/*
 * draw_columns.c: the frame of the charts whose categories run along the x
 * axis (stacked bars, grouped bars, lines): value axis, key and note,
 * category labels, then the bars or lines of the chart's kind.
 */
#include "chart/chart_draw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/xalloc.h"

/*
 * A series whose every bar is shorter than this share of the value axis
 * cannot be seen: it leaves the key for a line under it saying so.
 */
#define MIN_VISIBLE 0.005

void draw_stacked(cairo_t *cr, const struct chart *c, const struct text *t, double w,
			 double h)
{
	size_t nc = c->ncat, ns = c->nseries;
	struct axis a;
	struct legend lg;
	struct catlabels cl = {0};
	struct box b;

	/* Positive segments stack up from 0 and negative ones down, as in most tools. */
	double lo = 0, hi = 0, minpos = INFINITY;
	int stacked = c->kind == CHART_STACKED_BAR;
	for (size_t i = 0; i < nc; i++) {
		double pos = 0, neg = 0;
		for (size_t s = 0; s < ns; s++) {
			double v = finite_or_0(c->values[i * ns + s]);
			if (v > 0)
				minpos = fmin(minpos, v);
			if (!stacked)
				pos = fmax(pos, v), neg = fmin(neg, v);
			else if (v > 0)
				pos += v;
			else
				neg += v;
		}
		hi = fmax(hi, pos);
		lo = fmin(lo, neg);
		if (c->kind != CHART_GROUPED_BAR)
			spread_extent(c, i, &lo, &hi);
	}
	if (c->kind == CHART_GROUPED_BAR && want_log(lo, hi, minpos))
		axis_log(&a, minpos, hi);
	else
		axis_nice(&a, lo, hi);
	char *vtitle = value_title(t, &a);

	set_font(cr, TICK_PT, 0);
	double tick_h = line_height(cr);
	b.y0 = fmax(title_bottom(cr, t, w), PAD + tick_h / 2);

	/*
	 * The key: a line chart's reference line is labelled on the plot, not
	 * in it; a series of bars too short to see anywhere leaves it for the
	 * note under it.
	 */
	size_t ref = c->kind == CHART_LINE && c->ref_series && c->ref_series <= ns ? c->ref_series : 0;
	char **key_names = xcalloc(ns + 1, sizeof(*key_names));
	size_t *key_colours = xcalloc(ns + 1, sizeof(*key_colours)), *key_series = xcalloc(ns + 1, sizeof(size_t));
	size_t nkey = 0, nlisted = 0;
	struct buf hidden;
	buf_init(&hidden);
	for (size_t s = 0; s < ns; s++) {
		if (s + 1 == ref)
			continue;
		nlisted++;
		int seen = c->kind == CHART_LINE;
		for (size_t i = 0; i < nc && !seen; i++) {
			double v = finite_or_0(c->values[i * ns + s]);
			seen = a.log ? v > 0 : fabs(v) >= MIN_VISIBLE * (a.hi - a.lo);
		}
		if (!seen) {
			buf_printf(&hidden, "%s%s", hidden.len ? ", " : "", t->series[s]);
			continue;
		}
		key_names[nkey] = t->series[s];
		key_series[nkey] = s;
		key_colours[nkey++] = look.series_colour[s];
	}
	legend_layout_sw(cr, &lg, key_names, key_colours, nkey, w, h - b.y0 - PAD - 40,
			 c->kind == CHART_LINE ? 2 * SWATCH : SWATCH, nlisted > 1);
	free(key_names);
	free(key_colours);
	if (c->kind == CHART_LINE && lg.n) {
		/* A line's key shows the line and its marker, so greyscale print still tells them apart. */
		lg.swatch = xcalloc(lg.n, sizeof(*lg.swatch));
		lg.shape = xcalloc(lg.n, sizeof(*lg.shape));
		for (size_t k = 0; k < lg.n; k++) {
			lg.swatch[k] = SWATCH_LINE;
			lg.shape[k] = key_series[k];
		}
	}
	free(key_series);
	lg.reverse = stacked;
	int key_below = w < NARROW_PT;
	char **note = NULL;
	size_t nnote = 0;
	set_font(cr, LEGEND_PT, 0);
	double note_lh = line_height(cr) * 1.2;
	char *note_text = NULL;
	if (hidden.len) {
		/* A no-break space keeps "0.5 %" on one line. */
		note_text = xasprintf("too small to see (< %.1f\u00a0%% of the axis): %s", MIN_VISIBLE * 100,
				      hidden.data);
		nnote = wrap_text(cr, note_text, key_below ? w - 2 * PAD : fmax(lg.width, 0.22 * w), &note);
	}
	buf_release(&hidden);
	double note_w = 0;
	for (size_t i = 0; i < nnote; i++)
		note_w = fmax(note_w, text_width(cr, note[i]));
	double key_w = fmax(lg.n ? lg.width : 0, note_w);
	double key_h = (lg.n ? lg.height : 0) + (nnote ? (lg.n ? GAP : 0) + (double)nnote * note_lh : 0);
	int has_key = lg.n || nnote;
	b.x1 = w - PAD - (has_key && !key_below ? key_w + LEGEND_GAP : 0);
	double below_key = has_key && key_below ? key_h + 2 * GAP : 0;

	set_font(cr, TICK_PT, 0);
	double tick_w = axis_max_label_width(cr, &a);
	double axis_left = PAD + tick_w + GAP + TICK_LEN;
	if (t->value_label[0]) {
		set_font(cr, AXIS_PT, 0);
		axis_left += line_height(cr) + 2 * GAP;
	}
	char *xtitle = clean_text(c->x_label ? c->x_label : "");
	set_font(cr, AXIS_PT, 0);
	double xtitle_h = xtitle[0] ? line_height(cr) + GAP : 0;

	/*
	 * The labels' space depends on the bar width, and slanted labels can
	 * push the left margin, which narrows the bars: settle it in a few rounds.
	 */
	b.x0 = axis_left;
	for (int round = 0; round < 3; round++) {
		double slot = (b.x1 - b.x0) / (double)nc;
		catlabels_layout(cr, &cl, t, nc, slot, 0.4 * h - below_key - xtitle_h);
		double need = PAD + cl.left - slot / 2;
		if (need <= b.x0)
			break;
		b.x0 = need;
	}
	b.y1 = h - PAD - cl.below - xtitle_h - below_key;
	double slot = (b.x1 - b.x0) / (double)nc;
	double scale = (b.y1 - b.y0) / (a.hi - a.lo);
	double y_zero = a.log ? b.y1 : axis_y(&a, &b, 0);

	draw_title(cr, t, w, b.x0, b.x1);
	draw_value_grid_y(cr, &a, &b);

	double bar_w = fmin(slot * 0.7, 60);
	/* A line's points are drawn over their spread, a stack's spread over its bar. */
	if (c->kind == CHART_LINE)
		draw_spreads_up(cr, c, &b, slot, scale, y_zero, 4);
	if (c->kind == CHART_GROUPED_BAR)
		draw_grouped_bars(cr, c, t, &b, &a, slot, y_zero);
	else if (c->kind == CHART_LINE)
		draw_lines(cr, c, t, &b, slot, scale, y_zero, ref);
	for (size_t i = 0; stacked && i < nc; i++) {
		double cx = b.x0 + ((double)i + 0.5) * slot;
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
	if (c->kind == CHART_STACKED_BAR)
		draw_spreads_up(cr, c, &b, slot, scale, y_zero, fmin(bar_w / 4, 4));

	set_grey(cr, 0.2);
	cairo_set_line_width(cr, 0.6);
	cairo_move_to(cr, b.x0, b.y0 - 0.3);
	cairo_line_to(cr, b.x0, b.y1 + 0.3);
	cairo_move_to(cr, b.x0, y_zero);
	cairo_line_to(cr, b.x1, y_zero);
	cairo_stroke(cr);

	set_font(cr, LABEL_PT, 0);
	double lh = line_height(cr);
	set_grey(cr, 0);
	if (cl.ngroups)
		catlabels_draw_nested(cr, &cl, &b, slot);
	for (size_t i = 0; i < nc && !cl.ngroups; i++) {
		double cx = b.x0 + ((double)i + 0.5) * slot;
		if (!cl.text[i][0])
			continue;
		double tw = text_width(cr, cl.text[i]);
		if (cl.angle == 0)
			add_tip(cx - tw / 2, b.y1 + GAP, tw, lh, xstrdup(t->cats[i]));
		else
			add_tip(cx - tw * cos(cl.angle), b.y1 + GAP, tw * cos(cl.angle),
				tw * sin(cl.angle) + lh, xstrdup(t->cats[i]));
		if (cl.angle == 0)
			show_text(cr, cl.text[i], cx, b.y1 + GAP, 0.5, 0);
		else
			show_rotated(cr, cl.text[i], cx, b.y1 + GAP + lh / 2 * cos(cl.angle),
				     cl.angle, 1);
	}
	if (xtitle[0])
		draw_x_title(cr, xtitle, b.x0, b.x1, b.y1 + cl.below + GAP, w);

	draw_value_label_left(cr, vtitle, &b, tick_w);
	double kx = key_below ? PAD : b.x1 + LEGEND_GAP, ky = key_below ? h - PAD - key_h : b.y0;
	if (lg.n)
		legend_draw(cr, &lg, kx, ky);
	set_font(cr, LEGEND_PT, 0);
	set_grey(cr, 0.15);
	double note_y = ky + (lg.n ? lg.height + GAP : 0);
	for (size_t i = 0; i < nnote; i++) {
		show_text(cr, note[i], kx, note_y + (double)i * note_lh, 0, 0);
		free(note[i]);
	}
	if (note_text)
		add_tip(kx, note_y, note_w, (double)nnote * note_lh, note_text);
	free(note);
	legend_release(&lg);
	catlabels_release(&cl, nc);
	free(vtitle);
	free(xtitle);
}
