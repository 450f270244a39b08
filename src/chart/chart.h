/*
 * chart.h: the chart model, and the one call that draws it.
 *
 * A chart is data only: categories (one bar each), series (the stacked
 * segments, or one series for a plain bar chart), values, labels. Analyses
 * and the build command fill it from tables without knowing anything of
 * cairo; chart_render.c is the only file that includes cairo and draws a
 * model onto a surface. chart_write() writes the same drawing as SVG, PDF and
 * PNG, so every figure comes in every format.
 *
 * A chart owns every string and array in it; chart_free() releases them.
 */
#ifndef PERFSTUDY_CHART_H
#define PERFSTUDY_CHART_H

#include <stddef.h>

enum chart_kind {
	CHART_STACKED_BAR, /* vertical bars, one per category, segments per series */
	CHART_HBAR,        /* horizontal bars, one per category, series 0 only */
};

struct chart {
	enum chart_kind kind;
	char *name;        /* file stem: figures/<name>.{svg,pdf,png}; [a-z0-9_-] only */
	char *title;       /* drawn above the plot; may hold any text from an input */
	char *value_label; /* value axis label with its unit, e.g. "share of GPU time" or "time (ms)" */
	size_t ncat, cap_cat;
	char **categories; /* bar labels, e.g. "1gpu r0" or a kernel name */
	size_t nseries, cap_series;
	char **series;     /* legend entries, e.g. group names */
	double *values;    /* ncat * nseries, row-major by category; grown as categories/series are added */
};

/* Figure size and format options; zero fields mean the defaults (7 in x 3.5 in, 300 dpi). */
struct chart_style {
	double width_in, height_in;
	double dpi;
};

struct chart *chart_new(enum chart_kind kind, const char *name, const char *title,
			const char *value_label);
void chart_free(struct chart *c);
/* Adds a category or series (copying the label) and returns its index; values start at 0. */
size_t chart_add_category(struct chart *c, const char *label);
size_t chart_add_series(struct chart *c, const char *label);
void chart_set(struct chart *c, size_t cat, size_t series, double v);
double chart_get(const struct chart *c, size_t cat, size_t series);

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
 * How it looks: Okabe-Ito colours, series i in colour i (mod 8), so a caller
 * that keeps its series order keeps each group's colour across figures; at
 * most 8 series stay distinguishable. DejaVu Sans, nothing under 7 pt. Labels
 * that do not fit are shortened in the middle; when there are more categories
 * than 7 pt lines fit, only every k-th category is labelled, so callers should
 * keep an HBAR to about 20 rows (or pass a taller style). Any text may come
 * from an input: invalid UTF-8 and control characters are drawn as U+FFFD and
 * spaces. A chart without categories or series draws "no data". The same
 * chart gives the same bytes in every format.
 */
int chart_write(const struct chart *c, const char *dir, const struct chart_style *style);

#endif
