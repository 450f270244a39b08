/*
 * chart_draw.h: what the files that draw a chart share, private to chart/.
 *
 * Sizes in points, the structures of a drawing (the chart's cleaned text,
 * a value axis, the plot box, the key, the category labels), the per-thread
 * look of the chart being drawn, the drawing each kind of chart holds
 * (struct chart_drawing), and the helpers of colour.c, text.c, layout.c and
 * catlabels.c that the draw function of each kind (draw_*.c) calls. Only
 * chart/ includes it; everyone else sees chart.h.
 *
 * The layout is computed from measured text (cairo_text_extents), never
 * from guessed character widths: margins grow to hold the tick labels, the
 * rotated axis label, the category labels and the key, and labels are
 * shortened in the middle when they would not fit. Figures go into papers,
 * so sizes are in points, the smallest text is 7 pt and the colours are the
 * Okabe-Ito palette, which stays readable for colour-blind readers and in
 * greyscale print.
 */
#ifndef PERFSTUDY_CHART_DRAW_H
#define PERFSTUDY_CHART_DRAW_H

#include <cairo.h>
#include <stddef.h>

#include "chart/chart.h"

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
 * Colours past the palette: idle time is light grey (no work), and runs
 * are COLOUR_RUN + their position among the chart's runs, black to grey
 * (run_grey()), so that no palette colour ever stands for a run.
 */
#define COLOUR_IDLE CHART_COLOUR_IDLE
#define COLOUR_RUN 200
/* Past the palette for a key that needs more (colour.c): COLOUR_EXTRA + i, i < NCOLOUR_EXTRA. */
#define COLOUR_EXTRA CHART_COLOUR_EXTRA
#define NCOLOUR_EXTRA 5

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
	char *label; /* the label drawn for it, or NULL: the SVG's data-label */
	char *name;  /* the category name that label shortens: data-name */
};

/*
 * How the chart being drawn looks: font, scale, colours, hatching, and where
 * tooltips go (SVG only). A thread draws one chart at a time, so this is set
 * by draw_chart() for the drawing and read by the helpers below; it keeps
 * the style out of every function's arguments. One per thread, so that a
 * program may draw on several (perfstudy's chart_write_many() uses processes).
 */
struct look {
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
};
extern _Thread_local struct look look;

/* Rectangle of the plot area, in points from the top left. */
struct box {
	double x0, y0, x1, y1;
};

/* The legend of a chart: its entries in columns, laid out before the plot area is known. */
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
 * The key block of every kind of chart: the legend with a note under it
 * (a fit's numbers, series too small to see, points not drawn), beside the
 * plot, or under it on a figure narrower than NARROW_PT. The draw function
 * lays out the legend, adds the note, asks key_room_right/key_room_below
 * for the space to leave, and draws it with key_draw.
 */
struct key {
	struct legend lg;
	int below;       /* under the plot, not beside it */
	char **note;     /* the note's lines as drawn (owned) */
	size_t nnote;
	char *note_tip;  /* the whole note as the SVG tooltip over it (owned), or NULL */
	double note_lh, note_w;
	double width, height; /* the legend and the note together */
};

/* How the category labels under a chart of columns (draw_columns.c) sit. */
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

/*
 * colour.c. Colours are indices: a palette position, COLOUR_IDLE, or
 * COLOUR_RUN + a run's position. colour_of returns a name's colour (the
 * style's groups, then its fixed colours), else fallback; series_colours
 * a new array of each series' colour (caller frees) and sets look.nruns.
 */
size_t colour_of(const char *key, size_t fallback);
size_t *series_colours(const struct chart *c);
void set_grey(cairo_t *cr, double g);
void set_colour(cairo_t *cr, size_t colour);
/* A palette colour (half white where pale) at opacity alpha: a bar drawn as dense as it is busy. */
void set_colour_alpha(cairo_t *cr, size_t colour, int pale, double alpha);
void fill_rect(cairo_t *cr, double x, double y, double w, double h, size_t colour);

/*
 * text.c. Sizes are the *_PT above, scaled by the style; functions that
 * return char * return a new string the caller frees.
 */
char *clean_text(const char *s);
/*
 * No text is fitted from more than CHART_TEXT_MAX characters: longer ones
 * are first shortened in the middle to that (no figure line holds a tenth
 * of it). Fitting measured one candidate per character (a 10 KB kernel
 * name: 9.7 s; 50 KB: no end); with the cap and fit_text's binary search a
 * label costs a few dozen measurements of at most 512 characters.
 */
#define CHART_TEXT_MAX 512
void set_font(cairo_t *cr, double size, int bold);
double text_width(cairo_t *cr, const char *s);
double line_height(cairo_t *cr);
char *fit_text(cairo_t *cr, const char *s, double max_w, size_t max_chars);
/* labels.c: labels shortened together (whole words, the shared part first, all different). */
int label_boundary(const char *s, size_t i);
char **fit_labels(cairo_t *cr, const char *const *cats, size_t n, double max_w, size_t max_chars);
void free_labels(char **labels, size_t n);
void show_text(cairo_t *cr, const char *s, double x, double y, double halign, double valign);
void show_rotated(cairo_t *cr, const char *s, double x, double y, double angle, int right);
size_t wrap_text(cairo_t *cr, const char *text, double max_w, char ***out);
const char *middle_space(const char *s, int after_comma);
double title_bottom(cairo_t *cr, const struct text *t, double w);
void draw_title(cairo_t *cr, const struct text *t, double w, double x0, double x1);
void draw_no_data(cairo_t *cr, const struct text *t, double w, double h);
size_t y_title_lines(cairo_t *cr, const char *label, double len);
void draw_y_title(cairo_t *cr, const char *label, const struct box *b, double x_left, size_t max_lines);
void draw_value_label_left(cairo_t *cr, const char *label, const struct box *b, double tick_w);
void draw_x_title(cairo_t *cr, const char *label, double x0, double x1, double y, double w);

/* layout.c: value axes and their labels (char * results are the caller's). */
void axis_nice(struct axis *a, double lo, double hi);
void axis_log(struct axis *a, double lo, double hi);
int want_log(double lo, double hi, double minpos);
double axis_frac(const struct axis *a, double v);
double axis_tick(const struct axis *a, size_t i);
double axis_y(const struct axis *a, const struct box *b, double v);
const char *minus(double v);
char *power_of_ten(int e);
char *axis_label(const struct axis *a, double v);
char *value_text(double v);
char *value_title(const struct text *t, const struct axis *a);
double axis_max_label_width(cairo_t *cr, const struct axis *a);
void draw_value_grid_y(cairo_t *cr, const struct axis *a, const struct box *b);
void grid_tick_y(cairo_t *cr, const struct box *b, double y);
void grid_tick_x(cairo_t *cr, const struct box *b, double x);

/* layout.c: marks on the plot. */
double finite_or_0(double v);
void spread_extent(const struct chart *c, size_t i, double *lo, double *hi);
void draw_spread(cairo_t *cr, int vertical, double at, double cap, const double p[4]);
void draw_spreads_up(cairo_t *cr, const struct chart *c, const struct box *b, double slot, double scale,
		     double y_zero, double cap);
void marker(cairo_t *cr, double x, double y, size_t k);
/* marker() with size times its radius. */
void marker_sized(cairo_t *cr, double x, double y, size_t k, double size);
void set_ref_line(cairo_t *cr, int dashed);
void line_point(cairo_t *cr, int *open, double x, double y);

/* layout.c: the key (struct key above). */
void legend_layout_sw(cairo_t *cr, struct legend *lg, char *const *names, const size_t *colours, size_t n,
		      double w, double avail_h, double sw, int always);
void legend_layout(cairo_t *cr, struct legend *lg, char *const *names, const size_t *colours, size_t n,
		   double w, double avail_h);
void key_init(struct key *k, double w);
void key_note_wrapped(cairo_t *cr, struct key *k, char *text, double max_w);
void key_note_lines(cairo_t *cr, struct key *k, const char *text, double max_w);
void key_measure(struct key *k);
int key_shown(const struct key *k);
double key_room_right(const struct key *k);
double key_room_below(const struct key *k);
void key_draw(cairo_t *cr, const struct key *k, double x, double y);
void key_release(struct key *k);

/* catlabels.c */
void catlabels_layout(cairo_t *cr, struct catlabels *cl, const struct text *t, size_t n, double slot, double max_below);
void catlabels_draw(cairo_t *cr, const struct catlabels *cl, const struct text *t, const struct box *b, double slot,
		    size_t n);
void catlabels_release(struct catlabels *cl, size_t n);

/*
 * draw_columns.c: the frame of a chart whose categories run along the x
 * axis. A kind of it says how its value axis and key differ and draws its
 * bars or lines (plot) onto the plot box p->b, after the grid and before
 * the axis lines and labels; a kind whose series are lines (chart_kind's
 * lines) gets a reference series and every series keyed by its line.
 */
struct columns {
	struct box b;   /* the plot area */
	struct axis a;  /* the value axis */
	double slot;    /* width of a category's slot */
	double scale;   /* points per unit of value */
	double y_zero;  /* the height of value 0 (the bottom on a log axis) */
	size_t ref;     /* 1 + the reference series of a line chart; 0: none */
};
struct columns_kind {
	int stack;      /* series add up (stacked bars), else each value stands alone */
	int spread;     /* each category's spread (chart.h) widens the value axis */
	int log_ok;     /* the value axis may be logarithmic (want_log) */
	void (*plot)(cairo_t *cr, const struct chart *c, const struct text *t, const struct columns *p);
};
void draw_columns(cairo_t *cr, const struct chart *c, const struct text *t, double w, double h,
		  const struct columns_kind *kind);

/*
 * How a kind of chart (struct chart_kind, chart.h) is drawn; its file
 * (draw_<kind>.c) defines it with the kind. draw lays out and draws c,
 * whose text is t, on a w x h point figure; render.c calls it for a chart
 * with categories and series, after setting look (colours, look.lines).
 */
typedef void draw_fn(cairo_t *cr, const struct chart *c, const struct text *t, double w, double h);
struct chart_drawing {
	draw_fn *draw;
};

/* render.c: an SVG tooltip over a rectangle; takes text (freed when the surface keeps none). */
void add_tip(double x, double y, double w, double h, char *text);
void add_label_tip(double x, double y, double w, double h, char *text, const char *label, const char *name);

#endif
