/*
 * chart_render.c: draws a chart model with cairo; the only file that
 * includes it.
 *
 * draw_chart() lays a chart out on any cairo_t of a given size in points;
 * open_surface() picks the SVG, PDF or PNG surface, so every figure comes in
 * every format from the same drawing. The layout is computed from measured
 * text (cairo_text_extents), never from guessed character widths: margins
 * grow to hold the tick labels, the rotated axis label, the category labels
 * and the legend, and labels are shortened in the middle when they would
 * not fit. Figures go into papers, so sizes are in points, the smallest text
 * is 7 pt and the colours are the Okabe-Ito palette, which stays readable
 * for colour-blind readers and in greyscale print.
 */
#include "chart/chart.h"
#include "chart/png.h"

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

#define FONT "DejaVu Sans"

/*
 * Text sizes in points at the default base size (8 pt); a style's font_size
 * scales them all, and set_font() never goes below MIN_PT, the usual floor
 * for print.
 */
#define BASE_PT 8.0
#define MIN_PT 7.0
#define TITLE_PT 9.0
#define AXIS_PT 8.0
#define TICK_PT 7.0
#define LABEL_PT 7.0
#define LEGEND_PT 7.5
#define NODATA_PT 9.0

/* Spacing in points. */
#define PAD 6.0          /* figure edge to anything drawn */
#define GAP 3.0          /* text to what it labels */
#define TICK_LEN 3.0
#define LEGEND_GAP 12.0  /* plot area to legend */
#define SWATCH 7.0
#define LABEL_ANGLE 35.0 /* degrees, for category labels that do not fit flat */
#define MAX_LABEL_CHARS 45

#define DEFAULT_DPI 300.0
#define HATCH_GAP 2.8 /* points between hatch lines */

/*
 * cairo 1.16 stamps each PDF with the time it was made; a fixed date keeps
 * two builds of the same study byte-identical. cairo writes no other time or
 * random ID into the PDF or PNG; the SVG's one varying id is handled by
 * svg_pin_surface_id().
 */
#define PDF_DATE "2000-01-01T00:00:00Z"

/* Okabe & Ito (2008), black last: it is kept for the eighth series. */
static const double palette[][3] = {
	{0xE6 / 255.0, 0x9F / 255.0, 0x00 / 255.0}, /* orange */
	{0x56 / 255.0, 0xB4 / 255.0, 0xE9 / 255.0}, /* sky blue */
	{0x00 / 255.0, 0x9E / 255.0, 0x73 / 255.0}, /* bluish green */
	{0xF0 / 255.0, 0xE4 / 255.0, 0x42 / 255.0}, /* yellow */
	{0x00 / 255.0, 0x72 / 255.0, 0xB2 / 255.0}, /* blue */
	{0xD5 / 255.0, 0x5E / 255.0, 0x00 / 255.0}, /* vermillion */
	{0xCC / 255.0, 0x79 / 255.0, 0xA7 / 255.0}, /* reddish purple */
	{0x00 / 255.0, 0x00 / 255.0, 0x00 / 255.0}, /* black */
};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

/*
 * Colours past the palette: idle time is light grey (no work), and runs
 * are COLOUR_RUN + their position among the chart's runs, black to grey
 * (run_grey()), so that no palette colour ever stands for a run.
 */
#define COLOUR_IDLE 100
#define COLOUR_RUN 200

/*
 * Names perfstudy's analyses use, with one colour each in every figure and
 * study (the classification's own groups, from the style, come first).
 * The same thing has the same colour: "communication" (a kernel group, a
 * part of a step, a part of dispatch), "memset" (a part of a step, a copy
 * kind); things of one kind never share one within a figure. Copy kinds
 * keep theirs whichever others a study has. Indices into palette[].
 */
static const struct {
	const char *name;
	size_t colour;
} known_colours[] = {
	/* the default classification's groups, in its order */
	{"matrix-mul", 0}, {"attention", 1}, {"communication", 2}, {"memory", 3}, {"elementwise", 4},
	{"other", 5},
	/* paper 002's kernel types (dispatch_ops.csv) beside them */
	{"GEMM", 0}, {"CatArrayBatchedCopy", 6},
	/* the parts of a step (step_breakdown.csv), of dispatch and of the critical path */
	{"compute", 0}, {"memcpy", 1}, {"memset", 3}, {"cuda_runtime", 4}, {"data_loading", 6},
	{"cpu_other", 7}, {"intra-op dispatch", 1}, {"inter-op dispatch", 4},
	{"communication transfer", 2}, {"host and launch", 4}, {"waiting for another rank", 6},
	/* copy kinds (memops.csv) */
	{"HtoD", 1}, {"DtoH", 4}, {"DtoD", 6}, {"PtoP", 2}, {"other copy", 5},
	/* HTA's temporal breakdown: non-compute kernels are communication and memory */
	{"non-compute", 2}, {"idle", COLOUR_IDLE}, {"GPU idle", COLOUR_IDLE},
	/* the default phases */
	{"get_train_batch", 6}, {"forward", 1}, {"backward", 4}, {"optimizer_step", 0},
};

enum fmt { FMT_SVG, FMT_PDF, FMT_PNG };
static const char *const fmt_ext[] = {"svg", "pdf", "png"};

/* The chart's strings, made safe to hand to cairo. */
struct text {
	char *title, *value_label;
	char **cats, **series;
};

/* A value axis: ticks at lo, lo + step, ..., hi; on a log axis lo * step^i. */
struct axis {
	double lo, hi, step;
	size_t nticks;
	int decimals; /* -1: print with %g */
	int log;      /* ticks at powers of ten; positions by log10 */
};

/* An SVG tooltip: a rectangle in points and the text its <title> shows. */
struct tip {
	double x, y, w, h;
	char *text;
};

/*
 * How the chart being drawn looks: font, scale, colours, hatching, and where
 * tooltips go (SVG only). A thread draws one chart at a time, so this is set
 * by draw_chart() for the drawing and read by the helpers below; it keeps
 * the style out of every function's arguments. One per thread:
 * chart_write_many() draws figures on several.
 */
static _Thread_local struct look {
	const char *font;
	double scale;       /* style font size / BASE_PT */
	int hatching;
	int log_scale;      /* as in chart_style */
	const struct chart_style *style;
	size_t *series_colour; /* colour index of each series */
	size_t nruns;       /* series drawn as runs (COLOUR_RUN + i) */
	int lines;          /* series are lines and markers: runs stay darker */
	struct tip *tips;   /* NULL when the surface keeps no tooltips */
	size_t ntips, cap_tips;
	int want_tips;
} look;

static void add_tip(double x, double y, double w, double h, char *text)
{
	if (!look.want_tips || w <= 0 || h <= 0) {
		free(text);
		return;
	}
	look.tips = xgrow(look.tips, &look.cap_tips, look.ntips + 1, sizeof(*look.tips));
	look.tips[look.ntips++] = (struct tip){x, y, w, h, text};
}

/*
 * The colour of a category of time: its position among the style's groups,
 * else its fixed colour in known_colours, else fallback.
 */
static size_t colour_of(const char *key, size_t fallback)
{
	const struct chart_style *st = look.style;
	if (!key)
		return fallback;
	for (size_t i = 0; st && i < st->ngroups; i++)
		if (st->groups[i] && !strcmp(st->groups[i], key))
			return i % NPALETTE;
	for (size_t i = 0; i < sizeof(known_colours) / sizeof(known_colours[0]); i++)
		if (!strcmp(known_colours[i].name, key))
			return known_colours[i].colour;
	return fallback;
}

/* Whether a name is one of the style's runs, by id or label. */
static int is_run(const char *key)
{
	const struct chart_style *st = look.style;
	for (size_t i = 0; key && st && i < st->nruns; i++)
		if ((st->runs && st->runs[i] && !strcmp(st->runs[i], key)) ||
		    (st->run_labels && st->run_labels[i] && !strcmp(st->run_labels[i], key)))
			return 1;
	return 0;
}

/*
 * Each series' colour (see chart_style): runs grey, darkest first; a
 * known category its fixed colour; the others, in order, the palette
 * colours no series of this chart has yet, so that an unknown part never
 * shares its colour with a known neighbour. Lines skip yellow. Past the
 * palette's colours they repeat by position. A bar chart of one series
 * without keys is one grey. Sets look.nruns. Caller frees.
 */
static size_t *series_colours(const struct chart *c)
{
	size_t *col = xcalloc(c->nseries + 1, sizeof(*col));
	int used[NPALETTE] = {0};
	int keyed = 0;
	for (size_t i = 0; i < c->ncat; i++)
		keyed |= c->cat_keys[i] != NULL;
	int plain = c->nseries == 1 && !keyed && c->kind != CHART_XY && c->kind != CHART_LINE;
	look.nruns = 0;
	for (size_t i = 0; i < c->nseries; i++) {
		if (plain || c->entity_series || is_run(c->series[i])) {
			col[i] = COLOUR_RUN + look.nruns++;
			continue;
		}
		col[i] = colour_of(c->series[i], SIZE_MAX);
		if (col[i] < NPALETTE)
			used[col[i]] = 1;
	}
	if (look.lines)
		used[3] = 1; /* yellow: a line or marker in it is hard to see on white */
	size_t next = 0;
	for (size_t i = 0; i < c->nseries; i++) {
		if (col[i] != SIZE_MAX)
			continue;
		while (next < NPALETTE && used[next])
			next++;
		if (next < NPALETTE) {
			col[i] = next;
			used[next] = 1;
		} else {
			col[i] = i % NPALETTE;
		}
	}
	return col;
}

/*
 * A run's grey: the i-th of look.nruns, evenly from dark to light; lines
 * and markers stop darker than bars, which have an outline.
 */
static double run_grey(size_t i)
{
	double lo = look.lines ? 0.0 : 0.25, hi = look.lines ? 0.55 : 0.75;
	if (look.nruns <= 1)
		return look.lines ? 0.0 : 0.45;
	return lo + (hi - lo) * (double)i / (double)(look.nruns - 1);
}

static void colour_rgb(size_t colour, double rgb[3])
{
	double g = colour >= COLOUR_RUN ? run_grey(colour - COLOUR_RUN) : colour == COLOUR_IDLE ? 0.82 : -1;
	if (g >= 0) {
		rgb[0] = rgb[1] = rgb[2] = g;
		return;
	}
	memcpy(rgb, palette[colour % NPALETTE], 3 * sizeof(double));
}

/* Which hatch pattern (fill_rect) a colour takes: the palette's own, a run's by its position. */
static size_t hatch_of(size_t colour)
{
	if (colour == COLOUR_IDLE)
		return 0;
	return (colour >= COLOUR_RUN ? colour - COLOUR_RUN : colour) % NPALETTE;
}

/* Rectangle of the plot area, in points from the top left. */
struct box {
	double x0, y0, x1, y1;
};

static void add_utf8(struct buf *b, unsigned long cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	buf_add(b, u, n);
}

/*
 * Returns a copy of s that cairo accepts. cairo refuses a whole string, and
 * puts the context into an error state, when it holds a byte sequence that
 * is not valid UTF-8 or that encodes a surrogate or a noncharacter; a trace
 * can hold any bytes in a kernel name, so each bad byte becomes U+FFFD.
 * Control characters become spaces: the toy text API draws one line.
 */
static char *clean_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	struct buf b;

	buf_init(&b);
	while (*p) {
		unsigned long cp, min;
		size_t n, i;

		if (*p < 0x80) {
			buf_addc(&b, (*p < 0x20 || *p == 0x7f) ? ' ' : (char)*p);
			p++;
			continue;
		}
		if (*p >= 0xc2 && *p <= 0xdf) {
			n = 2, min = 0x80, cp = *p & 0x1f;
		} else if (*p >= 0xe0 && *p <= 0xef) {
			n = 3, min = 0x800, cp = *p & 0x0f;
		} else if (*p >= 0xf0 && *p <= 0xf4) {
			n = 4, min = 0x10000, cp = *p & 0x07;
		} else {
			add_utf8(&b, 0xfffd);
			p++;
			continue;
		}
		for (i = 1; i < n && (p[i] & 0xc0) == 0x80; i++)
			cp = (cp << 6) | (p[i] & 0x3f);
		if (i < n || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
		    (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe) {
			add_utf8(&b, 0xfffd);
			p++;
			continue;
		}
		if (cp < 0xa0)
			buf_addc(&b, ' '); /* C1 controls */
		else
			buf_add(&b, p, n);
		p += n;
	}
	return b.data; /* the bytes move to the caller; b is not used again */
}

/* Selects the chart's font at size (scaled by the style), never below MIN_PT. */
static void set_font(cairo_t *cr, double size, int bold)
{
	cairo_select_font_face(cr, look.font ? look.font : FONT, CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, fmax(MIN_PT, size * (look.scale > 0 ? look.scale : 1)));
}

static double text_width(cairo_t *cr, const char *s)
{
	cairo_text_extents_t te;
	cairo_text_extents(cr, s, &te);
	return te.x_advance;
}

/* Ascent plus descent of the current font: the height every line reserves. */
static double line_height(cairo_t *cr)
{
	cairo_font_extents_t fe;
	cairo_font_extents(cr, &fe);
	return fe.ascent + fe.descent;
}

/*
 * Returns a new string: s shortened in the middle to at most max_chars
 * characters and max_w points in the current font; "" if not even the
 * ellipsis fits.
 */
static char *fit_text(cairo_t *cr, const char *s, double max_w, size_t max_chars)
{
	size_t n = 0;
	for (const char *p = s; *p; p++)
		n += ((unsigned char)*p & 0xc0) != 0x80;
	if (n > max_chars)
		n = max_chars;
	for (; n > 0; n--) {
		char *t = chart_shorten_middle(s, n);
		if (text_width(cr, t) <= max_w)
			return t;
		free(t);
	}
	return xstrdup("");
}

/*
 * Draws s with its anchor at (x, y): halign 0 puts the left end there, 1
 * the right end; valign 0 the top of the line box, 1 its bottom.
 */
static void show_text(cairo_t *cr, const char *s, double x, double y, double halign,
		      double valign)
{
	cairo_font_extents_t fe;
	cairo_font_extents(cr, &fe);
	cairo_move_to(cr, x - halign * text_width(cr, s),
		      y + fe.ascent - valign * (fe.ascent + fe.descent));
	cairo_show_text(cr, s);
}

/*
 * Draws s rotated by angle radians counter-clockwise, with the middle of its
 * line box at (x, y): its right end when right is set, else its centre.
 */
static void show_rotated(cairo_t *cr, const char *s, double x, double y, double angle, int right)
{
	cairo_font_extents_t fe;
	cairo_font_extents(cr, &fe);
	double w = text_width(cr, s);
	cairo_save(cr);
	cairo_translate(cr, x, y);
	cairo_rotate(cr, -angle);
	cairo_move_to(cr, right ? -w : -w / 2, (fe.ascent - fe.descent) / 2);
	cairo_show_text(cr, s);
	cairo_restore(cr);
}

static void set_grey(cairo_t *cr, double g)
{
	cairo_set_source_rgb(cr, g, g, g);
}

/* A light grid line across box b at height y, and a dark tick left of it. */
static void grid_tick_y(cairo_t *cr, const struct box *b, double y)
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
static void grid_tick_x(cairo_t *cr, const struct box *b, double x)
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

static void set_colour(cairo_t *cr, size_t colour)
{
	double rgb[3];
	colour_rgb(colour, rgb);
	cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
}

/*
 * Fills a rectangle in a palette colour and, with hatching on, lays the
 * colour's own line pattern over it: colour 0 plain, then /, \, -, |, x, +
 * and dots, so bars stay apart when printed in grey. Lines are dark on light
 * colours and white on the dark ones.
 */
static void fill_rect(cairo_t *cr, double x, double y, double w, double h, size_t colour)
{
	cairo_rectangle(cr, x, y, w, h);
	set_colour(cr, colour);
	cairo_fill(cr);
	size_t k = hatch_of(colour);
	if (!look.hatching || k == 0 || w <= 0 || h <= 0)
		return;
	double rgb[3];
	colour_rgb(colour, rgb);
	double lum = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
	cairo_save(cr);
	cairo_rectangle(cr, x, y, w, h);
	cairo_clip(cr);
	if (lum < 0.35)
		cairo_set_source_rgb(cr, 1, 1, 1);
	else
		cairo_set_source_rgba(cr, 0, 0, 0, 0.75);
	cairo_set_line_width(cr, 0.45);
	double g = HATCH_GAP, span = w + h;
	int slash = k == 1 || k == 5, back = k == 2 || k == 5;
	int horiz = k == 3 || k == 6, vert = k == 4 || k == 6;
	for (double d = -span; d <= span; d += g) {
		if (slash) {
			cairo_move_to(cr, x + d, y + h);
			cairo_line_to(cr, x + d + h, y);
		}
		if (back) {
			cairo_move_to(cr, x + d, y);
			cairo_line_to(cr, x + d + h, y + h);
		}
	}
	for (double d = g / 2; horiz && d < h; d += g) {
		cairo_move_to(cr, x, y + d);
		cairo_line_to(cr, x + w, y + d);
	}
	for (double d = g / 2; vert && d < w; d += g) {
		cairo_move_to(cr, x + d, y);
		cairo_line_to(cr, x + d, y + h);
	}
	cairo_stroke(cr);
	if (k == 7) {
		for (double dy = g / 2; dy < h; dy += g)
			for (double dx = g / 2; dx < w; dx += g) {
				cairo_new_sub_path(cr);
				cairo_arc(cr, x + dx, y + dy, 0.45, 0, 2 * M_PI);
			}
		cairo_fill(cr);
	}
	cairo_restore(cr);
}

static double finite_or_0(double v)
{
	return isfinite(v) ? v : 0;
}

/* Widens [*lo, *hi] to hold category i's spread (chart.h), where it has one. */
static void spread_extent(const struct chart *c, size_t i, double *lo, double *hi)
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
static void draw_spread(cairo_t *cr, int vertical, double at, double cap, const double p[4])
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
static void axis_nice(struct axis *a, double lo, double hi)
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
static void axis_log(struct axis *a, double lo, double hi)
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
static double axis_frac(const struct axis *a, double v)
{
	if (a->log)
		return v > 0 ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) : 0;
	return (v - a->lo) / (a->hi - a->lo);
}

static double axis_tick(const struct axis *a, size_t i)
{
	if (a->log)
		return a->lo * pow(a->step, (double)i);
	double v = a->lo + (double)i * a->step;
	return fabs(v) < a->step * 1e-9 ? 0 : v; /* no "-0.0" */
}

/* Typeset negative numbers take a minus sign (U+2212), as wide as a digit, not a hyphen. */
static const char *minus(double v)
{
	return v < 0 ? "\xe2\x88\x92" : "";
}

/* Returns the tick label for v, owned by the caller. */
/* 10 to the power e as a reader writes it, "10⁷", "10⁻⁴" (superscript digits; DejaVu Sans has them). */
static char *power_of_ten(int e)
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

static char *axis_label(const struct axis *a, double v)
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
static char *value_text(double v)
{
	double m = fabs(v);
	if (m == 0)
		return xstrdup("0");
	if (m >= 1e7 || m < 1e-3)
		return xasprintf("%s%.3g", minus(v), m);
	return xasprintf("%s%.*f", minus(v), m >= 100 ? 0 : m >= 10 ? 1 : m >= 1 ? 2 : 3, m);
}

static double axis_max_label_width(cairo_t *cr, const struct axis *a)
{
	double w = 0;
	for (size_t i = 0; i < a->nticks; i++) {
		char *s = axis_label(a, axis_tick(a, i));
		w = fmax(w, text_width(cr, s));
		free(s);
	}
	return w;
}

/* Returns the y below which the plot may start: the title's block, drawn later. */
/*
 * Splits a title too wide for w into two lines at the last space that lets
 * the first fit; the second is shortened in the middle if it still does not.
 * *l2 is NULL when one line does. Both are the caller's.
 */
static void title_lines(cairo_t *cr, const struct text *t, double w, char **l1, char **l2)
{
	set_font(cr, TITLE_PT, 1);
	double avail = w - 2 * PAD;
	*l2 = NULL;
	if (text_width(cr, t->title) <= avail) {
		*l1 = xstrdup(t->title);
		return;
	}
	size_t n = strlen(t->title);
	for (size_t i = n; i-- > 1;) {
		if (t->title[i] != ' ')
			continue;
		char *head = xstrndup(t->title, i);
		if (text_width(cr, head) <= avail) {
			*l1 = head;
			*l2 = fit_text(cr, t->title + i + 1, avail, (size_t)-1);
			return;
		}
		free(head);
	}
	*l1 = fit_text(cr, t->title, avail, (size_t)-1);
}

static double title_bottom(cairo_t *cr, const struct text *t, double w)
{
	if (!t->title[0])
		return PAD;
	char *l1, *l2;
	title_lines(cr, t, w, &l1, &l2);
	double lines = l2 ? 2 : 1;
	free(l1);
	free(l2);
	set_font(cr, TITLE_PT, 1);
	return PAD + lines * line_height(cr) + 2 * GAP;
}

/* Draws the title centred over [x0, x1] if it fits there, else over the figure. */
static void draw_title(cairo_t *cr, const struct text *t, double w, double x0, double x1)
{
	if (!t->title[0])
		return;
	char *l[2];
	title_lines(cr, t, w, &l[0], &l[1]);
	set_font(cr, TITLE_PT, 1);
	double lh = line_height(cr);
	set_grey(cr, 0);
	for (int i = 0; i < 2 && l[i]; i++) {
		double tw = text_width(cr, l[i]);
		double cx = (x0 + x1) / 2;
		if (cx - tw / 2 < PAD || cx + tw / 2 > w - PAD)
			cx = w / 2;
		show_text(cr, l[i], cx, PAD + i * lh, 0.5, 0);
		free(l[i]);
	}
}

static void draw_no_data(cairo_t *cr, const struct text *t, double w, double h)
{
	draw_title(cr, t, w, 0, w);
	double top = title_bottom(cr, t, w);
	set_font(cr, NODATA_PT, 0);
	set_grey(cr, 0.4);
	show_text(cr, "no data", w / 2, (top + h - PAD) / 2, 0.5, 0.5);
}

/*
 * Draws a y axis title rotated, its line starting at x_left and centred on
 * the plot's height; its tooltip says "y axis: ...".
 */
static void draw_y_title(cairo_t *cr, const char *label, const struct box *b, double x_left)
{
	set_font(cr, AXIS_PT, 0);
	char *s = fit_text(cr, label, b->y1 - b->y0, (size_t)-1);
	double lh = line_height(cr), tw = text_width(cr, s);
	double x = x_left + lh / 2, y = (b->y0 + b->y1) / 2;
	set_grey(cr, 0);
	show_rotated(cr, s, x, y, M_PI / 2, 0);
	add_tip(x_left, y - tw / 2, lh, tw, xasprintf("y axis: %s", label));
	free(s);
}

/*
 * Draws the value axis label rotated, centred on the plot's height, just
 * left of the tick labels, whose widest is tick_w wide.
 */
static void draw_value_label_left(cairo_t *cr, const char *label, const struct box *b, double tick_w)
{
	if (!label[0])
		return;
	set_font(cr, AXIS_PT, 0);
	draw_y_title(cr, label, b, b->x0 - TICK_LEN - GAP - tick_w - 2 * GAP - line_height(cr));
}

/*
 * Draws an axis title centred under the plot [x0, x1] (kept inside the
 * figure of width w) with its top at y; its tooltip says "x axis: ...".
 */
static void draw_x_title(cairo_t *cr, const char *label, double x0, double x1, double y, double w)
{
	set_font(cr, AXIS_PT, 0);
	char *s = fit_text(cr, label, w - 2 * PAD, (size_t)-1);
	double tw = text_width(cr, s), cx = fmin(fmax((x0 + x1) / 2, PAD + tw / 2), w - PAD - tw / 2);
	set_grey(cr, 0);
	show_text(cr, s, cx, y, 0.5, 0);
	add_tip(cx - tw / 2, y, tw, line_height(cr), xasprintf("x axis: %s", label));
	free(s);
}

/*
 * Splits text into lines of at most max_w points in the current font,
 * breaking at spaces; a word wider than a line is shortened. Returns the
 * number of lines and sets *out (caller frees each and the array).
 */
static size_t wrap_text(cairo_t *cr, const char *text, double max_w, char ***out)
{
	size_t n = 0;
	char **lines = NULL;
	struct buf cur;
	buf_init(&cur);
	const char *p = text;
	while (*p) {
		const char *sp = strchr(p, ' ');
		size_t wl = sp ? (size_t)(sp - p) : strlen(p);
		size_t keep = cur.len;
		if (cur.len)
			buf_addc(&cur, ' ');
		buf_add(&cur, p, wl);
		if (keep && text_width(cr, cur.data) > max_w) {
			/* The word starts the next line. */
			lines = xrealloc(lines, (n + 1) * sizeof(*lines));
			lines[n++] = xstrndup(cur.data, keep);
			buf_reset(&cur);
			buf_add(&cur, p, wl);
		}
		p += wl;
		while (*p == ' ')
			p++;
	}
	if (cur.len) {
		lines = xrealloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = xstrdup(cur.data);
	}
	buf_release(&cur);
	for (size_t i = 0; i < n; i++) {
		char *f = fit_text(cr, lines[i], max_w, (size_t)-1);
		free(lines[i]);
		lines[i] = f;
	}
	*out = lines;
	return n;
}

/* The legend of a stacked bar chart, laid out before the plot area is known. */
struct legend {
	size_t n, ncols, nrows;
	char **text;
	char **full;     /* the names before shortening: each entry's SVG tooltip */
	size_t *colour;
	int reverse; /* list the entries bottom up, like the segments of a stack */
	double col_w, row_h, width, height;
	int *swatch;     /* NULL, or per entry one of enum swatch (owned; CHART_XY's lines and markers) */
	size_t *shape;   /* per entry the marker shape of SWATCH_LINE/SWATCH_MARK (owned) */
	double swatch_w; /* 0: SWATCH */
};

/* How a key entry shows what it stands for. */
enum swatch {
	SWATCH_BOX,   /* a filled square: bars */
	SWATCH_LINE,  /* a line in the entry's colour with its marker */
	SWATCH_MARK,  /* the marker alone: a scatter */
	SWATCH_SOLID, /* a black line: a fitted line */
	SWATCH_DASH,  /* a dashed grey line: a reference such as y = x */
};

/* Narrower than this (points), a figure puts its key under the plot, not beside it. */
#define NARROW_PT 360.0

/*
 * Lays out a key of n entries (names[i] in palette colour colours[i]) in as
 * many columns as the height avail_h needs; its text is shortened to fit
 * about 30 % of the figure's width w. Each swatch is sw wide (a line with
 * its marker needs more than a square). One entry makes a key only when
 * always is set (other series were left out of it).
 */
static void legend_layout_sw(cairo_t *cr, struct legend *lg, char *const *names, const size_t *colours,
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

static void legend_layout(cairo_t *cr, struct legend *lg, char *const *names, const size_t *colours,
			  size_t n, double w, double avail_h)
{
	legend_layout_sw(cr, lg, names, colours, n, w, avail_h, SWATCH, 0);
}

/*
 * Lists the series top down in the order they are stacked bottom up, so the
 * key reads like the bars next to it.
 */
static void marker(cairo_t *cr, double x, double y, size_t k);
static void set_ref_line(cairo_t *cr, int dashed);

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

/* How the category labels under a stacked bar chart sit. */
struct catlabels {
	double angle;  /* radians counter-clockwise; 0 is flat */
	size_t every;  /* label every k-th category when lines would overlap */
	double below;  /* space they take under the axis */
	double left;   /* how far the first label reaches left of its bar's centre */
	char **text;
	/*
	 * Ranks of runs ("GPT-2, 2 GPUs r0", "GPT-2, 2 GPUs r1", ...): text
	 * holds "r0", "r1" under each bar, and each run's label is drawn
	 * once under its bars (flat, or upright in one or two lines).
	 */
	size_t ngroups;
	size_t *first;        /* ngroups + 1: each group's first category, then n */
	char **group;         /* each group's label, as drawn */
	char **group_full;    /* and in full, for its tooltip */
	char **group_line2;   /* a second upright line, or NULL */
	int *group_upright;
	double group_h;       /* the groups' tier under the ranks' line */
};

static void catlabels_release(struct catlabels *cl, size_t n)
{
	if (cl->text)
		for (size_t i = 0; i < n; i++)
			free(cl->text[i]);
	free(cl->text);
	cl->text = NULL;
	for (size_t g = 0; g < cl->ngroups; g++) {
		free(cl->group[g]);
		free(cl->group_full[g]);
		free(cl->group_line2[g]);
	}
	free(cl->first);
	free(cl->group);
	free(cl->group_full);
	free(cl->group_line2);
	free(cl->group_upright);
	cl->ngroups = 0;
	cl->first = NULL;
	cl->group = cl->group_full = cl->group_line2 = NULL;
	cl->group_upright = NULL;
}

/* The length of s without a trailing " r<digits>" (a rank), or 0 when it has none. */
static size_t rank_prefix(const char *s)
{
	size_t l = strlen(s), d = l;
	while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
		d--;
	return d < l && d >= 2 && s[d - 1] == 'r' && s[d - 2] == ' ' ? d - 2 : 0;
}

/*
 * Lays the labels out as runs and their ranks when every category is a
 * rank of a run and some run has several: returns 0 (nothing set) otherwise.
 */
static int catlabels_nested(cairo_t *cr, struct catlabels *cl, const struct text *t, size_t n, double slot,
			    double max_below)
{
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		size_t p = rank_prefix(t->cats[i]);
		if (!p)
			return 0;
		if (!i || p != rank_prefix(t->cats[i - 1]) || strncmp(t->cats[i], t->cats[i - 1], p))
			ng++;
	}
	if (ng >= n)
		return 0;
	set_font(cr, LABEL_PT, 0);
	double lh = line_height(cr);
	cl->angle = 0;
	cl->every = 1;
	cl->left = 0;
	cl->text = xcalloc(n, sizeof(*cl->text));
	cl->first = xcalloc(ng + 1, sizeof(*cl->first));
	cl->group = xcalloc(ng, sizeof(*cl->group));
	cl->group_full = xcalloc(ng, sizeof(*cl->group_full));
	cl->group_line2 = xcalloc(ng, sizeof(*cl->group_line2));
	cl->group_upright = xcalloc(ng, sizeof(*cl->group_upright));
	double avail = max_below - 3 * GAP - lh, tallest = lh;
	size_t g = 0;
	for (size_t i = 0; i < n; i++) {
		size_t p = rank_prefix(t->cats[i]);
		cl->text[i] = fit_text(cr, t->cats[i] + p + 1, slot - GAP, MAX_LABEL_CHARS);
		if (i && p == rank_prefix(t->cats[i - 1]) && !strncmp(t->cats[i], t->cats[i - 1], p))
			continue;
		cl->first[g] = i;
		cl->group_full[g++] = xstrndup(t->cats[i], p);
	}
	cl->first[ng] = n;
	cl->ngroups = ng;
	for (g = 0; g < ng; g++) {
		double span = (double)(cl->first[g + 1] - cl->first[g]) * slot - GAP;
		const char *full = cl->group_full[g];
		if (text_width(cr, full) <= span) {
			cl->group[g] = xstrdup(full);
			continue;
		}
		/* Upright; in two lines split at the space nearest the middle when one is too long and two fit. */
		cl->group_upright[g] = 1;
		const char *split = NULL;
		if (text_width(cr, full) > avail && span >= 2 * lh) {
			/* After a comma if there is one ("GPT-2 124M," / "2 GPUs, DDP"), else at any space. */
			long half = (long)strlen(full) / 2;
			for (int comma = 1; comma >= 0 && !split; comma--)
				for (const char *q = strchr(full, ' '); q; q = strchr(q + 1, ' '))
					if ((!comma || (q > full && q[-1] == ',')) &&
					    (!split || labs((long)(q - full) - half) < labs((long)(split - full) - half)))
						split = q;
		}
		if (split) {
			char *head = xstrndup(full, (size_t)(split - full));
			cl->group[g] = fit_text(cr, head, avail, (size_t)-1);
			cl->group_line2[g] = fit_text(cr, split + 1, avail, (size_t)-1);
			free(head);
		} else {
			cl->group[g] = fit_text(cr, full, avail, (size_t)-1);
		}
		tallest = fmax(tallest, text_width(cr, cl->group[g]));
		if (cl->group_line2[g])
			tallest = fmax(tallest, text_width(cr, cl->group_line2[g]));
	}
	cl->group_h = tallest;
	cl->below = GAP + lh + 2 * GAP + tallest;
	return 1;
}

/* Draws the ranks' line and each run's label under it, with a rule under each run's ranks. */
static void catlabels_draw_nested(cairo_t *cr, const struct catlabels *cl, const struct box *b, double slot)
{
	set_font(cr, LABEL_PT, 0);
	double lh = line_height(cr), y_rank = b->y1 + GAP, y_rule = y_rank + lh + GAP;
	for (size_t g = 0; g < cl->ngroups; g++) {
		double x0 = b->x0 + (double)cl->first[g] * slot, x1 = b->x0 + (double)cl->first[g + 1] * slot;
		set_grey(cr, 0);
		for (size_t i = cl->first[g]; i < cl->first[g + 1]; i++)
			show_text(cr, cl->text[i], b->x0 + ((double)i + 0.5) * slot, y_rank, 0.5, 0);
		set_grey(cr, 0.5);
		cairo_set_line_width(cr, 0.4);
		cairo_move_to(cr, x0 + GAP / 2, y_rule);
		cairo_line_to(cr, x1 - GAP / 2, y_rule);
		cairo_stroke(cr);
		set_grey(cr, 0);
		double cx = (x0 + x1) / 2, top = y_rule + GAP;
		if (!cl->group_upright[g]) {
			show_text(cr, cl->group[g], cx, top, 0.5, 0);
			add_tip(cx - text_width(cr, cl->group[g]) / 2, top, text_width(cr, cl->group[g]), lh,
				xstrdup(cl->group_full[g]));
			continue;
		}
		/* Upright lines read bottom to top, their ends under the rule. */
		double w1 = text_width(cr, cl->group[g]);
		if (cl->group_line2[g]) {
			double w2 = text_width(cr, cl->group_line2[g]);
			show_rotated(cr, cl->group[g], cx - lh / 2, top + w1 / 2, M_PI / 2, 0);
			show_rotated(cr, cl->group_line2[g], cx + lh / 2, top + w2 / 2, M_PI / 2, 0);
			w1 = fmax(w1, w2);
		} else {
			show_rotated(cr, cl->group[g], cx, top + w1 / 2, M_PI / 2, 0);
		}
		add_tip(x0, top, x1 - x0, w1, xstrdup(cl->group_full[g]));
	}
}

static void catlabels_layout(cairo_t *cr, struct catlabels *cl, const struct text *t, size_t n,
			     double slot, double max_below)
{
	catlabels_release(cl, n);
	if (catlabels_nested(cr, cl, t, n, slot, max_below))
		return;
	set_font(cr, LABEL_PT, 0);
	double lh = line_height(cr);
	int flat = 1;

	cl->text = xcalloc(n, sizeof(*cl->text));
	for (size_t i = 0; i < n && flat; i++)
		if (text_width(cr, t->cats[i]) > slot - 2 * GAP ||
		    strlen(t->cats[i]) > MAX_LABEL_CHARS)
			flat = 0;
	cl->every = 1;
	if (flat) {
		cl->angle = 0;
		cl->below = GAP + lh;
	} else {
		/* Neighbouring slanted lines are slot * sin(angle) apart. */
		cl->angle = LABEL_ANGLE * M_PI / 180;
		if (slot * sin(cl->angle) < lh * 1.1) {
			cl->angle = M_PI / 2;
			cl->every = (size_t)ceil(lh * 1.1 / slot);
		}
	}
	double sa = sin(cl->angle), ca = cos(cl->angle);
	double max_w = flat ? slot - 2 * GAP : (max_below - GAP - lh * ca) / sa;
	double widest = 0, first = 0;
	for (size_t i = 0; i < n; i++) {
		if (i % cl->every) {
			cl->text[i] = xstrdup("");
			continue;
		}
		cl->text[i] = fit_text(cr, t->cats[i], max_w, MAX_LABEL_CHARS);
		double tw = text_width(cr, cl->text[i]);
		widest = fmax(widest, tw);
		if (i == 0)
			first = tw;
	}
	if (flat) {
		cl->left = first / 2;
	} else {
		cl->below = GAP + lh * ca + widest * sa;
		cl->left = first * ca + lh / 2 * sa;
	}
}

/* The height on plot b of value v on axis a (a log axis puts v <= 0 at the bottom). */
static double axis_y(const struct axis *a, const struct box *b, double v)
{
	return b->y1 - axis_frac(a, v) * (b->y1 - b->y0);
}

static void draw_value_grid_y(cairo_t *cr, const struct axis *a, const struct box *b)
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

/* CHART_GROUPED_BAR: in each category's slot, one bar per series side by side. */
static void draw_grouped_bars(cairo_t *cr, const struct chart *c, const struct text *t, const struct box *b,
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

/* A point marker whose shape tells series apart in greyscale: circle, square, triangle, diamond. */
static void marker(cairo_t *cr, double x, double y, size_t k)
{
	double r = 2.2;
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
 * CHART_LINE: each series a line through its finite values at the
 * category centres, with markers; the reference series (ref = 1 + index)
 * dashed grey under the others and labelled at its last point.
 */
static void draw_lines(cairo_t *cr, const struct chart *c, const struct text *t, const struct box *b,
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
				double dash[] = {3, 2};
				set_grey(cr, 0.45);
				cairo_set_dash(cr, dash, 2, 0);
				cairo_set_line_width(cr, 0.8);
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
				if (open)
					cairo_line_to(cr, x, y);
				else
					cairo_move_to(cr, x, y);
				open = 1;
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

/*
 * Whether the bars of a chart get a log value axis: asked for by the style
 * (1), or by default (0) when the positive bars span more than AUTO_LOG_SPAN
 * (an 11 us copy beside a 1.9 ms one is invisible on a linear axis); only
 * where no value is negative. minpos is the smallest positive value.
 */
#define AUTO_LOG_SPAN 100.0
static int want_log(double lo, double hi, double minpos)
{
	return lo >= 0 && hi > 0 && isfinite(minpos) && look.log_scale >= 0 &&
	       (look.log_scale == 1 || hi / minpos > AUTO_LOG_SPAN);
}

/*
 * A series whose every bar is shorter than this share of the value axis
 * cannot be seen: it leaves the key for a line under it saying so.
 */
#define MIN_VISIBLE 0.005

/* The value axis title, with ", log scale" on a log axis; caller frees. */
static char *value_title(const struct text *t, const struct axis *a)
{
	return xasprintf("%s%s", t->value_label, a->log && t->value_label[0] ? ", log scale" : "");
}

/* The spread of every category of a vertical chart (STACKED_BAR, LINE), centred in its slot. */
static void draw_spreads_up(cairo_t *cr, const struct chart *c, const struct box *b, double slot, double scale,
			    double y_zero, double cap)
{
	for (size_t i = 0; c->spread && i < c->ncat; i++) {
		double p[4];
		for (int k = 0; k < 4; k++)
			p[k] = y_zero - c->spread[i * 4 + (size_t)k] * scale;
		draw_spread(cr, 1, b->x0 + ((double)i + 0.5) * slot, cap, p);
	}
}

static void draw_stacked(cairo_t *cr, const struct chart *c, const struct text *t, double w,
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

static void draw_hbar(cairo_t *cr, const struct chart *c, const struct text *t, double w,
		      double h)
{
	size_t nc = c->ncat, ns = c->nseries;
	struct axis a;
	struct box b;
	char **label = xcalloc(nc, sizeof(*label));
	char **vtext = xcalloc(nc, sizeof(*vtext));

	double lo = 0, hi = 0, minpos = INFINITY;
	for (size_t i = 0; i < nc; i++) {
		double v = finite_or_0(c->values[i * ns]);
		lo = fmin(lo, v);
		hi = fmax(hi, v);
		if (v > 0)
			minpos = fmin(minpos, v);
		double slo = INFINITY, shi = -INFINITY;
		spread_extent(c, i, &slo, &shi);
		if (shi >= slo) {
			hi = fmax(hi, shi);
			if (slo > 0)
				minpos = fmin(minpos, slo);
		}
	}
	/* A log axis when asked for or wide apart (want_log); bars on it need positive values. */
	int use_log = want_log(lo, hi, minpos);
	if (use_log)
		axis_log(&a, minpos, hi);
	else
		axis_nice(&a, lo, hi);

	/* Bars coloured by their key (a kernel's group) get a key of those keys. */
	struct legend lg;
	size_t *bar_colour = xcalloc(nc, sizeof(*bar_colour));
	char **lnames = xcalloc(nc, sizeof(*lnames));
	size_t *lcolours = xcalloc(nc, sizeof(*lcolours));
	size_t nkeys = 0;
	for (size_t i = 0; i < nc; i++) {
		bar_colour[i] = c->cat_keys[i] ? colour_of(c->cat_keys[i], 0) : look.series_colour[0];
		if (!c->cat_keys[i])
			continue;
		size_t k = 0;
		while (k < nkeys && lcolours[k] != bar_colour[i])
			k++;
		if (k == nkeys) {
			/* Insert in palette order, so every figure lists the groups alike. */
			size_t at = nkeys;
			while (at > 0 && lcolours[at - 1] > bar_colour[i]) {
				lcolours[at] = lcolours[at - 1];
				lnames[at] = lnames[at - 1];
				at--;
			}
			lcolours[at] = bar_colour[i];
			char *shown = chart_display_name(c->cat_keys[i]);
			lnames[at] = clean_text(shown);
			free(shown);
			nkeys++;
		}
	}
	legend_layout(cr, &lg, lnames, lcolours, nkeys, w, h - 2 * PAD - 30);

	/* Room for the printed values beside the bar ends, on either side of 0. */
	set_font(cr, TICK_PT, 0);
	double pos_pad = 0, neg_pad = 0;
	for (size_t i = 0; i < nc; i++) {
		double v = finite_or_0(c->values[i * ns]);
		vtext[i] = value_text(v);
		double tw = text_width(cr, vtext[i]) + GAP;
		if (v < 0)
			neg_pad = fmax(neg_pad, tw);
		else
			pos_pad = fmax(pos_pad, tw);
	}
	double tick_h = line_height(cr);
	char *s_lo = axis_label(&a, axis_tick(&a, 0));
	char *s_hi = axis_label(&a, axis_tick(&a, a.nticks - 1));
	double tw_lo = text_width(cr, s_lo), tw_hi = text_width(cr, s_hi);
	free(s_lo);
	free(s_hi);

	set_font(cr, LABEL_PT, 0);
	double lh = line_height(cr);
	double label_w = 0;
	for (size_t i = 0; i < nc; i++) {
		label[i] = fit_text(cr, t->cats[i], 0.45 * w, MAX_LABEL_CHARS);
		label_w = fmax(label_w, text_width(cr, label[i]));
	}

	b.y0 = title_bottom(cr, t, w);
	int key_below = lg.n && w < NARROW_PT;
	double key_h = key_below ? lg.height + 2 * GAP : 0;
	b.y1 = h - PAD - tick_h - GAP - TICK_LEN - key_h;
	if (t->value_label[0]) {
		set_font(cr, AXIS_PT, 0);
		b.y1 -= line_height(cr) + GAP;
	}
	/* The category axis title ("kernel", "run"), rotated left of the bars' labels. */
	char *cat_title = clean_text(c->x_label ? c->x_label : "");
	set_font(cr, AXIS_PT, 0);
	double cat_title_w = cat_title[0] ? line_height(cr) + GAP : 0;
	b.x0 = fmax(PAD + cat_title_w + label_w + 2 * GAP, PAD + tw_lo / 2 - neg_pad);
	b.x1 = w - PAD - fmax(0, tw_hi / 2 - pos_pad) - (lg.n && !key_below ? lg.width + LEGEND_GAP : 0);
	double d0 = b.x0 + neg_pad, d1 = b.x1 - pos_pad; /* where lo and hi fall */
	double x_zero = a.log ? d0 : d0 + axis_frac(&a, 0) * (d1 - d0);

	draw_title(cr, t, w, b.x0, b.x1);

	/* Tick labels that would touch their neighbours: label every k-th tick only. */
	set_font(cr, TICK_PT, 0);
	double widest_tick = 0;
	for (size_t i = 0; i < a.nticks; i++) {
		char *s = axis_label(&a, axis_tick(&a, i));
		widest_tick = fmax(widest_tick, text_width(cr, s));
		free(s);
	}
	double spacing = a.nticks > 1 ? (d1 - d0) / (double)(a.nticks - 1) : d1 - d0;
	size_t tick_every = spacing >= widest_tick + 2 * GAP ? 1
			    : (size_t)ceil((widest_tick + 2 * GAP) / fmax(spacing, 1e-9));
	for (size_t i = 0; i < a.nticks; i++) {
		double v = axis_tick(&a, i);
		double x = d0 + axis_frac(&a, v) * (d1 - d0);
		grid_tick_x(cr, &b, x);
		if (i % tick_every)
			continue;
		char *s = axis_label(&a, v);
		show_text(cr, s, x, b.y1 + TICK_LEN + GAP, 0.5, 0);
		free(s);
	}

	double row = (b.y1 - b.y0) / (double)nc;
	size_t every = row >= lh ? 1 : (size_t)ceil(lh / row);
	double bar_h = fmin(row * 0.7, 18);
	for (size_t i = 0; i < nc; i++) {
		double v = finite_or_0(c->values[i * ns]);
		double cy = b.y0 + ((double)i + 0.5) * row;
		double xv = d0 + axis_frac(&a, v) * (d1 - d0);
		fill_rect(cr, fmin(x_zero, xv), cy - bar_h / 2, fabs(xv - x_zero), bar_h, bar_colour[i]);
		double text_x = xv;
		if (c->spread) {
			double p[4];
			for (int k = 0; k < 4; k++) {
				double sv = c->spread[i * 4 + (size_t)k];
				p[k] = isfinite(sv) ? d0 + axis_frac(&a, sv) * (d1 - d0) : NAN;
				if (isfinite(p[k]) && v >= 0)
					text_x = fmax(text_x, p[k]);
			}
			draw_spread(cr, 0, cy, fmin(bar_h / 4, 4), p);
		}
		char *full = clean_text(c->cat_tips[i] ? c->cat_tips[i] : c->categories[i]);
		add_tip(PAD, cy - row / 2, fmax(x_zero, xv) - PAD, row,
			xasprintf("%s\n%s: %s", full, t->value_label, vtext[i]));
		free(full);
		if (i % every)
			continue;
		set_font(cr, LABEL_PT, 0);
		set_grey(cr, 0);
		show_text(cr, label[i], b.x0 - 2 * GAP, cy, 1, 0.5);
		set_font(cr, TICK_PT, 0);
		set_grey(cr, 0.25);
		show_text(cr, vtext[i], v < 0 ? xv - GAP : text_x + GAP, cy, v < 0, 0.5);
	}

	set_grey(cr, 0.2);
	cairo_set_line_width(cr, 0.6);
	cairo_move_to(cr, d0, b.y1);
	cairo_line_to(cr, d1, b.y1);
	cairo_move_to(cr, x_zero, b.y0);
	cairo_line_to(cr, x_zero, b.y1);
	cairo_stroke(cr);

	if (key_below)
		legend_draw(cr, &lg, PAD, h - PAD - lg.height);
	else if (lg.n)
		legend_draw(cr, &lg, w - PAD - lg.width, b.y0);
	legend_release(&lg);
	for (size_t i = 0; i < nkeys; i++)
		free(lnames[i]);
	free(lnames);
	free(lcolours);
	free(bar_colour);

	if (t->value_label[0]) {
		set_font(cr, AXIS_PT, 0);
		char *vl = value_title(t, &a);
		draw_x_title(cr, vl, d0, d1, h - PAD - key_h - line_height(cr), w);
		free(vl);
	}
	if (cat_title[0])
		draw_y_title(cr, cat_title, &b, PAD); /* the category axis, at the figure's left edge */
	free(cat_title);

	for (size_t i = 0; i < nc; i++) {
		free(label[i]);
		free(vtext[i]);
	}
	free(label);
	free(vtext);
}

/*
 * CHART_XY axes. A linear axis takes axis_nice()'s round ticks; a log axis
 * ticks at every power of its base (every k-th when more than eight) and
 * runs a little past the outermost points, so no marker sits on the frame.
 */
#define XY_MAX_TICKS 24

struct xyaxis {
	double lo, hi; /* values at the two ends */
	enum chart_scale scale;
	size_t nticks;
	double ticks[XY_MAX_TICKS];
	struct axis lin; /* a linear axis's ticks and their format */
};

static double xy_t(enum chart_scale sc, double v)
{
	return sc == CHART_SCALE_LOG2 ? log2(v) : sc == CHART_SCALE_LOG10 ? log10(v) : v;
}

static double xy_inv(enum chart_scale sc, double t)
{
	return sc == CHART_SCALE_LOG2 ? exp2(t) : sc == CHART_SCALE_LOG10 ? pow(10, t) : t;
}

/* Whether an axis of scale sc can place v: finite, and positive on a log axis. */
static int xy_ok(enum chart_scale sc, double v)
{
	return isfinite(v) && (sc == CHART_SCALE_LINEAR || v > 0);
}

/* Where v falls on the axis, 0 at lo and 1 at hi. */
static double xy_frac(const struct xyaxis *a, double v)
{
	double t0 = xy_t(a->scale, a->lo), t1 = xy_t(a->scale, a->hi);
	return (xy_t(a->scale, v) - t0) / (t1 - t0);
}

static void xy_axis_make(struct xyaxis *a, double lo, double hi, enum chart_scale sc, int from_zero)
{
	memset(a, 0, sizeof(*a));
	a->scale = sc;
	if (sc != CHART_SCALE_LINEAR) {
		double base = sc == CHART_SCALE_LOG2 ? 2 : 10;
		double t0 = xy_t(sc, lo), t1 = xy_t(sc, hi);
		if (!(t1 > t0)) {
			t0 -= 0.5;
			t1 += 0.5;
		}
		double pad = 0.06 * (t1 - t0);
		t0 -= pad;
		t1 += pad;
		int e0 = (int)ceil(t0 - 1e-9), e1 = (int)floor(t1 + 1e-9), every = 1;
		while ((e1 - e0) / every + 1 > 8)
			every++;
		for (int e = e0; e <= e1 && a->nticks < XY_MAX_TICKS; e++)
			if (e % every == 0)
				a->ticks[a->nticks++] = pow(base, e);
		if (a->nticks >= 2) {
			a->lo = xy_inv(sc, t0);
			a->hi = xy_inv(sc, t1);
			return;
		}
		/* Fewer than two powers in range: a linear axis over the same values reads better. */
		a->scale = CHART_SCALE_LINEAR;
		a->nticks = 0;
	}
	/* A little room past the outermost points, except at a 0 the axis starts from. */
	double room = 0.03 * (hi > lo ? hi - lo : fmax(fabs(hi), 1));
	if (from_zero) {
		lo = fmin(lo, 0);
		hi = fmax(hi, 0);
	}
	if (lo != 0 || !from_zero)
		lo -= room;
	if (hi != 0 || !from_zero)
		hi += room;
	axis_nice(&a->lin, lo, hi);
	a->lo = a->lin.lo;
	a->hi = a->lin.hi;
	for (size_t i = 0; i < a->lin.nticks && a->nticks < XY_MAX_TICKS; i++)
		a->ticks[a->nticks++] = axis_tick(&a->lin, i);
}

/* The tick label of v, owned by the caller: a log axis's powers as plain numbers (0.5, 16, 1e+09). */
static char *xy_tick_label(const struct xyaxis *a, double v)
{
	if (a->scale == CHART_SCALE_LINEAR)
		return axis_label(&a->lin, v);
	/* A log 10 axis past 10^6 or below 10^-3 as powers of ten, not "1e+07". */
	if (a->scale == CHART_SCALE_LOG10 && v > 0 && (v >= 1e6 || v < 1e-3))
		return power_of_ten((int)lround(log10(v)));
	return xasprintf("%.6g", v);
}

static double xy_widest_tick(cairo_t *cr, const struct xyaxis *a)
{
	double w = 0;
	for (size_t i = 0; i < a->nticks; i++) {
		char *s = xy_tick_label(a, a->ticks[i]);
		w = fmax(w, text_width(cr, s));
		free(s);
	}
	return w;
}

/* A point's coordinate for its tooltip: whole numbers (batch sizes) as they are, else value_text(). */
static char *xy_value_text(double v)
{
	if (v == floor(v) && fabs(v) < 1e7)
		return xasprintf("%s%.0f", minus(v), fabs(v));
	return value_text(v);
}

static void set_ref_line(cairo_t *cr, int dashed)
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
 * Whether a reference line of c passes through rectangle r of plot b:
 * sampled at r's two ends and middle (the lines are straight, or on log
 * axes monotonic curves, so that is near enough for placing a label).
 */
static int xy_refs_cross(const struct chart *c, const struct xyaxis *ax, const struct xyaxis *ay,
			 const struct box *b, const struct box *r)
{
	double pw = b->x1 - b->x0, ph = b->y1 - b->y0;
	double t0 = xy_t(ax->scale, ax->lo), t1 = xy_t(ax->scale, ax->hi);
	for (size_t i = 0; i < c->nrefs; i++) {
		const struct chart_refline *rl = &c->refs[i];
		if (!isfinite(rl->slope) || !isfinite(rl->intercept))
			continue;
		double lo = INFINITY, hi = -INFINITY;
		for (int k = 0; k < 3; k++) {
			double px = r->x0 + (r->x1 - r->x0) * k / 2;
			double x = xy_inv(ax->scale, t0 + (t1 - t0) * (px - b->x0) / pw), y = rl->slope * x + rl->intercept;
			if (!xy_ok(ay->scale, y))
				continue;
			double py = b->y1 - xy_frac(ay, y) * ph;
			lo = fmin(lo, py);
			hi = fmax(hi, py);
		}
		if (lo <= r->y1 && hi >= r->y0)
			return 1;
	}
	return 0;
}

/* An axis label with ", log scale" when the axis is one; owned by the caller. */
static char *xy_axis_title(const char *label, const struct xyaxis *a)
{
	char *l = clean_text(label);
	if (a->scale == CHART_SCALE_LINEAR || !l[0])
		return l;
	char *s = xasprintf("%s, log scale", l);
	free(l);
	return s;
}

/*
 * CHART_XY: points at real x values, one line (or markers only) per series,
 * reference lines y = a x + b across the plot under the data, a key beside
 * the plot (under it when narrow) with the chart's note below the key.
 */
/* Where point labels may go: inside the plot b, off the boxes already taken. */
struct label_room {
	const struct chart *c;
	const struct xyaxis *ax, *ay;
	struct box b;
	struct box *busy; /* markers and labels placed so far */
	size_t nbusy;
};

/*
 * Draws a point's label lab beside its marker at (px, py) in the first place
 * that stays in the plot and covers no marker or label: corners first
 * (up-left, up-right, down-right, down-left), then above, below, left,
 * right; first a place off the reference lines too, failing that one that
 * only crosses them. Returns 0 when there is none (nothing drawn).
 */
static int place_point_label(cairo_t *cr, const char *lab, double px, double py, struct label_room *pl)
{
	double lw = text_width(cr, lab), lh = line_height(cr);
	static const double dx[] = {-1, 0, 0, -1, -0.5, -0.5, -1, 0};
	static const double dy[] = {-1, -1, 0, 0, -1, 0, -0.5, -0.5};
	size_t nk = sizeof(dx) / sizeof(dx[0]);
	for (size_t kk = 0; kk < 2 * nk; kk++) {
		size_t k = kk % nk;
		double ox = dx[k] == -0.5 ? 0 : dx[k] < 0 ? -4 : 4;
		double oy = dy[k] == -0.5 ? 0 : dy[k] < 0 ? -(k < 4 ? 2 : 4) : (k < 4 ? 2 : 4);
		struct box r = {px + ox + dx[k] * lw, py + oy + dy[k] * lh, 0, 0};
		r.x1 = r.x0 + lw;
		r.y1 = r.y0 + lh;
		int ok = r.x0 >= pl->b.x0 + 1 && r.x1 <= pl->b.x1 && r.y0 >= pl->b.y0 && r.y1 <= pl->b.y1 - 1;
		for (size_t j = 0; ok && j < pl->nbusy; j++)
			ok = r.x1 <= pl->busy[j].x0 || r.x0 >= pl->busy[j].x1 || r.y1 <= pl->busy[j].y0 ||
			     r.y0 >= pl->busy[j].y1;
		if (ok && kk < nk)
			ok = !xy_refs_cross(pl->c, pl->ax, pl->ay, &pl->b, &r);
		if (!ok)
			continue;
		pl->busy[pl->nbusy++] = r;
		show_text(cr, lab, r.x0, r.y0, 0, 0);
		return 1;
	}
	return 0;
}

static void draw_xy(cairo_t *cr, const struct chart *c, const struct text *t, double w, double h)
{
	size_t nc = c->ncat, ns = c->nseries;
	enum chart_scale xsc = c->x_scale, ysc = c->y_scale;
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	size_t skipped = chart_xy_skipped(c);

	for (size_t i = 0; i < nc; i++)
		for (size_t s = 0; s < ns; s++) {
			double x = c->x_values[i], y = c->values[i * ns + s];
			if (!chart_xy_drawable(c, i, s))
				continue;
			xlo = fmin(xlo, x), xhi = fmax(xhi, x);
			ylo = fmin(ylo, y), yhi = fmax(yhi, y);
		}
	if (!(xlo <= xhi)) {
		draw_no_data(cr, t, w, h);
		return;
	}
	struct xyaxis ax, ay;
	xy_axis_make(&ax, xlo, xhi, xsc, c->from_zero);
	/* The reference lines stay inside the plot over the x axis's range. */
	for (size_t r = 0; r < c->nrefs; r++)
		for (int end = 0; end < 2; end++) {
			double y = c->refs[r].slope * (end ? ax.hi : ax.lo) + c->refs[r].intercept;
			if (xy_ok(ysc, y) && isfinite(c->refs[r].slope) && isfinite(c->refs[r].intercept))
				ylo = fmin(ylo, y), yhi = fmax(yhi, y);
		}
	xy_axis_make(&ay, ylo, yhi, ysc, c->from_zero);

	/* The key: series, then reference lines; the note and the skipped points under it. */
	size_t nkey = 0;
	char **names = xcalloc(ns + c->nrefs + 1, sizeof(*names));
	size_t *colours = xcalloc(ns + c->nrefs + 1, sizeof(*colours));
	int *swatch = xcalloc(ns + c->nrefs + 1, sizeof(*swatch));
	size_t *shape = xcalloc(ns + c->nrefs + 1, sizeof(*shape));
	for (size_t s = 0; s < ns; s++, nkey++) {
		names[nkey] = xstrdup(t->series[s]);
		colours[nkey] = look.series_colour[s];
		swatch[nkey] = c->markers_only ? SWATCH_MARK : SWATCH_LINE;
		shape[nkey] = s;
	}
	for (size_t r = 0; r < c->nrefs; r++) {
		if (!isfinite(c->refs[r].slope) || !isfinite(c->refs[r].intercept))
			continue; /* not drawn, so not listed */
		names[nkey] = clean_text(c->refs[r].label);
		swatch[nkey++] = c->refs[r].dashed ? SWATCH_DASH : SWATCH_SOLID;
	}
	struct legend lg;
	set_font(cr, TICK_PT, 0);
	double tick_h = line_height(cr);
	double top = fmax(title_bottom(cr, t, w), PAD + tick_h / 2);
	legend_layout_sw(cr, &lg, names, colours, nkey, w, h - top - PAD - 40, 2 * SWATCH, 0);
	if (lg.n) {
		lg.swatch = swatch;
		lg.shape = shape;
		swatch = NULL;
		shape = NULL;
	}
	int below = w < NARROW_PT;
	struct buf nb;
	buf_init(&nb);
	if (c->note)
		buf_adds(&nb, c->note);
	if (skipped)
		buf_printf(&nb, "%s%zu point%s not drawn:\n%s", nb.len ? "\n" : "", skipped, skipped == 1 ? "" : "s",
			   xsc == CHART_SCALE_LINEAR && ysc == CHART_SCALE_LINEAR ? "not finite"
										: "not finite, or \xe2\x89\xa4 0 on a log axis");
	size_t nnote = 0;
	char **note = NULL;
	set_font(cr, LEGEND_PT, 0);
	double note_lh = line_height(cr) * 1.2, note_w = 0;
	double note_max = below ? w - 2 * PAD : fmax(0.32 * w, lg.width);
	for (char *p = nb.data; nb.len && p;) {
		char *nl = strchr(p, '\n');
		char *line = nl ? xstrndup(p, (size_t)(nl - p)) : xstrdup(p);
		char *clean = clean_text(line);
		/* Under a narrow plot the lines run on, joined by ", ", while they fit the width. */
		size_t pl = nnote ? strlen(note[nnote - 1]) : 0;
		char *joined = below && nnote ? xasprintf("%s%s %s", note[nnote - 1],
							  pl && note[nnote - 1][pl - 1] == ':' ? "" : ",", clean)
					      : NULL;
		if (joined && text_width(cr, joined) <= note_max) {
			free(note[nnote - 1]);
			note[nnote - 1] = joined;
		} else {
			free(joined);
			note = xrealloc(note, (nnote + 1) * sizeof(*note));
			note[nnote++] = fit_text(cr, clean, note_max, (size_t)-1);
		}
		note_w = fmax(note_w, text_width(cr, note[nnote - 1]));
		free(line);
		free(clean);
		p = nl ? nl + 1 : NULL;
	}
	buf_release(&nb);
	double key_w = fmax(lg.n ? lg.width : 0, note_w);
	double key_h = (lg.n ? lg.height : 0) + (nnote ? (lg.n ? GAP : 0) + (double)nnote * note_lh : 0);
	int has_key = lg.n || nnote;

	char *xl = xy_axis_title(c->x_label ? c->x_label : "", &ax);
	char *yl = xy_axis_title(t->value_label, &ay);
	set_font(cr, AXIS_PT, 0);
	double axis_lh = line_height(cr);

	struct box b;
	b.y0 = top;
	b.y1 = h - PAD - (below && has_key ? key_h + 2 * GAP : 0) - (xl[0] ? axis_lh + GAP : 0) - tick_h - GAP -
	       TICK_LEN;
	set_font(cr, TICK_PT, 0);
	double ytick_w = xy_widest_tick(cr, &ay);
	char *first = xy_tick_label(&ax, ax.ticks[0]), *last = xy_tick_label(&ax, ax.ticks[ax.nticks - 1]);
	double first_w = text_width(cr, first), last_w = text_width(cr, last);
	free(first);
	free(last);
	b.x0 = PAD + (yl[0] ? axis_lh + 2 * GAP : 0) + ytick_w + GAP + TICK_LEN;
	b.x0 = fmax(b.x0, PAD + first_w / 2);
	b.x1 = w - PAD - (has_key && !below ? key_w + LEGEND_GAP : 0);
	if (!(has_key && !below))
		b.x1 -= last_w / 2;

	draw_title(cr, t, w, b.x0, b.x1);

	/* Grid and ticks: y left, x below; x labels thinned when they would touch. */
	double pw = b.x1 - b.x0, ph = b.y1 - b.y0;
	set_font(cr, TICK_PT, 0);
	for (size_t i = 0; i < ay.nticks; i++) {
		double y = b.y1 - xy_frac(&ay, ay.ticks[i]) * ph;
		grid_tick_y(cr, &b, y);
		char *s = xy_tick_label(&ay, ay.ticks[i]);
		show_text(cr, s, b.x0 - TICK_LEN - GAP, y, 1, 0.5);
		free(s);
	}
	double xtick_w = xy_widest_tick(cr, &ax);
	double spacing = ax.nticks > 1 ? fabs(xy_frac(&ax, ax.ticks[1]) - xy_frac(&ax, ax.ticks[0])) * pw : pw;
	size_t every = spacing >= xtick_w + 2 * GAP ? 1 : (size_t)ceil((xtick_w + 2 * GAP) / fmax(spacing, 1e-9));
	for (size_t i = 0; i < ax.nticks; i++) {
		double x = b.x0 + xy_frac(&ax, ax.ticks[i]) * pw;
		grid_tick_x(cr, &b, x);
		if (i % every)
			continue;
		char *s = xy_tick_label(&ax, ax.ticks[i]);
		show_text(cr, s, x, b.y1 + TICK_LEN + GAP, 0.5, 0);
		free(s);
	}

	/* Reference lines under the data, sampled along the axis so they bend correctly on log axes. */
	cairo_save(cr);
	cairo_rectangle(cr, b.x0, b.y0, pw, ph);
	cairo_clip(cr);
	for (size_t r = 0; r < c->nrefs; r++) {
		const struct chart_refline *rl = &c->refs[r];
		if (!isfinite(rl->slope) || !isfinite(rl->intercept))
			continue;
		set_ref_line(cr, rl->dashed);
		double t0 = xy_t(ax.scale, ax.lo), t1 = xy_t(ax.scale, ax.hi);
		int open = 0, steps = ax.scale == CHART_SCALE_LINEAR && ay.scale == CHART_SCALE_LINEAR ? 1 : 96;
		for (int k = 0; k <= steps; k++) {
			double x = xy_inv(ax.scale, t0 + (t1 - t0) * k / steps), y = rl->slope * x + rl->intercept;
			if (!xy_ok(ay.scale, y)) {
				open = 0;
				continue;
			}
			double px = b.x0 + xy_frac(&ax, x) * pw, py = b.y1 - xy_frac(&ay, y) * ph;
			/* Far outside the plot cairo's fixed point would overflow; the clip hides the rest. */
			py = fmin(fmax(py, b.y0 - 4 * ph), b.y1 + 4 * ph);
			if (open)
				cairo_line_to(cr, px, py);
			else
				cairo_move_to(cr, px, py);
			open = 1;
		}
		cairo_stroke(cr);
	}
	cairo_set_dash(cr, NULL, 0, 0);
	cairo_restore(cr);

	/*
	 * The series: lines through their drawable points in category order,
	 * then markers and tooltips. Point labels go where they touch no marker
	 * and no other label, or are left out; the tooltip still names the point.
	 */
	struct label_room pl = {c, &ax, &ay, b, xcalloc(nc * ns * 2 + 1, sizeof(*pl.busy)), 0};
	for (size_t s = 0; s < ns; s++)
		for (size_t i = 0; i < nc; i++) {
			double x = c->x_values[i], y = c->values[i * ns + s];
			if (!chart_xy_drawable(c, i, s))
				continue;
			double px = b.x0 + xy_frac(&ax, x) * pw, py = b.y1 - xy_frac(&ay, y) * ph;
			pl.busy[pl.nbusy++] = (struct box){px - 3, py - 3, px + 3, py + 3};
		}
	for (size_t s = 0; s < ns; s++) {
		cairo_save(cr);
		set_colour(cr, look.series_colour[s]);
		cairo_set_line_width(cr, 1.2);
		int open = 0;
		for (size_t i = 0; i < nc && !c->markers_only; i++) {
			double x = c->x_values[i], y = c->values[i * ns + s];
			if (!chart_xy_drawable(c, i, s)) {
				/* A sparse series runs on past an x it has no point at. */
				open = open && c->sparse && isnan(y);
				continue;
			}
			double px = b.x0 + xy_frac(&ax, x) * pw, py = b.y1 - xy_frac(&ay, y) * ph;
			if (open)
				cairo_line_to(cr, px, py);
			else
				cairo_move_to(cr, px, py);
			open = 1;
		}
		cairo_stroke(cr);
		for (size_t i = 0; i < nc; i++) {
			double x = c->x_values[i], y = c->values[i * ns + s];
			if (!chart_xy_drawable(c, i, s))
				continue;
			double px = b.x0 + xy_frac(&ax, x) * pw, py = b.y1 - xy_frac(&ay, y) * ph;
			set_colour(cr, look.series_colour[s]);
			marker(cr, px, py, s);
			char *xt = xy_value_text(x), *yt = xy_value_text(y);
			add_tip(px - 3, py - 3, 6, 6, xasprintf("%s, %s: x = %s, y = %s", t->cats[i], t->series[s], xt, yt));
			free(xt);
			free(yt);
			if (s || !c->label_points || !t->cats[i][0])
				continue;
			set_font(cr, LABEL_PT, 0);
			set_grey(cr, 0.2);
			/* The whole label where it fits (a run's GPU count is near its end), else a shorter one. */
			char *lab = fit_text(cr, t->cats[i], 0.45 * pw, MAX_LABEL_CHARS);
			if (!place_point_label(cr, lab, px, py, &pl)) {
				free(lab);
				lab = fit_text(cr, t->cats[i], 0.2 * pw, MAX_LABEL_CHARS);
				place_point_label(cr, lab, px, py, &pl);
			}
			free(lab);
		}
		cairo_restore(cr);
	}

	free(pl.busy);

	/* The frame's left and bottom edges. */
	set_grey(cr, 0.2);
	cairo_set_line_width(cr, 0.6);
	cairo_move_to(cr, b.x0, b.y0 - 0.3);
	cairo_line_to(cr, b.x0, b.y1 + 0.3);
	cairo_move_to(cr, b.x0 - 0.3, b.y1);
	cairo_line_to(cr, b.x1, b.y1);
	cairo_stroke(cr);

	/* Axis labels. */
	set_font(cr, AXIS_PT, 0);
	set_grey(cr, 0);
	if (xl[0])
		draw_x_title(cr, xl, b.x0, b.x1, b.y1 + TICK_LEN + GAP + tick_h + GAP, w);
	draw_value_label_left(cr, yl, &b, ytick_w);

	/* The key and the note. */
	double kx = below ? PAD : b.x1 + LEGEND_GAP, ky = below ? h - PAD - key_h : b.y0;
	if (lg.n)
		legend_draw(cr, &lg, kx, ky);
	set_font(cr, LEGEND_PT, 0);
	set_grey(cr, 0.15);
	for (size_t i = 0; i < nnote; i++)
		show_text(cr, note[i], kx, ky + (lg.n ? lg.height + GAP : 0) + (double)i * note_lh, 0, 0);

	for (size_t i = 0; i < nnote; i++)
		free(note[i]);
	free(note);
	for (size_t i = 0; i < nkey; i++)
		free(names[i]);
	free(names);
	free(colours);
	free(swatch);
	free(shape);
	legend_release(&lg);
	free(xl);
	free(yl);
}

/* Draws c onto cr, whose user space is w x h points. */
static void draw_chart(cairo_t *cr, const struct chart *c, double w, double h)
{
	struct text t;
	cairo_font_options_t *fo = cairo_font_options_create();

	/*
	 * Unhinted metrics make text measure the same on every surface, so the
	 * PNG, PDF and SVG share one layout.
	 */
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	cairo_set_font_options(cr, fo);
	cairo_font_options_destroy(fo);

	t.title = clean_text(c->title);
	t.value_label = clean_text(c->value_label);
	t.cats = xcalloc(c->ncat, sizeof(*t.cats));
	t.series = xcalloc(c->nseries, sizeof(*t.series));
	for (size_t i = 0; i < c->ncat; i++)
		t.cats[i] = clean_text(c->categories[i]);
	for (size_t i = 0; i < c->nseries; i++) {
		char *shown = chart_display_name(c->series[i]);
		t.series[i] = clean_text(shown);
		free(shown);
	}
	look.lines = c->kind == CHART_LINE || c->kind == CHART_XY;
	look.series_colour = series_colours(c);

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);

	if (!c->ncat || !c->nseries)
		draw_no_data(cr, &t, w, h);
	else if (c->kind == CHART_HBAR)
		draw_hbar(cr, c, &t, w, h);
	else if (c->kind == CHART_XY)
		draw_xy(cr, c, &t, w, h);
	else
		draw_stacked(cr, c, &t, w, h);

	for (size_t i = 0; i < c->ncat; i++)
		free(t.cats[i]);
	for (size_t i = 0; i < c->nseries; i++)
		free(t.series[i]);
	free(t.cats);
	free(t.series);
	free(t.title);
	free(t.value_label);
	free(look.series_colour);
	look.series_colour = NULL;
}

/*
 * Every surface writes into memory: a figure is at most a few hundred kB,
 * the file is then written in one place, and a drawing that fails never
 * touches the disk.
 */
static cairo_status_t sink_write(void *closure, const unsigned char *data, unsigned int len)
{
	buf_add(closure, data, len);
	return CAIRO_STATUS_SUCCESS;
}

/* The PNG buffers of this thread, kept from figure to figure (png.h); chart_render_release frees them. */
static _Thread_local struct png_scratch png_scratch;

void chart_render_release(void)
{
	png_scratch_release(&png_scratch);
}

/*
 * Returns the surface that fmt draws on, w x h points (PNG: pixels at dpi);
 * SVG and PDF stream into out as they are drawn, a PNG only when written.
 * The caller checks cairo_surface_status() and destroys it.
 */
static cairo_surface_t *open_surface(enum fmt fmt, struct buf *out, const char *title, double w,
				     double h, double dpi)
{
	cairo_surface_t *s;

	switch (fmt) {
	case FMT_SVG:
		s = cairo_svg_surface_create_for_stream(sink_write, out, w, h);
		cairo_svg_surface_restrict_to_version(s, CAIRO_SVG_VERSION_1_1);
		/* Sized in pt, so the figure prints at its real size. */
		cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PT);
		break;
	case FMT_PDF:
		s = cairo_pdf_surface_create_for_stream(sink_write, out, w, h);
		cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATE_DATE, PDF_DATE);
		cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "perfstudy");
		if (title[0])
			cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE, title);
		break;
	case FMT_PNG:
	default: {
		/*
		 * Opaque white background: RGB24 keeps the PNG free of an alpha
		 * channel. The pixels are the thread's png_scratch, as the last
		 * figure left them: draw_chart paints every pixel white first.
		 */
		int pw = (int)lround(w / 72 * dpi), ph = (int)lround(h / 72 * dpi);
		int stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, pw);
		if (pw <= 0 || ph <= 0 || pw > 32767 || ph > 32767 || stride <= 0) {
			/* Beyond cairo's image sizes: its own surface, in its error state. */
			s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, pw, ph);
			break;
		}
		size_t n = (size_t)ph * (size_t)stride;
		unsigned char *px = png_scratch_take(&png_scratch.pixels, &png_scratch.pixels_cap, n);
		s = cairo_image_surface_create_for_data(px, CAIRO_FORMAT_RGB24, pw, ph, stride);
		break;
	}
	}
	return s;
}

/*
 * cairo names the SVG's page group after a process-wide surface counter,
 * "surface1" for the first surface a process makes and "surface35" for a
 * later one; nothing refers to the id, so it is pinned to keep the bytes of
 * a figure independent of what was drawn before it.
 */
static void svg_pin_surface_id(struct buf *svg)
{
	static const char key[] = "<g id=\"surface";
	char *p = strstr(svg->data, key);
	if (!p)
		return;
	char *digits = p + sizeof(key) - 1, *end = digits;
	while (*end >= '0' && *end <= '9')
		end++;
	if (end == digits || end[0] != '"')
		return;
	size_t tail = svg->len - (size_t)(end - svg->data);
	*digits = '1';
	memmove(digits + 1, end, tail + 1);
	svg->len -= (size_t)(end - digits) - 1;
}

/* Appends s to b escaped for XML text and attribute values. */
static void xml_escape(struct buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			buf_adds(b, "&amp;");
			break;
		case '<':
			buf_adds(b, "&lt;");
			break;
		case '>':
			buf_adds(b, "&gt;");
			break;
		case '"':
			buf_adds(b, "&quot;");
			break;
		case '\'':
			buf_adds(b, "&#39;");
			break;
		default:
			buf_addc(b, *s);
		}
	}
}

/*
 * cairo's SVG surface cannot write <title> elements, so they are added to
 * its text here: the chart's title as the document's <title> right after
 * the <svg> start tag, and before </svg> one transparent rectangle per
 * tooltip (a bar, a label) whose <title> browsers show on hover, with the
 * full kernel name the drawn label shortened. Every text went through
 * clean_text() (valid UTF-8, no control characters, which XML 1.0 refuses)
 * and is escaped here, so a name from a trace cannot become markup.
 */
static void svg_add_titles(struct buf *svg, const char *title)
{
	char *open = strstr(svg->data, "<svg");
	char *open_end = open ? strchr(open, '>') : NULL;
	char *close = open_end ? strstr(open_end, "</svg>") : NULL;
	if (!close)
		return;
	struct buf out;
	buf_init(&out);
	buf_add(&out, svg->data, (size_t)(open_end + 1 - svg->data));
	if (title[0]) {
		buf_adds(&out, "\n<title>");
		xml_escape(&out, title);
		buf_adds(&out, "</title>");
	}
	buf_add(&out, open_end + 1, (size_t)(close - open_end - 1));
	if (look.ntips) {
		buf_adds(&out, "<g fill=\"#fff\" fill-opacity=\"0\">\n");
		for (size_t i = 0; i < look.ntips; i++) {
			const struct tip *tp = &look.tips[i];
			buf_printf(&out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"><title>",
				   tp->x, tp->y, tp->w, tp->h);
			xml_escape(&out, tp->text);
			buf_adds(&out, "</title></rect>\n");
		}
		buf_adds(&out, "</g>\n");
	}
	buf_adds(&out, close);
	buf_release(svg);
	*svg = out;
}

static void tips_release(void)
{
	for (size_t i = 0; i < look.ntips; i++)
		free(look.tips[i].text);
	free(look.tips);
	look.tips = NULL;
	look.ntips = look.cap_tips = 0;
}

/* Draws c into out in fmt; returns cairo's status. */
static cairo_status_t render(const struct chart *c, enum fmt fmt, double w, double h, double dpi,
			     struct buf *out)
{
	char *title = clean_text(c->title);
	cairo_surface_t *surface = open_surface(fmt, out, title, w, h, dpi);
	cairo_status_t st = cairo_surface_status(surface);

	if (!st) {
		cairo_t *cr = cairo_create(surface);
		if (fmt == FMT_PNG)
			cairo_scale(cr, dpi / 72, dpi / 72);
		draw_chart(cr, c, w, h);
		st = cairo_status(cr);
		cairo_destroy(cr);
	}
	if (!st) {
		if (fmt == FMT_PNG) {
			cairo_surface_flush(surface);
			st = png_encode_rgb24_with(&png_scratch, cairo_image_surface_get_data(surface),
						   cairo_image_surface_get_width(surface),
					      cairo_image_surface_get_height(surface),
					      cairo_image_surface_get_stride(surface), dpi, out) < 0
				     ? CAIRO_STATUS_NO_MEMORY
				     : CAIRO_STATUS_SUCCESS;
		} else {
			cairo_surface_finish(surface);
			st = cairo_surface_status(surface);
		}
	}
	cairo_surface_destroy(surface);
	free(title);
	return st;
}

/* Writes data to path through path.tmp and a rename; returns 0 or -1 after reporting. */
static int write_file(const char *path, const struct buf *data)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "wb");
	int ret = -1;

	if (!f) {
		diag_syserror(path, "cannot write figure: %s", strerror(errno));
		goto out;
	}
	errno = 0;
	if (fwrite(data->data, 1, data->len, f) != data->len) {
		diag_syserror(path, "cannot write figure: %s", strerror(errno ? errno : EIO));
		fclose(f);
		unlink(tmp);
		goto out;
	}
	/* A full disk often shows only when the last block is flushed. */
	if (fclose(f)) {
		diag_syserror(path, "cannot write figure: %s", strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path)) {
		diag_syserror(path, "cannot write figure: %s", strerror(errno));
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	free(tmp);
	return ret;
}

static int write_one(const struct chart *c, const char *dir, enum fmt fmt, double w, double h,
		     double dpi)
{
	char *path = xasprintf("%s/%s.%s", dir, c->name, fmt_ext[fmt]);
	struct buf out;
	int ret = -1;

	buf_init(&out);
	look.want_tips = fmt == FMT_SVG;
	cairo_status_t st = render(c, fmt, w, h, dpi, &out);
	look.want_tips = 0;
	if (st) {
		diag_syserror(path, "cannot write figure: %s", cairo_status_to_string(st));
		tips_release();
		goto out;
	}
	if (fmt == FMT_SVG) {
		svg_pin_surface_id(&out);
		char *title = clean_text(c->title);
		svg_add_titles(&out, title);
		free(title);
		tips_release();
	}
	ret = write_file(path, &out);
out:
	buf_release(&out);
	free(path);
	return ret;
}

static int valid_name(const char *s)
{
	if (!s[0])
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

static double or_default(double v, double def)
{
	return isfinite(v) && v > 0 ? v : def;
}

int chart_write(const struct chart *c, const char *dir, const struct chart_style *style)
{
	if (!valid_name(c->name)) {
		diag_error(NULL, "invalid figure name '%s': use [a-z0-9_-]", c->name);
		return -1;
	}
	double w, h;
	chart_size(style, &w, &h);
	w *= 72;
	h *= 72;
	double dpi = or_default(style ? style->dpi : 0, DEFAULT_DPI);
	memset(&look, 0, sizeof(look));
	look.style = style;
	if (style) {
		look.font = style->font && style->font[0] ? style->font : NULL;
		look.scale = or_default(style->font_size, BASE_PT) / BASE_PT;
		look.hatching = style->hatching;
		look.log_scale = style->log_scale;
	}
	for (enum fmt f = FMT_SVG; f <= FMT_PNG; f++)
		if (write_one(c, dir, f, w, h, dpi))
			return -1;
	return 0;
}
