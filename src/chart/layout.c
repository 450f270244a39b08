/*
 * layout.c: what every kind of chart lays out the same way: value axes and
 * their ticks, grid lines, spreads (whiskers), point markers, and the one
 * key block (the legend with its note, beside or under the plot) that
 * every draw function uses.
 */
#include "chart/chart_draw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/xalloc.h"

/* A light grid line across box b at height y, and a dark tick left of it. */
void grid_tick_y(cairo_t *cr, const struct box *b, double y)
{
	set_grey(cr, 0.87);
	cairo_set_line_width(cr, 0.4);
	cairo_move_to(cr, b->x0, y);
	cairo_line_to(cr, b->x1, y);
	cairo_stroke(cr);
	set_grey(cr, 0.2);
	cairo_set_line_width(cr, 0.6);
	cairo_move_to(cr, b->x0 - TICK_LEN, y);
	cairo_line_to(cr, b->x0, y);
	cairo_stroke(cr);
}

/* A light grid line down box b at x, and a dark tick below it. */
void grid_tick_x(cairo_t *cr, const struct box *b, double x)
{
	set_grey(cr, 0.87);
	cairo_set_line_width(cr, 0.4);
	cairo_move_to(cr, x, b->y0);
	cairo_line_to(cr, x, b->y1);
	cairo_stroke(cr);
	set_grey(cr, 0.2);
	cairo_set_line_width(cr, 0.6);
	cairo_move_to(cr, x, b->y1);
	cairo_line_to(cr, x, b->y1 + TICK_LEN);
	cairo_stroke(cr);
}

double finite_or_0(double v)
{
	return isfinite(v) ? v : 0;
}

/* Widens [*lo, *hi] to hold category i's spread (chart.h), where it has one. */
void spread_extent(const struct chart *c, size_t i, double *lo, double *hi)
{
	for (int k = 0; c->spread && k < 4; k++) {
		double v = c->spread[i * 4 + (size_t)k];
		if (isfinite(v)) {
			*lo = fmin(*lo, v);
			*hi = fmax(*hi, v);
		}
	}
}

/*
 * Draws a spread across the bar or point at `at` (x of a vertical bar, y of
 * a horizontal one): p[0]..p[1] a thin dark whisker with caps of half width
 * `cap`, p[2]..p[3] a thick one over it; p[] are positions along the value
 * axis in points, NaN where a part is not drawn.
 */
void draw_spread(cairo_t *cr, int vertical, double at, double cap, const double p[4])
{
	cairo_save(cr);
	set_grey(cr, 0.1);
	for (int part = 0; part < 2; part++) {
		double a = p[2 * part], b = p[2 * part + 1];
		if (!isfinite(a) || !isfinite(b))
			continue;
		cairo_set_line_width(cr, part ? 2.4 : 0.7);
		double ends[2] = {a, b};
		if (vertical) {
			cairo_move_to(cr, at, a);
			cairo_line_to(cr, at, b);
			for (int e = 0; !part && e < 2; e++) {
				cairo_move_to(cr, at - cap, ends[e]);
				cairo_line_to(cr, at + cap, ends[e]);
			}
		} else {
			cairo_move_to(cr, a, at);
			cairo_line_to(cr, b, at);
			for (int e = 0; !part && e < 2; e++) {
				cairo_move_to(cr, ends[e], at - cap);
				cairo_line_to(cr, ends[e], at + cap);
			}
		}
		cairo_stroke(cr);
	}
	cairo_restore(cr);
}

/*
 * Picks round ticks over [lo, hi]: a step of 1, 2, 2.5 or 5 times a power
 * of ten giving about five intervals, and the axis widened to whole steps.
 */
void axis_nice(struct axis *a, double lo, double hi)
{
	static const double mult[] = {1, 2, 2.5, 5, 10};
	if (!(hi > lo)) {
		lo = fmin(lo, 0);
		hi = lo + 1;
	}
	double raw = (hi - lo) / 5;
	int k = (int)floor(log10(raw));
	double mag = pow(10, k), m = 10;
	for (size_t i = 0; i < sizeof(mult) / sizeof(mult[0]); i++) {
		if (mult[i] * mag >= raw * (1 - 1e-9)) {
			m = mult[i];
			break;
		}
	}
	if (m == 10) {
		m = 1;
		k++;
		mag *= 10;
	}
	a->step = m * mag;
	/* A sum like 0.1 + 0.2 + 0.7 must not cost a whole extra step. */
	a->lo = floor(lo / a->step + 1e-6) * a->step;
	a->hi = ceil(hi / a->step - 1e-6) * a->step;
	a->nticks = (size_t)llround((a->hi - a->lo) / a->step) + 1;
	a->log = 0;
	if (a->hi >= 1e7 || a->lo <= -1e7 || a->step < 1e-6) {
		a->decimals = -1;
	} else {
		int d = (m == 2.5) - k; /* 0.25 needs two decimals, 25 none */
		a->decimals = d > 0 ? d : 0;
	}
}

/*
 * A log axis over [lo, hi] (both > 0): from the power of ten at or below lo
 * to the one at or above hi, a tick at every decade, or every second or
 * third when there are many.
 */
void axis_log(struct axis *a, double lo, double hi)
{
	int e0 = (int)floor(log10(lo) + 1e-9), e1 = (int)ceil(log10(hi) - 1e-9);
	if (e1 <= e0)
		e1 = e0 + 1;
	int every = (e1 - e0 + 5) / 6;
	e1 = e0 + (e1 - e0 + every - 1) / every * every;
	a->log = 1;
	a->lo = pow(10, e0);
	a->hi = pow(10, e1);
	a->step = pow(10, every);
	a->nticks = (size_t)((e1 - e0) / every + 1);
	a->decimals = e0 < 0 ? -e0 : 0;
	if (e0 < -3 || e1 > 6)
		a->decimals = -1;
}

/* Where v falls on the axis, 0 at lo and 1 at hi; a log axis puts v <= 0 at 0. */
double axis_frac(const struct axis *a, double v)
{
	if (a->log)
		return v > 0 ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) : 0;
	return (v - a->lo) / (a->hi - a->lo);
}

double axis_tick(const struct axis *a, size_t i)
{
	if (a->log)
		return a->lo * pow(a->step, (double)i);
	double v = a->lo + (double)i * a->step;
	return fabs(v) < a->step * 1e-9 ? 0 : v; /* no "-0.0" */
}

/* Typeset negative numbers take a minus sign (U+2212), as wide as a digit, not a hyphen. */
const char *minus(double v)
{
	return v < 0 ? "\xe2\x88\x92" : "";
}

/* 10 to the power e as a reader writes it, "10⁷", "10⁻⁴" (superscript digits; DejaVu Sans has them). */
char *power_of_ten(int e)
{
	static const char *const sup[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
	char digits[16];
	snprintf(digits, sizeof(digits), "%d", e < 0 ? -e : e);
	struct buf b;
	buf_init(&b);
	buf_adds(&b, e < 0 ? "10⁻" : "10");
	for (const char *d = digits; *d; d++)
		buf_adds(&b, sup[*d - '0']);
	return buf_detach(&b);
}

/* Returns the tick label for v, owned by the caller. */
char *axis_label(const struct axis *a, double v)
{
	if (a->log) {
		/* Decades: 0.01, 0.1, 1, 10, 100; exponents outside 10^-3..10^6 as powers of ten. */
		int e = (int)lround(log10(v));
		if (a->decimals < 0)
			return power_of_ten(e);
		return xasprintf("%.*f", e < 0 ? -e : 0, v);
	}
	if (a->decimals < 0)
		return xasprintf("%s%g", minus(v), fabs(v));
	return xasprintf("%s%.*f", minus(v), a->decimals, fabs(v));
}

/* Returns v with three significant digits (no exponent below 10^7), owned by the caller. */
char *value_text(double v)
{
	double m = fabs(v);
	if (m == 0)
		return xstrdup("0");
	if (m >= 1e7 || m < 1e-3)
		return xasprintf("%s%.3g", minus(v), m);
	return xasprintf("%s%.*f", minus(v), m >= 100 ? 0 : m >= 10 ? 1 : m >= 1 ? 2 : 3, m);
}

double axis_max_label_width(cairo_t *cr, const struct axis *a)
{
	double w = 0;
	for (size_t i = 0; i < a->nticks; i++) {
		char *s = axis_label(a, axis_tick(a, i));
		w = fmax(w, text_width(cr, s));
		free(s);
	}
	return w;
}

/*
 * Lays out a key of n entries (names[i] in palette colour colours[i]) in as
 * many columns as the height avail_h needs; its text is shortened to fit
 * about 30 % of the figure's width w. Each swatch is sw wide (a line with
 * its marker needs more than a square). One entry makes a key only when
 * always is set (other series were left out of it).
 */
void legend_layout_sw(cairo_t *cr, struct legend *lg, char *const *names, const size_t *colours,
			     size_t n, double w, double avail_h, double sw, int always)
{
	memset(lg, 0, sizeof(*lg));
	if (!n || (n < 2 && !always))
		return; /* one series needs no key: the value label says what it is */
	set_font(cr, LEGEND_PT, 0);
	lg->n = n;
	lg->swatch_w = sw;
	lg->colour = xcalloc(n, sizeof(*lg->colour));
	memcpy(lg->colour, colours, n * sizeof(*colours));
	lg->row_h = line_height(cr) * 1.3;
	lg->ncols = (size_t)ceil(n * lg->row_h / fmax(avail_h, lg->row_h));
	if (lg->ncols < 1)
		lg->ncols = 1;
	lg->nrows = (n + lg->ncols - 1) / lg->ncols;
	int below = w < NARROW_PT;
	double max_text = below ? w - 2 * PAD - sw - GAP : 0.3 * w / (double)lg->ncols - sw - GAP;
	lg->text = xcalloc(n, sizeof(*lg->text));
	lg->full = xcalloc(n, sizeof(*lg->full));
	double tw = 0;
	for (size_t i = 0; i < n; i++) {
		lg->full[i] = xstrdup(names[i]);
		lg->text[i] = fit_text(cr, names[i], max_text, MAX_LABEL_CHARS);
		tw = fmax(tw, text_width(cr, lg->text[i]));
	}
	lg->col_w = sw + GAP + tw;
	if (below) {
		/* As many columns as the width holds; the key then sits under the plot. */
		lg->ncols = (size_t)floor((w - 2 * PAD + 2 * GAP) / (lg->col_w + 2 * GAP));
		if (lg->ncols < 1)
			lg->ncols = 1;
		if (lg->ncols > n)
			lg->ncols = n;
		lg->nrows = (n + lg->ncols - 1) / lg->ncols;
	}
	lg->width = (double)lg->ncols * lg->col_w + (double)(lg->ncols - 1) * 2 * GAP;
	lg->height = (double)lg->nrows * lg->row_h;
	if (below)
		lg->width = 0; /* takes height, not width */
}

void legend_layout(cairo_t *cr, struct legend *lg, char *const *names, const size_t *colours,
			  size_t n, double w, double avail_h)
{
	legend_layout_sw(cr, lg, names, colours, n, w, avail_h, SWATCH, 0);
}

/*
 * Draws the legend with its top left corner at (x, y): each entry's swatch
 * (a box, a line with its marker, a marker, a reference line) and name, in
 * columns; a reversed legend lists the series top down in the order they
 * are stacked bottom up, so the key reads like the bars next to it.
 */
static void legend_draw(cairo_t *cr, const struct legend *lg, double x, double y)
{
	set_font(cr, LEGEND_PT, 0);
	double sw = lg->swatch_w > 0 ? lg->swatch_w : SWATCH;
	for (size_t k = 0; k < lg->n; k++) {
		size_t s = lg->reverse ? lg->n - 1 - k : k;
		double cx = x + (double)(k / lg->nrows) * (lg->col_w + 2 * GAP);
		double cy = y + (double)(k % lg->nrows) * lg->row_h + lg->row_h / 2;
		int kind = lg->swatch ? lg->swatch[s] : SWATCH_BOX;
		if (kind == SWATCH_BOX) {
			fill_rect(cr, cx, cy - SWATCH / 2, SWATCH, SWATCH, lg->colour[s]);
			/* A thin outline keeps a yellow swatch visible on white. */
			set_grey(cr, 0.45);
			cairo_set_line_width(cr, 0.25);
			cairo_rectangle(cr, cx, cy - SWATCH / 2, SWATCH, SWATCH);
			cairo_stroke(cr);
		} else {
			cairo_save(cr);
			if (kind == SWATCH_SOLID || kind == SWATCH_DASH) {
				set_ref_line(cr, kind == SWATCH_DASH);
			} else {
				set_colour(cr, lg->colour[s]);
				cairo_set_line_width(cr, 1.2);
			}
			if (kind != SWATCH_MARK) {
				cairo_move_to(cr, cx, cy);
				cairo_line_to(cr, cx + sw, cy);
				cairo_stroke(cr);
			}
			cairo_set_dash(cr, NULL, 0, 0);
			if (kind == SWATCH_LINE || kind == SWATCH_MARK)
				marker(cr, cx + sw / 2, cy, lg->shape ? lg->shape[s] : 0);
			cairo_restore(cr);
		}
		set_grey(cr, 0);
		show_text(cr, lg->text[s], cx + sw + GAP, cy, 0, 0.5);
		add_tip(cx, cy - lg->row_h / 2, lg->col_w, lg->row_h, xasprintf("key: %s", lg->full[s]));
	}
}

static void legend_release(struct legend *lg)
{
	for (size_t i = 0; i < lg->n; i++) {
		free(lg->text[i]);
		free(lg->full[i]);
	}
	free(lg->text);
	free(lg->full);
	free(lg->colour);
	free(lg->swatch);
	free(lg->shape);
}

/* Starts an empty key for a figure w points wide; the caller then lays out k->lg. */
void key_init(struct key *k, double w)
{
	memset(k, 0, sizeof(*k));
	k->below = w < NARROW_PT;
}

/* The legend's font and the note's line height, which every note measures with. */
static void key_note_font(cairo_t *cr, struct key *k)
{
	set_font(cr, LEGEND_PT, 0);
	k->note_lh = line_height(cr) * 1.2;
}

/*
 * Sets the note to text wrapped at spaces into lines of max_w points; the
 * key takes text (it becomes the note's tooltip). NULL text: no note.
 */
void key_note_wrapped(cairo_t *cr, struct key *k, char *text, double max_w)
{
	key_note_font(cr, k);
	if (!text)
		return;
	k->note_tip = text;
	k->nnote = wrap_text(cr, text, max_w, &k->note);
	for (size_t i = 0; i < k->nnote; i++)
		k->note_w = fmax(k->note_w, text_width(cr, k->note[i]));
}

/*
 * Sets the note to text's lines (split at '\n'), each cleaned and shortened
 * to max_w points; under a narrow plot the lines run on, joined by ", ",
 * while they fit the width.
 */
void key_note_lines(cairo_t *cr, struct key *k, const char *text, double max_w)
{
	key_note_font(cr, k);
	if (!text || !text[0])
		return;
	for (const char *p = text; p;) {
		const char *nl = strchr(p, '\n');
		char *line = nl ? xstrndup(p, (size_t)(nl - p)) : xstrdup(p);
		char *clean = clean_text(line);
		size_t n = k->nnote, pl = n ? strlen(k->note[n - 1]) : 0;
		char *joined = k->below && n ? xasprintf("%s%s %s", k->note[n - 1],
							 pl && k->note[n - 1][pl - 1] == ':' ? "" : ",", clean)
					     : NULL;
		if (joined && text_width(cr, joined) <= max_w) {
			free(k->note[n - 1]);
			k->note[n - 1] = joined;
		} else {
			free(joined);
			k->note = xrealloc(k->note, (n + 1) * sizeof(*k->note));
			k->note[k->nnote++] = fit_text(cr, clean, max_w, (size_t)-1);
		}
		k->note_w = fmax(k->note_w, text_width(cr, k->note[k->nnote - 1]));
		free(line);
		free(clean);
		p = nl ? nl + 1 : NULL;
	}
}

/* Sets the key's width and height from its legend and note. */
void key_measure(struct key *k)
{
	const struct legend *lg = &k->lg;
	k->width = fmax(lg->n ? lg->width : 0, k->note_w);
	k->height = (lg->n ? lg->height : 0) + (k->nnote ? (lg->n ? GAP : 0) + (double)k->nnote * k->note_lh : 0);
}

/* 1 when the key has anything to show. */
int key_shown(const struct key *k)
{
	return k->lg.n || k->nnote;
}

/* The width the key takes right of the plot, with its gap: 0 when it has none or sits below. */
double key_room_right(const struct key *k)
{
	return key_shown(k) && !k->below ? k->width + LEGEND_GAP : 0;
}

/* The height the key takes under the plot, with its gaps: 0 when it has none or sits beside. */
double key_room_below(const struct key *k)
{
	return key_shown(k) && k->below ? k->height + 2 * GAP : 0;
}

/* Draws the key with its top left corner at (x, y): the legend, then the note in dark grey. */
void key_draw(cairo_t *cr, const struct key *k, double x, double y)
{
	if (k->lg.n)
		legend_draw(cr, &k->lg, x, y);
	if (!k->nnote)
		return;
	set_font(cr, LEGEND_PT, 0);
	set_grey(cr, 0.15);
	double note_y = y + (k->lg.n ? k->lg.height + GAP : 0);
	for (size_t i = 0; i < k->nnote; i++)
		show_text(cr, k->note[i], x, note_y + (double)i * k->note_lh, 0, 0);
	if (k->note_tip)
		add_tip(x, note_y, k->note_w, (double)k->nnote * k->note_lh, xstrdup(k->note_tip));
}

void key_release(struct key *k)
{
	legend_release(&k->lg);
	for (size_t i = 0; i < k->nnote; i++)
		free(k->note[i]);
	free(k->note);
	free(k->note_tip);
}

/* The height on plot b of value v on axis a (a log axis puts v <= 0 at the bottom). */
double axis_y(const struct axis *a, const struct box *b, double v)
{
	return b->y1 - axis_frac(a, v) * (b->y1 - b->y0);
}

void draw_value_grid_y(cairo_t *cr, const struct axis *a, const struct box *b)
{
	set_font(cr, TICK_PT, 0);
	for (size_t i = 0; i < a->nticks; i++) {
		double v = axis_tick(a, i);
		double y = axis_y(a, b, v);
		grid_tick_y(cr, b, y);
		char *s = axis_label(a, v);
		show_text(cr, s, b->x0 - TICK_LEN - GAP, y, 1, 0.5);
		free(s);
	}
}

/* A point marker whose shape tells series apart in greyscale: circle, square, triangle, diamond. */
void marker(cairo_t *cr, double x, double y, size_t k)
{
	marker_sized(cr, x, y, k, 1);
}

void marker_sized(cairo_t *cr, double x, double y, size_t k, double size)
{
	double r = 2.2 * size;
	switch (k % 4) {
	case 0:
		cairo_new_sub_path(cr);
		cairo_arc(cr, x, y, r, 0, 2 * M_PI);
		break;
	case 1:
		cairo_rectangle(cr, x - r * 0.9, y - r * 0.9, 1.8 * r, 1.8 * r);
		break;
	case 2:
		cairo_move_to(cr, x, y - r * 1.2);
		cairo_line_to(cr, x + r * 1.1, y + r * 0.8);
		cairo_line_to(cr, x - r * 1.1, y + r * 0.8);
		cairo_close_path(cr);
		break;
	default:
		cairo_move_to(cr, x, y - r * 1.3);
		cairo_line_to(cr, x + r * 1.1, y);
		cairo_line_to(cr, x, y + r * 1.3);
		cairo_line_to(cr, x - r * 1.1, y);
		cairo_close_path(cr);
	}
	cairo_fill(cr);
}

/*
 * Whether the bars of a chart get a log value axis: asked for by the style
 * (1), or by default (0) when the positive bars span more than AUTO_LOG_SPAN
 * (an 11 us copy beside a 1.9 ms one is invisible on a linear axis); only
 * where no value is negative. minpos is the smallest positive value.
 */
#define AUTO_LOG_SPAN 100.0
int want_log(double lo, double hi, double minpos)
{
	return lo >= 0 && hi > 0 && isfinite(minpos) && look.log_scale >= 0 &&
	       (look.log_scale == 1 || hi / minpos > AUTO_LOG_SPAN);
}

/* The value axis title, with ", log scale" on a log axis; caller frees. */
char *value_title(const struct text *t, const struct axis *a)
{
	return xasprintf("%s%s", t->value_label, a->log && t->value_label[0] ? ", log scale" : "");
}

/* The spread of every category of a vertical chart (STACKED_BAR, LINE), centred in its slot. */
void draw_spreads_up(cairo_t *cr, const struct chart *c, const struct box *b, double slot, double scale,
			    double y_zero, double cap)
{
	for (size_t i = 0; c->spread && i < c->ncat; i++) {
		double p[4];
		for (int k = 0; k < 4; k++)
			p[k] = y_zero - c->spread[i * 4 + (size_t)k] * scale;
		draw_spread(cr, 1, b->x0 + ((double)i + 0.5) * slot, cap, p);
	}
}

void set_ref_line(cairo_t *cr, int dashed)
{
	static const double dash[] = {3, 2};
	if (dashed) {
		set_grey(cr, 0.45);
		cairo_set_dash(cr, dash, 2, 0);
		cairo_set_line_width(cr, 0.8);
	} else {
		set_grey(cr, 0.1);
		cairo_set_dash(cr, NULL, 0, 0);
		cairo_set_line_width(cr, 0.9);
	}
}

/*
 * One point of a line through a series' points: continues the line to
 * (x, y), or, when *open is 0 (the first point, or after a gap), starts it
 * there; the line is then open.
 */
void line_point(cairo_t *cr, int *open, double x, double y)
{
	if (*open)
		cairo_line_to(cr, x, y);
	else
		cairo_move_to(cr, x, y);
	*open = 1;
}
