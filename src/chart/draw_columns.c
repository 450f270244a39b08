/*
 * draw_columns.c: the frame of the charts whose categories run along the x
 * axis (stacked bars, grouped bars, lines): the value axis, the key and its
 * note, the category labels and the axis lines. The kind's plot function
 * (draw_stacked.c, draw_grouped.c, draw_lines.c) draws the bars or lines
 * in between.
 */
#include "chart/chart_draw.h"

#include <math.h>
#include <stdlib.h>

#include "util/buf.h"
#include "util/xalloc.h"

/*
 * A series whose every bar is shorter than this share of the value axis
 * cannot be seen: it leaves the key for a line under it saying so.
 */
#define MIN_VISIBLE 0.005

/*
 * The value axis: over the stacks' totals (positive segments stack up from
 * 0 and negative ones down, as in most tools) or over single values, with
 * the spreads; logarithmic where the kind allows it and want_log() agrees.
 */
static void columns_axis(const struct chart *c, const struct columns_kind *kind, struct axis *a)
{
	size_t nc = c->ncat, ns = c->nseries;
	double lo = 0, hi = 0, minpos = INFINITY;
	for (size_t i = 0; i < nc; i++) {
		double pos = 0, neg = 0;
		for (size_t s = 0; s < ns; s++) {
			double v = finite_or_0(c->values[i * ns + s]);
			if (v > 0)
				minpos = fmin(minpos, v);
			if (!kind->stack)
				pos = fmax(pos, v), neg = fmin(neg, v);
			else if (v > 0)
				pos += v;
			else
				neg += v;
		}
		hi = fmax(hi, pos);
		lo = fmin(lo, neg);
		if (kind->spread)
			spread_extent(c, i, &lo, &hi);
	}
	if (kind->log_ok && want_log(lo, hi, minpos))
		axis_log(a, minpos, hi);
	else
		axis_nice(a, lo, hi);
}

/*
 * The key: a line chart's reference line is labelled on the plot, not in
 * it; a series of bars too short to see anywhere leaves it for the note
 * under it. avail_h is the height the legend may take.
 */
static void columns_key(cairo_t *cr, const struct chart *c, const struct columns_kind *kind, const struct text *t,
			const struct axis *a, size_t ref, double w, double avail_h, struct key *k)
{
	size_t nc = c->ncat, ns = c->nseries;
	char **key_names = xcalloc(ns + 1, sizeof(*key_names));
	size_t *key_colours = xcalloc(ns + 1, sizeof(*key_colours)), *key_series = xcalloc(ns + 1, sizeof(size_t));
	size_t nkey = 0, nlisted = 0;
	struct buf hidden;
	buf_init(&hidden);
	for (size_t s = 0; s < ns; s++) {
		if (s + 1 == ref)
			continue;
		nlisted++;
		int seen = c->kind->lines;
		for (size_t i = 0; i < nc && !seen; i++) {
			double v = finite_or_0(c->values[i * ns + s]);
			seen = a->log ? v > 0 : fabs(v) >= MIN_VISIBLE * (a->hi - a->lo);
		}
		if (!seen) {
			buf_printf(&hidden, "%s%s", hidden.len ? ", " : "", t->series[s]);
			continue;
		}
		key_names[nkey] = t->series[s];
		key_series[nkey] = s;
		key_colours[nkey++] = look.series_colour[s];
	}
	key_init(k, w);
	struct legend *lg = &k->lg;
	legend_layout_sw(cr, lg, key_names, key_colours, nkey, w, avail_h,
			 c->kind->lines ? 2 * SWATCH : SWATCH, nlisted > 1);
	free(key_names);
	free(key_colours);
	if (c->kind->lines && lg->n) {
		/* A line's key shows the line and its marker, so greyscale print still tells them apart. */
		lg->swatch = xcalloc(lg->n, sizeof(*lg->swatch));
		lg->shape = xcalloc(lg->n, sizeof(*lg->shape));
		for (size_t i = 0; i < lg->n; i++) {
			lg->swatch[i] = SWATCH_LINE;
			lg->shape[i] = key_series[i];
		}
	}
	free(key_series);
	lg->reverse = kind->stack; /* listed top down as the segments stack bottom up */
	/* A no-break space keeps "0.5 %" on one line. */
	char *hid = hidden.len ? xasprintf("too small to see (< %.1f\u00a0%% of the axis): %s", MIN_VISIBLE * 100,
					   hidden.data)
			       : NULL;
	/* The chart's own note (what its bars leave out) first, then the series too small to see. */
	char *note = c->note && hid ? xasprintf("%s; %s", c->note, hid) : c->note ? xstrdup(c->note) : hid;
	if (note != hid)
		free(hid);
	key_note_wrapped(cr, k, note, k->below ? w - 2 * PAD : fmax(lg->width, 0.22 * w));
	buf_release(&hidden);
	key_measure(k);
}

/* The axis lines: the value axis at the left, the zero line across. */
static void columns_axes(cairo_t *cr, const struct columns *p)
{
	set_grey(cr, 0.2);
	cairo_set_line_width(cr, 0.6);
	cairo_move_to(cr, p->b.x0, p->b.y0 - 0.3);
	cairo_line_to(cr, p->b.x0, p->b.y1 + 0.3);
	cairo_move_to(cr, p->b.x0, p->y_zero);
	cairo_line_to(cr, p->b.x1, p->y_zero);
	cairo_stroke(cr);
}

void draw_columns(cairo_t *cr, const struct chart *c, const struct text *t, double w, double h,
		  const struct columns_kind *kind)
{
	size_t nc = c->ncat, ns = c->nseries;
	struct columns p = {0};
	struct key k;
	struct catlabels cl = {0};
	struct box *b = &p.b;

	columns_axis(c, kind, &p.a);
	char *vtitle = value_title(t, &p.a);

	set_font(cr, TICK_PT, 0);
	double tick_h = line_height(cr);
	b->y0 = fmax(title_bottom(cr, t, w), PAD + tick_h / 2);

	p.ref = c->kind->lines && c->ref_series && c->ref_series <= ns ? c->ref_series : 0;
	columns_key(cr, c, kind, t, &p.a, p.ref, w, h - b->y0 - PAD - 40, &k);
	b->x1 = w - PAD - key_room_right(&k);
	double below_key = key_room_below(&k);

	set_font(cr, TICK_PT, 0);
	double tick_w = axis_max_label_width(cr, &p.a);
	double axis_left = PAD + tick_w + GAP + TICK_LEN;
	set_font(cr, AXIS_PT, 0);
	double axis_lh = line_height(cr);
	if (t->value_label[0])
		axis_left += axis_lh + 2 * GAP;
	char *xtitle = clean_text(c->x_label ? c->x_label : "");
	double xtitle_h = xtitle[0] ? axis_lh + GAP : 0;

	/*
	 * The labels' space depends on the bar width, and slanted labels can
	 * push the left margin, which narrows the bars: settle it in a few rounds.
	 * Where long labels leave the plot too short for the value axis's title,
	 * the title takes a second line beside the first (draw_value_label_left)
	 * and the layout is settled once more with its room.
	 */
	for (int pass = 0; pass < 2; pass++) {
		b->x0 = axis_left;
		for (int round = 0; round < 3; round++) {
			double slot = (b->x1 - b->x0) / (double)nc;
			catlabels_layout(cr, &cl, t, nc, slot, 0.4 * h - below_key - xtitle_h);
			double need = PAD + cl.left - slot / 2;
			if (need <= b->x0)
				break;
			b->x0 = need;
		}
		b->y1 = h - PAD - cl.below - xtitle_h - below_key;
		if (pass || !t->value_label[0] || y_title_lines(cr, vtitle, b->y1 - b->y0) < 2)
			break;
		axis_left += axis_lh;
	}
	p.slot = (b->x1 - b->x0) / (double)nc;
	p.scale = (b->y1 - b->y0) / (p.a.hi - p.a.lo);
	p.y_zero = p.a.log ? b->y1 : axis_y(&p.a, b, 0);

	draw_title(cr, t, w, b->x0, b->x1);
	draw_value_grid_y(cr, &p.a, b);
	kind->plot(cr, c, t, &p);
	columns_axes(cr, &p);
	catlabels_draw(cr, &cl, t, b, p.slot, nc);
	if (xtitle[0])
		draw_x_title(cr, xtitle, b->x0, b->x1, b->y1 + cl.below + GAP, w);

	draw_value_label_left(cr, vtitle, b, tick_w);
	key_draw(cr, &k, k.below ? PAD : b->x1 + LEGEND_GAP, k.below ? h - PAD - k.height : b->y0);
	key_release(&k);
	catlabels_release(&cl, nc);
	free(vtitle);
	free(xtitle);
}
