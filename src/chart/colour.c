/*
 * colour.c: the colours of a figure. The Okabe-Ito palette for categories
 * of time, greys for runs, one colour per series chosen once per chart
 * (series_colours), and bars filled in a colour with its hatch pattern.
 */
#include "chart/chart_draw.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "util/xalloc.h"

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
 * Colours past the palette, COLOUR_EXTRA + i, for a figure whose key needs
 * more than the palette has (the step timeline: the GPU's parts and the
 * host's phases in one key): Paul Tol's muted scheme's colours least like
 * any of Okabe & Ito's (his cyan, sand and green are near their sky blue,
 * yellow and bluish green), no one of them a paler or darker copy of another.
 */
static const double extra[][3] = {
	{0x99 / 255.0, 0x99 / 255.0, 0x33 / 255.0}, /* olive */
	{0x88 / 255.0, 0x22 / 255.0, 0x55 / 255.0}, /* wine */
	{0x33 / 255.0, 0x22 / 255.0, 0x88 / 255.0}, /* indigo */
	{0xCC / 255.0, 0x66 / 255.0, 0x77 / 255.0}, /* rose */
	{0x44 / 255.0, 0xAA / 255.0, 0x99 / 255.0}, /* teal */
};
_Static_assert(sizeof(extra) / sizeof(extra[0]) == NCOLOUR_EXTRA, "NCOLOUR_EXTRA is extra's length");
_Static_assert(COLOUR_EXTRA == NPALETTE, "the extra colours follow the palette's");

/*
 * The colour of a category of time: its position among the style's groups,
 * else its fixed colour in the style's colours (the analyses' names,
 * analyze/lib/colours.c), else fallback.
 */
size_t colour_of(const char *key, size_t fallback)
{
	const struct chart_style *st = look.style;
	if (!key)
		return fallback;
	for (size_t i = 0; st && i < st->ngroups; i++)
		if (st->groups[i] && !strcmp(st->groups[i], key))
			return i % NPALETTE;
	for (size_t i = 0; st && i < st->ncolours; i++)
		if (st->colours[i].name && !strcmp(st->colours[i].name, key))
			return st->colours[i].colour;
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
 * shares its colour with a known neighbour, nor with a shaded band (the
 * bands' key lists them beside the series). Lines skip yellow. Past the
 * palette's colours, a chart with bands takes the extra colours; then
 * they repeat by position. A bar chart of one series
 * without keys is one grey. Sets look.nruns. Caller frees.
 */
/* The first extra colour from i on that used (the palette's flags, then the extras') does not mark. */
static size_t first_free_extra(const int *used, size_t i)
{
	while (i < NCOLOUR_EXTRA && used[NPALETTE + i])
		i++;
	return i;
}

size_t *series_colours(const struct chart *c)
{
	size_t *col = xcalloc(c->nseries + 1, sizeof(*col));
	int used[NPALETTE + NCOLOUR_EXTRA] = {0}; /* the palette's, then the extra colours (COLOUR_EXTRA + i) */
	int keyed = 0;
	for (size_t i = 0; i < c->ncat; i++)
		keyed |= c->cat_keys[i] != NULL;
	int plain = c->nseries == 1 && !keyed && !c->kind->lines;
	look.nruns = 0;
	for (size_t i = 0; i < c->nseries; i++) {
		if (i < c->nlike && c->like[i]) {
			col[i] = SIZE_MAX - 1; /* another series' colour, set below */
			continue;
		}
		if (plain || c->entity_series || is_run(c->series[i])) {
			col[i] = COLOUR_RUN + look.nruns++;
			continue;
		}
		col[i] = colour_of(c->series[i], SIZE_MAX);
		if (col[i] < NPALETTE + NCOLOUR_EXTRA)
			used[col[i]] = 1;
	}
	if (look.lines)
		used[3] = 1; /* yellow: a line or marker in it is hard to see on white */
	/* the shaded bands' colours (a memory timeline's phases): no series drawn in one of them */
	for (size_t i = 0; i < c->nbands; i++) {
		size_t bc = colour_of(c->bands[i].key, 7);
		if (bc < NPALETTE + NCOLOUR_EXTRA)
			used[bc] = 1;
	}
	size_t next = 0, more = 0;
	for (size_t i = 0; i < c->nseries; i++) {
		if (col[i] != SIZE_MAX)
			continue;
		while (next < NPALETTE && used[next])
			next++;
		if (next < NPALETTE) {
			col[i] = next;
			used[next] = 1;
		} else if (c->nbands && (more = first_free_extra(used, more)) < NCOLOUR_EXTRA) {
			col[i] = COLOUR_EXTRA + more; /* past the bands' colours: the extra ones no band has */
			used[NPALETTE + more++] = 1;
		} else {
			col[i] = i % NPALETTE;
		}
	}
	/* a series drawn like another takes its colour (one that is itself like another: the first colour) */
	for (size_t i = 0; i < c->nseries && i < c->nlike; i++) {
		if (!c->like[i])
			continue;
		size_t t = c->like[i] - 1;
		col[i] = t < c->nseries && !(t < c->nlike && c->like[t]) ? col[t] : 0;
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
	if (colour >= COLOUR_EXTRA && colour < COLOUR_EXTRA + NCOLOUR_EXTRA)
		memcpy(rgb, extra[colour - COLOUR_EXTRA], 3 * sizeof(double));
	else
		memcpy(rgb, palette[colour % NPALETTE], 3 * sizeof(double));
}

/* Which hatch pattern (fill_rect) a colour takes: the palette's own, a run's by its position. */
static size_t hatch_of(size_t colour)
{
	if (colour == COLOUR_IDLE)
		return 0;
	return (colour >= COLOUR_RUN ? colour - COLOUR_RUN : colour) % NPALETTE;
}

void set_grey(cairo_t *cr, double g)
{
	cairo_set_source_rgb(cr, g, g, g);
}

void set_colour(cairo_t *cr, size_t colour)
{
	double rgb[3];
	colour_rgb(colour, rgb);
	cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
}

void set_colour_alpha(cairo_t *cr, size_t colour, int pale, double alpha)
{
	double rgb[3];
	colour_rgb(colour, rgb);
	for (int i = 0; pale && i < 3; i++)
		rgb[i] = (rgb[i] + 1) / 2; /* half white, as a pale bar's fill */
	cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], alpha);
}

/*
 * Fills a rectangle in a palette colour and, with hatching on, lays the
 * colour's own line pattern over it: colour 0 plain, then /, \, -, |, x, +
 * and dots, so bars stay apart when printed in grey. Lines are dark on light
 * colours and white on the dark ones.
 */
void fill_rect(cairo_t *cr, double x, double y, double w, double h, size_t colour)
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
