/*
 * chart.h: the chart model, and the one call that draws it.
 *
 * A chart is data only: categories (one bar each), series (the stacked
 * segments, or one series for a plain bar chart), values, labels; an x-y
 * chart (CHART_XY) adds each category's x value, axis scales and
 * reference lines. Analyses
 * and the build command fill it from tables without knowing anything of
 * cairo; the files declared in chart_draw.h (render.c and the draw_*.c of
 * each kind of chart) are the only ones that include cairo and draw a
 * model onto a surface. chart_write() writes the same drawing as SVG, PDF and
 * PNG, so every figure comes in every format.
 *
 * A chart owns every string and array in it; chart_free() releases them.
 */
#ifndef PERFSTUDY_CHART_H
#define PERFSTUDY_CHART_H

#include <stddef.h>

/*
 * A kind of chart: what the model and the renderer ask of it. Each kind's
 * own file, src/chart/draw_<kind>.c, defines its one struct chart_kind
 * (these properties and its drawing); the list below names each for the
 * analyses (chart_new(CHART_HBAR, ...)). Nothing else in chart/ names a
 * kind: adding one is its file and its entry here. The drawing (struct
 * chart_drawing, chart_draw.h) is opaque here, so the model stays free of
 * cairo.
 */
struct chart_drawing;
struct chart_kind {
	const char *name;  /* "stacked bar", "x-y", ... */
	/*
	 * 1: series are lines with markers, not bars: keyed by a line and its
	 * marker, no yellow, runs in darker greys, and a chart of one series
	 * keeps its colour (a bar chart of one series without keys is grey).
	 */
	int lines;
	/*
	 * 1: categories are points at real x values (x_values) and x_label
	 * titles that quantity, not the categories: chart_use_run_labels
	 * never calls it "run".
	 */
	int points;
	const struct chart_drawing *drawing;
};
/* vertical bars, one per category, a segment per series stacked up from 0 (draw_stacked.c) */
extern const struct chart_kind chart_kind_stacked_bar;
#define CHART_STACKED_BAR (&chart_kind_stacked_bar)
/* horizontal bars, one per category, series 0 only (draw_hbar.c) */
extern const struct chart_kind chart_kind_hbar;
#define CHART_HBAR (&chart_kind_hbar)
/* vertical bars side by side, one per series, in each category's slot (draw_grouped.c) */
extern const struct chart_kind chart_kind_grouped_bar;
#define CHART_GROUPED_BAR (&chart_kind_grouped_bar)
/* one line per series over the categories, evenly spaced; NaN: no point (draw_lines.c) */
extern const struct chart_kind chart_kind_line;
#define CHART_LINE (&chart_kind_line)
/* points at real x values (x_values[cat]), a line or markers per series (draw_xy.c) */
extern const struct chart_kind chart_kind_xy;
#define CHART_XY (&chart_kind_xy)

/*
 * lanes (the categories, e.g. "rank 3") of sub-rows (the series, e.g.
 * "host", "kernels") holding bars over a time axis (chart_add_span), marks
 * hatched over a bar (a wait) and one path drawn across the lanes
 * (chart_add_path_point); values: each lane and row's busy time (draw_timeline.c)
 */
extern const struct chart_kind chart_kind_timeline;
#define CHART_TIMELINE (&chart_kind_timeline)

/* How a CHART_XY axis maps values: linear, or log with ticks at powers of 2 or of 10. */
enum chart_scale {
	CHART_SCALE_LINEAR,
	CHART_SCALE_LOG2,  /* ticks at 16, 32, 64, ...: for doubling sweeps (batch sizes, GPUs) */
	CHART_SCALE_LOG10,
};

/* CHART_XY: a line y = slope * x + intercept across the whole plot, listed in the key. */
struct chart_refline {
	char *label;       /* key entry, e.g. "least squares" or "y = x" */
	double slope, intercept;
	int dashed;        /* 1: dashed grey (a reference such as y = x); 0: solid black (a fit) */
};

/* CHART_XY: a shaded stretch of the x axis behind the lines (a phase of a step), in its key's colour. */
struct chart_band {
	double x0, x1;
	char *key;         /* a name with a fixed colour (chart_style's colours), listed once in the key */
};

/* CHART_TIMELINE: a bar on a lane (category) and sub-row (series) over [x0, x1] of the x axis. */
struct chart_span {
	size_t lane, row;
	double x0, x1;
	char *key;  /* its colour's name (chart_style's colours), listed once in the key */
	char *tip;  /* its SVG tooltip, or NULL */
	int mark;   /* 1: drawn hatched over the row's bars (a wait inside a collective) */
};

/* CHART_TIMELINE: a point of the path across lanes; consecutive points are joined, across lanes vertically. */
struct chart_path_point {
	size_t lane;
	double x;
};

struct chart {
	const struct chart_kind *kind; /* CHART_STACKED_BAR, ...: not owned */
	char *name;        /* file stem: figures/<name>.{svg,pdf,png}; [a-z0-9_-] only */
	char *title;       /* drawn above the plot; may hold any text from an input */
	char *value_label; /* value axis label with its unit, e.g. "share of GPU time" or "time (ms)" */
	size_t ncat, cap_cat;
	char **categories; /* bar labels, e.g. "1gpu r0" or a kernel name */
	size_t nseries, cap_series;
	char **series;     /* legend entries, e.g. group names */
	double *values;    /* ncat * nseries, row-major by category; grown as categories/series are added */
	unsigned char *filled; /* the same layout: 1 where a value was set (chart_set, chart_add, chart_update) */
	size_t collisions;     /* chart_set calls on a filled cell (refused), and the first one's cell */
	size_t collision_cat, collision_series;
	char **cat_keys;   /* ncat: colour key of each category's bar (HBAR), NULL entries: none */
	char **cat_tips;   /* ncat: full text shown as an SVG tooltip (e.g. the whole kernel name), or NULL */
	size_t ref_series; /* LINE: 1 + the series drawn as a dashed grey reference (ideal scaling); 0: none */
	/*
	 * CHART_XY only. Category i is a point position: its label names the
	 * point (tooltips, point labels), x_values[i] its x; every series has a
	 * y per category (values[]). Points whose x or y is not finite, or not
	 * positive on a log axis, are skipped and the figure says how many.
	 */
	double *x_values;  /* ncat, NaN until chart_set_x() */
	/*
	 * The x axis title: with its unit on CHART_XY ("batch size"); what the
	 * categories are on vertical bar and line charts ("run, rank", "kernel
	 * group"). On CHART_HBAR, whose categories run down the y axis, it is
	 * that axis's title ("kernel", "run"). NULL: none
	 * (chart_use_run_labels() sets one for runs).
	 */
	char *x_label;
	enum chart_scale x_scale, y_scale;
	int from_zero;     /* linear axes start at 0 (or below) */
	int markers_only;  /* points without lines between them (a scatter) */
	int label_points;  /* print each category's label beside its points of series 0 */
	int sparse;        /* a NaN y is no point of that series (it has no such x), not a point skipped */
	/*
	 * CHART_XY: ncat flags; non-NULL (chart_mark_category): markers only at
	 * the marked categories (a line of 1000 ranks, a few of them chosen), the
	 * others joined by the line and named in their tooltips. NULL: every point.
	 */
	unsigned char *marked;
	/*
	 * CHART_XY: ncat radius factors of the categories' markers (1: the
	 * usual size; chart_set_point_size), NULL: every marker the usual size.
	 */
	double *point_size;
	size_t nrefs, cap_refs;
	struct chart_refline *refs;
	size_t nbands, cap_bands;
	struct chart_band *bands; /* CHART_XY: drawn under everything, in order */
	/*
	 * CHART_XY: nlike entries (series past them: 0): 1 + the series whose
	 * colour series s shares, drawn dashed and left out of the key (a
	 * rank's reserved bytes beside its allocated ones); 0: its own colour.
	 */
	size_t *like, nlike;
	char *note;        /* printed under the key: XY lines split at '\\n' (a fit's slope, R^2); column kinds wrap it */
	/*
	 * 1: the series are runs or configurations of runs ("GPT-2, ddp"),
	 * or quantities over runs ("measured", "estimated" against the batch
	 * size), not categories of time: drawn in black and greys (told apart by
	 * marker shape, or shade), never in the palette that means a kernel
	 * group, a part of a step or a copy kind. Series named like a run
	 * of the style are drawn so without it.
	 */
	int entity_series;
	/*
	 * The spread behind each category's value (HBAR: its bar; STACKED_BAR:
	 * the stack's total; LINE: the point of series 0), 4 per category:
	 * range_lo, range_hi (a thin whisker with caps, e.g. the fastest and
	 * slowest step), ci_lo, ci_hi (a thick bar over it, e.g. a confidence
	 * interval of the median). NaN: not drawn; NULL until chart_set_spread.
	 */
	double *spread;
	/* CHART_TIMELINE: the bars and marks, in any order, and the path (x_label titles the time axis). */
	size_t nspans, cap_spans;
	struct chart_span *spans;
	size_t npath, cap_path;
	struct chart_path_point *path;
	char *path_label;  /* the path's key entry, e.g. "critical path" */
};

/*
 * A name with one colour in every figure of every study, whatever chart it
 * is in: a series label or category key an analysis uses ("compute",
 * "HtoD", "forward"). colour is a position in the Okabe-Ito palette
 * (0 orange, 1 sky blue, 2 bluish green, 3 yellow, 4 blue, 5 vermillion,
 * 6 reddish purple, 7 black), CHART_COLOUR_EXTRA + i (i < 5: colour.c's
 * colours past the palette, 0 olive, 1 wine, 2 indigo, 3 rose, 4 teal) or
 * CHART_COLOUR_IDLE (light grey: no work).
 * The analyses own these names (analyze/lib/colours.c); the renderer knows none.
 */
#define CHART_COLOUR_IDLE 100
#define CHART_COLOUR_EXTRA 8
struct chart_colour {
	const char *name;
	size_t colour;
};

/*
 * Figure size and look; zero fields mean the defaults (7 in x 3.5 in, 300
 * dpi, DejaVu Sans at 8 pt, no hatching, automatic log scale).
 *
 * Colours have one meaning in every figure of every study. The Okabe-Ito
 * palette stands for categories of time: a series label or category key
 * found in groups[] takes the palette colour of its position there (groups
 * in the classification's order); a name in colours[] (what the analyses
 * call a part of a step, a copy kind, a phase, "idle") its fixed colour,
 * whatever else the chart holds; other names take, in
 * order, the palette colours that no series of the same chart has (past
 * eight, colours repeat; lines skip yellow, too pale on white). Runs
 * (a series named like runs[] or run_labels[], or a chart with
 * entity_series) are black and greys, darkest first in chart order, so a
 * colour never means a run in one figure and a kernel group in another;
 * a bar chart of one series without keys is grey.
 */
struct chart_style {
	double width_in, height_in;
	double dpi;
	const char *font;  /* font family, NULL: DejaVu Sans */
	double font_size;  /* base text size in pt; titles are larger, ticks smaller, none below 7 pt */
	int hatching;      /* 1: each colour also gets its own hatch pattern (greyscale print) */
	int log_scale;     /* 0 auto (positive bars spanning more than 100x), 1 always, -1 never; HBAR and GROUPED_BAR */
	const char *const *groups;
	size_t ngroups;
	const char *const *runs;
	const char *const *run_labels; /* nruns entries (NULL entries: none), or NULL */
	size_t nruns;
	const struct chart_colour *colours; /* fixed colours by name, after groups[]; NULL: none */
	size_t ncolours;
};

/*
 * The name a legend shows for a series or key: a few names perfstudy uses
 * in its tables get words ("cpu_other" -> "other host operators",
 * "cuda_runtime" -> "CUDA runtime"); in any other snake_case name
 * ([a-z0-9] words joined by single '_') each '_' becomes a space; names
 * like a metric's "dram__bytes.sum" stay. The tables keep the names as
 * they are. Returns a new string.
 */
char *chart_display_name(const char *name);

/*
 * Puts the manifest's run labels on a chart built from tables of run ids:
 * a category or series that is a run id, or a run id followed by a space
 * and more (" r0", " (log)"), gets the label in the id's place (the
 * longest matching id wins); so does an id standing alone in the title.
 * When every category was a run and the chart
 * has no x axis title, it gets "run", or "run, rank" when the categories
 * carry " r<N>". Ids without a label (NULL or "") are left as they are.
 */
void chart_use_run_labels(struct chart *c, const char *const *ids, const char *const *labels, size_t n);
/*
 * A per-rank category "<run> r<rank>" (as the analyses label a bar per run
 * and rank): returns 1 and sets *run_len (the run id's length) and *rank,
 * either may be NULL; 0 when s does not end in " r" and digits.
 */
int chart_rank_label(const char *s, size_t *run_len, long long *rank);

/*
 * Sets *w and *h (inches) for a size preset: "single" column 3.5 x 2.6,
 * "double" column 7 x 3.5, "slide" 10 x 5.625 (16:9). Returns 0, or -1 for an
 * unknown name.
 */
int chart_size_preset(const char *name, double *w, double *h);

struct chart *chart_new(const struct chart_kind *kind, const char *name, const char *title,
			const char *value_label);
void chart_free(struct chart *c);
/* 1 when c has nothing to draw: no category, or every value 0 or NaN. */
int chart_is_empty(const struct chart *c);
/* Adds a category or series (copying the label) and returns its index; values start at 0. */
size_t chart_add_category(struct chart *c, const char *label);
/* Keeps the categories i with keep[i] (ncat entries) and their values, keys, tips, x and spread, in order. */
void chart_keep_categories(struct chart *c, const unsigned char *keep);
size_t chart_add_series(struct chart *c, const char *label);
/*
 * Sets a cell once: a second chart_set of the same cell keeps the first
 * value and counts a collision (collisions, the first's cell in
 * collision_cat and collision_series); such a chart is not drawn
 * (result_add_figure). chart_add adds to a cell (a sum over parts);
 * chart_update replaces its value on purpose (a running mean).
 */
void chart_set(struct chart *c, size_t cat, size_t series, double v);
void chart_add(struct chart *c, size_t cat, size_t series, double v);
void chart_update(struct chart *c, size_t cat, size_t series, double v);
double chart_get(const struct chart *c, size_t cat, size_t series);
/* Sets a category's colour key (see chart_style) and its tooltip text; both are copied. */
void chart_set_category_key(struct chart *c, size_t cat, const char *key);
void chart_set_category_tip(struct chart *c, size_t cat, const char *tip);
/* CHART_XY: a marker at cat's points; once one category is marked, only marked ones get markers. */
void chart_mark_category(struct chart *c, size_t cat);
/* CHART_XY: category cat's markers drawn with size times the usual radius (a point sized by a quantity). */
void chart_set_point_size(struct chart *c, size_t cat, double size);
/* CHART_XY: the x of a category's points; the x axis label (copied) and scale; a reference line; the note. */
void chart_set_x(struct chart *c, size_t cat, double x);
void chart_set_x_axis(struct chart *c, const char *label, enum chart_scale scale);
void chart_add_refline(struct chart *c, const char *label, double slope, double intercept, int dashed);
/* CHART_XY: a shaded band over [x0, x1] in key's colour; series s drawn dashed in series like's colour. */
void chart_add_band(struct chart *c, double x0, double x1, const char *key);
void chart_series_like(struct chart *c, size_t s, size_t like);
void chart_set_note(struct chart *c, const char *note);
/* CHART_TIMELINE: a bar or mark (key and tip copied; tip may be NULL); a point of the path and its key entry. */
void chart_add_span(struct chart *c, size_t lane, size_t row, double x0, double x1, const char *key,
		    const char *tip, int mark);
void chart_add_path_point(struct chart *c, size_t lane, double x);
void chart_set_path_label(struct chart *c, const char *label);
/* A category's spread (see struct chart's spread); NaN for a part not drawn. HBAR, STACKED_BAR, LINE. */
void chart_set_spread(struct chart *c, size_t cat, double range_lo, double range_hi, double ci_lo, double ci_hi);
/*
 * CHART_XY: whether the point of category cat in series s can be drawn (x
 * and y finite, and positive on a log axis), and how many cannot; the
 * figure prints that count under its key.
 */
int chart_xy_drawable(const struct chart *c, size_t cat, size_t series);
size_t chart_xy_skipped(const struct chart *c);

/*
 * Writes dir/<name>.tex: a LaTeX figure environment that includes
 * figures/<name>.pdf at its natural size (the size its text was set for)
 * with the caption escaped for LaTeX; `figure*` when wider than one column
 * (3.5 in). Returns 0, or -1 after reporting through diag.
 */
int chart_write_latex(const struct chart *c, const char *dir, const char *caption,
		      const struct chart_style *style);

/*
 * Returns a new string (caller frees) holding s, or, when s has more than
 * max_chars characters, its start and end around an ellipsis (U+2026) so
 * that the result has exactly max_chars characters. Counts UTF-8 characters and never splits
 * one; the start keeps the extra character when the split is uneven.
 */
char *chart_shorten_middle(const char *s, size_t max_chars);

/*
 * Draws c into dir/<name>.svg, dir/<name>.pdf and dir/<name>.png (dir must
 * exist). Each file is written to <file>.tmp and renamed, so a failure leaves
 * any previous figure in place. Returns 0, or -1 after reporting through diag
 * (an I/O failure, or a name outside [a-z0-9_-]).
 *
 * How it looks: Okabe-Ito colours from the style's colour map, so a group or
 * run keeps its colour across figures; at most 8 names stay distinguishable
 * (hatching tells them apart in greyscale). DejaVu Sans (or the style's
 * font), nothing under 7 pt. The SVG carries the title as <title> and a
 * tooltip (<title>) over each bar and label with its full name and value. Labels
 * that do not fit are shortened in the middle; when there are more categories
 * than 7 pt lines fit, only every k-th category is labelled, so callers should
 * keep an HBAR to about 20 rows (or pass a taller style). Any text may come
 * from an input: invalid UTF-8 and control characters are drawn as U+FFFD and
 * spaces. A chart without categories or series draws "no data". The same
 * chart gives the same bytes in every format.
 */
int chart_write(const struct chart *c, const char *dir, const struct chart_style *style);

/*
 * chart_write and chart_write_latex (with captions[i]) for n charts, in up
 * to jobs processes (this one and jobs - 1 forked; chart_many.c says why not
 * threads): a figure is about 40 ms of cairo and zlib, and figures do not
 * depend on each other. Messages come out in figure order, as from one
 * process, up to the first figure that failed; returns 0, or -1 when one
 * did or a worker process died.
 */
int chart_write_many(const struct chart *const *charts, const char *const *captions, size_t n, const char *dir,
		     const struct chart_style *style, int jobs);

/*
 * Frees the memory chart_write keeps on the calling thread from one PNG to
 * the next (about 25 MB at 300 dpi); a thread that wrote charts calls it
 * before it ends. chart_write_many does so.
 */
void chart_render_release(void);

/* The figure's size in inches under style (defaults and presets applied). */
void chart_size(const struct chart_style *style, double *w_in, double *h_in);

#endif
