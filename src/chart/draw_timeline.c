/*
 * draw_timeline.c: the kind CHART_TIMELINE (chart_kind_timeline), lanes
 * (the categories, one per rank) of sub-rows (the series: host regions,
 * kernels, copies, collectives) over one time axis, with bars
 * (chart_span), hatched marks over bars (a rank's wait inside a
 * collective) and one path drawn across the lanes (the critical path).
 *
 * Layout, top to bottom: the title; the lanes, each a thin strip for the
 * path and then its rows, labelled on the left ("rank N", and each row's
 * name where a row is as tall as its label); the time axis (c->x_label);
 * the key, its entries in lines across the figure, and a note naming the
 * rows. Bars of one key in a row closer than 0.4 pt are drawn as one
 * rectangle (a step holds thousands of kernels: the SVG stays small); a
 * bar is at least 0.25 pt wide, so a short kernel still shows. Such a bar
 * is drawn as dense as it is busy: its opacity the share of its width its
 * spans cover (their union), at least DENSE_MIN, so that its ink is the
 * time it stands for and a lane of many short kernels with gaps between
 * them reads as mostly idle, not solid (issue #57: a rank 74 % idle drawn
 * as a solid row of kernels).
 */
#include "chart/chart_draw.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define MERGE_PT 0.4
#define MIN_BAR_PT 0.25
#define DENSE_MIN 0.15 /* the faintest bar: a lone 1 us kernel still shows */

static int cmp_span(const void *pa, const void *pb, const struct chart *c)
{
	const struct chart_span *a = &c->spans[*(const size_t *)pa], *b = &c->spans[*(const size_t *)pb];
	if (a->lane != b->lane)
		return a->lane < b->lane ? -1 : 1;
	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	if (a->mark != b->mark)
		return a->mark - b->mark;
	if (a->x0 != b->x0)
		return a->x0 < b->x0 ? -1 : 1;
	return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

/* qsort has no context argument: the chart being sorted, one per thread. */
static _Thread_local const struct chart *sorting;
static int cmp_span_q(const void *a, const void *b)
{
	return cmp_span(a, b, sorting);
}

/* Whether a bar can be drawn: finite ends, on a lane and row of the chart. */
static int span_ok(const struct chart *c, const struct chart_span *s)
{
	return isfinite(s->x0) && isfinite(s->x1) && s->x1 >= s->x0 && s->lane < c->ncat && s->row < c->nseries;
}

/* Diagonal lines over a rectangle in colour, on a pale fill of it: a mark. */
static void hatch_rect(cairo_t *cr, double x, double y, double w, double h, size_t colour)
{
	cairo_save(cr);
	cairo_rectangle(cr, x, y, w, h);
	cairo_clip(cr);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint_with_alpha(cr, 0.55);
	set_colour(cr, colour);
	cairo_set_line_width(cr, 0.8);
	for (double d = -h; d <= w + h; d += 2.2) {
		cairo_move_to(cr, x + d, y + h);
		cairo_line_to(cr, x + d + h, y);
	}
	cairo_stroke(cr);
	cairo_restore(cr);
	cairo_rectangle(cr, x, y, w, h);
	set_colour(cr, colour);
	cairo_set_line_width(cr, 0.5);
	cairo_stroke(cr);
}

/* A rectangle filled at opacity alpha (no outline, no hatching): a bar mostly idle. */
static void sparse_rect(cairo_t *cr, double x, double y, double w, double h, size_t colour, int pale, double alpha)
{
	cairo_rectangle(cr, x, y, w, h);
	set_colour_alpha(cr, colour, pale, alpha);
	cairo_fill(cr);
}

/* A rectangle in a colour made pale (half white), outlined in the colour itself. */
static void pale_rect(cairo_t *cr, double x, double y, double w, double h, size_t colour)
{
	cairo_rectangle(cr, x, y, w, h);
	set_colour(cr, colour);
	cairo_fill_preserve(cr);
	cairo_set_source_rgba(cr, 1, 1, 1, 0.5);
	cairo_fill(cr);
	cairo_rectangle(cr, x + 0.25, y + 0.25, w - 0.5 > 0 ? w - 0.5 : 0, h - 0.5 > 0 ? h - 0.5 : 0);
	set_colour(cr, colour);
	cairo_set_line_width(cr, 0.5);
	cairo_stroke(cr);
}

/*
 * The colours of this figure's keys. Rows are taken from the last (the
 * GPU's collectives, copies, kernels) to the first (the host's phases), so
 * that the GPU's parts keep the colours they have in every figure. A key
 * takes its fixed colour (colour_of) unless a key taken before has it; such
 * a key then takes the first palette colour no key has (black is the
 * path's), then the colours past the palette (COLOUR_EXTRA), and past those
 * its fixed colour drawn pale. So no two keys of one figure look alike: the
 * host's "forward" and "optimizer step" and the GPU's "memcpy" and
 * "compute", which share colours elsewhere, and a paler copy of a colour
 * is not another colour (issue 57).
 */
struct tl_colour {
	const char *key;
	size_t colour;
	int pale;
};

#define TL_PALETTE 8 /* colour.c's palette, black last */
_Static_assert(COLOUR_EXTRA == TL_PALETTE, "the extra colours follow the palette's");

static struct tl_colour *tl_colours(const struct chart *c, size_t *n)
{
	struct tl_colour *k = xcalloc(c->nspans + 1, sizeof(*k));
	size_t nk = 0;
	int used[TL_PALETTE + NCOLOUR_EXTRA] = {0}; /* the palette's, then the extra colours (COLOUR_EXTRA + i) */
	used[TL_PALETTE - 1] = 1;
	for (size_t r = c->nseries; r-- > 0;)
		for (size_t i = 0; i < c->nspans; i++) {
			const struct chart_span *s = &c->spans[i];
			if (s->row != r || !span_ok(c, s))
				continue;
			size_t j = 0;
			while (j < nk && strcmp(k[j].key, s->key))
				j++;
			if (j < nk)
				continue;
			size_t col = colour_of(s->key, 5);
			k[nk++] = (struct tl_colour){s->key, col, 0};
			if (col < TL_PALETTE + NCOLOUR_EXTRA && !used[col])
				used[col] = 1;
			else
				k[nk - 1].colour = SIZE_MAX; /* taken: chosen below */
		}
	size_t next = 0;
	for (size_t j = 0; j < nk; j++) {
		if (k[j].colour != SIZE_MAX)
			continue;
		while (next < TL_PALETTE + NCOLOUR_EXTRA && used[next])
			next++;
		if (next < TL_PALETTE + NCOLOUR_EXTRA) {
			k[j].colour = next < TL_PALETTE ? next : COLOUR_EXTRA + (next - TL_PALETTE);
			used[next] = 1;
		} else {
			k[j].colour = colour_of(k[j].key, 5);
			k[j].pale = 1;
		}
	}
	*n = nk;
	return k;
}

static const struct tl_colour *tl_colour_of(const struct tl_colour *k, size_t n, const char *key)
{
	for (size_t j = 0; j < n; j++)
		if (!strcmp(k[j].key, key))
			return &k[j];
	return NULL;
}

/* A key entry: a box, a hatched box or a line, and its text. */
struct tl_entry {
	char *text;
	const char *key; /* the bars' key it stands for; NULL: the path */
	size_t colour;
	int pale;
	int style; /* 0 box, 1 hatched, 2 line */
	double w;
};

static void draw_timeline(cairo_t *cr, const struct chart *c, const struct text *t, double w, double h)
{
	size_t nl = c->ncat, nr = c->nseries;
	double xmax = 0;
	for (size_t i = 0; i < c->nspans; i++)
		if (span_ok(c, &c->spans[i]))
			xmax = fmax(xmax, c->spans[i].x1);
	/* The path's points that can be drawn, in order (a point at an x not finite is left out). */
	struct chart_path_point *pts = xcalloc(c->npath + 1, sizeof(*pts));
	size_t npts = 0;
	for (size_t i = 0; i < c->npath; i++)
		if (isfinite(c->path[i].x) && c->path[i].lane < nl) {
			pts[npts++] = c->path[i];
			xmax = fmax(xmax, c->path[i].x);
		}
	if (!(xmax > 0) || !nl || !nr) {
		free(pts);
		draw_no_data(cr, t, w, h);
		return;
	}
	/* Round ticks from 0, the axis ending just past the data (a step is not a round number of ms). */
	struct axis a;
	axis_nice(&a, 0, xmax);
	if (a.hi > 1.02 * xmax) {
		a.hi = 1.02 * xmax;
		a.nticks = (size_t)floor((a.hi - a.lo) / a.step + 1e-9) + 1;
	}

	/* The key: each key of a bar once (rows in order), the marks, the path. */
	size_t ncol;
	struct tl_colour *cols = tl_colours(c, &ncol);
	struct tl_entry *e = xcalloc(c->nspans + 2, sizeof(*e));
	size_t ne = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t r = 0; r < nr; r++)
			for (size_t i = 0; i < c->nspans; i++) {
				const struct chart_span *s = &c->spans[i];
				if (s->row != r || s->mark != pass || !span_ok(c, s))
					continue;
				size_t k = 0;
				while (k < ne && (e[k].style != pass || strcmp(e[k].key, s->key)))
					k++;
				if (k < ne)
					continue;
				char *shown = chart_display_name(s->key);
				const struct tl_colour *tc = tl_colour_of(cols, ncol, s->key);
				e[ne++] = (struct tl_entry){clean_text(shown), s->key, tc->colour, tc->pale, pass, 0};
				free(shown);
			}
	if (npts > 1)
		e[ne++] = (struct tl_entry){clean_text(c->path_label ? c->path_label : "path"), NULL, 7, 0, 2, 0};
	set_font(cr, LEGEND_PT, 0);
	double key_lh = line_height(cr), key_w = w - 2 * PAD;
	size_t key_lines = ne ? 1 : 0;
	double x = 0;
	for (size_t i = 0; i < ne; i++) {
		char *fit = fit_text(cr, e[i].text, key_w - 2 * SWATCH - GAP, MAX_LABEL_CHARS);
		free(e[i].text);
		e[i].text = fit;
		e[i].w = 2 * SWATCH + GAP + text_width(cr, fit) + LEGEND_GAP;
		if (x > 0 && x + e[i].w - LEGEND_GAP > key_w) {
			key_lines++;
			x = 0;
		}
		x += e[i].w;
	}
	/* The note: which rows a lane has, top to bottom. */
	set_font(cr, TICK_PT, 0);
	char **note = NULL;
	size_t nnote = 0;
	{
		size_t len = 64;
		for (size_t r = 0; r < nr; r++)
			len += strlen(t->series[r]) + 2;
		static const char dense[] = " Activities too close to tell apart are one bar, as dense as they fill "
					    "it: a paler bar is mostly idle.";
		len += sizeof(dense);
		char *s = xmalloc(len);
		strcpy(s, "Rows of each lane, top to bottom: ");
		for (size_t r = 0; r < nr; r++) {
			strcat(s, t->series[r]);
			strcat(s, r + 1 < nr ? ", " : ".");
		}
		strcat(s, dense);
		nnote = wrap_text(cr, s, key_w, &note);
		free(s);
	}
	double tick_h = line_height(cr);
	double note_h = (double)nnote * tick_h;
	set_font(cr, AXIS_PT, 0);
	double axis_lh = line_height(cr);
	double top = title_bottom(cr, t, w);

	/* Left: lane labels, then row labels. */
	set_font(cr, LABEL_PT, 1);
	double lane_w = 0;
	for (size_t l = 0; l < nl; l++)
		lane_w = fmax(lane_w, text_width(cr, t->cats[l]));
	lane_w = fmin(lane_w + 1, 0.2 * w);
	set_font(cr, TICK_PT, 0);
	double row_w = 0;
	for (size_t r = 0; r < nr; r++)
		row_w = fmax(row_w, text_width(cr, t->series[r]));
	row_w = fmin(row_w + 1, 0.15 * w); /* 1 pt over the widest: fit_text keeps it whole */
	char *last_tick = axis_label(&a, axis_tick(&a, a.nticks - 1));
	double last_w = text_width(cr, last_tick);
	free(last_tick);

	struct box b;
	b.y0 = top + GAP;
	b.y1 = h - PAD - (double)key_lines * key_lh - note_h - GAP - (c->x_label ? axis_lh + GAP : 0) - tick_h - GAP -
	       TICK_LEN;
	double lane_h = (b.y1 - b.y0) / (double)nl, strip = fmin(0.14 * lane_h, 5), row_h = (lane_h - strip - 1) / (double)nr;
	int row_labels = row_h >= 0.8 * tick_h;
	b.x0 = PAD + lane_w + GAP + (row_labels ? row_w + GAP : 0);
	b.x1 = w - PAD - last_w / 2;
	double pw = b.x1 - b.x0, ph = b.y1 - b.y0;
	if (pw < 20 || ph < 10) {
		for (size_t i = 0; i < ne; i++)
			free(e[i].text);
		free(e);
		free(cols);
		for (size_t i = 0; i < nnote; i++)
			free(note[i]);
		free(note);
		free(pts);
		draw_no_data(cr, t, w, h);
		return;
	}
	draw_title(cr, t, w, b.x0, b.x1);
#define X(v) (b.x0 + axis_frac(&a, (v)) * pw)

	/* Grid and ticks under the bars. */
	set_font(cr, TICK_PT, 0);
	for (size_t i = 0; i < a.nticks; i++) {
		double px = X(axis_tick(&a, i));
		grid_tick_x(cr, &b, px);
		char *s = axis_label(&a, axis_tick(&a, i));
		set_grey(cr, 0);
		show_text(cr, s, px, b.y1 + TICK_LEN + GAP, 0.5, 0);
		free(s);
	}

	/* Lanes: a pale band on every other one, labels on the left. */
	for (size_t l = 0; l < nl; l++) {
		double y = b.y0 + (double)l * lane_h;
		if (l % 2) {
			cairo_rectangle(cr, b.x0, y, pw, lane_h);
			set_grey(cr, 0.96);
			cairo_fill(cr);
		}
		set_font(cr, LABEL_PT, 1);
		set_grey(cr, 0);
		char *lab = fit_text(cr, t->cats[l], lane_w, MAX_LABEL_CHARS);
		show_text(cr, lab, PAD, y + lane_h / 2, 0, 0.5);
		double lw = text_width(cr, lab), lh = line_height(cr);
		add_label_tip(PAD, y + lane_h / 2 - lh / 2, lw, lh, xstrdup(t->cats[l]), lab, t->cats[l]);
		free(lab);
		if (!row_labels)
			continue;
		set_font(cr, TICK_PT, 0);
		set_grey(cr, 0.3);
		for (size_t r = 0; r < nr; r++) {
			char *rl = fit_text(cr, t->series[r], row_w, MAX_LABEL_CHARS);
			show_text(cr, rl, b.x0 - GAP, y + strip + ((double)r + 0.5) * row_h, 1, 0.5);
			free(rl);
		}
	}

	/* Bars, then marks, clipped to the plot; neighbours of one key merged. */
	size_t *ord = xcalloc(c->nspans + 1, sizeof(*ord)), nord = 0;
	for (size_t i = 0; i < c->nspans; i++)
		if (span_ok(c, &c->spans[i]))
			ord[nord++] = i;
	sorting = c;
	if (nord > 1)
		qsort(ord, nord, sizeof(*ord), cmp_span_q);
	sorting = NULL;
	cairo_save(cr);
	cairo_rectangle(cr, b.x0, b.y0, pw, ph);
	cairo_clip(cr);
	for (size_t i = 0; i < nord;) {
		const struct chart_span *s = &c->spans[ord[i]];
		double x0 = X(s->x0), x1 = X(s->x1);
		double busy = x1 - x0; /* the union of the merged spans' widths */
		size_t j = i + 1;
		while (!s->mark && j < nord) {
			const struct chart_span *n = &c->spans[ord[j]];
			if (n->lane != s->lane || n->row != s->row || n->mark || strcmp(n->key, s->key) ||
			    X(n->x0) - x1 > MERGE_PT || (n->tip && s->tip))
				break;
			double nx1 = X(n->x1);
			if (nx1 > x1)
				busy += nx1 - fmax(X(n->x0), x1);
			x1 = fmax(x1, nx1);
			j++;
		}
		if (x1 - x0 < MIN_BAR_PT) {
			double mid = (x0 + x1) / 2;
			x0 = mid - MIN_BAR_PT / 2;
			x1 = mid + MIN_BAR_PT / 2;
		}
		/* as dense as it is busy; within a thousandth of solid: solid */
		double dense = fmax(DENSE_MIN, fmin(1, busy / (x1 - x0)));
		double y = b.y0 + (double)s->lane * lane_h + strip + (double)s->row * row_h + 0.5;
		const struct tl_colour *tc = tl_colour_of(cols, ncol, s->key);
		if (s->mark)
			hatch_rect(cr, x0, y, x1 - x0, row_h - 1, tc->colour);
		else if (dense < 0.999)
			sparse_rect(cr, x0, y, x1 - x0, row_h - 1, tc->colour, tc->pale, dense);
		else if (tc->pale)
			pale_rect(cr, x0, y, x1 - x0, row_h - 1, tc->colour);
		else
			fill_rect(cr, x0, y, x1 - x0, row_h - 1, tc->colour);
		if (s->tip)
			add_tip(x0, y, x1 - x0, row_h - 1, clean_text(s->tip));
		i = j;
	}
	free(ord);

	/* The path: along the strip at the top of its lane, straight down or up to the next lane. */
	if (npts > 1) {
		set_grey(cr, 0);
		cairo_set_line_width(cr, 1.3);
		cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
		for (size_t i = 0; i < npts; i++) {
			double px = X(pts[i].x), py = b.y0 + (double)pts[i].lane * lane_h + strip / 2 + 0.5;
			if (i)
				cairo_line_to(cr, px, py);
			else
				cairo_move_to(cr, px, py);
		}
		cairo_stroke(cr);
		for (size_t i = 0; i + 1 < npts; i++) {
			const struct chart_path_point *p = &pts[i], *q = &pts[i + 1];
			if (p->lane != q->lane)
				continue;
			double xa = X(fmin(p->x, q->x)), xb = X(fmax(p->x, q->x));
			/* in the x axis's unit, to three decimals (us on a ms axis) */
			add_tip(xa, b.y0 + (double)p->lane * lane_h, fmax(xb - xa, 1), fmax(strip, 1),
				xasprintf("%s on %s: %.3f to %.3f", c->path_label ? c->path_label : "path", t->cats[p->lane],
					  fmin(p->x, q->x), fmax(p->x, q->x)));
		}
	}
	cairo_restore(cr);
	free(pts);
#undef X

	/* Lane borders and the frame's bottom edge. */
	set_grey(cr, 0.6);
	cairo_set_line_width(cr, 0.3);
	for (size_t l = 1; l < nl; l++) {
		cairo_move_to(cr, b.x0, b.y0 + (double)l * lane_h);
		cairo_line_to(cr, b.x1, b.y0 + (double)l * lane_h);
	}
	cairo_stroke(cr);
	set_grey(cr, 0.2);
	cairo_set_line_width(cr, 0.6);
	cairo_move_to(cr, b.x0, b.y0);
	cairo_line_to(cr, b.x0, b.y1);
	cairo_line_to(cr, b.x1, b.y1);
	cairo_stroke(cr);

	double y = b.y1 + TICK_LEN + GAP + tick_h + GAP;
	if (c->x_label) {
		char *xl = clean_text(c->x_label);
		set_font(cr, AXIS_PT, 0);
		set_grey(cr, 0);
		draw_x_title(cr, xl, b.x0, b.x1, y, w);
		free(xl);
		y += axis_lh + GAP;
	}

	/* The key in lines, then the note. */
	set_font(cr, LEGEND_PT, 0);
	x = 0;
	for (size_t i = 0; i < ne; i++) {
		if (x > 0 && x + e[i].w - LEGEND_GAP > key_w) {
			y += key_lh;
			x = 0;
		}
		double sx = PAD + x, sy = y + (key_lh - SWATCH) / 2;
		if (e[i].style == 2) {
			set_grey(cr, 0);
			cairo_set_line_width(cr, 1.3);
			cairo_move_to(cr, sx, sy + SWATCH / 2);
			cairo_line_to(cr, sx + 2 * SWATCH, sy + SWATCH / 2);
			cairo_stroke(cr);
		} else if (e[i].style == 1) {
			hatch_rect(cr, sx, sy, 2 * SWATCH, SWATCH, e[i].colour);
		} else if (e[i].pale) {
			pale_rect(cr, sx, sy, 2 * SWATCH, SWATCH, e[i].colour);
		} else {
			fill_rect(cr, sx, sy, 2 * SWATCH, SWATCH, e[i].colour);
		}
		set_grey(cr, 0);
		show_text(cr, e[i].text, sx + 2 * SWATCH + GAP, y + key_lh / 2, 0, 0.5);
		add_tip(sx, y, e[i].w - LEGEND_GAP, key_lh, xasprintf("key: %s", e[i].text));
		x += e[i].w;
		free(e[i].text);
	}
	free(e);
	free(cols);
	if (ne)
		y += key_lh;
	set_font(cr, TICK_PT, 0);
	set_grey(cr, 0.3);
	for (size_t i = 0; i < nnote; i++) {
		show_text(cr, note[i], PAD, y, 0, 0);
		y += tick_h;
		free(note[i]);
	}
	free(note);
}

/* Its categories are lanes, its series rows: never runs, never lines. */
static const struct chart_drawing drawing = {draw_timeline};
const struct chart_kind chart_kind_timeline = {.name = "timeline", .drawing = &drawing};
